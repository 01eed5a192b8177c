/* genome_summary.h: what genome mode (`tsketch dist --genome`) makes of nearest-row searches, the
 * part of its definition that both distance engines share (cpu/genome_dist.c searches on the CPU,
 * gpu/gpu_genome.cu on the GPU; docs/accuracy.md section 2, docs/distances.md). Plain C17. */
#ifndef TSK_GENOME_SUMMARY_H
#define TSK_GENOME_SUMMARY_H

#include <stdint.h>

#include "tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { TSK_GENOME_MEAN_NEAREST = 0, TSK_GENOME_UNMATCHED = 1, TSK_GENOME_ANCHORED = 2 } tsk_genome_summary;

typedef struct {
    tsk_genome_summary summary;
    double match_radius;   /* TSK_GENOME_UNMATCHED: a row is matched when its nearest L2 <= this */
    int chord;             /* 1: nearest point on the chords between consecutive rows of the other
                              (CPU engine only) */
    int threads;           /* OpenMP threads, >= 1 */
    int64_t skip_rows;     /* set functions (_block, _matrix): rows 0 .. skip_rows-1 of an item, the
                              growing prefix windows shorter than the window, are left out, unless
                              the item has no other row */
} tsk_genome_opts;

/* Defaults measured in docs/accuracy.md: mean nearest-row L2, no chords, 1 thread, no rows skipped. */
void tsk_genome_opts_default(tsk_genome_opts *o);

/* One direction's numbers: every row of a set of n rows has its nearest distance (L2) to the
 * other set of n_other rows, and the index of that nearest row. */
typedef struct {
    double mean_all;       /* mean nearest distance over all rows */
    double mean_anchored;  /* mean nearest distance over anchored rows (0 when none) */
    double anchored;       /* share of anchored rows */
    double unmatched;      /* share of rows beyond match_radius */
} tsk_genome_direction;

/* Summarises one direction, the rows in order (index may be NULL when the summary needs none). */
tsk_genome_direction tsk_genome_direction_of(const double *nearest, const int64_t *index, int64_t n, int64_t n_other,
                                             const tsk_genome_opts *o);

/* The symmetric genome distance from the two directions (A's rows against B, B's against A). */
double tsk_genome_combine(const tsk_genome_direction *a, const tsk_genome_direction *b, int64_t na, int64_t nb,
                          const tsk_genome_opts *o);

/* Blocks of one set against itself (distance matrices are symmetric): the pair (qi, rj) of the
 * block [q0, q0+nq) x [r0, r0+nr) is a mirror when rj < qi and (rj, qi) lies in the block too.
 * Block functions skip mirrors, then copy them from their twins with tsk_genome_copy_mirrors. */
static inline int tsk_genome_is_mirror(int64_t qi, int64_t rj, int64_t q0, int64_t r0, int64_t nr)
{
    return rj < qi && rj >= q0 && qi < r0 + nr;
}
void tsk_genome_copy_mirrors(int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld);

/* Item i's rows as genome mode compares them: without its first `skip` rows (the partial
 * windows at a record's start, tsk_genome_partial_rows), unless it has no other. n gets the count. */
const float *tsk_genome_item_rows(const tsk_sketch_set *s, int64_t i, int64_t skip, int64_t *n);

#ifdef __cplusplus
}
#endif
#endif
