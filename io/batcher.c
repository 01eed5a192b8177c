/* batcher.c: see batcher.h. */
#include "batcher.h"

#include <stdlib.h>
#include <string.h>

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

/* 1 when lut is the table the arithmetic above reproduces (checked, not assumed). */
static int lut_is_plain_dna(const uint8_t lut[256])
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

void tsk_batcher_init(tsk_batcher *b, const tsk_params *p)
{
    memset(b, 0, sizeof *b);
    b->params = *p;
    tsk_encode_table(p->alphabet, b->lut);
    b->plain_dna = lut_is_plain_dna(b->lut);
    b->max_bases = INT64_C(1) << 26;   /* 64 Mbp of codes */
    b->max_rows = INT64_C(1) << 20;    /* bounds the output buffer: 1M rows */
    b->max_records = INT64_C(1) << 18;
}

void tsk_batcher_free(tsk_batcher *b)
{
    free(b->codes);
    free(b->offset);
    free(b->row_offset);
    free(b->info);
    free(b->string_at);
    free(b->strings);
    memset(b, 0, sizeof *b);
}

static int grow(void **p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Strings are kept as arena offsets while the arena may still move; tsk_batcher_batch turns
 * them into pointers. */
static size_t add_string(tsk_batcher *b, const char *s)
{
    size_t len = strlen(s) + 1;
    if (grow((void **)&b->strings, 1, b->strings_len + len, &b->strings_cap)) return (size_t)-1;
    memcpy(b->strings + b->strings_len, s, len);
    b->strings_len += len;
    return b->strings_len - len;
}

int tsk_batcher_add(tsk_batcher *b, const char *name, const char *source, const char *seq, size_t len,
                    int join_last)
{
    return tsk_batcher_add_text(b, name, source, seq, len, len, join_last);
}

int tsk_batcher_add_text(tsk_batcher *b, const char *name, const char *source, const char *text,
                         size_t text_len, size_t len, int join_last)
{
    int64_t base = b->n ? b->offset[b->n] : 0;
    size_t need = (size_t)base + text_len;
    if (grow((void **)&b->codes, 1, need, &b->codes_cap)) return -1;
    /* the line breaks of text are no letters: the table drops them like any other */
    size_t kept = b->plain_dna ? encode_dna(b->lut, text, text_len, b->codes + base)
                               : tsk_encode(b->lut, text, text_len, b->codes + base);
    if (join_last && b->n > 0) {
        tsk_record_info *r = &b->info[b->n - 1];
        r->raw_len += (int64_t)len;
        r->clean_len += (int64_t)kept;
        r->dropped = r->raw_len - r->clean_len;
        b->offset[b->n] += (int64_t)kept;
        return 0;
    }
    size_t cap = (size_t)b->cap;
    if ((size_t)b->n + 2 > cap) {
        /* all four arrays follow one capacity, cap records (string_at: 2 per record) */
        size_t c1 = cap, c2 = cap, c3 = cap, c4 = 2 * cap;
        if (grow((void **)&b->offset, sizeof *b->offset, (size_t)b->n + 2, &c1) ||
            grow((void **)&b->row_offset, sizeof *b->row_offset, c1, &c2) ||
            grow((void **)&b->info, sizeof *b->info, c1, &c3) ||
            grow((void **)&b->string_at, sizeof *b->string_at, 2 * c1, &c4))
            return -1;
        b->cap = (int64_t)c1;
    }
    size_t name_at = add_string(b, name), source_at = add_string(b, source);
    if (name_at == (size_t)-1 || source_at == (size_t)-1) return -1;
    tsk_record_info *r = &b->info[b->n];
    memset(r, 0, sizeof *r);
    b->string_at[2 * b->n] = name_at;
    b->string_at[2 * b->n + 1] = source_at;
    r->raw_len = (int64_t)len;
    r->clean_len = (int64_t)kept;
    r->dropped = (int64_t)(len - kept);
    b->offset[b->n] = base;
    b->offset[b->n + 1] = base + (int64_t)kept;
    b->n++;
    return 0;
}

int tsk_batcher_full(const tsk_batcher *b)
{
    if (b->n == 0) return 0;
    if (b->n >= b->max_records || b->offset[b->n] >= b->max_bases) return 1;
    int64_t rows = 0;
    if (b->params.window > 0) rows = b->offset[b->n] / b->params.stride;
    else rows = b->n;
    return rows >= b->max_rows;
}

tsk_batch tsk_batcher_batch(tsk_batcher *b)
{
    int64_t rows = 0;
    b->short_records = 0;
    for (int64_t i = 0; i < b->n; i++) {
        tsk_record_info *r = &b->info[i];
        r->name = b->strings + b->string_at[2 * i];
        r->source = b->strings + b->string_at[2 * i + 1];
        b->row_offset[i] = rows;
        r->n_rows = tsk_rows_for_length(&b->params, r->clean_len);
        rows += r->n_rows;
        b->short_records += r->clean_len < b->params.t;
    }
    if (b->n) b->row_offset[b->n] = rows;
    tsk_batch batch = {b->n, b->codes, b->offset, b->row_offset};
    if (!b->n) {
        static const int64_t zero = 0;
        batch.offset = batch.row_offset = &zero;
    }
    return batch;
}

void tsk_batcher_reset(tsk_batcher *b)
{
    b->n = 0;
    b->strings_len = 0;
    b->short_records = 0;
}
