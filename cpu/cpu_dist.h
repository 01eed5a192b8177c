/* cpu_dist.h: distances between a query set and a reference set of sketches on the CPU.
 *
 * The engine of `tsketch dist` and `triangle` (docs/distances.md). gpu/gpu_dist.h is its twin:
 * the same functions with a tsk_gpu_ prefix, so src/ can drive either through one loop over
 * query blocks. Every result is as docs/spec.md defines it and within 1e-5 relative (or 1e-6
 * absolute) of tsk_distance_naive: the kernel sums (a - b)^2 directly rather than expanding
 * |a|^2 + |b|^2 - 2ab, which cancels catastrophically for near-identical sketches; cosine is the
 * same sum over the vectors scaled by their float64 inverse norms, 1 - cos = |a/|a| - b/|b||^2 / 2
 * (see docs/distances.md, "Accuracy").
 *
 * Work is always requested for a block of queries at a time, so memory stays O(N*D + block) and
 * output can stream; results never depend on the thread count. */
#ifndef TSK_CPU_DIST_H
#define TSK_CPU_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h"
#include "../core/tsk_knobs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_cpu_dist tsk_cpu_dist;

/* Prepares the comparison of query with ref under metric m (float64 prefix norms of every item's
 * rows; nothing is copied: both sets must outlive the context). threads <= 0 means OpenMP's
 * default. Returns NULL with a message when the sets disagree on dim or memory runs out. */
tsk_cpu_dist *tsk_cpu_dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m,
                                int threads, char *err, size_t errlen);
void tsk_cpu_dist_close(tsk_cpu_dist *d);

/* Dense block: out[(q - q0) * ld + (r - r0)] = distance(query q, ref r) for q in [q0, q0+nq),
 * r in [r0, r0+nr). Every pair is computed (filters are the caller's business here). */
int tsk_cpu_dist_block(tsk_cpu_dist *d, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                       int64_t ld);

/* Nearest references of queries [q0, q0+nq) among the pairs that pass filter: out[(q-q0)*k + i]
 * is the i-th nearest, nearest first, ties broken by the lower reference index. Queries with
 * fewer than k candidates get trailing entries {q, -1, INFINITY}. */
int tsk_cpu_dist_topk(tsk_cpu_dist *d, int64_t q0, int64_t nq, int k, tsk_pair_filter filter, tsk_pair *out);

/* Every pair of queries [q0, q0+nq) that passes filter with distance <= max_dist, appended to
 * *pairs (grown with realloc; *n_pairs entries in use, *cap allocated) in query-major, then
 * reference order. */
int tsk_cpu_dist_within(tsk_cpu_dist *d, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter,
                        tsk_pair **pairs, int64_t *n_pairs, int64_t *cap);

/* The functions above return 0, or -1 after an allocation failure (the only runtime error), with
 * the reason in tsk_cpu_dist_error. */

/* Why the last call on d failed ("out of memory for the distance tiles of 16 threads (1.2 MB
 * each)"), as tsk_gpu_dist_error says it for the GPU twin. */
const char *tsk_cpu_dist_error(const tsk_cpu_dist *d);

/* The micro-kernel of the contexts opened from now on, in place of TSKETCH_DIST_KERNEL's (read once
 * per process: tests that compare the kernels in one process set it here). TSK_KNOB_AUTO: the
 * fastest this CPU runs; one it lacks gives that too. */
void tsk_cpu_dist_force_kernel(tsk_knob_kernel k);

#ifdef __cplusplus
}
#endif
#endif
