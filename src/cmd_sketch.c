/* cmd_sketch.c: `tsketch sketch [options] INPUT... -o OUT.tsk` */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/tsk_file.h"
#include "cli.h"
#include "commands.h"
#include "genome_sketch.h"
#include "pipeline.h"
#include "tsk_config.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: tsketch sketch [options] INPUT... -o OUT.tsk\n"
            "\n"
            "Sketches every FASTA/FASTQ record (plain, gzip or BGZF; '-' = stdin) into OUT.tsk.\n"
            "For genomes: tsketch sketch --genome --per-file GENOMES... -o G.tsk (one genome sketch per\n"
            "file of contigs), then tsketch dist G.tsk or tsketch triangle G.tsk.\n"
            "\n"
            "  -o, --output FILE     the sketch file to write (required)\n"
            "  -q, --quiet           no notes or warnings on stderr\n"
            "  -h, --help            this help\n"
            "%s",
            tsk_sketch_options_help);
}

typedef struct {
    tsk_writer *writer;
    int failed;
} sketch_sink_ctx;

/* tsk_batch_sink: a batch's rows go to the file on the writer's thread (tsk_writer_add_batch). */
static int write_rows(void *ctx, const tsk_record_info *recs, int64_t n, const void *rows, int64_t *ticket)
{
    sketch_sink_ctx *c = ctx;
    char err[TSK_ERRLEN];
    if (tsk_writer_add_batch(c->writer, recs, n, rows, ticket, err, sizeof err)) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return 0;
}

static int wait_rows(void *ctx, int64_t ticket)
{
    sketch_sink_ctx *c = ctx;
    char err[TSK_ERRLEN];
    if (tsk_writer_wait(c->writer, ticket, err, sizeof err)) {
        if (!c->failed++) tsk_error("%s", err); /* the pipeline waits for every buffer: say it once */
        return TSK_EXIT_RUNTIME;
    }
    return 0;
}

/* tsk_genome_sink: one genome sketch (its keys as rows) at a time. */
static int write_genome(void *ctx, const tsk_record_info *genome, const uint64_t *keys,
                        const tsk_genome_anchors *anchors)
{
    sketch_sink_ctx *c = ctx;
    char err[TSK_ERRLEN];
    if (tsk_writer_add_genome(c->writer, genome, keys, anchors, err, sizeof err)) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return 0;
}

int tsk_cmd_sketch(int argc, char **argv)
{
    static const struct option long_options[] = {
        TSK_SKETCH_LONG_OPTIONS,
        {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    /* Joined before getopt permutes argv; argv[-1] is the program (main passes argv + 1). */
    char *command_line = tsk_join_argv(argc + 1, argv - 1);
    tsk_sketch_job job;
    tsk_sketch_job_init(&job);
    const char *output = NULL;
    int opt, rc = TSK_EXIT_OK;
    optind = 1;
    while (rc == TSK_EXIT_OK && (opt = getopt_long(argc, argv, TSK_SKETCH_SHORT_OPTS "o:qh", long_options, NULL)) != -1) {
        int used = tsk_sketch_option(&job, opt, optarg);
        if (used == 1) continue;
        if (used < 0) {
            rc = -used;
            break;
        }
        switch (opt) {
        case 'o': output = optarg; break;
        case 'q': tsk_quiet = 1; break;
        case 'h':
            usage(stdout);
            tsk_sketch_job_free(&job);
            free(command_line);
            return TSK_EXIT_OK;
        default: rc = tsk_usage_error("sketch");
        }
    }
    for (int i = optind; rc == TSK_EXIT_OK && i < argc; i++)
        if (tsk_sketch_job_add_input(&job, argv[i])) rc = TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_OK && job.n_inputs == 0) {
        tsk_error("sketch: no input (give FASTA/FASTQ files, '-' for stdin, or -l LIST)");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK && !output) {
        tsk_error("sketch: no output file (-o OUT.tsk)");
        rc = TSK_EXIT_USAGE;
    }
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_check_output(&job, output, NULL, 0);
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_finish(&job);
    if (rc != TSK_EXIT_OK) {
        tsk_sketch_job_free(&job);
        free(command_line);
        return rc;
    }

    char err[TSK_ERRLEN];
    sketch_sink_ctx ctx = {0};
    ctx.writer = tsk_writer_open(output, &job.params, TSK_VERSION, command_line ? command_line : "", err, sizeof err);
    free(command_line);
    if (!ctx.writer) {
        tsk_error("%s", err);
        tsk_sketch_job_free(&job);
        return TSK_EXIT_RUNTIME;
    }
    const tsk_batch_sink rows_sink = {write_rows, wait_rows, &ctx};
    rc = job.genome ? tsk_genome_sketch_run(&job, write_genome, &ctx) : tsk_pipeline_run_batches(&job, &rows_sink);
    const double t_finish = tsk_seconds();
    if (rc == TSK_EXIT_OK) {
        if (tsk_writer_finish(ctx.writer, err, sizeof err)) {
            tsk_error("%s", err);
            rc = TSK_EXIT_RUNTIME;
        }
    } else {
        tsk_writer_abort(ctx.writer);
    }
    const double t_free = tsk_seconds();
    tsk_sketch_job_free(&job);
    if (tsk_timing_wanted())
        fprintf(stderr, "tsketch: timing: .tsk finished (tables, header, rename) %.3f, job freed %.3f\n",
                t_free - t_finish, tsk_seconds() - t_free);
    return rc;
}
