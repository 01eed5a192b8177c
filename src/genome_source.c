/* genome_source.c: loading the genome sketches to compare (genome_source.h). */
#include "genome_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/tsk_file.h"
#include "cli.h"
#include "genome_sketch.h"
#include "sketch_source.h"

static int grow(void **p, size_t elem, int64_t need, int64_t *cap)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Room for more_items genomes and more_keys keys; names and lengths follow the offsets' capacity. */
static int reserve(tsk_genome_source *s, int64_t more_items, int64_t more_keys)
{
    const int64_t had = s->cap_items;
    if (grow((void **)&s->offset, sizeof *s->offset, s->set.n_items + more_items + 1, &s->cap_items) ||
        grow((void **)&s->keys, sizeof *s->keys, s->n_keys + more_keys, &s->cap_keys))
        return -1;
    if (s->cap_items != had) {
        const char **names = realloc(s->names, (size_t)s->cap_items * sizeof *names);
        if (names) s->names = names;
        int64_t *lengths = realloc(s->length, (size_t)s->cap_items * sizeof *lengths);
        if (lengths) s->length = lengths;
        if (!names || !lengths) return -1;
    }
    return 0;
}

/* Appends one genome's name, length and place for n keys (room reserved); the keys are the
 * caller's to copy to s->keys + s->offset[i]. Names are arena offsets until finalize turns them
 * into pointers. */
static int add_entry(tsk_genome_source *s, const char *name, int64_t length, int64_t n)
{
    const int64_t i = s->set.n_items;
    size_t name_at;
    if (tsk_name_arena_add(&s->name_arena, &s->arena_len, &s->arena_cap, name, &name_at)) return -1;
    s->names[i] = (const char *)(uintptr_t)name_at;
    s->length[i] = length;
    s->offset[i] = s->n_keys;
    s->n_keys += n;
    s->offset[i + 1] = s->n_keys;
    s->set.n_items = i + 1;
    return 0;
}

/* Appends one genome with its keys. */
static int add_genome(tsk_genome_source *s, const char *name, int64_t length, const uint64_t *keys, int64_t n)
{
    if (reserve(s, 1, n) || add_entry(s, name, length, n)) return -1;
    if (n) memcpy(s->keys + s->offset[s->set.n_items - 1], keys, (size_t)n * sizeof *keys);
    return 0;
}

/* Names become pointers; every genome's threshold is computed from its keys and length
 * (core/genome_keys.h). */
static int finalize(tsk_genome_source *s, const tsk_params *p)
{
    if (!s->offset && grow((void **)&s->offset, sizeof *s->offset, 1, &s->cap_items)) return -1;
    if (s->set.n_items == 0) s->offset[0] = 0;
    for (int64_t i = 0; i < s->set.n_items; i++) s->names[i] = s->name_arena + (uintptr_t)s->names[i];
    s->set.keys = s->file ? (const uint64_t *)s->file->data : s->keys;
    s->set.offset = s->offset;
    s->set.tau = NULL;
    if (s->set.n_items == 0) return 0;
    if (!(s->tau = malloc((size_t)s->set.n_items * sizeof *s->tau))) return -1;
    for (int64_t i = 0; i < s->set.n_items; i++)
        s->tau[i] = tsk_genome_threshold(p, s->length[i], s->set.keys + s->offset[i], tsk_key_set_size(&s->set, i));
    s->set.tau = s->tau;
    return 0;
}

void tsk_genome_source_free(tsk_genome_source *s)
{
    free(s->keys);
    tsk_file_close(s->file);
    free(s->offset);
    free(s->length);
    free(s->tau);
    free(s->names);
    free(s->name_arena);
    memset(s, 0, sizeof *s);
}

/* The loader's context: the groups, and the threads that copy keys (-p). */
typedef struct {
    tsk_genome_source *groups;
    int threads;
} loader_ctx;

static int take_genome(void *ctx, const tsk_record_info *genome, const uint64_t *keys)
{
    if (add_genome(ctx, genome->name, genome->clean_len, keys, genome->n_rows)) {
        tsk_error("%s: out of memory holding the genome sketches", genome->source);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

/* A genome .tsk: the names and lengths in order, then the keys. The group's only input (its
 * records' keys lie back to back from row 0: tsk_file.h) is used where it lies (the group keeps the file: its pages were mapped
 * on every thread when its checksum was checked, and no key is touched here). Otherwise the keys
 * are copied out of the mapping on every thread. */
static int genome_add_file(void *ctx, int group, tsk_file **fp, const char *path, int alone)
{
    const loader_ctx *c = ctx;
    tsk_genome_source *g = c->groups + group;
    const tsk_file *f = *fp;
    const int in_place = alone && g->set.n_items == 0 && !g->file;
    const int64_t first = g->set.n_items;
    int failed = reserve(g, f->n_records, in_place ? 0 : f->n_rows);
    for (int64_t r = 0; r < f->n_records && !failed; r++)
        failed = add_entry(g, f->records[r].name, f->records[r].clean_len, f->records[r].n_rows);
    if (failed) {
        tsk_error("%s: out of memory holding the genome sketches", path);
        return TSK_EXIT_RUNTIME;
    }
    if (in_place) { /* add_entry's offsets, from 0 in record order, are the records' first rows */
        g->file = *fp;
        *fp = NULL;
        return TSK_EXIT_OK;
    }
    const uint64_t *data = (const uint64_t *)f->data;
#pragma omp parallel for schedule(dynamic, 64) num_threads(c->threads)
    for (int64_t r = 0; r < f->n_records; r++) {
        const tsk_record_info *rec = &f->records[r];
        if (rec->n_rows)
            memcpy(g->keys + g->offset[first + r], data + rec->first_row, (size_t)rec->n_rows * sizeof *g->keys);
    }
    return TSK_EXIT_OK;
}

static int genome_sketch(void *ctx, int group, tsk_sketch_job *sub)
{
    return tsk_genome_sketch_run(sub, take_genome, ((loader_ctx *)ctx)->groups + group);
}

int tsk_genome_sources_load(const tsk_input *inputs, size_t n_inputs, const int *group_of, tsk_genome_source *groups,
                            int n_groups, const tsk_sketch_job *job, int params_given, tsk_params *params)
{
    loader_ctx c = {groups, job->threads > 0 ? job->threads : 1};
    const tsk_source_loader loader = {genome_add_file, genome_sketch, &c};
    int rc = tsk_sources_walk(inputs, n_inputs, group_of, job, params_given, params, &loader);
    for (int k = 0; k < n_groups && rc == TSK_EXIT_OK; k++) {
        if (finalize(&groups[k], params)) {
            tsk_error("out of memory");
            return TSK_EXIT_RUNTIME;
        }
        rc = tsk_sources_warn_names(groups[k].names, groups[k].set.n_items, k, n_groups);
    }
    return rc;
}
