/* sketch_kernel.h: the hot loop of the CPU engine, written once and instantiated for float and
 * double by sketch_dp.c (which defines REAL and KFN before including this file; no include guard
 * on purpose).
 *
 * The loop runs the DP of docs/spec.md on subsequence COUNTS rather than means: with
 * N[j][d] = sum over the length-d subsequences of the chunk read so far (levels j .. j+d-1) of
 * sign-product at bin hash-sum, one character c does
 *
 *     N[j][d][l] += sign[j+d-1][c] * N[j][d-1][(l - hash[j+d-1][c]) mod D]     (d descending)
 *
 * and the mean is N / C(i, d). Counts need no (1 - z) factor, whose float rounding is biased and
 * makes the normalized float DP drift linearly with the length (7e-3 at 1 Mbp, measured); here the
 * only rounding is the addition, unbiased. Rows of equal d share a power-of-two scale 2^-e[d]
 * (rescaled every KERNEL_RESCALE characters, exactly), so the coefficient is +-2^k and b * x is
 * exact: every kernel rounds the same way. (Exact barring underflow to subnormals, so no kernel
 * fuses the multiply and add into an FMA: with one, a t = 16 float run could round differently.)
 *
 * Kernels, all bit-identical (tests/cpu/test_kernel.c holds each to the frozen pre-SIMD kernel):
 *  - generic: the character loop below on the doubled layout, compiler-vectorized; any D.
 *  - SIMD (sketch_kernel_vec.h): the padded layout, D a multiple of 8; AVX-512, AVX2 or 16-byte
 *    vectors, picked per call by tsk_cpu_kernel_used (sketch_dp.h). D = 32, 64, 96, 128 have
 *    instances with constant trip counts that also run blocks of characters row by row. */

#ifndef KERNEL_RESCALE
/* Characters between two rescalings of the counts: counts of length d grow at most 2^16-fold over
 * 64 characters once 64 are read, far inside the float range. */
#define KERNEL_RESCALE 64

/* The generic kernel is built twice, for AVX2 and for the baseline (x86-64-v2), and picked at load
 * time (an ifunc, i.e. __builtin_cpu_supports under the hood). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TSK_NO_CLONES)
#define KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define KERNEL_CLONES
#endif
#define KERNEL_INLINE static inline __attribute__((always_inline))
#endif

/* The count state: rows N[j][d] for start levels j < starts and lengths d = 1 .. t-j (N[j][0] is
 * e_0 and not stored), each scaled by 2^-e[d]; len characters read. The circularly shifted read
 * row[(l - h) mod D] must not depend on h in its control flow (a two-slice loop with
 * data-dependent remainders was 4x slower, mispredicted), hence two layouts (sketch_dp.h):
 *  - padded (D a multiple of 8): each row once plus a pad repeating its first COUNTS_PAD values;
 *    the SIMD kernels of sketch_kernel_vec.h read the shifted row vector by vector, each vector one
 *    unaligned load at (l - h) mod D. One store per value.
 *  - doubled (other D): row[l + D] = row[l], so the shifted row is the contiguous slice
 *    row[D - h .. 2D - h), a plain loop the compiler vectorizes; two stores per value.
 * Stride counts_ld(D) either way. */
typedef struct {
    int t, dim, ld, starts;
    int padded;          /* layout: 1 padded, 0 doubled */
    int dup_top;         /* 1: keep the copy/pad of the top rows N[j][t-j] too (removal reads them shifted) */
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
    k->padded = counts_padded(dim);
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
            for (int l = 0; l < k->ld; l++) row[l] *= f; /* copy or pad too (zeros beyond) */
        }
        k->e[d] = e;
    }
}

/* Mean of the length-d subsequences from start level j (V[j..j+d] of docs/spec.md), in double. */
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
KERNEL_INLINE void KFN(shift_add)(REAL *restrict dst, const REAL *restrict src, int dim, int h, REAL b)
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
KERNEL_INLINE void KFN(shift_add_top)(REAL *restrict dst, const REAL *restrict src, int dim, int h, REAL b)
{
    const REAL *restrict from = src + dim - h;
    for (int l = 0; l < dim; l++) dst[l] += b * from[l];
}

