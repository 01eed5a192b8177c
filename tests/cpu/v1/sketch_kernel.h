/* sketch_kernel.h: the hot loop of the CPU engine, written once and instantiated for float and
 * double by sketch_dp.c (which defines REAL and KFN before including this file; no include guard
 * on purpose).
 *
 * The loop runs the DP of SKETCH.md on subsequence COUNTS rather than means: with
 * N[j][d] = sum over the length-d subsequences of the chunk read so far (levels j .. j+d-1) of
 * sign-product at bin hash-sum, one character c does
 *
 *     N[j][d][l] += sign[j+d-1][c] * N[j][d-1][(l - hash[j+d-1][c]) mod D]     (d descending)
 *
 * and the mean is N / C(i, d). Counts need no (1 - z) factor, whose float rounding is biased and
 * makes the normalized float DP drift linearly with the length (7e-3 at 1 Mbp, measured); here the
 * only rounding is the addition, unbiased. Rows of equal d share a power-of-two scale 2^-e[d]
 * (rescaled every KERNEL_RESCALE characters, exactly), so the coefficient is +-2^k and b * x is
 * exact: the float and double paths, SSE and AVX2, FMA or not, all round the same way. */

#ifndef KERNEL_RESCALE
/* Characters between two rescalings of the counts: counts of length d grow at most 2^16-fold over
 * 64 characters once 64 are read, far inside the float range. */
#define KERNEL_RESCALE 64

/* The kernel is built twice, for AVX2 and for the baseline (x86-64-v2), and picked at load time
 * (an ifunc, i.e. __builtin_cpu_supports under the hood). Both round identically: the kernel has
 * only exact products and one addition per value. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TSK_NO_CLONES)
#define KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KERNEL_CLONES
#endif
#endif

/* The count state: rows N[j][d] for start levels j < starts and lengths d = 1 .. t-j (N[j][0] is
 * e_0 and not stored), each scaled by 2^-e[d]; len characters read. Each row is stored twice in a
 * row (row[l + D] = row[l], stride counts_ld(D)), so that the circularly shifted read
 * row[(l - h) mod D] = row[l - h + D] is one contiguous slice: the loop over l then has the same
 * trip count for every hash value, with no data-dependent remainders to mispredict (that alone
 * made the two-slice form 4x slower). */
typedef struct {
    int t, dim, ld, starts;
    int dup_top;         /* 1: keep the copy of the top rows N[j][t-j] too (removal reads them shifted) */
    int64_t len;
    int e[TSK_MAX_T + 1];
    int row0[TSK_MAX_T]; /* row of N[j][1] */
    REAL *rows;          /* counts_rows(t, starts) * ld values, 64-byte aligned */
} KFN(counts);

static void KFN(counts_init)(KFN(counts) *k, int t, int dim, int starts, REAL *rows)
{
    k->t = t;
    k->dim = dim;
    k->ld = counts_ld(dim);
    k->dup_top = 0;
    k->starts = starts;
    k->len = 0;
    k->rows = rows;
    memset(k->e, 0, sizeof k->e);
    for (int j = 0, r = 0; j < TSK_MAX_T; j++) {
        k->row0[j] = r;
        r += j < starts ? t - j : 0;
    }
    memset(rows, 0, (size_t)counts_rows(t, starts) * (size_t)k->ld * sizeof(REAL));
}

/* Moves every row of length d to the scale 2^-e of C(len, d): exact (powers of two), it only
 * keeps the counts, which grow like len^d, inside the float range. */
static void KFN(counts_rescale)(KFN(counts) *k)
{
    for (int d = 1; d <= k->t; d++) {
        int e;
        if (tsk_binom_frexp(k->len, d, &e) == 0.0 || e == k->e[d]) continue;
        const REAL f = (REAL)ldexp(1.0, k->e[d] - e);
        for (int j = 0; j < k->starts && d <= k->t - j; j++) {
            REAL *row = k->rows + (size_t)(k->row0[j] + d - 1) * (size_t)k->ld;
            for (int l = 0; l < 2 * k->dim; l++) row[l] *= f;
        }
        k->e[d] = e;
    }
}

