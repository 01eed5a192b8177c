/* genome_scan.c: candidate keys of anchored windows from a genome's codes (genome_scan.h). */
#include "genome_scan.h"

#include <stdlib.h>
#include <string.h>

#include "../core/genome_keys.h"
#include "../core/tsk_knobs.h"

#if defined(__SSSE3__)
#include <tmmintrin.h>
#define HAVE_NARROW 1
#else
#define HAVE_NARROW 0
#endif

int tsk_key_vec_reserve(tsk_key_vec *v, int64_t extra)
{
    if (v->n + extra <= v->cap) return 0;
    int64_t cap = v->cap ? v->cap : 1024;
    while (cap < v->n + extra) cap *= 2;
    uint64_t *k = realloc(v->keys, (size_t)cap * sizeof *k);
    if (!k) return -1;
    v->keys = k;
    v->cap = cap;
    return 0;
}

void tsk_key_vec_free(tsk_key_vec *v)
{
    free(v->keys);
    memset(v, 0, sizeof *v);
}

int tsk_anchor_vec_reserve(tsk_anchor_vec *v, int64_t extra)
{
    if (v->n + extra <= v->cap) return 0;
    int64_t cap = v->cap ? v->cap : 1024;
    while (cap < v->n + extra) cap *= 2;
    int64_t *seg = realloc(v->segment, (size_t)cap * sizeof *seg);
    if (!seg) return -1;
    v->segment = seg;
    uint64_t *h = realloc(v->hash, (size_t)cap * sizeof *h);
    if (!h) return -1;
    v->hash = h;
    v->cap = cap;
    return 0;
}

void tsk_anchor_vec_free(tsk_anchor_vec *v)
{
    free(v->segment);
    free(v->hash);
    memset(v, 0, sizeof *v);
}

struct tsk_genome_scanner {
    const tsk_params *p;
    int dim, t;
    int64_t w;
    /* Counts modulo 2^32 (unsigned, so wrapping is defined): the DP is linear with integer
     * coefficients, so the last level comes out right modulo 2^32, and a genome sketch's final
     * counts are at most 2 C(W, t) <= 1.6e6 in size (tsk_genome_params_check), so that residue read
     * as int32 is the count itself, even where a middle level (t > W/2) would overflow. */
    uint32_t *level;   /* (t + 1) x dim */
    uint32_t *sum;     /* dim: the window's integer sketch */
    uint8_t *rc;       /* the window's reverse complement */
    tsk_genome_scan_kernel kernel;  /* of the anchor loop and the window DP */
    uint32_t *sum4;    /* 4 x dim: the sketches of four windows whose fingerprints chain together */
    /* the 16-lane path (dim 16, 2 C(W, t) < 2^15): counts modulo 2^16 in one 128-bit register per
     * level; level q's shift for letter c is a byte shuffle, its sign a lane sign */
    int narrow;
    uint8_t shuffle[TSK_MAX_T][4][4][16]; /* level, letter: lo from lo, lo from hi, hi from lo, hi from hi */
    int16_t sign16[TSK_MAX_T][4][8];
    int16_t unit[4][TSK_MAX_T][16];       /* letter c: level 1 of e_0 after c (index [c][0]) */
    /* the AVX-512 window DP: both strands in one register of 32 lanes (bins of the window, then of
     * its reverse complement), for letter c of the window and c' of its complement at the same step:
     * the lanes each takes (vpermw) and their signs, level by level; level 1's unit */
    int16_t (*perm32)[4][4][32];          /* [t][c][c'] */
    int16_t (*sign32)[4][4][32];
    int16_t unit32[4][4][32];
};

