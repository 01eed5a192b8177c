/* dist_gemm.cuh: the tensor-core filter of the top-k and within (-d) paths (gpu_dist.cu).
 *
 * The direct kernel (dist_kernels.cu) costs a subtraction and an FMA per element of a pair. Here a
 * pair costs an eighth of a TF32 matrix instruction: dot products a.b on the tensor cores, with
 * the GEMM form |a|^2 + |b|^2 - 2 a.b and a proven bound E on its distance from the value the
 * exact kernel prints. Nothing approximate is printed:
 *   1. bound:      per query, a threshold T no smaller than the k-th smallest upper bound g + E
 *                  over the references (k-th smallest of per-thread minima over a sample of the
 *                  reference tiles, dist_gemm.cu);
 *   2. candidates: every pair whose lower bound g - E is <= T (the exact top-k is among them);
 *   3. each query's candidates go through the exact arithmetic (dist_exact_pair) and its k nearest
 *      are selected on the device: only the lists come back.
 * A within run (-d) takes steps 2 and 3 with one threshold for every query, the exact value's
 * bound for the cut (gpu_dist.cu), and keeps the candidates whose exact distance is within it.
 * Same layouts and arguments as the tiled kernels (dist_kernels.cuh); the bounds are of the
 * vectors moved by a.centre (the distances do not change, their error bounds shrink), whose float64
 * norms |fl(x - centre)| qnorm/rnorm must hold. */
#ifndef TSK_DIST_GEMM_CUH
#define TSK_DIST_GEMM_CUH

#include "dist_kernels.cuh"

/* The longest vectors (padded floats) the bounds are proven for. */
#define DIST_GEMM_MAX_LP 4096

/* Minima of the upper bound each query gets from one reference split (one per thread that holds
 * its row). */
#define DIST_GEMM_MINIMA 16

/* Pass 1: part[(q * n_split + s) * DIST_GEMM_MINIMA + i] = the minima of the upper bound of query
 * q over disjoint parts of the reference tiles of split s, every stride-th of them (INFINITY when
 * a part is empty). */
cudaError_t dist_gemm_launch_bound(const dist_tile_args *a, int n_split, int stride, float *part, cudaStream_t s);

/* thr[q] = the k-th smallest of query q's minima over all splits, widened so that it also covers
 * the rounding of the final sqrt (INFINITY when there are fewer than k finite ones). k <= 64. */
cudaError_t dist_gemm_launch_thresholds(const float *part, int nq, int k, int n_split, float *thr, cudaStream_t s);

/* Pass 2: every pair passing the filter whose lower bound is <= thr[q] goes to its query's slots,
 * slots[q * slot_cap + atomicAdd(&qcount[q], 1)] = r while below slot_cap (qcount zeroed first);
 * the reference tiles are cut into n_split ranges, one block each per query tile. */
cudaError_t dist_gemm_launch_candidates(const dist_tile_args *a, int n_split, const float *thr, int *slots,
                                        unsigned slot_cap, unsigned *qcount, cudaStream_t s);

/* Step 3: each query's candidates through the exact arithmetic (dist_exact_pair) into dist (room
 * for slot_cap a query), then its k nearest, nearest first, lower reference first on ties,
 * non-finite distances left out, into lists[q * k ..] padded with {INFINITY, -1}, as the direct
 * kernel's partial lists (n_split = 1). *most (zeroed first) = the largest count of one query's
 * candidates: past slot_cap, run pass 2 again with room. */
cudaError_t dist_gemm_launch_select(const dist_tile_args *a, int k, const int *slots, float *dist, unsigned slot_cap,
                                    const unsigned *qcount, dist_cand *lists, unsigned *most, cudaStream_t s);

/* thr[0 .. nq) = T, a threshold every query shares (the -d of a within run). */
cudaError_t dist_gemm_launch_fill(float T, int nq, float *thr, cudaStream_t s);

/* Step 3 of a within run: each query's candidates through the exact arithmetic (dist_exact_pair);
 * those with d <= max_dist go to hits[atomicAdd(count, 1)] while below cap (indices local to the
 * launch, in no order). *most (zeroed first) = the largest count of one query's candidates: past
 * slot_cap that query is skipped, and the caller runs pass 2 again with room; past cap, with a
 * larger hits buffer. */
cudaError_t dist_gemm_launch_within(const dist_tile_args *a, const int *slots, unsigned slot_cap, const unsigned *qcount,
                                    float max_dist, dist_hit *hits, unsigned long long *count, unsigned long long cap,
                                    unsigned *most, cudaStream_t s);

/* Blocks of the filter's kernels resident on one multiprocessor at this padded length (>= 1). */
int dist_gemm_blocks_per_sm(int Lp);

#endif
