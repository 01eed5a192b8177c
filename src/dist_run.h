/* dist_run.h: what the two runs behind `dist` and `triangle` share: the sketch-row run
 * (cmd_dist.c) and the genome-sketch run (dist_genome.c). */
#ifndef TSK_DIST_RUN_H
#define TSK_DIST_RUN_H

#include <stdint.h>

#include "../core/tsk_def.h"
#include "../io/dist_out.h"
#include "pipeline.h"

/* A run's internal code for a failed write (reported, with errno, as a runtime error). */
#define TSK_EXIT_WRITE_FAILED 100

typedef struct {
    tsk_dist_format fmt;
    tsk_metric metric;
    const char *output;
    double max_dist;     /* -d; INFINITY when not given */
    int64_t top_k;       /* 0 when not given */
    int with_self, header, triangle;
    int genome;          /* --genome: one distance per genome */
    int containment;     /* --containment: genome distances from the query's share only */
    int64_t block_i, block_n; /* --block I/N: this run computes part I of N (1-based); 1/1 = all */
} dist_opts;

/* --block I/N: the query rows [*begin, *end) of part I. Parts split the rows so that each holds
 * about 1/N of the pairs (a one-set run's row q has n-1-q of them; otherwise every row has as
 * many), are disjoint, cover every row and come in output order: concatenating parts 1..N gives
 * the single run's output byte for byte. */
void tsk_dist_block_rows(const dist_opts *o, int one_set, int64_t n, int64_t *begin, int64_t *end);

/* Genome sketches compared (dist_genome.c): inputs grouped as for the row run (group 0 the
 * references, 1 the queries; one_set: all of them as one set). Returns a TSK_EXIT_* code, the
 * message printed. */
int tsk_dist_genome_run(const tsk_input *inputs, size_t n_inputs, const int *group_of, int one_set, const dist_opts *o,
                        const tsk_sketch_job *job, int params_given);

#endif
