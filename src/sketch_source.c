/* sketch_source.c: loading the sketches to compare (see sketch_source.h). */
#include "sketch_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/tsk_file.h"
#include "cli.h"
#include "pipeline.h"

/* ---- growing a group ---- */

int tsk_name_arena_add(char **arena, size_t *len, size_t *cap, const char *name, size_t *offset)
{
    const size_t n = strlen(name) + 1;
    if (*len + n > *cap) {
        size_t c = *cap ? *cap * 2 : 4096;
        while (c < *len + n) c *= 2;
        char *a = realloc(*arena, c);
        if (!a) return -1;
        *arena = a;
        *cap = c;
    }
    memcpy(*arena + *len, name, n);
    *offset = *len;
    *len += n;
    return 0;
}

/* Room for more_items items and more_rows rows of dim values. */
static int reserve(tsk_sketch_source *s, int dim, int64_t more_items, int64_t more_rows)
{
    if (s->set.n_items + more_items > s->cap_items) {
        int64_t cap = s->cap_items ? s->cap_items * 2 : 256;
        while (cap < s->set.n_items + more_items) cap *= 2;
        int64_t *fr = realloc(s->first_row, (size_t)cap * sizeof *fr);
        if (!fr) return -1;
        s->first_row = fr;
        int64_t *nr = realloc(s->n_rows, (size_t)cap * sizeof *nr);
        if (!nr) return -1;
        s->n_rows = nr;
        const char **nm = realloc(s->names, (size_t)cap * sizeof *nm);
        if (!nm) return -1;
        s->names = nm;
        int64_t *ln = realloc(s->length, (size_t)cap * sizeof *ln);
        if (!ln) return -1;
        s->length = ln;
        s->cap_items = cap;
    }
    if (s->n_total_rows + more_rows > s->cap_rows) {
        int64_t cap = s->cap_rows ? s->cap_rows * 2 : 1024;
        while (cap < s->n_total_rows + more_rows) cap *= 2;
        float *r = realloc(s->rows, (size_t)cap * (size_t)dim * sizeof *r);
        if (!r) return -1;
        s->rows = r;
        s->cap_rows = cap;
    }
    return 0;
}

/* Appends one item (room reserved) named name, whose n_rows rows start at row first_row. Names are
 * kept as arena offsets in the names array until tsk_sources_load fixes them into pointers. */
static int add_entry(tsk_sketch_source *s, const char *name, int64_t length, int64_t first_row, int64_t n_rows)
{
    size_t off;
    if (tsk_name_arena_add(&s->name_arena, &s->arena_len, &s->arena_cap, name, &off)) return -1;
    int64_t i = s->set.n_items++;
    s->first_row[i] = first_row;
    s->n_rows[i] = n_rows;
    s->length[i] = length;
    s->names[i] = (const char *)(uintptr_t)off;
    return 0;
}

/* Appends one item of n_rows float rows named name, its rows copied. */
static int add_item(tsk_sketch_source *s, int dim, const char *name, int64_t length, const float *rows,
                    int64_t n_rows)
{
    if (reserve(s, dim, 1, n_rows) || add_entry(s, name, length, s->n_total_rows, n_rows)) return -1;
    const size_t n = (size_t)n_rows * (size_t)dim;
    if (n) /* an item of no rows may come with no buffer at all */
        memcpy(s->rows + (size_t)s->n_total_rows * (size_t)dim, rows, n * sizeof(float));
    s->n_total_rows += n_rows;
    return 0;
}

static void finalize(tsk_sketch_source *s, int dim)
{
    for (int64_t i = 0; i < s->set.n_items; i++) s->names[i] = s->name_arena + (uintptr_t)s->names[i];
    s->set.dim = dim;
    s->set.rows = s->file ? (const float *)s->file->data : s->rows;
    s->set.first_row = s->first_row;
    s->set.n_rows = s->n_rows;
}

void tsk_source_free(tsk_sketch_source *s)
{
    free(s->rows);
    tsk_file_close(s->file);
    free(s->first_row);
    free(s->n_rows);
    free(s->length);
    free(s->names);
    free(s->name_arena);
    memset(s, 0, sizeof *s);
}

/* ---- loading ---- */

typedef struct {
    tsk_sketch_source *dst;
    int dim;
} sink_ctx;

