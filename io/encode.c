/* encode.c: see encode.h. */
#include "encode.h"

#include <string.h>

#include "../core/tsk_def.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* DNA letters (A C G T U, either case) are the bytes x with (x & 0xDF) one of these five, and
 * their codes ((x >> 1) ^ (x >> 2)) & 3: arithmetic that compilers vectorize, unlike a table
 * lookup with a data-dependent store. */
static inline int is_dna_letter(uint8_t x)
{
    x &= 0xDF;
    return x == 'A' || x == 'C' || x == 'G' || x == 'T' || x == 'U';
}
static inline uint8_t dna_code(uint8_t x) { return (uint8_t)(((x >> 1) ^ (x >> 2)) & 3); }

int tsk_lut_is_plain_dna(const uint8_t lut[256])
{
    for (int c = 0; c < 256; c++) {
        int letter = is_dna_letter((uint8_t)c);
        if (letter != (lut[c] != TSK_CODE_SKIP) || (letter && lut[c] != dna_code((uint8_t)c))) return 0;
    }
    return 1;
}

/* tsk_encode for DNA, 16 bytes at a time: a block that starts with k letters stores their codes
 * at once (and garbage after them, overwritten next: codes never run ahead of raw), then the
 * byte that stopped it (a line break, an N) goes through the table. Same result as tsk_encode. */
static size_t encode_dna(const uint8_t lut[256], const char *raw, size_t len, uint8_t *codes)
{
    size_t i = 0, n = 0;
#if defined(__SSE2__)
    const __m128i case_mask = _mm_set1_epi8((char)0xDF), three = _mm_set1_epi8(3);
    const __m128i a = _mm_set1_epi8('A'), c = _mm_set1_epi8('C'), g = _mm_set1_epi8('G'),
                  t = _mm_set1_epi8('T'), u = _mm_set1_epi8('U');
    while (i + 16 <= len) {
        __m128i v = _mm_loadu_si128((const __m128i *)(raw + i));
        __m128i x = _mm_and_si128(v, case_mask);
        __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, a), _mm_cmpeq_epi8(x, c)),
                                  _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, g), _mm_cmpeq_epi8(x, t)),
                                               _mm_cmpeq_epi8(x, u)));
        unsigned letters = (unsigned)_mm_movemask_epi8(ok);
        /* ((x >> 1) ^ (x >> 2)) & 3 per byte; 16-bit shifts only move bits the mask drops */
        __m128i code = _mm_and_si128(_mm_xor_si128(_mm_srli_epi16(v, 1), _mm_srli_epi16(v, 2)), three);
        _mm_storeu_si128((__m128i *)(codes + n), code);
        if (letters == 0xFFFFu) {
            i += 16;
            n += 16;
            continue;
        }
        unsigned run = (unsigned)__builtin_ctz(~letters);
        n += run;
        i += run;
        uint8_t k = lut[(uint8_t)raw[i++]];
        codes[n] = k;
        n += k != TSK_CODE_SKIP;
    }
#endif
    return n + tsk_encode(lut, raw + i, len - i, codes + n);
}

size_t tsk_encode_text(const uint8_t lut[256], int plain_dna, const char *text, size_t len, uint8_t *codes)
{
    return plain_dna ? encode_dna(lut, text, len, codes) : tsk_encode(lut, text, len, codes);
}

size_t tsk_count_byte(const char *p, size_t n, char c)
{
    size_t k = 0;
    for (const char *q = memchr(p, c, n); q; q = memchr(q + 1, c, n - (size_t)(q + 1 - p))) k++;
    return k;
}

size_t tsk_count_raw(const char *p, size_t n) { return n - tsk_count_byte(p, n, '\n') - tsk_count_byte(p, n, '\r'); }
