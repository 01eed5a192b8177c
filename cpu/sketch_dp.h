/* sketch_dp.h: the building blocks of the CPU sketch engine, below the scheduler of cpu_sketch.c
 * and visible to tests/cpu: one record's sketch, by direct DP or split into chunks, and the
 * split-formula combination of docs/spec.md. Everything returns means in double. */
#ifndef TSK_CPU_SKETCH_DP_H
#define TSK_CPU_SKETCH_DP_H

#include <stdint.h>

#include "../core/tsk_def.h"

/* Records longer than this are cut into chunks of this length at fixed positions (0, L, 2L, ...)
 * that combine with the split formula: it bounds the float rounding of a chunk (one float
 * rounding per character and level, unbiased: ~eps sqrt(L/(2t+1)) relative) and lets threads
 * share one long record. Measured: docs/performance.md, "Sketching: CPU engine". */
#define TSK_CPU_CHUNK 16384

/* Number of stored count rows for start levels 0 .. starts-1 (start j owns t - j rows). */
static inline int counts_rows(int t, int starts) { return starts * t - starts * (starts - 1) / 2; }

/* Count rows come in two layouts (sketch_kernel.h). Padded, for D a multiple of 8 (the SIMD
 * kernels): each row once plus a pad of COUNTS_PAD values that repeats its start, row[D + m] =
 * row[m], so that a vector of the circularly shifted row starting anywhere is one load. Doubled,
 * for any other D (the generic kernel): row[D + l] = row[l] for all l. */
#define COUNTS_PAD 16

/* The kernels of the count DP; all give the same bits (exact products, one rounding per value). */
typedef enum {
    TSK_KERNEL_AUTO = 0,     /* with AVX2, padded: the widest vectors the CPU has that divide D;
                                else generic */
    TSK_KERNEL_GENERIC = 1,  /* doubled layout, compiler-vectorized loop (any D) */
    TSK_KERNEL_PORTABLE = 2, /* padded, 16-byte vectors in plain C (GCC vector extensions) */
    TSK_KERNEL_AVX2 = 3,     /* padded, 32-byte vectors */
    TSK_KERNEL_AVX512 = 4,   /* padded, 64-byte vectors */
} tsk_cpu_kernel;

/* Forces kernel k for every D that is a multiple of 8 (process-wide, for tests and benches: call it
 * before sketching, never during). Returns 0, or -1 when this CPU or build lacks k. Without a call,
 * TSKETCH_CPU_KERNEL=auto|portable|avx2|avx512 (core/tsk_knobs.h) does the same, its portable
 * being GENERIC (the kernel AUTO runs without AVX2); PORTABLE is this function's only. */
int tsk_cpu_kernel_force(tsk_cpu_kernel k);

/* The kernel that runs float (in_double 0) or double counts of dimension dim now (never AUTO). */
tsk_cpu_kernel tsk_cpu_kernel_used(int dim, int in_double);

/* Whether rows of dimension dim use the padded layout (D a multiple of 8, GENERIC not forced). */
int counts_padded(int dim);

/* Stride of a count row, rounded up to 64 bytes of floats. */
static inline int counts_ld(int dim)
{
    return counts_padded(dim) ? (dim + COUNTS_PAD + 15) / 16 * 16 : (2 * dim + 15) / 16 * 16;
}

/* Packed index of V[j..p] (0 <= j <= p <= t) in a levels array: all rows of start 0 first, so
 * that a prefix state T[0..t] (start level 0 only) is the first t+1 rows. */
static inline int levels_index(int t, int j, int p) { return j * (t + 1) - j * (j - 1) / 2 + (p - j); }
static inline int levels_rows(int t, int starts) { return levels_index(t, starts, starts); }

/* C(n, d) as m * 2^e with m in [0.5, 1) (no overflow for any length); returns m, 0 when n < d. */
double tsk_binom_frexp(int64_t n, int d, int *e);

/* The chunk length a record is cut into for p (TSK_CPU_CHUNK, or 16 D when that is longer so
 * that the D^2 combination stays a small fraction of the chunk's DP). */
int64_t tsk_cpu_chunk_length(const tsk_params *p);

/* Whether the counts of a chunk are kept in double for precision prec: always for TSK_DOUBLE, and
 * for TSK_SINGLE when the chunk is longer than TSK_CPU_CHUNK (float error grows with it). */
int tsk_cpu_counts_in_double(const tsk_params *p, tsk_precision prec);

/* Scratch one thread needs for tsk_cpu_chunk_levels: bytes. */
size_t tsk_cpu_chunk_scratch(const tsk_params *p, int starts);

/* Runs the DP over one chunk codes[0..q) from every start level j < starts and writes the means
 * V[j..p] for j < starts, j <= p <= t into levels (levels_rows(t, starts) * dim doubles, packed by
 * levels_index). With starts = 1 these are the prefix state T[0..t] of the chunk on its own.
 * Float counts when !in_double. scratch: tsk_cpu_chunk_scratch bytes, 64-byte aligned. */
void tsk_cpu_chunk_levels(const tsk_params *p, const uint8_t *codes, int64_t q, int starts, int in_double,
                          void *scratch, double *levels);

/* Split formula: the state T[0..t] of u v from that of u (state_u, (t+1) * dim, |u| = m) and the
 * levels of v (all start levels, |v| = q): T[p] = sum_j w(m, q, j, p) T_u[j] (*) V[j..p].
 * Circular convolution in double, skipping the zeros of T_u[j] (it has at most A^j nonzero bins).
 * out must not alias state_u. */
void tsk_cpu_combine(const tsk_params *p, int64_t m, int64_t q, const double *state_u, const double *levels_v,
                     double *out);

/* The whole-record sketch of codes[0..n) in double (zeros when n < t), one thread: direct DP when
 * n <= chunk, else chunks of length chunk combined left to right (what the engine does across
 * threads, bit for bit). Counts in double when in_double. Returns 0, or -1 when out of memory. */
int tsk_cpu_record_sketch(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t chunk, int in_double,
                          double *out);

/* ---- Tensor Slide Sketch (sketch_slide.c) ---- */

/* How slide rows are computed. AUTO: recompute each window when that is cheaper (window <=
 * stride (t+1)), else slide. */
typedef enum { TSK_SLIDE_AUTO = 0, TSK_SLIDE_RECOMPUTE = 1, TSK_SLIDE_INCREMENTAL = 2 } tsk_slide_mode;

/* Rows of a slide sketch computed as one task: the window state is rebuilt from scratch at the
 * first row of each group, so rounding cannot accumulate over a long record. */
int64_t tsk_cpu_slide_group(const tsk_params *p);

/* Rows r0 .. r1-1 of the slide sketch of codes[0..n) into out ((r1 - r0) * dim floats or doubles
 * as prec says; computed in double either way), the
 * canonical mean included when p->canonical. The window state is built at row r0 and then slides
 * (INCREMENTAL: one add per new character, one removal per leaving one, O(t^2 D) each) or each
 * window is recomputed (RECOMPUTE). Returns 0, or -1 when out of memory. */
int tsk_cpu_slide_rows(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t r0, int64_t r1,
                       tsk_slide_mode mode, tsk_precision prec, void *out);

/* The tables of the reverse complement: the sketch of revcomp(y) with p's tables equals the
 * sketch of y with these (level k <- level t-1-k, code c <- 3-c), which lets windows of both
 * strands slide the same way. DNA only. */
void tsk_cpu_revcomp_tables(const tsk_params *p, tsk_params *rc);

#endif
