/* dist_gemm.cuh: the tensor-core filter of the top-k path (gpu_dist.cu).
 *
 * The direct kernel (dist_kernels.cu) costs a subtraction and an FMA per element of a pair. Here a
 * pair costs an eighth of a TF32 matrix instruction: dot products a.b on the tensor cores, with
 * the GEMM form |a|^2 + |b|^2 - 2 a.b (l2, squared) or 1 - a.b/(|a||b|) (cosine) and a proven bound
 * E on its distance from the value the exact kernel prints. Nothing approximate is printed:
 *   1. bound:      per query, the k-th smallest upper bound g + E over the references;
 *   2. candidates: every pair whose lower bound g - E is <= that (the exact top-k is among them);
 *   3. the candidates go through dist_launch_exact (today's kernel and order) and are selected.
 * Same layouts and arguments as the tiled kernels (dist_kernels.cuh); qnorm/rnorm must be set for
 * both metrics (float64 norms |x|), qinv/rinv for cosine. */
#ifndef TSK_DIST_GEMM_CUH
#define TSK_DIST_GEMM_CUH

#include "dist_kernels.cuh"

/* The longest vectors (padded floats) the bounds are proven for. */
#define DIST_GEMM_MAX_LP 4096

/* Pass 1: part[(q * n_split + s) * k + i] = i-th smallest upper bound of query q over the
 * reference tiles of split s (INFINITY when fewer). k <= 64. */
cudaError_t dist_gemm_launch_bound(const dist_tile_args *a, int k, int n_split, float *part, cudaStream_t s);

/* thr[q] = the k-th smallest bound of query q over all splits, widened so that it also covers the
 * rounding of the final sqrt (INFINITY when there are fewer than k finite bounds). */
cudaError_t dist_gemm_launch_thresholds(const float *part, int nq, int k, int n_split, float *thr, cudaStream_t s);

/* Pass 2: every pair passing the filter whose lower bound is <= thr[q] goes to
 * hits[atomicAdd(count)] (d left 0) while the count is below cap. */
cudaError_t dist_gemm_launch_candidates(const dist_tile_args *a, const float *thr, dist_hit *hits,
                                        unsigned long long *count, unsigned long long cap, cudaStream_t s);

#endif
