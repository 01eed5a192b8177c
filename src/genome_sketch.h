/* genome_sketch.h: genome sketches out of the sketch pipeline.
 *
 * The pipeline (pipeline.h) sketches every anchored window of every record on the CPU or GPU
 * engine; this turns each record's window rows into keys (core/genome_keys.h), keeps those at or
 * below the scale's bound and hands each genome's sorted, unique keys on. With --per-file a genome
 * is a file: its records (contigs) are windowed one by one, so no window spans two contigs, and
 * their keys are united. Each genome's segment anchors (core/genome_ani.h) come from the same anchor
 * loop as its keys; a genome whose keys the GPU found has its anchors found by the CPU threads. */
#ifndef TSK_GENOME_SKETCH_H
#define TSK_GENOME_SKETCH_H

#include <stdint.h>

#include "../io/tsk_file.h"
#include "sketch_opts.h"

/* Called once per genome, in input order: genome->n_rows keys, strictly ascending; its lengths are
 * the sums over its records; its segment anchors, contigs and N50 (core/genome_ani.h), valid
 * during the call. Return 0 to go on, else an exit code that stops the run. */
typedef int (*tsk_genome_sink)(void *ctx, const tsk_record_info *genome, const uint64_t *keys,
                               const tsk_genome_anchors *anchors);

/* Runs job (job->params must describe genome sketches: tsk_genome_params_check) through the
 * pipeline. Returns a TSK_EXIT_* code; on failure the message has been printed. */
int tsk_genome_sketch_run(const tsk_sketch_job *job, tsk_genome_sink sink, void *ctx);

#endif