tsk_genome_scanner *tsk_genome_scanner_new(const tsk_params *p)
{
    tsk_genome_scanner *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->p = p;
    s->dim = p->dim;
    s->t = p->t;
    s->w = p->window;
    s->level = malloc((size_t)(p->t + 1) * (size_t)p->dim * sizeof *s->level);
    s->sum = malloc((size_t)p->dim * sizeof *s->sum);
    s->sum4 = malloc(4 * (size_t)p->dim * sizeof *s->sum4);
    s->rc = malloc((size_t)(p->window > 0 ? p->window : 1));
    if (!s->level || !s->sum || !s->rc || !s->sum4) {
        tsk_genome_scanner_free(s);
        return NULL;
    }
    /* counts modulo 2^16 are the counts when the sum of both strands' (at most 2 C(W, t)) fits int16 */
    double choose = 1;
    for (int j = 0; j < p->t; j++) choose = choose * (double)(p->window - j) / (double)(j + 1);
    s->narrow = HAVE_NARROW && p->dim == 16 && p->alphabet == TSK_DNA && 2 * choose < 32768;
    for (int q = 0; q < p->t && s->narrow; q++)
        for (int c = 0; c < 4; c++) {
            const int h = p->hash[q][c];
            /* destination lane l (bytes 2l, 2l+1 of lo for l < 8, of hi beyond) takes lane (l - h)
             * mod 16: from lo through the `from_lo` mask or from hi through `from_hi`, the other
             * mask zeroing it (byte 0x80) */
            for (int l = 0; l < 16; l++) {
                const int m = (l - h + 16) % 16, half = l / 8, at = 2 * (l % 8);
                uint8_t *from_lo = s->shuffle[q][c][2 * half], *from_hi = s->shuffle[q][c][2 * half + 1];
                from_lo[at] = from_lo[at + 1] = from_hi[at] = from_hi[at + 1] = 0x80;
                uint8_t *take = m < 8 ? from_lo : from_hi;
                take[at] = (uint8_t)(2 * (m % 8));
                take[at + 1] = (uint8_t)(2 * (m % 8) + 1);
            }
            for (int l = 0; l < 8; l++) s->sign16[q][c][l] = p->sign[q][c];
            memset(s->unit[c][q], 0, sizeof s->unit[c][q]);
        }
    for (int c = 0; c < 4 && s->narrow; c++) s->unit[c][0][p->hash[0][c]] = (int16_t)p->sign[0][c];
    if (s->narrow && p->canonical) {
        s->perm32 = malloc((size_t)p->t * sizeof *s->perm32);
        s->sign32 = malloc((size_t)p->t * sizeof *s->sign32);
        if (!s->perm32 || !s->sign32) {
            tsk_genome_scanner_free(s);
            return NULL;
        }
        for (int q = 0; q < p->t; q++)
            for (int c = 0; c < 4; c++)
                for (int r = 0; r < 4; r++)
                    for (int l = 0; l < 16; l++) {
                        s->perm32[q][c][r][l] = (int16_t)((l - p->hash[q][c] + 16) % 16);
                        s->perm32[q][c][r][16 + l] = (int16_t)(16 + (l - p->hash[q][r] + 16) % 16);
                        s->sign32[q][c][r][l] = p->sign[q][c];
                        s->sign32[q][c][r][16 + l] = p->sign[q][r];
                    }
        memset(s->unit32, 0, sizeof s->unit32);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) {
                s->unit32[c][r][p->hash[0][c]] = (int16_t)p->sign[0][c];
                s->unit32[c][r][16 + p->hash[0][r]] = (int16_t)(s->unit32[c][r][16 + p->hash[0][r]] + p->sign[0][r]);
            }
    }
    /* the widest anchor loop, unless TSKETCH_SCAN_KERNEL says otherwise */
    const tsk_knob_kernel want = tsk_knobs_get()->scan_kernel;
    s->kernel = TSK_GENOME_SCAN_PORTABLE;
    if (want == TSK_KNOB_AUTO || want == TSK_KNOB_AVX512) tsk_genome_scanner_use_kernel(s, TSK_GENOME_SCAN_AVX512);
    return s;
}

void tsk_genome_scanner_free(tsk_genome_scanner *s)
{
    if (!s) return;
    free(s->perm32);
    free(s->sign32);
    free(s->level);
    free(s->sum);
    free(s->sum4);
    free(s->rc);
    free(s);
}

/* The counting DP (docs/spec.md, counts instead of means) of x[0..w) added to acc[0..D): level p
 * gains sign x level p-1 shifted by hash, for p from the highest level reached down to 1. The
 * shift is two contiguous runs (bins [h, D) read [0, D-h), bins [0, h) read [D-h, D)), so the inner
 * loops vectorize. D is a constant where this is inlined for the default dimension. */
