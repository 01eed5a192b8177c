/* gpu_dist.h: distances between a query set and a reference set of sketches on CUDA GPUs.
 *
 * Twin of cpu/cpu_dist.h: the same functions with a tsk_gpu_ prefix and the same results (pairs,
 * order, ties), so src/ drives either engine through one loop over query blocks. Distances agree
 * with tsk_distance_naive within 1e-5 relative (or 1e-6 absolute), and are the very floats the
 * CPU engine gives: both follow core/vec_dist.h (sums of (a - b)^2 in the same order with the same
 * FMAs, cosine over the vectors scaled by 1/|x|, 1 - cos = |a/|a| - b/|b||^2 / 2) (#42).
 *
 * How the work runs (docs/gpu.md, "The distance engine"):
 *  - sets whose items all have the same number of rows (whole-record sketches, the common case)
 *    use a tiled kernel: 128 x 128 pair tiles through shared memory, 8 x 8 pairs per thread;
 *    top-k (k <= TSK_GPU_DIST_MAX_FUSED_K) and thresholds are reduced inside the kernel, so only
 *    surviving pairs cross PCIe; l2 top-k first bounds every pair on the tensor cores (TF32
 *    dot products, dist_gemm.cuh) and recomputes only the candidates the bounds cannot rule out
 *    with the exact kernel, so its results are the same floats;
 *  - sets of slide sketches with differing row counts, and larger k, compute dense blocks on the
 *    GPU and select on the host;
 *  - the reference set is uploaded once when it fits (else in blocks, re-sent per call: prefer
 *    large query blocks then); each call's queries are split over the devices.
 * All of this is invisible in the results. */
#ifndef TSK_GPU_DIST_H
#define TSK_GPU_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest k that top-k reduces inside the kernel; larger k still works (dense blocks, host
 * selection), only slower. */
#define TSK_GPU_DIST_MAX_FUSED_K 64

typedef struct tsk_gpu_dist tsk_gpu_dist;

/* Prepares the comparison of query with ref under metric m on devices[0..n_devices) (NULL or
 * n_devices <= 0: device 0), its host-side helpers on at most `threads` threads (-p; 0: up to 16).
 * Uploads the reference set (or its first block) to every device. query and ref may be the same
 * set (pass the same pointer: its device copy is then shared). Nothing is copied on the host:
 * both sets must outlive the context. Returns NULL with a message when there is no usable device,
 * the sets disagree on dim, or memory runs out. */
tsk_gpu_dist *tsk_gpu_dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m,
                                const int *devices, int n_devices, int threads, char *err, size_t errlen);
void tsk_gpu_dist_close(tsk_gpu_dist *d);

/* Why the last call on d failed ("CUDA error on device 0: out of memory (dense block)"). */
const char *tsk_gpu_dist_error(const tsk_gpu_dist *d);

/* What the opening took (TSKETCH_TIMING): the passes over the items on the host (each item's
 * scale, the references' centre, the filter norms), and the devices' setup after them (the
 * contexts, made beside the passes, waited for). */
void tsk_gpu_dist_open_times(const tsk_gpu_dist *d, double *passes_s, double *devices_s);

/* Dense block: out[(q - q0) * ld + (r - r0)] = distance(query q, ref r) for q in [q0, q0+nq),
 * r in [r0, r0+nr). Every pair is computed (filters are the caller's business here). */
int tsk_gpu_dist_block(tsk_gpu_dist *d, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                       int64_t ld);

/* Nearest references of queries [q0, q0+nq) among the pairs that pass filter: out[(q-q0)*k + i]
 * is the i-th nearest, nearest first, ties broken by the lower reference index. Queries with
 * fewer than k candidates get trailing entries {q, -1, INFINITY}. */
int tsk_gpu_dist_topk(tsk_gpu_dist *d, int64_t q0, int64_t nq, int k, tsk_pair_filter filter, tsk_pair *out);

/* Every pair of queries [q0, q0+nq) that passes filter with distance <= max_dist, appended to
 * *pairs (grown with realloc; *n_pairs entries in use, *cap allocated) in query-major, then
 * reference order. A pair within float rounding of max_dist may be kept by one engine and not
 * by the other. */
int tsk_gpu_dist_within(tsk_gpu_dist *d, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter,
                        tsk_pair **pairs, int64_t *n_pairs, int64_t *cap);

/* The functions above return 0, or -1 with the reason in tsk_gpu_dist_error (a CUDA error or
 * memory exhaustion: both runtime errors). */

/* Caps the reference items held on a device at once and the query items sent per launch
 * (0 = chosen from free device memory). For tests of the blocked paths and for tuning; call
 * right after open. */
void tsk_gpu_dist_set_limits(tsk_gpu_dist *d, int64_t max_ref_items, int64_t max_query_items);

#ifdef __cplusplus
}
#endif
#endif
