/* pipeline.h: inputs -> records -> batches -> engine -> rows, in input order.
 *
 * Used by `sketch` (rows go to a .tsk writer) and by `dist`/`triangle` (rows of FASTA inputs
 * sketched on the fly go to memory). Reading and cleaning run on their own thread while the
 * engine computes the previous batch, and a GPU engine computes batch k while the rows of batch
 * k-1 go to the sink; a plain FASTA file is parsed and cleaned by -p threads (io/fasta_par.c),
 * with the same batches and output for every thread count. */
#ifndef TSK_PIPELINE_H
#define TSK_PIPELINE_H

#include <stdint.h>

#include "../io/tsk_file.h"
#include "sketch_opts.h"

/* Called once per record, in input order, with its rows (rec->n_rows x dim values of the job's
 * precision). Return 0 to go on; anything else stops the run and is returned by the pipeline. */
typedef int (*tsk_record_sink)(void *ctx, const tsk_record_info *rec, const void *rows);

/* Runs the job: sketch rows (vectors, windows, anchored windows), never genome sketches
 * (params.scaled > 0: those are tsk_genome_sketch_run's, src/genome_sketch.h; the pipeline refuses
 * such a job with TSK_EXIT_USAGE). Returns a TSK_EXIT_* code; on failure the message has been
 * printed. */
int tsk_pipeline_run(const tsk_sketch_job *job, tsk_record_sink sink, void *ctx);

/* A sink that takes a batch's records at once (a .tsk writer: tsk_writer_add_batch), for sketch
 * rows. add gets n records in input order and their rows back to back
 * (recs[0]'s first, recs[i].n_rows each); it may go on reading the rows after it returns, until
 * wait(ctx, ticket) returns for the *ticket it set (0: done with them already). The pipeline
 * sketches the next batches into other buffers meanwhile, and waits before it reuses or frees
 * this one. Both return 0 to go on; anything else stops the run and is returned by the pipeline. */
typedef struct {
    int (*add)(void *ctx, const tsk_record_info *recs, int64_t n, const void *rows, int64_t *ticket);
    int (*wait)(void *ctx, int64_t ticket);
    void *ctx;
} tsk_batch_sink;

/* tsk_pipeline_run with a batch sink (job->params.scaled must be 0 here too). */
int tsk_pipeline_run_batches(const tsk_sketch_job *job, const tsk_batch_sink *sink);

#endif