static inline __attribute__((always_inline)) void window_dp(const tsk_params *p, const int D, const int t,
                                                           uint32_t *restrict lv, const uint8_t *x, int64_t w,
                                                           uint32_t *restrict acc)
{
    memset(lv, 0, (size_t)(t + 1) * (size_t)D * sizeof *lv);
    lv[0] = 1;
    for (int64_t i = 0; i < w; i++) {
        const int c = x[i];
        const int top = i + 1 < t ? (int)i + 1 : t;
        for (int q = top; q >= 2; q--) {
            const int h = p->hash[q - 1][c];
            uint32_t *restrict dst = lv + (size_t)q * (size_t)D;
            const uint32_t *restrict src = lv + (size_t)(q - 1) * (size_t)D;
            if (p->sign[q - 1][c] > 0) {
                for (int l = 0; l < D - h; l++) dst[l + h] += src[l];
                for (int l = 0; l < h; l++) dst[l] += src[D - h + l];
            } else {
                for (int l = 0; l < D - h; l++) dst[l + h] -= src[l];
                for (int l = 0; l < h; l++) dst[l] -= src[D - h + l];
            }
        }
        /* level 1 from level 0 = e_0: one bin */
        if (p->sign[0][c] > 0) lv[D + p->hash[0][c]] += 1;
        else lv[D + p->hash[0][c]] -= 1;
    }
    const uint32_t *last = lv + (size_t)t * (size_t)D;
    for (int l = 0; l < D; l++) acc[l] += last[l];
}

#if HAVE_NARROW
/* window_dp for dim 16 in counts modulo 2^16: a level is two registers of eight lanes (bins 0-7,
 * 8-15); its shift is two byte shuffles of each and an or, its sign psignw. Levels stay in
 * registers (t is a constant where this is inlined). */
static inline __attribute__((always_inline)) void window_dp16(const tsk_genome_scanner *s, const int t,
                                                             const uint8_t *x, int64_t w, __m128i acc[2])
{
    __m128i lo[TSK_MAX_T + 1], hi[TSK_MAX_T + 1];
    for (int q = 1; q <= t; q++) lo[q] = hi[q] = _mm_setzero_si128();
    for (int64_t i = 0; i < w; i++) {
        const int c = x[i];
        const int top = i + 1 < t ? (int)i + 1 : t;
        for (int q = top; q >= 2; q--) {
            const __m128i *m = (const __m128i *)s->shuffle[q - 1][c];
            const __m128i sg = _mm_loadu_si128((const __m128i *)s->sign16[q - 1][c]);
            const __m128i rlo = _mm_or_si128(_mm_shuffle_epi8(lo[q - 1], _mm_loadu_si128(m)),
                                             _mm_shuffle_epi8(hi[q - 1], _mm_loadu_si128(m + 1)));
            const __m128i rhi = _mm_or_si128(_mm_shuffle_epi8(lo[q - 1], _mm_loadu_si128(m + 2)),
                                             _mm_shuffle_epi8(hi[q - 1], _mm_loadu_si128(m + 3)));
            lo[q] = _mm_add_epi16(lo[q], _mm_sign_epi16(rlo, sg));
            hi[q] = _mm_add_epi16(hi[q], _mm_sign_epi16(rhi, sg));
        }
        const __m128i *u = (const __m128i *)s->unit[c][0];
        lo[1] = _mm_add_epi16(lo[1], _mm_loadu_si128(u));
        hi[1] = _mm_add_epi16(hi[1], _mm_loadu_si128(u + 1));
    }
    acc[0] = _mm_add_epi16(acc[0], lo[t]);
    acc[1] = _mm_add_epi16(acc[1], hi[t]);
}

