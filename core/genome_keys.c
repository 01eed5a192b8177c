/* genome_keys.c: window keys and the genome distance (genome_keys.h). */
#include "genome_keys.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *tsk_genome_params_check(const tsk_params *p)
{
    if (p->scaled < 1) return "scaled must be at least 1";
    if (p->stride != p->scaled) return "genome sketches place anchors by scaled: the stride must equal scaled";
    if (p->min_keys < 0 || p->min_keys > TSK_GENOME_MAX_MIN_KEYS) return "min keys (the size floor) must be 0..1e9";
    if (p->floor_stride < 0 || p->floor_stride > TSK_GENOME_MAX_FLOOR_STRIDE)
        return "the floor stride must be 1..4294967296";
    if (p->alphabet != TSK_DNA) return "genome sketches need the dna alphabet";
    if (!p->canonical) return "genome sketches need canonical rows (both strands)";
    if (p->anchor_k == 0 || p->window == 0) return "genome sketches need anchored windows";
    if (p->window > TSK_GENOME_MAX_WINDOW) return "genome sketch windows must be at most 64 bases";
    if (p->window % 2) return "genome sketch windows must have an even length (strand symmetry)";
    if (p->t > p->window) return "t must not exceed the genome sketch window (a window of no t-tuple)";
    if (tsk_genome_row_scale(p) > TSK_GENOME_MAX_SCALE)
        return "genome sketch windows hold too many t-tuples for exact float32 rows (2 C(W, t) must be at "
               "most 1.6e6): a shorter window or a smaller t";
    return NULL;
}

double tsk_genome_row_scale(const tsk_params *p)
{
    double c = 1.0;
    for (int j = 0; j < p->t; j++) c = c * (double)(p->window - j) / (double)(j + 1);
    c = nearbyint(c); /* C(W, t) is an integer; the running product is exact for these sizes */
    return p->canonical ? 2.0 * c : c;
}

uint64_t tsk_genome_key_of_sketch(const int32_t *s, int dim, uint64_t seed)
{
    uint64_t h = seed;
    for (int r = 0; r < dim; r++) h = tsk_genome_chain_step(h, r, (uint32_t)s[r]);
    return h;
}

int64_t tsk_genome_anchor_stride(const tsk_params *p, int64_t length)
{
    if (p->min_keys <= 0) return p->scaled;
    /* about 5/4 min_keys candidates: the min_keys-th smallest is then ~25 sigma inside them */
    const int64_t s = length > INT64_MAX / 4 ? p->scaled : length * 4 / (p->min_keys * 5);
    const int64_t least = tsk_genome_floor_stride(p), raised = s < least ? least : s;
    return raised > p->scaled ? p->scaled : raised;
}

uint64_t tsk_genome_candidate_limit(const tsk_params *p, int64_t length)
{
    return UINT64_MAX / (uint64_t)tsk_genome_anchor_stride(p, length) | TSK_GENOME_FP_MASK;
}

int64_t tsk_genome_floor_length(const tsk_params *p)
{
    if (p->min_keys <= 0) return 0;
    /* the least length whose stride is scaled: ceil(5 min_keys scaled / 4) */
    const int64_t m5 = p->min_keys * 5;
    return p->scaled > (INT64_MAX - 3) / m5 ? INT64_MAX : (m5 * p->scaled + 3) / 4;
}

uint64_t tsk_genome_threshold(const tsk_params *p, int64_t length, const uint64_t *keys, int64_t n)
{
    const uint64_t t = tsk_genome_max_key(p);
    if (p->min_keys <= 0) return t;
    if (n < p->min_keys) return tsk_genome_candidate_limit(p, length);
    const uint64_t kth = keys[p->min_keys - 1] | TSK_GENOME_FP_MASK;
    return kth > t ? kth : t;
}

/* Value r of a row (float32 when elem_size is 4, float64 when 8) as the integer S_r of its sketch:
 * 1 and *s set, or 0 when the scaled value is more than 0.05 from an integer, beyond the scale or
 * NaN (then *s is 0: a refused value is never converted, out of int32's range it would be
 * undefined). */
static inline int sketch_value(const void *row, size_t elem_size, int r, double scale, uint32_t *s)
{
    const double v = (elem_size == 4 ? (double)((const float *)row)[r] : ((const double *)row)[r]) * scale;
    /* nearbyint without the libm call (baseline x86-64 has no roundsd; it was 15 % of sketching
     * small genomes): adding and taking away 1.5 * 2^52 rounds to the nearest integer, ties to
     * even, for |v| < 2^51 (here at most 1.6e6 for an accepted value; a bigger or NaN one fails
     * the test below either way). IEEE arithmetic: the compiler may not fold it without
     * -ffast-math, which the build never uses. */
    const double n = (v + 6755399441055744.0) - 6755399441055744.0;
    /* an integer sketch's values are integers of at most the scale (and a NaN is neither) */
    const int fits = fabs(v - n) <= 0.05 && fabs(n) <= scale;
    *s = fits ? (uint32_t)(int32_t)n : 0;
    return fits;
}

