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
        int64_t **per_item[] = {&s->n_contigs, &s->n50, &s->seg_at, &s->hash_at};
        for (size_t k = 0; k < sizeof per_item / sizeof per_item[0]; k++) {
            int64_t *more = realloc(*per_item[k], (size_t)s->cap_items * sizeof *more);
            if (!more) return -1;
            *per_item[k] = more;
        }
        tsk_ani_genome *ani = realloc(s->ani_genome, (size_t)s->cap_items * sizeof *ani);
        if (!ani) return -1;
        s->ani_genome = ani;
    }
    return 0;
}

/* Genome i's anchors: its counts and hashes copied (copy) or, for the group's file in place, left
 * where they lie (finalize points at them). */
static int add_anchors(tsk_genome_source *s, int64_t i, const tsk_genome_anchors *a, int copy)
{
    s->ani_genome[i] = (tsk_ani_genome){.n_segments = a->n_segments, .n_anchors = a->n_anchors,
                                        .n_loose = a->n_loose, .rate_log2 = a->rate_log2, .length = s->length[i]};
    const int64_t n_hashes = a->n_anchors + a->n_loose;
    s->n_contigs[i] = a->n_contigs;
    s->n50[i] = a->n50;
    s->seg_at[i] = s->n_seg;
    s->hash_at[i] = s->n_hash;
    if (!copy) return 0;
    if (grow((void **)&s->seg_counts, sizeof *s->seg_counts, s->n_seg + a->n_segments, &s->cap_seg) ||
        grow((void **)&s->ani_hashes, sizeof *s->ani_hashes, s->n_hash + n_hashes, &s->cap_hash))
        return -1;
    if (a->n_segments) memcpy(s->seg_counts + s->n_seg, a->seg_count, (size_t)a->n_segments * sizeof *a->seg_count);
    if (n_hashes) memcpy(s->ani_hashes + s->n_hash, a->hash, (size_t)n_hashes * sizeof *a->hash);
    s->n_seg += a->n_segments;
    s->n_hash += n_hashes;
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

/* Appends one genome with its keys and anchors. */
static int add_genome(tsk_genome_source *s, const char *name, int64_t length, const uint64_t *keys, int64_t n,
                      const tsk_genome_anchors *anchors)
{
    if (reserve(s, 1, n) || add_entry(s, name, length, n) || add_anchors(s, s->set.n_items - 1, anchors, 1)) return -1;
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
    for (int64_t i = 0; i < s->set.n_items; i++) {
        tsk_ani_genome *g = &s->ani_genome[i];
        if (s->file) { /* the group's one input: record i is genome i */
            g->seg_count = s->file->anchors[i].seg_count;
            g->hash = s->file->anchors[i].hash;
        } else {
            g->seg_count = s->seg_counts + s->seg_at[i];
            g->hash = s->ani_hashes + s->hash_at[i];
        }
    }
    if (s->set.n_items > 0 && !(s->repeats = malloc((size_t)s->set.n_items * sizeof *s->repeats))) return -1;
    for (int64_t i = 0; i < s->set.n_items; i++) {
        s->repeats[i] = -1;
        s->ani_genome[i].repeats = &s->repeats[i];
    }
    /* a set without a single anchor (sketches of keys alone) has no ANI: its distances are the
     * keys', as they would be pair by pair, without the candidates ANI would refine */
    int64_t with_anchors = 0;
    for (int64_t i = 0; i < s->set.n_items; i++) with_anchors += s->ani_genome[i].n_anchors > 0;
    s->ani = (tsk_ani_set){s->set.n_items, with_anchors ? s->ani_genome : NULL};
    s->set.offset = s->offset;
    s->set.tau = NULL;
    if (s->set.n_items == 0) return 0;
    if (!(s->tau = malloc((size_t)s->set.n_items * sizeof *s->tau))) return -1;
    for (int64_t i = 0; i < s->set.n_items; i++)
        s->tau[i] = tsk_genome_threshold(p, s->length[i], s->set.keys + s->offset[i], tsk_key_set_size(&s->set, i));
    s->set.tau = s->tau;
    return 0;
}

static void *check_main(void *arg)
{
    tsk_genome_source *s = arg;
    s->check_from = tsk_seconds();
    s->check_rc = tsk_file_check_anchors(s->file, s->check_path, s->check_threads, s->check_err, sizeof s->check_err);
    s->check_to = tsk_seconds();
    return NULL;
}

/* Starts the check of the file s keeps, or (no thread to be had) checks it here. */
static int start_check(tsk_genome_source *s, const char *path, int threads)
{
    s->check_path = path;
    s->check_threads = threads;
    if (pthread_create(&s->check_thread, NULL, check_main, s) == 0) {
        s->check_running = 1;
        return TSK_EXIT_OK;
    }
    check_main(s);
    return tsk_genome_source_checked(s);
}

int tsk_genome_anchors_later_pays(const tsk_sketch_job *job)
{
    return job->device.kind != TSK_DEVICE_CPU && job->threads <= 4;
}

int tsk_genome_source_checked(tsk_genome_source *s)
{
    if (s->check_running) {
        const double t0 = tsk_seconds();
        pthread_join(s->check_thread, NULL);
        s->check_running = 0;
        if (tsk_timing_wanted())
            fprintf(stderr, "tsketch: timing: anchors' checksum checked from %.3f to %.3f s after the start, %.3f s waited for\n",
                    tsk_since_start(s->check_from), tsk_since_start(s->check_to), tsk_seconds() - t0);
    }
    if (!s->check_rc) return TSK_EXIT_OK;
    if (s->check_err[0]) tsk_error("%s", s->check_err);
    s->check_err[0] = 0; /* said once */
    return TSK_EXIT_INPUT;
}

void tsk_genome_source_free(tsk_genome_source *s)
{
    if (s->check_running) pthread_join(s->check_thread, NULL);
    free(s->keys);
    tsk_file_close(s->file);
    free(s->offset);
    free(s->length);
    free(s->tau);
    free(s->names);
    free(s->name_arena);
    free(s->n_contigs);
    free(s->n50);
    free(s->seg_at);
    free(s->hash_at);
    free(s->ani_genome);
    free(s->repeats);
    free(s->seg_counts);
    free(s->ani_hashes);
    memset(s, 0, sizeof *s);
}

/* The loader's context: the groups, and the threads that copy keys (-p). */
typedef struct {
    tsk_genome_source *groups;
    int threads;
} loader_ctx;

static int take_genome(void *ctx, const tsk_record_info *genome, const uint64_t *keys,
                       const tsk_genome_anchors *anchors)
{
    if (add_genome(ctx, genome->name, genome->clean_len, keys, genome->n_rows, anchors)) {
        tsk_error("%s: out of memory holding the genome sketches", genome->source);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

/* A genome .tsk: the names, lengths and anchors in order, then the keys. The group's only input (its
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
        failed = add_entry(g, f->records[r].name, f->records[r].clean_len, f->records[r].n_rows) ||
                 add_anchors(g, first + r, &f->anchors[r], !in_place);
    if (failed) {
        tsk_error("%s: out of memory holding the genome sketches", path);
        return TSK_EXIT_RUNTIME;
    }
    if (in_place) { /* add_entry's offsets, from 0 in record order, are the records' first rows */
        g->file = *fp;
        *fp = NULL;
        return g->file->anchors_unchecked ? start_check(g, path, c->threads) : TSK_EXIT_OK;
    }
    char err[TSK_ERRLEN];
    if (tsk_file_check_anchors(*fp, path, c->threads, err, sizeof err)) { /* copied: checked first */
        tsk_error("%s", err);
        return TSK_EXIT_INPUT;
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
                            int n_groups, const tsk_sketch_job *job, int params_given, int anchors_later,
                            tsk_params *params)
{
    loader_ctx c = {groups, job->threads > 0 ? job->threads : 1};
    const tsk_source_loader loader = {genome_add_file, genome_sketch, &c, anchors_later};
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