static inline __attribute__((always_inline)) void window_counts16(tsk_genome_scanner *s, const int t,
                                                                 const uint8_t *x)
{
    __m128i acc[2] = {_mm_setzero_si128(), _mm_setzero_si128()};
    window_dp16(s, t, x, s->w, acc);
    if (s->p->canonical) {
        for (int64_t i = 0; i < s->w; i++) s->rc[i] = (uint8_t)(3 - x[s->w - 1 - i]);
        window_dp16(s, t, s->rc, s->w, acc);
    }
    int16_t v[16];
    _mm_storeu_si128((__m128i *)v, acc[0]);
    _mm_storeu_si128((__m128i *)(v + 8), acc[1]);
    for (int l = 0; l < 16; l++) s->sum[l] = (uint32_t)(int32_t)v[l]; /* the count, sign-extended */
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX512_WINDOWS 1
/* window_counts16 of a canonical window with AVX-512 (BW): both strands at once, a level's shift
 * one vpermw of 32 lanes (the window's bins, then its reverse complement's), its sign a multiply
 * by +-1; the strands' counts are added at the end. Counts modulo 2^16, as there. */
__attribute__((target("avx512f,avx512bw"))) static void window_counts_avx512(tsk_genome_scanner *s, const uint8_t *x)
{
    const int t = s->t;
    const int64_t w = s->w;
    __m512i lv[TSK_MAX_T + 1];
    for (int q = 1; q <= t; q++) lv[q] = _mm512_setzero_si512();
    for (int64_t i = 0; i < w; i++) {
        const int c = x[i], r = 3 - x[w - 1 - i]; /* the letters of both strands at step i */
        const int top = i + 1 < t ? (int)i + 1 : t;
        for (int q = top; q >= 2; q--) {
            const __m512i idx = _mm512_loadu_si512(s->perm32[q - 1][c][r]);
            const __m512i sg = _mm512_loadu_si512(s->sign32[q - 1][c][r]);
            lv[q] = _mm512_add_epi16(lv[q], _mm512_mullo_epi16(_mm512_permutexvar_epi16(idx, lv[q - 1]), sg));
        }
        lv[1] = _mm512_add_epi16(lv[1], _mm512_loadu_si512(s->unit32[c][r]));
    }
    const __m256i both = _mm256_add_epi16(_mm512_castsi512_si256(lv[t]), _mm512_extracti64x4_epi64(lv[t], 1));
    _mm512_storeu_si512(s->sum, _mm512_cvtepi16_epi32(both)); /* the counts, sign-extended */
}
#else
#define HAVE_AVX512_WINDOWS 0
#endif

static inline __attribute__((always_inline)) void window_counts(tsk_genome_scanner *s, const int D,
                                                               const uint8_t *x)
{
    const tsk_params *p = s->p;
#if HAVE_AVX512_WINDOWS
    if (D == 16 && s->kernel == TSK_GENOME_SCAN_AVX512 && s->perm32) {
        window_counts_avx512(s, x);
        return;
    }
#endif
#if HAVE_NARROW
    if (D == 16 && s->narrow) {
        if (s->t == 4) window_counts16(s, 4, x); /* the default, its levels unrolled */
        else window_counts16(s, s->t, x);
        return;
    }
#endif
    memset(s->sum, 0, (size_t)D * sizeof *s->sum);
    window_dp(p, D, s->t, s->level, x, s->w, s->sum);
    if (p->canonical) {
        for (int64_t i = 0; i < s->w; i++) s->rc[i] = (uint8_t)(3 - x[s->w - 1 - i]);
        window_dp(p, D, s->t, s->level, s->rc, s->w, s->sum);
    }
}

void tsk_genome_window_counts(tsk_genome_scanner *s, const uint8_t *codes, int64_t w, int32_t *out)
{
    const int64_t saved = s->w;
    s->w = w;
    window_counts(s, s->dim, codes);
    s->w = saved;
    for (int l = 0; l < s->dim; l++) out[l] = (int32_t)s->sum[l];
}

/* The fingerprint of the integer sketch in s->sum (tsk_genome_key_of_sketch). */
static inline uint64_t fingerprint(const tsk_genome_scanner *s, const int D)
{
    uint64_t h = s->p->seed;
    for (int r = 0; r < D; r++) h = tsk_genome_chain_step(h, r, s->sum[r]);
    return h;
}

/* fingerprint of the four sketches in s->sum4, their chains interleaved. */
static inline __attribute__((always_inline)) void fingerprint4(const tsk_genome_scanner *s, const int D, uint64_t h[4])
{
    for (int q = 0; q < 4; q++) h[q] = s->p->seed;
    for (int r = 0; r < D; r++)
        for (int q = 0; q < 4; q++)
            h[q] = tsk_genome_chain_step(h[q], r, s->sum4[(size_t)q * (size_t)D + (size_t)r]);
}

/* Anchors found by the hash loop, sketched afterwards, so the loop stays a few instructions a base. */
enum { BATCH = 256 };

/* The anchor hash of the canonical k-mer word: splitmix64_next of it, the increment and then the
 * output function (core/tsk_def.c). */
static inline uint64_t anchor_hash(uint64_t canonical, uint64_t seed)
{
    return tsk_mix64((canonical ^ seed) + UINT64_C(0x9E3779B97F4A7C15));
}

/* The anchors (hash at most max_hash) of the k-mers starting at at, at + 1, .. < to, into
 * found_at/found_hash from *nf on, until cap are found; returns where it stopped. */
static int64_t anchors_portable(const uint8_t *codes, int k, uint64_t seed, uint64_t max_hash, int64_t at,
                                int64_t to, int64_t *found_at, uint64_t *found_hash, int *nf, int cap)
{
    const uint64_t mask = k == 32 ? UINT64_MAX : (UINT64_C(1) << (2 * k)) - 1;
    const int rc_shift = 2 * (k - 1);
    uint64_t fw = 0, rc = 0;
    for (int64_t i = at; i < at + k - 1; i++) {
        const uint64_t c = codes[i] & 3;
        fw = ((fw << 2) | c) & mask;
        rc = (rc >> 2) | ((3 - c) << rc_shift);
    }
    const uint8_t *x = codes + k - 1; /* x[at]: the last letter of the k-mer at `at` */
    int n = *nf;
    for (; at < to && n < cap; at++) {
        const uint64_t c = x[at] & 3;
        fw = ((fw << 2) | c) & mask;
        rc = (rc >> 2) | ((3 - c) << rc_shift);
        const uint64_t h = anchor_hash(fw < rc ? fw : rc, seed);
        found_at[n] = at;
        found_hash[n] = h;
        n += h <= max_hash;
    }
    *nf = n;
    return at;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX512_ANCHORS 1
/* anchors_portable for eight k-mers at a time (k <= 25), while eight positions remain and eight
 * more anchors fit. The last K = k + 7 letters are kept packed two bits each in two words: fw_hist
 * with the newest letter lowest (the k-mer starting at at + j is fw_hist >> 2 (7 - j), masked) and
 * rc_hist with the newest complement highest (its reverse complement is rc_hist >> 2 j, masked);
 * eight new letters enter both with one load, a byte swap and a bit extraction; the hashes, the
 * canonical minimum and the test run on eight 64-bit lanes. */
__attribute__((target("avx512f,avx512dq,bmi2"))) static int64_t
anchors_avx512(const uint8_t *codes, int k, uint64_t seed, uint64_t max_hash, int64_t at, int64_t to,
               int64_t *found_at, uint64_t *found_hash, int *nf, int cap)
{
    const int K = k + 7;
    const uint64_t letters = UINT64_C(0x0303030303030303);
    uint64_t fw_hist = 0, rc_hist = 0;
    /* the letters before the first group: at - 8 .. at + k - 2 (those before 0 never reach a lane) */
    for (int64_t i = at - 8 < 0 ? 0 : at - 8; i < at + k - 1; i++) {
        const uint64_t c = codes[i] & 3;
        fw_hist = (fw_hist << 2) | c;
        rc_hist = (rc_hist >> 2) | ((3 - c) << (2 * (K - 1)));
    }
    const __m512i mask = _mm512_set1_epi64(k == 32 ? -1 : (long long)((UINT64_C(1) << (2 * k)) - 1));
    const __m512i fw_shift = _mm512_setr_epi64(14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i rc_shift = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const __m512i seed_v = _mm512_set1_epi64((long long)seed);
    const __m512i gamma = _mm512_set1_epi64((long long)UINT64_C(0x9E3779B97F4A7C15));
    const __m512i m1 = _mm512_set1_epi64((long long)UINT64_C(0xBF58476D1CE4E5B9));
    const __m512i m2 = _mm512_set1_epi64((long long)UINT64_C(0x94D049BB133111EB));
    const __m512i bound = _mm512_set1_epi64((long long)max_hash);
    int n = *nf;
    for (; at + 8 <= to && n + 8 <= cap; at += 8) {
        uint64_t eight; /* letters at + k - 1 .. at + k + 6, the last of each lane's k-mer */
        memcpy(&eight, codes + at + k - 1, 8);
        eight &= letters;
        fw_hist = (fw_hist << 16) | _pext_u64(__builtin_bswap64(eight), letters);
        rc_hist = (rc_hist >> 16) | (_pext_u64(~eight, letters) << (2 * K - 16));
        const __m512i fw = _mm512_and_si512(_mm512_srlv_epi64(_mm512_set1_epi64((long long)fw_hist), fw_shift), mask);
        const __m512i rc = _mm512_and_si512(_mm512_srlv_epi64(_mm512_set1_epi64((long long)rc_hist), rc_shift), mask);
        __m512i z = _mm512_add_epi64(_mm512_xor_si512(_mm512_min_epu64(fw, rc), seed_v), gamma);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), m1);
        z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), m2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        __mmask8 hit = _mm512_cmple_epu64_mask(z, bound);
        if (hit) {
            uint64_t h[8];
            _mm512_storeu_si512(h, z);
            for (; hit; hit &= (__mmask8)(hit - 1)) {
                const int j = __builtin_ctz(hit);
                found_at[n] = at + j;
                found_hash[n++] = h[j];
            }
        }
    }
    *nf = n;
    return at;
}

