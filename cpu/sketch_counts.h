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

#endif
