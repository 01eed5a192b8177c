/* sketch_counts.h: the tuple-count form of the sketch, DNA at t <= TSK_COUNT_MAX_T (core/tsk_def.h,
 * docs/algorithm.md "Tuple counts"): the plain CPU twin of the GPU's count kernel
 * (gpu/count_kernels.cuh), in double, for tests and as the statement of what that kernel computes.
 *
 * A count state of a string v holds C_k[tau], the number of index tuples i_1 < ... < i_k of v with
 * v_{i_1} .. v_{i_k} = tau, for every level k = 0..t (C_0 = 1): 1 + 4 + 16 + ... + 4^t values,
 * level k's at tsk_counts_offset(k) + tau. */
#ifndef TSK_CPU_SKETCH_COUNTS_H
#define TSK_CPU_SKETCH_COUNTS_H

#include <stdint.h>

#include "../core/tsk_def.h"

static inline int tsk_counts_offset(int k) { return ((1 << (2 * k)) - 1) / 3; }
static inline int tsk_counts_size(int t) { return tsk_counts_offset(t + 1); }

/* The count state of codes[0..n) (DNA codes 0..3): C_k[tau c] += C_{k-1}[tau] for each character c,
 * levels from t down so that C_{k-1} is still the value before c. */
void tsk_counts_scan(int t, const uint8_t *codes, int64_t n, double *state);

/* The state of the concatenation u v from those of u and v (exact in integers):
 * C_{uv,k}[tau] = sum_j C_{u,j}[first j letters of tau] * C_{v,k-j}[the other k - j]. */
void tsk_counts_concat(int t, const double *u, const double *v, double *uv);

/* The sketch row (dim values, means in double) of a string of length n with count state `state`,
 * under p's tables (p->t <= TSK_COUNT_MAX_T, DNA); with p->canonical, the mean with its reverse
 * complement, whose counts are the reverse-complemented tuples' (no second scan). */
void tsk_counts_row(const tsk_params *p, const double *state, int64_t n, double *row);

/* ---- the engine form (counts_fast.c): the same counts, laid out and counted for speed ---- */

/* Engine layout: level k's count of tau at tsk_counts_offset(k) + tau with its base-4 digits
 * reversed (first letter least significant), so that the tuples a new letter extends are one run. */

/* Characters counted in 32-bit integers before they join the double totals: C(512, 4) < 2^32. */
#define TSK_COUNTS_BLOCK 512

/* The count state of codes[0..n) in the engine layout: 32-bit blocks merged into double totals
 * (exact integers below 2^53, so equal to tsk_counts_scan's up to a length of about 21000 at t=4;
 * one rounding per block beyond). */
void tsk_counts_scan_engine(int t, const uint8_t *codes, int64_t n, double *state);

/* The kernels that count a block (counts_fast.c); all give the same integers. The engine runs the
 * widest this CPU has, or the one TSKETCH_COUNTS_KERNEL=portable|avx2|avx512 names (benches,
 * tests; core/tsk_knobs.h; portable is PLAIN). */
typedef enum { TSK_COUNTS_KERNEL_PLAIN, TSK_COUNTS_KERNEL_AVX2, TSK_COUNTS_KERNEL_AVX512 } tsk_counts_kernel;

/* 1 when this build and this CPU can run kernel k. */
int tsk_counts_kernel_available(tsk_counts_kernel k);

/* codes[0..n) (n <= TSK_COUNTS_BLOCK) counted from zero by kernel k (available) into cnt, all levels,
 * engine layout. */
void tsk_counts_block_with(tsk_counts_kernel k, int t, const uint8_t *codes, int64_t n, uint32_t *cnt);

/* u <- the state of u v (engine layout, in place): tsk_counts_concat's formula, by the engine's
 * kernel; tsk_counts_merge_with by kernel k (available). Every kernel gives the same bits. */
void tsk_counts_merge(int t, double *u, const double *v);
void tsk_counts_merge_with(tsk_counts_kernel k, int t, double *u, const double *v);

/* An engine-layout state in tsk_counts_scan's layout (tests). */
void tsk_counts_to_plain(int t, const double *engine, double *plain);

/* p's tuple-to-bin map, made once per batch: bin, sign and the engine-layout places of tau and of
 * its reverse complement, for every top-level tuple tau. */
typedef struct {
    int t, dim, canonical;
    int32_t bin[256];
    double sign[256];
    uint16_t at[256], at_rc[256];
} tsk_counts_map;
void tsk_counts_map_init(const tsk_params *p, tsk_counts_map *m);

/* tsk_counts_row of an engine-layout state, bit for bit (the same operations in the same order). */
void tsk_counts_row_engine(const tsk_counts_map *m, const double *state, int64_t n, double *row);

/* Whether the CPU engine sketches p by tuple counts: DNA, t <= TSK_COUNT_MAX_T, whole-record rows
 * (anchored windows reach the engine as records), unless TSKETCH_CPU_METHOD=dp is set
 * (core/tsk_knobs.h; for benches and tests, which compare the two). */
int tsk_cpu_counts_used(const tsk_params *p);

/* The CPU engine's count path (cpu_counts.c): tsk_cpu_sketch's contract for parameters where
 * tsk_cpu_counts_used holds. Returns 0, or -1 when memory runs out. */
int tsk_cpu_sketch_counts(const tsk_params *p, const tsk_batch *b, void *out, int threads);

#endif
