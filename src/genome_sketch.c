/* genome_sketch.c: anchored-window rows -> genome sketches (genome_sketch.h). */
#include "genome_sketch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/genome_keys.h"
#include "cli.h"

typedef struct {
    const tsk_sketch_job *job;
    tsk_genome_sink sink;
    void *ctx;
    size_t elem_size;
    /* the genome being gathered (--per-file: the keys of every record of input `input`) */
    size_t input;
    int open;
    char *name;
    char *source; /* a copy: the pipeline's record strings do not outlive the record */
    int64_t raw_len, clean_len, dropped;
    uint64_t *keys;
    int64_t n_keys, cap_keys;
} genome_ctx;

/* Sorts and hands on the genome gathered so far. */
static int flush_genome(genome_ctx *g)
{
    if (!g->open) return TSK_EXIT_OK;
    g->open = 0;
    const int64_t n_candidates = tsk_genome_keys_sort_unique(g->keys, g->n_keys);
    /* the candidates are the windows of the genome's anchors; its sketch keeps those below its
     * threshold (core/genome_keys.h, "Size floor") */
    const uint64_t tau = tsk_genome_threshold(&g->job->params, g->clean_len, g->keys, n_candidates);
    const int64_t n = tsk_keys_at_most(g->keys, n_candidates, tau);
    if (n == 0)
        tsk_warn("%s: no window fingerprint kept (%lld bases; windows of %lld bases, about one in %lld kept "
                 "beyond the first %lld): its distances are 1",
                 g->name, (long long)g->clean_len, (long long)g->job->params.window,
                 (long long)g->job->params.scaled, (long long)g->job->params.min_keys);
    tsk_record_info rec = {g->name, g->source, g->raw_len, g->clean_len, g->dropped, 0, n};
    int rc = g->sink(g->ctx, &rec, g->keys);
    free(g->name);
    free(g->source);
    g->name = g->source = NULL;
    g->n_keys = 0;
    return rc;
}

/* The name of the --per-file genome of input i, as the pipeline names per-file sketches. */
static char *per_file_name(const tsk_sketch_job *job, size_t i)
{
    const tsk_input *in = &job->inputs[i];
    if (in->name) return strdup(in->name);
    if (job->per_file_name) return strdup(job->per_file_name);
    return tsk_path_stem(in->path);
}

static int take_record(void *ctx, const tsk_record_info *rec, const void *rows, const uint64_t *anchors)
{
    genome_ctx *g = ctx;
    const tsk_sketch_job *job = g->job;
    int rc = TSK_EXIT_OK;
    if (job->per_file) {
        /* records come in input order: a new source is the next input that has records */
        size_t at = g->input;
        if (g->open && strcmp(job->inputs[at].path, rec->source) != 0) {
            while (at < job->n_inputs && strcmp(job->inputs[at].path, rec->source) != 0) at++;
            if (at == job->n_inputs) at = g->input + 1; /* cannot happen: sources are the inputs' paths */
        }
        if (!g->open || at != g->input) {
            if ((rc = flush_genome(g)) != TSK_EXIT_OK) return rc;
            g->input = at;
        }
    } else if ((rc = flush_genome(g)) != TSK_EXIT_OK) {
        return rc;
    }
    if (!g->open) {
        g->open = 1;
        g->name = job->per_file ? per_file_name(job, g->input) : strdup(rec->name);
        g->source = strdup(rec->source);
        g->raw_len = g->clean_len = g->dropped = 0;
        if (!g->name || !g->source) {
            tsk_error("%s: out of memory", rec->source);
            return TSK_EXIT_RUNTIME;
        }
    }
    g->raw_len += rec->raw_len;
    g->clean_len += rec->clean_len;
    g->dropped += rec->dropped;
    if (g->n_keys + rec->n_rows > g->cap_keys) {
        int64_t cap = g->cap_keys ? g->cap_keys : 4096;
        while (cap < g->n_keys + rec->n_rows) cap *= 2;
        uint64_t *k = realloc(g->keys, (size_t)cap * sizeof *k);
        if (!k) {
            tsk_error("%s: out of memory for the keys of '%s'", rec->source, g->name);
            return TSK_EXIT_RUNTIME;
        }
        g->keys = k;
        g->cap_keys = cap;
    }
    const size_t row_bytes = (size_t)job->params.dim * g->elem_size;
    uint64_t *keys = g->keys + g->n_keys;
    int64_t bad = -1;
    /* a small genome's tens of thousands of windows: their keys on the -p threads, in blocks */
    const int64_t block = 4096, n_blocks = (rec->n_rows + block - 1) / block;
#pragma omp parallel for num_threads(job->threads) if (n_blocks > 1) schedule(static) reduction(max : bad)
    for (int64_t k = 0; k < n_blocks; k++) {
        const int64_t first = k * block, n = rec->n_rows - first < block ? rec->n_rows - first : block;
        const int64_t at = tsk_genome_keys_of_rows(&job->params, (const char *)rows + (size_t)first * row_bytes,
                                                   g->elem_size, n, anchors + first, keys + first);
        if (at >= 0) bad = bad > first + at ? bad : first + at;
    }
    if (bad >= 0) {
        tsk_error("%s: record '%s': window row %lld is not an integer sketch scaled by %.0f (an engine fault)",
                  rec->source, rec->name, (long long)bad, tsk_genome_row_scale(&job->params));
        return TSK_EXIT_RUNTIME;
    }
    g->n_keys += rec->n_rows;
    return TSK_EXIT_OK;
}

int tsk_genome_sketch_run(const tsk_sketch_job *job, tsk_genome_sink sink, void *ctx)
{
    const char *why = tsk_genome_params_check(&job->params);
    if (why) {
        tsk_error("invalid genome sketch parameters: %s", why);
        return TSK_EXIT_USAGE;
    }
    genome_ctx g = {0};
    g.job = job;
    g.sink = sink;
    g.ctx = ctx;
    g.elem_size = job->params.precision == TSK_DOUBLE ? 8 : 4;
    /* the pipeline sketches records; per-file genomes are gathered here */
    tsk_sketch_job records = *job;
    records.per_file = 0;
    records.per_file_name = NULL;
    /* --per-file: a file's records are one genome, whose length places their anchors */
    records.genome_file_cap = job->per_file ? tsk_genome_floor_length(&job->params) : 0;
    int rc = TSK_EXIT_OK;
    for (size_t begin = 0, end; rc == TSK_EXIT_OK && begin < job->n_inputs; begin = end) {
        /* a path given twice in a row (-l with two names for one file) is two genomes that the
         * records' sources cannot tell apart: the second starts a pipeline run of its own */
        for (end = begin + 1; end < job->n_inputs; end++)
            if (job->per_file && strcmp(job->inputs[end].path, job->inputs[end - 1].path) == 0) break;
        records.inputs = job->inputs + begin;
        records.n_inputs = end - begin;
        g.input = begin;
        rc = tsk_pipeline_run(&records, take_record, &g);
        if (rc == TSK_EXIT_OK) rc = flush_genome(&g);
    }
    free(g.name);
    free(g.source);
    free(g.keys);
    return rc;
}