static int avx512_anchors_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
}
#else
#define HAVE_AVX512_ANCHORS 0
#endif

/* The scan, with D a constant where it is inlined (see tsk_genome_scan). The anchor loop covers
 * the positions of both what out wants (anchors whose window fits the contig, hash at most
 * max_hash) and what ani wants (every anchor k-mer, hash at most its bound), with the larger
 * bound; each anchor found is then sorted to either or both. */
static inline __attribute__((always_inline)) int scan(tsk_genome_scanner *s, const int D, const uint8_t *codes,
                                                     int64_t n, int64_t from, int64_t to, uint64_t max_hash,
                                                     tsk_key_vec *out, const tsk_anchor_request *ani)
{
    const tsk_params *p = s->p;
    const int k = p->anchor_k;
    const int64_t w = p->window;
    if (k <= 0) return 0;
    if (from < 0) from = 0;
    if (to > n - k + 1) to = n - k + 1;
    /* keys: the k-mer at `at` is an anchor with a window when its window [at + k/2 - w/2, .. + w)
     * fits in [0, n): at from max(from, w/2 - k/2) to min(to, n - w - k/2 + w/2 + 1) */
    const int64_t lead = w / 2 - k / 2;
    int64_t key_from = from < lead ? lead : from, key_to = to > n - w + lead + 1 ? n - w + lead + 1 : to;
    if (!out || key_from >= key_to) key_from = key_to = 0;
    /* segment anchors: the k-mers that end by the last full segment's end, each wholly inside a
     * segment; every other k-mer is loose */
    const int64_t seg_end = n / TSK_ANI_SEGMENT * TSK_ANI_SEGMENT;
    int64_t ani_from = from, ani_to = to;
    if (!ani || ani_from >= ani_to) ani_from = ani_to = 0;
    int64_t lo, hi;
    uint64_t bound;
    if (key_from < key_to && ani_from < ani_to) {
        lo = key_from < ani_from ? key_from : ani_from;
        hi = key_to > ani_to ? key_to : ani_to;
        bound = max_hash > ani->max_hash ? max_hash : ani->max_hash;
    } else if (key_from < key_to) {
        lo = key_from, hi = key_to, bound = max_hash;
    } else if (ani_from < ani_to) {
        lo = ani_from, hi = ani_to, bound = ani->max_hash;
    } else {
        return 0;
    }
    int64_t found_at[BATCH];
    uint64_t found_hash[BATCH];
    for (int64_t at = lo; at < hi;) {
        int nf = 0;
#if HAVE_AVX512_ANCHORS
        if (s->kernel == TSK_GENOME_SCAN_AVX512 && hi - at >= 8)
            at = anchors_avx512(codes, k, p->seed, bound, at, hi, found_at, found_hash, &nf, BATCH);
        else
#endif
            at = anchors_portable(codes, k, p->seed, bound, at, hi, found_at, found_hash, &nf, BATCH);
        if (ani) {
            if (tsk_anchor_vec_reserve(ani->out, nf)) return -1;
            tsk_anchor_vec *v = ani->out;
            for (int j = 0; j < nf; j++) {
                const int64_t x = found_at[j];
                const int64_t seg = x / TSK_ANI_SEGMENT;
                if (x >= ani_from && x < ani_to && found_hash[j] <= ani->max_hash) {
                    const int inside = x + k <= seg_end && (x + k - 1) / TSK_ANI_SEGMENT == seg;
                    v->segment[v->n] = inside ? ani->first_segment + seg : TSK_ANCHOR_LOOSE;
                    v->hash[v->n++] = found_hash[j];
                }
            }
            /* keep those for the keys (in place: never ahead of the reading) */
            int m = 0;
            for (int j = 0; j < nf; j++) {
                const int64_t x = found_at[j];
                if (x >= key_from && x < key_to && found_hash[j] <= max_hash) {
                    found_at[m] = x;
                    found_hash[m++] = found_hash[j];
                }
            }
            nf = m;
        }
        if (!nf) continue;
        if (tsk_key_vec_reserve(out, nf)) return -1;
        int j = 0;
        for (; j + 4 <= nf; j += 4) { /* four fingerprint chains side by side: each is D dependent mixes */
            for (int q = 0; q < 4; q++) {
                window_counts(s, D, codes + found_at[j + q] - lead);
                memcpy(s->sum4 + (size_t)q * (size_t)D, s->sum, (size_t)D * sizeof *s->sum);
            }
            uint64_t h[4];
            fingerprint4(s, D, h);
            for (int q = 0; q < 4; q++) out->keys[out->n++] = tsk_genome_key_join(found_hash[j + q], h[q]);
        }
        for (; j < nf; j++) {
            window_counts(s, D, codes + found_at[j] - lead);
            out->keys[out->n++] = tsk_genome_key_join(found_hash[j], fingerprint(s, D));
        }
    }
    return 0;
}

