/* genome_dist.h: genome-level distance between two records' slide rows, compared as SETS.
 *
 * The positional slide distance of docs/spec.md compares row r of one record with row r of the
 * other, which is meaningless for genomes that differ by rearrangements, different start points
 * or strand. Here every row of A looks for its nearest row of B and vice versa (an all-rows x
 * all-rows minimum search, N_a x N_b x D), and the nearest distances are summarised:
 *
 *   mean nearest-row L2   (0.5 * (mean_a min_b |a - b| + mean_b min_a |b - a|)), or
 *   unmatched fraction    (share of rows whose nearest distance exceeds match_radius, averaged over
 *                          both directions: the complement of ANI's mapped fraction), or
 *   anchored              (mean nearest distance of the "anchored" rows, whose neighbour row found
 *                          its match next to theirs, divided by the share of anchored rows: the
 *                          CLI's `dist --genome`; genome_dist.c says why).
 *
 * With `chord`, the nearest "row" of B may be any point on the segment between two consecutive
 * rows of B: a homologous window that starts between two strides of B lies close to that chord,
 * so the distance is less dominated by the stride offset between the two records (in practice a
 * small and inconsistent effect, so it is off by default; a finer stride is what helps).
 * Rows should be canonical (--canonical) so that either strand matches.
 * docs/accuracy.md measures how these rank genome pairs against ANI and SNP distances. */
#ifndef TSK_GENOME_DIST_H
#define TSK_GENOME_DIST_H

#include "../core/genome_summary.h"
#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For each of the na rows of a (row-major, dim floats each): the L2 distance, in double, to its
 * nearest row of b (or nearest chord point with `chord` and nb >= 2), written to nearest[0..na).
 * nb == 0 gives +infinity. Returns 0, or -1 on bad arguments. */
int tsk_genome_nearest(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                       int chord, int threads, double *nearest);

/* tsk_genome_nearest, and in index[0..na) (when not NULL) the index of each row's nearest row of
 * b (with chords: the first row of the nearest chord); the lowest index wins ties; -1 when nb == 0. */
int tsk_genome_nearest_index(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                             int chord, int threads, double *nearest, int64_t *index);

/* The summarised, symmetric genome distance of A and B (see the top of this file).
 * Either set empty: 1.0 for the unmatched fraction, +infinity for the mean; both empty: 0.
 * Returns a negative value only for bad arguments or when memory runs out. */
double tsk_genome_distance(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                           const tsk_genome_opts *o);

/* The skip_rows that leaves out exactly the partial windows of slide rows (window w, stride s):
 * ceil(w / s) - 1; 0 for whole-record sketches (w == 0). */
int64_t tsk_genome_partial_rows(int64_t window, int64_t stride);

/* All pairs of a sketch set: out[i * n + j] (n = s->n_items, symmetric, 0 on the diagonal).
 * Pairs are spread over o->threads. Returns 0, or -1 when memory runs out. */
int tsk_genome_distance_matrix(const tsk_sketch_set *s, const tsk_genome_opts *o, double *out);

/* Items q0 .. q0+nq-1 of q against items r0 .. r0+nr-1 of r (same dim): out[i * ld + j] =
 * distance(q0 + i, r0 + j) as float. q == r marks one set against itself (0 on the diagonal, each
 * pair computed once). Threads over pairs (or inside the pair when there are fewer pairs than
 * threads); the values do not depend on the thread count. Returns 0, or -1 on bad arguments or
 * when memory runs out. */
int tsk_genome_distance_block(const tsk_sketch_set *q, int64_t q0, int64_t nq, const tsk_sketch_set *r, int64_t r0,
                              int64_t nr, const tsk_genome_opts *o, float *out, int64_t ld);

#ifdef __cplusplus
}
#endif
#endif
