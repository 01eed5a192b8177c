/* cpu_sketch.h: the CPU sketch engine (OpenMP across records, SIMD inner loops, long records
 * split across threads with the split formula). Twin of gpu/gpu_sketch.h: both compute exactly
 * the function of core/tsk_def.h and must agree. */
#ifndef TSK_CPU_SKETCH_H
#define TSK_CPU_SKETCH_H

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sketches every record of b into out: b->row_offset[b->n_records] rows of p->dim values,
 * float (TSK_SINGLE) or double (TSK_DOUBLE), row-major. threads >= 1. Returns 0, or -1 when
 * memory runs out. Deterministic: the result does not depend on threads. */
int tsk_cpu_sketch(const tsk_params *p, const tsk_batch *b, void *out, int threads);

/* Operations a base the CPU's sketch DP does for p, for choosing an engine by the input's size
 * (src/engine.c): t D for whole records; for slide rows t D ceil(w / s) where each window is
 * recomputed and t (t + 1) D where it slides, by the choice the slide path makes
 * (sketch_slide.c). Not the count path's cost (DNA whole records at t <= 4 run there). */
double tsk_cpu_dp_cost_per_base(const tsk_params *p);

/* The plain scalar DP of docs/spec.md in double for one cleaned record (sketch = T[t]; zeros when
 * n < t). The slow reference that benches and tests measure against. */
void tsk_cpu_sketch_reference(const tsk_params *p, const uint8_t *codes, int64_t n, double *out);

/* The backward DP (the GPU engine's last piece of a split row, in plain double): for j = 0..t-1
 * out[j * dim ..] = V[j..t] of docs/spec.md's split formula over codes[0..n): the mean over the
 * increasing (t-j)-tuples of levels j+1..t, i.e. the sketch whose tables are levels j+1..t.
 * Computed right to left: G_q = V[t-q..t] gets level (t-q+1)'s shift of G_(q-1), G_0 = e_0.
 * Zero vectors where n < t - j. */
void tsk_cpu_suffix_reference(const tsk_params *p, const uint8_t *codes, int64_t n, double *out);

#ifdef __cplusplus
}
#endif
#endif