static int take_record(void *ctx, const tsk_record_info *rec, const void *rows)
{
    sink_ctx *c = ctx;
    if (add_item(c->dst, c->dim, rec->name, rec->clean_len, rows, rec->n_rows)) {
        tsk_error("out of memory holding the sketches of %s", rec->source);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

/* Display name of where the FASTA inputs' parameters came from. */
static const char OPTIONS_NAME[] = "the command-line sketch options";

static int open_sketches(const tsk_input *inputs, size_t n_inputs, const tsk_sketch_job *job, int params_given,
                         const int *group_of, const size_t *in_group, int anchors_later, tsk_file **files,
                         tsk_params *params)
{
    char err[TSK_ERRLEN], diff[4096];
    /* Open every .tsk first: the first fixes the parameters unless the command line did. */
    const char *origin = NULL;
    for (size_t i = 0; i < n_inputs; i++) {
        if (!tsk_file_is_sketch(inputs[i].path)) continue; /* opens regular files only (tsk_file.h) */
        int why;
        files[i] = anchors_later && in_group[group_of[i]] == 1
                       ? tsk_file_open_anchors_later(inputs[i].path, job->threads, &why, err, sizeof err)
                       : tsk_file_open_threads(inputs[i].path, job->threads, &why, err, sizeof err);
        if (!files[i]) {
            tsk_error("%s", err);
            return why == TSK_FILE_NO_MEMORY ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
        }
        if (!origin) {
            origin = inputs[i].path;
            *params = files[i]->params;
        }
    }
    if (!origin || params_given) {
        /* options and .tsk inputs must agree */
        if (origin && tsk_params_diff_shown(&job->params, OPTIONS_NAME, params, origin, diff, sizeof diff)) {
            tsk_error("incompatible sketches: %s", diff);
            return TSK_EXIT_INCOMPATIBLE;
        }
        *params = job->params;
        if (!origin) origin = OPTIONS_NAME;
    }
    for (size_t i = 0; i < n_inputs; i++)
        if (files[i] && tsk_params_diff_shown(params, origin, &files[i]->params, inputs[i].path, diff, sizeof diff)) {
            tsk_error("incompatible sketches: %s", diff);
            return TSK_EXIT_INCOMPATIBLE;
        }
    return TSK_EXIT_OK;
}

int tsk_sources_walk(const tsk_input *inputs, size_t n_inputs, const int *group_of, const tsk_sketch_job *job,
                     int params_given, tsk_params *params, const tsk_source_loader *l)
{
    tsk_file **files = calloc(n_inputs ? n_inputs : 1, sizeof *files);
    if (!files) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    /* inputs per group, once: a loader may use a group's only .tsk in place */
    int n_groups = 1;
    for (size_t i = 0; i < n_inputs; i++)
        if (group_of[i] >= n_groups) n_groups = group_of[i] + 1;
    size_t *in_group = calloc((size_t)n_groups, sizeof *in_group);
    if (!in_group) {
        free(files);
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < n_inputs; i++) in_group[group_of[i]]++;
    int rc = open_sketches(inputs, n_inputs, job, params_given, group_of, in_group, l->anchors_later, files, params);
    for (size_t i = 0; i < n_inputs && rc == TSK_EXIT_OK;) {
        if (files[i]) {
            rc = l->add_file(l->ctx, group_of[i], &files[i], inputs[i].path, in_group[group_of[i]] == 1);
            tsk_file_close(files[i]); /* unless the loader kept it */
            files[i] = NULL;
            i++;
            continue;
        }
        /* a run of sequence inputs of one group: one pipeline run */
        size_t end = i + 1;
        while (end < n_inputs && !files[end] && group_of[end] == group_of[i]) end++;
        tsk_sketch_job sub = *job;
        sub.params = *params;
        sub.inputs = (tsk_input *)(inputs + i);
        sub.n_inputs = end - i;
        rc = l->sketch(l->ctx, group_of[i], &sub);
        i = end;
    }
    for (size_t i = 0; i < n_inputs; i++)
        if (files[i]) tsk_file_close(files[i]);
    free(files);
    free(in_group);
    return rc;
}

/* The sketch-row loader's context: the groups, and the threads that copy or convert rows (-p). */
typedef struct {
    tsk_sketch_source *groups;
    int threads;
} rows_loader;

/* A .tsk of rows: the group's only input, of float rows, is used where it lies in the mapping (the
 * group keeps the file); anything else is copied, double rows converted to float, on every thread. */
static int rows_add_file(void *ctx, int group, tsk_file **fp, const char *path, int alone)
{
    const rows_loader *c = ctx;
    tsk_sketch_source *g = c->groups + group;
    const tsk_file *f = *fp;
    const int dim = f->params.dim;
    const int in_place = alone && f->elem_size == sizeof(float) && g->set.n_items == 0 && !g->file;
    const int64_t base = g->n_total_rows;
    int failed = reserve(g, dim, f->n_records, in_place ? 0 : f->n_rows);
    for (int64_t r = 0; r < f->n_records && !failed; r++) {
        const tsk_record_info *rec = &f->records[r];
        failed = add_entry(g, rec->name, rec->clean_len, base + rec->first_row, rec->n_rows); /* base 0 in place */
    }
    if (failed) {
        tsk_error("out of memory holding the sketches of %s", path);
        return TSK_EXIT_RUNTIME;
    }
    if (in_place) {
        g->file = *fp;
        *fp = NULL;
        return TSK_EXIT_OK;
    }
    /* the copy: record r's rows to base + first_row, as add_entry placed them */
    const size_t d = (size_t)dim;
#pragma omp parallel for schedule(dynamic, 64) num_threads(c->threads)
    for (int64_t r = 0; r < f->n_records; r++) {
        const tsk_record_info *rec = &f->records[r];
        float *dst = g->rows + (size_t)(base + rec->first_row) * d;
        const size_t n = (size_t)rec->n_rows * d;
        if (f->elem_size == 8) {
            const double *src = tsk_file_row(f, rec->first_row);
            for (size_t k = 0; k < n; k++) dst[k] = (float)src[k];
        } else if (n) {
            memcpy(dst, tsk_file_row(f, rec->first_row), n * sizeof(float));
        }
    }
    g->n_total_rows += f->n_rows;
    return TSK_EXIT_OK;
}

/* rows in float32 */
static int rows_sketch(void *ctx, int group, tsk_sketch_job *sub)
{
    sub->params.precision = TSK_SINGLE;
    sink_ctx c = {((rows_loader *)ctx)->groups + group, sub->params.dim};
    return tsk_pipeline_run(sub, take_record, &c);
}

void tsk_inputs_survey(const tsk_input *inputs, size_t n_inputs, tsk_input_kinds *k)
{
    *k = (tsk_input_kinds){0, NULL, 0};
    for (size_t i = 0; i < n_inputs; i++) {
        const char *path = inputs[i].path;
        const int kind = tsk_file_kind(path);
        k->genome_files += kind == 1;
        if (kind == 0 && !k->row_file) k->row_file = path;
        k->unreadable += kind < 0 && strcmp(path, "-") && access(path, R_OK);
    }
}

int tsk_inputs_collect(int argc, char **argv, int first, const tsk_sketch_job *job, tsk_input **inputs,
                       size_t *n_inputs)
{
    const size_t n = (size_t)(argc - first) + job->n_inputs;
    if (!(*inputs = calloc(n ? n : 1, sizeof **inputs))) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    size_t at = 0;
    for (int i = first; i < argc; i++) (*inputs)[at++] = (tsk_input){argv[i], NULL};
    for (size_t i = 0; i < job->n_inputs; i++) (*inputs)[at++] = job->inputs[i];
    *n_inputs = n;
    return TSK_EXIT_OK;
}

int tsk_inputs_settle(const char *cmd, const tsk_input *inputs, size_t n_inputs, int sequences_are_genomes,
                      int per_record, tsk_sketch_job *job, tsk_input_kinds *k, int *genomes)
{
    tsk_inputs_survey(inputs, n_inputs, k);
    if (job->genome && k->row_file && !k->genome_files) {
        tsk_error("%s: a .tsk of sketch rows, not of genome sketches: --genome compares genome sketches; make them "
                  "with 'tsketch sketch --genome' (or give %s the FASTA files%s)",
                  k->row_file, cmd, sequences_are_genomes ? "" : " with --genome");
        return TSK_EXIT_USAGE;
    }
    if (k->genome_files > 0 && !k->row_file) job->genome = 1;
    /* without a .tsk of rows, the inputs that are no genome .tsk are sequences */
    if (sequences_are_genomes && !k->row_file && (size_t)k->genome_files < n_inputs) {
        job->genome = 1;
        if (!per_record) job->per_file = 1;
    }
    *genomes = k->genome_files > 0 || job->genome;
    return TSK_EXIT_OK;
}

int tsk_sources_warn_names(const char *const *names, int64_t n, int group, int n_groups)
{
    const char *where = n_groups == 1 ? "the inputs" : group == 0 ? "the references" : "the queries";
    if (!tsk_warn_name_problems(names, n, where)) return TSK_EXIT_OK;
    tsk_error("out of memory");
    return TSK_EXIT_RUNTIME;
}

int tsk_sources_load(const tsk_input *inputs, size_t n_inputs, const int *group_of, tsk_sketch_source *groups,
                     int n_groups, const tsk_sketch_job *job, int params_given, tsk_params *params)
{
    rows_loader c = {groups, job->threads > 0 ? job->threads : 1};
    const tsk_source_loader loader = {rows_add_file, rows_sketch, &c, 0};
    int rc = tsk_sources_walk(inputs, n_inputs, group_of, job, params_given, params, &loader);
    if (rc == TSK_EXIT_OK)
        for (int k = 0; k < n_groups; k++) {
            finalize(&groups[k], params->dim);
            rc = tsk_sources_warn_names(groups[k].names, groups[k].set.n_items, k, n_groups);
            if (rc != TSK_EXIT_OK) break;
        }
    return rc;
}