int tsk_genome_key_of_row(const tsk_params *p, const void *row, size_t elem_size, uint64_t anchor_hash,
                          uint64_t *key)
{
    const double scale = tsk_genome_row_scale(p);
    uint64_t h = p->seed;
    for (int r = 0; r < p->dim; r++) {
        uint32_t s;
        if (!sketch_value(row, elem_size, r, scale, &s)) return -1;
        h = tsk_genome_chain_step(h, r, s); /* hashed as it goes */
    }
    *key = tsk_genome_key_join(anchor_hash, h);
    return 0;
}

int64_t tsk_genome_keys_of_rows(const tsk_params *p, const void *rows, size_t elem_size, int64_t n,
                                const uint64_t *anchors, uint64_t *keys)
{
    const double scale = tsk_genome_row_scale(p);
    const size_t row_bytes = (size_t)p->dim * elem_size;
    const char *base = rows;
    enum { LANES = 4 };
    int64_t i = 0;
    for (; i + LANES <= n; i += LANES) {
        uint64_t h[LANES];
        int ok = 1;
        for (int j = 0; j < LANES; j++) h[j] = p->seed;
        for (int r = 0; r < p->dim; r++)
            for (int j = 0; j < LANES; j++) {
                uint32_t s;
                ok &= sketch_value(base + (size_t)(i + j) * row_bytes, elem_size, r, scale, &s);
                h[j] = tsk_genome_chain_step(h[j], r, s);
            }
        if (!ok) /* one of the four is refused: which, one at a time */
            for (int j = 0; j < LANES; j++)
                if (tsk_genome_key_of_row(p, base + (size_t)(i + j) * row_bytes, elem_size, anchors[i + j], &keys[i + j]))
                    return i + j;
        for (int j = 0; j < LANES; j++) keys[i + j] = tsk_genome_key_join(anchors[i + j], h[j]);
    }
    for (; i < n; i++)
        if (tsk_genome_key_of_row(p, base + (size_t)i * row_bytes, elem_size, anchors[i], &keys[i])) return i;
    return -1;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* LSD radix sort of keys[0..n) by bytes (a genome's candidates: tens of thousands of keys, where
 * qsort's comparisons cost more than the windows' sketches); passes whose byte is the same in every
 * key are skipped. Returns -1 when memory runs out (the caller falls back to qsort). */
static int radix_sort_u64(uint64_t *keys, int64_t n)
{
    uint64_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp) return -1;
    uint64_t *src = keys, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[((src[i] >> shift) & 0xFF) + 1]++;
        if (count[((src[0] >> shift) & 0xFF) + 1] == n) continue;
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < n; i++) dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
        uint64_t *swap = src;
        src = dst, dst = swap;
    }
    if (src != keys) memcpy(keys, src, (size_t)n * sizeof *keys);
    free(tmp);
    return 0;
}

int64_t tsk_genome_keys_sort_unique(uint64_t *keys, int64_t n)
{
    if (n <= 1) return n < 0 ? 0 : n;
    if (n < 256 || radix_sort_u64(keys, n)) qsort(keys, (size_t)n, sizeof *keys, cmp_u64);
    int64_t m = 1;
    for (int64_t i = 1; i < n; i++)
        if (keys[i] != keys[m - 1]) keys[m++] = keys[i];
    return m;
}

int64_t tsk_genome_shared_naive(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, shared = 0;
    while (i < na && j < nb) {
        if (a[i] < b[j]) i++;
        else if (b[j] < a[i]) j++;
        else shared++, i++, j++;
    }
    return shared;
}

float tsk_genome_key_distance(double share, int64_t window)
{
    if (!(share > 0.0)) return 1.0f;
    if (share >= 1.0) return 0.0f;
    return (float)(1.0 - pow(share, 1.0 / (double)window));
}

float tsk_genome_pair_distance(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j, int64_t shared,
                               tsk_genome_mode m, int64_t window, int64_t *total)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(q, i, r, j, &nq, &nr);
    if (total) *total = tsk_genome_total(shared, nq, nr, m);
    return tsk_genome_key_distance(tsk_genome_share(shared, nq, nr, m), window);
}

double tsk_genome_share_floor(double max_dist, int64_t window)
{
    if (!(max_dist < 1.0)) return 0.0;
    if (max_dist < 0.0) max_dist = 0.0;
    /* d <= max  <=>  f >= (1 - max)^W, but the distance compared is d rounded to float, which
     * can bring a d up to half a float ulp (< 2^-25 below 1) above max down to max: the boundary
     * moves out by 2^-24 in d (a relative margin on f alone is too small near d = 1, where a float
     * ulp of d is many times f's). The (1 - 1e-6) covers pow; the caller re-checks every kept pair. */
    const double lowest = 1.0 - max_dist - 0x1p-24;
    return lowest > 0.0 ? pow(lowest, (double)window) * (1.0 - 1e-6) : 0.0;
}