/* dst[h] += b for d = 1, whose source N[j][0] is e_0; keeps the copy or pad of either layout. */
KERNEL_INLINE void KFN(bump)(REAL *dst, int dim, int padded, int h, REAL b)
{
    dst[h] += b;
    if (!padded || h < COUNTS_PAD) dst[h + dim] = dst[h];
}

/* The generic kernel: reads codes[0..n) into the count state k (doubled layout), continuing from
 * k->len characters. Compiled for AVX2 and for the build's baseline, chosen at load time. */
KERNEL_CLONES static void KFN(consume_generic)(KFN(counts) *k, const tsk_params *p, const uint8_t *codes, int64_t n)
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
                    const REAL b = coef[d] * (REAL)p->sign[lvl][c]; /* exact; a branch here is mispredicted */
                    REAL *dst = rows + (size_t)(d - 1) * ld;
                    const REAL *src = rows + (size_t)(d - 2) * ld;
                    if (d == t - j && !k->dup_top) KFN(shift_add_top)(dst, src, dim, p->hash[lvl][c], b);
                    else KFN(shift_add)(dst, src, dim, p->hash[lvl][c], b);
                }
                KFN(bump)(rows, dim, 0, p->hash[j][c], coef[1] * (REAL)p->sign[j][c]);
            }
        }
        k->len += until;
        KFN(counts_rescale)(k);
    }
}

/* The SIMD kernels of the padded layout: AVX-512 and AVX2 (x86-64 GCC, picked at run time by
 * tsk_cpu_kernel_used), and 16-byte vectors for the baseline and any other machine. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VB 64
#define VNAME(name) KFN(name##_avx512)
#define VTARGET __attribute__((target("avx512f")))
#include "sketch_kernel_vec.h"
#undef VB
#undef VNAME
#undef VTARGET
#define VB 32
#define VNAME(name) KFN(name##_avx2)
#define VTARGET __attribute__((target("avx2")))
#include "sketch_kernel_vec.h"
#undef VB
#undef VNAME
#undef VTARGET
#endif
#define VB 16
#define VNAME(name) KFN(name##_portable)
#define VTARGET
#include "sketch_kernel_vec.h"
#undef VB
#undef VNAME
#undef VTARGET

/* Reads codes[0..n) into the count state k (see sketch_dp.h), continuing from k->len characters,
 * with the kernel of k's layout and this CPU. */
static void KFN(kernel_consume)(KFN(counts) *k, const tsk_params *p, const uint8_t *codes, int64_t n)
{
    if (!k->padded) {
        KFN(consume_generic)(k, p, codes, n);
        return;
    }
    switch (tsk_cpu_kernel_used(k->dim, sizeof(REAL) == sizeof(double))) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    case TSK_KERNEL_AVX512: KFN(consume_avx512)(k, p, codes, n); break;
    case TSK_KERNEL_AVX2: KFN(consume_avx2)(k, p, codes, n); break;
#endif
    default: KFN(consume_portable)(k, p, codes, n); break;
    }
}

/* dst += b * shift_h(src) on rows of k's layout, copy or pad kept (removal in sketch_slide.c). */
__attribute__((unused)) static void KFN(row_shift_add)(const KFN(counts) *k, REAL *dst, const REAL *src, int h, REAL b)
{
    if (!k->padded) {
        KFN(shift_add)(dst, src, k->dim, h, b);
        return;
    }
    switch (tsk_cpu_kernel_used(k->dim, sizeof(REAL) == sizeof(double))) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    case TSK_KERNEL_AVX512: KFN(shift_add_row_avx512)(dst, src, k->dim, h, b); break;
    case TSK_KERNEL_AVX2: KFN(shift_add_row_avx2)(dst, src, k->dim, h, b); break;
#endif
    default: KFN(shift_add_row_portable)(dst, src, k->dim, h, b); break;
    }
}