/* Mean of the length-d subsequences from start level j (V[j..j+d] of SKETCH.md), in double. */
static void KFN(counts_mean)(const KFN(counts) *k, int j, int d, double *out)
{
    if (d == 0) {
        memset(out, 0, (size_t)k->dim * sizeof *out);
        out[0] = 1.0;
        return;
    }
    int be;
    const double m = tsk_binom_frexp(k->len, d, &be);
    const REAL *row = k->rows + (size_t)(k->row0[j] + d - 1) * (size_t)k->ld;
    const double f = m == 0.0 ? 0.0 : ldexp(1.0 / m, k->e[d] - be);
    for (int l = 0; l < k->dim; l++) out[l] = (double)row[l] * f;
}

/* dst[l] += b * src[(l - h) mod D] on doubled rows (both copies of dst written). */
static inline __attribute__((always_inline)) void KFN(shift_add)(REAL *restrict dst, const REAL *restrict src,
                                                                 int dim, int h, REAL b)
{
    const REAL *restrict from = src + dim - h;
    REAL *restrict copy = dst + dim;
    for (int l = 0; l < dim; l++) {
        const REAL v = dst[l] + b * from[l];
        dst[l] = v;
        copy[l] = v;
    }
}

/* shift_add for a top row, which nothing reads shifted: one store per value instead of two. */
static inline __attribute__((always_inline)) void KFN(shift_add_top)(REAL *restrict dst, const REAL *restrict src,
                                                                     int dim, int h, REAL b)
{
    const REAL *restrict from = src + dim - h;
    for (int l = 0; l < dim; l++) dst[l] += b * from[l];
}

/* dst[h] += b for d = 1, whose source N[j][0] is e_0. */
static inline void KFN(bump)(REAL *dst, int dim, int h, REAL b)
{
    dst[h] += b;
    dst[h + dim] = dst[h];
}

/* Reads codes[0..n) into the count state k (see sketch_dp.h), continuing from k->len characters.
 * Compiled for AVX2 and for the build's baseline, chosen at load time by the CPU. */
KERNEL_CLONES void KFN(kernel_consume)(KFN(counts) *k, const tsk_params *p, const uint8_t *codes, int64_t n)
{
    const int t = k->t, dim = k->dim, ld = k->ld, starts = k->starts;
    REAL coef[TSK_MAX_T + 1];
    for (int64_t pos = 0; pos < n;) {
        /* the span up to the next rescale point runs with fixed coefficients 2^(e[d-1] - e[d]) */
        int64_t until = (k->len / KERNEL_RESCALE + 1) * KERNEL_RESCALE - k->len;
        if (until > n - pos) until = n - pos;
        for (int d = 1; d <= t; d++) coef[d] = (REAL)ldexp(1.0, k->e[d - 1] - k->e[d]);
        for (int64_t s = 0; s < until; s++, pos++) {
            const int c = codes[pos];
            const int64_t have = k->len + s + 1; /* characters read, this one included */
            for (int j = 0; j < starts; j++) {
                REAL *rows = k->rows + (size_t)k->row0[j] * (size_t)ld; /* rows[(d-1)*ld] = N[j][d] */
                int dmax = t - j;
                if (dmax > have) dmax = (int)have; /* longer subsequences are still all zero */
                for (int d = dmax; d >= 2; d--) {
                    const int lvl = j + d - 1;
                    const REAL b = p->sign[lvl][c] > 0 ? coef[d] : -coef[d];
                    REAL *dst = rows + (size_t)(d - 1) * ld;
                    const REAL *src = rows + (size_t)(d - 2) * ld;
                    if (d == t - j && !k->dup_top) KFN(shift_add_top)(dst, src, dim, p->hash[lvl][c], b);
                    else KFN(shift_add)(dst, src, dim, p->hash[lvl][c], b);
                }
                KFN(bump)(rows, dim, p->hash[j][c], p->sign[j][c] > 0 ? coef[1] : -coef[1]);
            }
        }
        k->len += until;
        KFN(counts_rescale)(k);
    }
}