int tsk_genome_scanner_use_kernel(tsk_genome_scanner *s, tsk_genome_scan_kernel kernel)
{
    if (kernel == TSK_GENOME_SCAN_PORTABLE) {
        s->kernel = kernel;
        return 0;
    }
#if HAVE_AVX512_ANCHORS
    if (kernel == TSK_GENOME_SCAN_AVX512 && avx512_anchors_available() && s->p->anchor_k <= 25) {
        s->kernel = kernel;
        return 0;
    }
#endif
    return -1;
}

tsk_genome_scan_kernel tsk_genome_scanner_kernel(const tsk_genome_scanner *s) { return s->kernel; }

int tsk_genome_scan_with_anchors(tsk_genome_scanner *s, const uint8_t *codes, int64_t n, int64_t from, int64_t to,
                                 uint64_t max_hash, tsk_key_vec *out, const tsk_anchor_request *ani)
{
    /* the default dimension (16) as a constant: its loops unroll into a few vector operations */
    if (s->dim == 16) return scan(s, 16, codes, n, from, to, max_hash, out, ani);
    return scan(s, s->dim, codes, n, from, to, max_hash, out, ani);
}

int tsk_genome_scan(tsk_genome_scanner *s, const uint8_t *codes, int64_t n, int64_t from, int64_t to,
                    uint64_t max_hash, tsk_key_vec *out)
{
    return tsk_genome_scan_with_anchors(s, codes, n, from, to, max_hash, out, NULL);
}
