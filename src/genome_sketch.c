/* genome_sketch.c: FASTA/FASTQ -> genome sketches on every -p thread (genome_sketch.h).
 *
 * A genome's keys come straight from its codes (cpu/genome_scan.h): anchors, the exact integer
 * sketch of each candidate window and its fingerprint, then the genome's selection (sort, size
 * floor, threshold: core/genome_keys.h). No window rows are made. Two ways to spread the work:
 *
 *   - --per-file: a genome is a file (its records are contigs). Each file is a task that reads,
 *     decompresses, cleans and scans it on one thread, -p files at a time; a large genome's
 *     contigs are cut into pieces that are tasks too, so one big genome takes every thread.
 *     Always on the CPU threads (per_file_device).
 *   - otherwise a genome is a record. A reader thread fills batches (a plain FASTA file parsed by
 *     -p threads, io/fasta_par.c) while the batch before is scanned, a record a task, pieces of
 *     long records tasks of their own; on a GPU, a batch is scanned in one call (open_gpu).
 *
 * Genomes are handed to the sink in input order whatever finishes first, and the keys do not
 * depend on -p, the batching or the pieces (each key is a function of its window alone and the
 * selection sorts them), which tests/cli/test_genome_scale.sh checks. */
#include "genome_sketch.h"

#include <malloc.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/genome_keys.h"
#include "../core/tsk_knobs.h"
#include "../cpu/genome_scan.h"
#include "../gpu/genome_scan.h"
#include "../io/batcher.h"
#include "../io/feed.h"
#include "cli.h"
#include "engine.h"
#include "ordered_pipeline.h"
#include "progress_line.h"

/* A piece of a contig scanned as one task (TSKETCH_GENOME_PIECE): long enough that a task is worth
 * its scheduling (a few ms), short enough that a chromosome feeds every thread. Genomes (or a
 * --per-file genome's contigs held so far) of at most SPLIT_PIECES pieces are scanned by the task
 * that read them: bacteria stay on one thread, where their codes are in its cache. */
#define PIECE_BASES (INT64_C(1) << 21)
#define SPLIT_PIECES 4
/* --per-file: files in flight beyond the oldest not yet written, per thread (bounds the finished
 * sketches held for the sink). */
#define FILES_AHEAD 16
/* A batch of records (genomes) read while the one before is scanned. */
#define RECORD_BATCH_BASES (INT64_C(1) << 27)
#define PROGRESS_INTERVAL 0.25 /* seconds between redraws of the progress line */

/* A finished genome, waiting for its turn at the sink. */
typedef struct {
    char *name;
    const char *source;   /* the input path (outlives the run) */
    int64_t raw_len, clean_len;
    tsk_key_vec keys;     /* its kept keys, ascending */
    tsk_anchor_vec anchors; /* its segment anchors at a rate at most its own, in segment order */
    int64_t n_segments;   /* its full segments so far */
    int64_t *contig_len, n_contigs, cap_contigs; /* its contigs' cleaned lengths (for the N50) */
    /* finished (finish_anchors): what the sink gets */
    uint16_t *seg_count;
    uint32_t *ani_hash;
    int64_t cap_segments, cap_hash;
    tsk_genome_anchors ani;
    int done;
} genome_out;

static void genome_out_free(genome_out *g)
{
    free(g->name);
    tsk_key_vec_free(&g->keys);
    tsk_anchor_vec_free(&g->anchors);
    free(g->contig_len);
    free(g->seg_count);
    free(g->ani_hash);
    memset(g, 0, sizeof *g);
}

/* A genome starts empty (its buffers kept from the genome before in its slot). */
static void genome_out_clear(genome_out *g)
{
    g->keys.n = 0;
    g->anchors.n = 0;
    g->n_segments = 0;
    g->n_contigs = 0;
}

/* Notes the contigs of records r0 .. r1-1 of b: their lengths, and their segments (whose genome
 * numbers they take from g->n_segments on). */
static int add_contigs(genome_out *g, const tsk_batcher *b, int64_t r0, int64_t r1)
{
    if (g->n_contigs + (r1 - r0) > g->cap_contigs) {
        int64_t cap = g->cap_contigs ? g->cap_contigs : 16;
        while (cap < g->n_contigs + (r1 - r0)) cap *= 2;
        int64_t *more = realloc(g->contig_len, (size_t)cap * sizeof *more);
        if (!more) return -1;
        g->contig_len = more;
        g->cap_contigs = cap;
    }
    for (int64_t r = r0; r < r1; r++) g->contig_len[g->n_contigs++] = b->offset[r + 1] - b->offset[r];
    return 0;
}

static int cmp_desc(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* The N50 of lengths: the length of the contig at which the longest contigs first hold half of
 * the bases (sorts lengths). 0 for no bases. */
static int64_t n50_of(int64_t *len, int64_t n)
{
    qsort(len, (size_t)n, sizeof *len, cmp_desc);
    int64_t total = 0, sum = 0;
    for (int64_t i = 0; i < n; i++) total += len[i];
    for (int64_t i = 0; i < n && total > 0; i++)
        if (2 * (sum += len[i]) >= total) return len[i];
    return 0;
}

/* The genome's anchors at its own rate (core/genome_ani.h): those of its scan (at a rate at most
 * its own) below its bound, stored as their 32 bits below the zero top bits, counted per segment,
 * the loose ones after the segments'; its contigs and N50. Into g->ani. */
static int finish_anchors(genome_out *g)
{
    const int32_t rate = tsk_ani_rate_log2(g->clean_len);
    const uint64_t bound = tsk_ani_max_hash(rate);
    const int64_t n_seg = g->n_segments;
    if (n_seg > g->cap_segments) {
        uint16_t *c = realloc(g->seg_count, (size_t)n_seg * sizeof *c);
        if (!c) return -1;
        g->seg_count = c;
        g->cap_segments = n_seg;
    }
    if (g->anchors.n > g->cap_hash) {
        uint32_t *h = realloc(g->ani_hash, (size_t)g->anchors.n * sizeof *h);
        if (!h) return -1;
        g->ani_hash = h;
        g->cap_hash = g->anchors.n;
    }
    if (n_seg) memset(g->seg_count, 0, (size_t)n_seg * sizeof *g->seg_count);
    int64_t n = 0;
    for (int64_t i = 0; i < g->anchors.n; i++) {
        const uint64_t h = g->anchors.hash[i];
        if (h > bound || g->anchors.segment[i] == TSK_ANCHOR_LOOSE) continue;
        g->seg_count[g->anchors.segment[i]]++; /* at most TSK_ANI_SEGMENT: fits */
        g->ani_hash[n++] = (uint32_t)(h >> (32 - rate));
    }
    int64_t n_loose = 0;
    for (int64_t i = 0; i < g->anchors.n; i++) {
        const uint64_t h = g->anchors.hash[i];
        if (h <= bound && g->anchors.segment[i] == TSK_ANCHOR_LOOSE)
            g->ani_hash[n + n_loose++] = (uint32_t)(h >> (32 - rate));
    }
    g->ani = (tsk_genome_anchors){.n_segments = n_seg, .n_anchors = n, .rate_log2 = rate, .seg_count = g->seg_count,
                                  .hash = g->ani_hash, .n_loose = n_loose, .n_contigs = g->n_contigs,
                                  .n50 = n50_of(g->contig_len, g->n_contigs)};
    return 0;
}

typedef struct {
    const tsk_sketch_job *job;
    tsk_genome_sink sink;
    void *sink_ctx;
    int threads;
    int64_t piece_bases;           /* PIECE_BASES or TSKETCH_GENOME_PIECE */
    tsk_gpu_genome_scanner *gpu;   /* scans batches of records when open (--device cuda, auto; never --per-file) */
    char gpu_name[32];
    /* the GPU's keys of the batch being written: record r's are gpu_keys[gpu_offset[r] ..) */
    uint64_t *gpu_keys, *gpu_bound;
    int64_t gpu_keys_cap, *gpu_offset, gpu_cap;
    int64_t batch_bases;           /* RECORD_BATCH_BASES or TSKETCH_BATCH_BASES */
    tsk_genome_scanner **scanner;  /* one per thread */
    tsk_batcher *file_batch;       /* --per-file: one per thread, its buffers kept from file to file */
    /* --per-file: genome i waits for the sink in slots[i % n_slots] */
    genome_out *slots;
    int64_t n_slots;
    int64_t next_file;             /* --per-file: the first file not yet made a task (under mu) */
    /* the sink's side: genomes written so far, under mu; a failure stops everything */
    pthread_mutex_t mu;
    int64_t written;
    int rc;
    /* progress on a terminal */
    tsk_progress progress;
    int64_t total_genomes;   /* -1: unknown */
    int64_t bases_written;
    double started;
} sketch_run;

static int failed(sketch_run *s)
{
    return __atomic_load_n(&s->rc, __ATOMIC_RELAXED) != TSK_EXIT_OK;
}

/* Records the first failure (its message already printed). */
static void fail(sketch_run *s, int rc)
{
    pthread_mutex_lock(&s->mu);
    if (s->rc == TSK_EXIT_OK) s->rc = rc;
    pthread_mutex_unlock(&s->mu);
}

/* The progress line (under mu): genomes written, and the rate since the start. */
static void show_progress(sketch_run *s, int final)
{
    if (!s->progress.on) return;
    const double now = tsk_seconds();
    const double rate = now > s->started ? s->bases_written / (now - s->started) / 1e9 : 0;
    if (s->total_genomes >= 0)
        tsk_progress_show(&s->progress, final, "tsketch: %lld/%lld genomes, %.1f Mbp, %.2f Gbp/s", (long long)s->written,
                          (long long)s->total_genomes, s->bases_written / 1e6, rate);
    else
        tsk_progress_show(&s->progress, final, "tsketch: %lld genomes, %.1f Mbp, %.2f Gbp/s", (long long)s->written,
                          s->bases_written / 1e6, rate);
}

/* Sorts a genome's candidate keys and keeps those at or below its threshold (core/genome_keys.h,
 * "Size floor"); warns when none is kept. */
static void select_keys(const tsk_params *p, genome_out *g)
{
    const int64_t n = tsk_genome_keys_sort_unique(g->keys.keys, g->keys.n);
    const uint64_t tau = tsk_genome_threshold(p, g->clean_len, g->keys.keys, n);
    g->keys.n = tsk_keys_at_most(g->keys.keys, n, tau);
    if (g->keys.n == 0)
        tsk_warn("%s: no window fingerprint kept (%lld base%s; windows of %lld base%s, about one in %lld kept "
                 "beyond the first %lld): its distances are 1",
                 g->name, (long long)g->clean_len, g->clean_len == 1 ? "" : "s", (long long)p->window,
                 p->window == 1 ? "" : "s", (long long)p->scaled, (long long)p->min_keys);
}

/* A genome more than half of whose letters were dropped as not A, C, G or T: protein, or another
 * alphabet, given to --genome, whose sketch would quietly hold what little is left. Warned for
 * the first such genome of each input (source), naming the input. One with no A, C, G or T at all
 * is a gap (all N) or an empty assembly rather than protein, whose letters include A, C, G and T
 * (alanine, cysteine, glycine, threonine): it is warned about as that. */
static int mostly_not_dna(int64_t raw_len, int64_t clean_len) { return raw_len > 0 && raw_len - clean_len > clean_len; }

static void warn_not_dna(const char *source, const char *genome, int64_t raw_len, int64_t clean_len)
{
    if (clean_len == 0) {
        tsk_warn("%s: '%s' holds no A, C, G or T (its %lld letters, N or others, were all dropped): nothing of it is "
                 "sketched",
                 source, genome, (long long)raw_len);
        return;
    }
    tsk_warn("%s: %lld of the %lld letters of '%s' are not A, C, G or T and were dropped: does it hold protein or "
             "another alphabet? Genome sketches are of DNA",
             source, (long long)(raw_len - clean_len), (long long)raw_len, genome);
}

/* Hands every finished genome to the sink, in order (the caller holds mu): genome i (first <= i <
 * end) waits in slots[(i - first) % n_slots]. */
static void write_ready(sketch_run *s, genome_out *slots, int64_t n_slots, int64_t first, int64_t end)
{
    for (;;) {
        const int64_t i = s->written;
        if (i < first || i >= end) break;
        genome_out *g = &slots[(i - first) % n_slots];
        if (!g->done) break;
        if (s->rc == TSK_EXIT_OK) {
            tsk_record_info rec = {g->name, g->source, g->raw_len, g->clean_len, g->raw_len - g->clean_len, 0,
                                   g->keys.n};
            const int rc = s->sink(s->sink_ctx, &rec, g->keys.keys, &g->ani);
            if (rc != TSK_EXIT_OK) s->rc = rc;
        }
        s->bases_written += g->clean_len;
        free(g->name);
        g->name = NULL;
        genome_out_clear(g);
        g->done = 0;
        s->written++;
        show_progress(s, 0);
    }
}

/* The parameters of a batcher that only holds records' cleaned codes (contigs, or genomes a record):
 * no windows, no genome bounds, so it counts one row a record and makes no window copies. */
static tsk_params container_params(const tsk_params *p)
{
    tsk_params c = *p;
    c.window = c.stride = c.anchor_k = 0;
    c.scaled = c.min_keys = 0;
    return c;
}

/* ---- scanning contigs ---- */

/* One piece of a contig for a task. */
typedef struct {
    const uint8_t *codes;
    int64_t n, from, to;
    uint64_t max_hash;
    tsk_key_vec keys;
    tsk_anchor_vec anchors;
    tsk_anchor_request ani;
} piece;

/* Appends to g's keys the candidate keys of records r0 .. r1-1 of b (contigs of g), each scanned
 * with bound max_hash, and to g's anchors their segment anchors at most ani_max; keys NULL: the
 * anchors alone (the GPU found the keys). On this thread when they are short, else in pieces that
 * are tasks for every thread; the pieces' anchors are joined in order, so they come out in
 * position order either way. */
static int scan_records(sketch_run *s, const tsk_batcher *b, int64_t r0, int64_t r1, uint64_t max_hash,
                        uint64_t ani_max, genome_out *g, tsk_key_vec *keys)
{
    if (add_contigs(g, b, r0, r1)) return TSK_EXIT_RUNTIME;
    const int64_t bases = b->offset[r1] - b->offset[r0];
    const int64_t piece_bases = s->piece_bases;
    if (bases <= SPLIT_PIECES * piece_bases || s->threads == 1) {
        tsk_genome_scanner *sc = s->scanner[omp_get_thread_num()];
        for (int64_t r = r0; r < r1; r++) {
            const int64_t n = b->offset[r + 1] - b->offset[r];
            const tsk_anchor_request ani = {ani_max, g->n_segments, &g->anchors};
            if (tsk_genome_scan_with_anchors(sc, b->codes + b->offset[r], n, 0, INT64_MAX, max_hash, keys, &ani))
                return TSK_EXIT_RUNTIME;
            g->n_segments += n / TSK_ANI_SEGMENT;
        }
        return TSK_EXIT_OK;
    }
    int64_t n_pieces = 0;
    for (int64_t r = r0; r < r1; r++) n_pieces += (b->offset[r + 1] - b->offset[r] + piece_bases - 1) / piece_bases;
    piece *pc = calloc((size_t)n_pieces, sizeof *pc);
    if (!pc) return TSK_EXIT_RUNTIME;
    int64_t k = 0;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t n = b->offset[r + 1] - b->offset[r];
        for (int64_t a = 0; a < n; a += piece_bases) {
            pc[k] = (piece){b->codes + b->offset[r], n, a, a + piece_bases, max_hash, {0}, {0}, {ani_max, g->n_segments, NULL}};
            pc[k].ani.out = &pc[k].anchors;
            k++;
        }
        g->n_segments += n / TSK_ANI_SEGMENT;
    }
    int bad = 0;
    for (int64_t j = 0; j < n_pieces; j++) {
#pragma omp task firstprivate(j) shared(pc, bad, s)
        {
            piece *q = &pc[j];
            if (tsk_genome_scan_with_anchors(s->scanner[omp_get_thread_num()], q->codes, q->n, q->from, q->to,
                                             q->max_hash, keys ? &q->keys : NULL, &q->ani))
                __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        }
    }
#pragma omp taskwait
    for (int64_t j = 0; j < n_pieces; j++) {
        if (!bad && (!keys || tsk_key_vec_reserve(keys, pc[j].keys.n) == 0)) {
            if (pc[j].keys.n) memcpy(keys->keys + keys->n, pc[j].keys.keys, (size_t)pc[j].keys.n * sizeof *keys->keys);
            if (keys) keys->n += pc[j].keys.n;
        } else {
            bad = 1;
        }
        tsk_anchor_vec *a = &pc[j].anchors;
        if (!bad && tsk_anchor_vec_reserve(&g->anchors, a->n) == 0) {
            if (a->n) {
                memcpy(g->anchors.segment + g->anchors.n, a->segment, (size_t)a->n * sizeof *a->segment);
                memcpy(g->anchors.hash + g->anchors.n, a->hash, (size_t)a->n * sizeof *a->hash);
            }
            g->anchors.n += a->n;
        } else {
            bad = 1;
        }
        tsk_key_vec_free(&pc[j].keys);
        tsk_anchor_vec_free(a);
    }
    free(pc);
    return bad ? TSK_EXIT_RUNTIME : TSK_EXIT_OK;
}

/* ---- --per-file: a genome a file ---- */

/* What a file task needs while tsk_feed_file reads its contigs into b. */
typedef struct {
    sketch_run *s;
    tsk_batcher *b;      /* the thread's (sketch_run.file_batch) */
    genome_out *g;
    int64_t floor_len;   /* from this length on, the anchors' bound no longer depends on it */
    int rc;
} file_task;

/* The file's batch is full before its next record: the genome is at least max_bases long, past
 * the floor length, so its contigs so far can be scanned now with the bound of any longer genome
 * and their codes dropped (memory: one batch per file being read, not the whole genome). */
static tsk_batcher *file_batch_full(void *ctx)
{
    file_task *f = ctx;
    tsk_batcher *b = f->b;
    tsk_batcher_batch(b); /* names and sources as pointers */
    f->g->clean_len += b->offset[b->n];
    for (int64_t r = 0; r < b->n; r++) f->g->raw_len += b->info[r].raw_len;
    /* the segment anchors at the rate of the length so far, at most the genome's: a superset of
     * its own, cut to them at the end (finish_anchors) */
    if (f->rc == TSK_EXIT_OK)
        f->rc = scan_records(f->s, b, 0, b->n, tsk_genome_candidate_limit(&f->s->job->params, f->floor_len),
                             tsk_ani_max_hash(tsk_ani_rate_log2(f->g->clean_len)), f->g, &f->g->keys);
    if (f->rc != TSK_EXIT_OK) return NULL;
    tsk_batcher_reset(b);
    return b;
}

static int file_stopped(void *ctx) { return failed(((file_task *)ctx)->s); }

/* Reads input i (a genome) and scans it. */
static int sketch_file(sketch_run *s, size_t i, genome_out *g)
{
    const tsk_sketch_job *job = s->job;
    const tsk_input *in = &job->inputs[i];
    g->name = in->name ? strdup(in->name) : job->per_file_name ? strdup(job->per_file_name) : tsk_path_stem(in->path);
    g->source = in->path;
    g->raw_len = g->clean_len = 0;
    genome_out_clear(g);
    if (!g->name) {
        tsk_error("%s: out of memory", in->path);
        return TSK_EXIT_RUNTIME;
    }
    tsk_batcher *b = &s->file_batch[omp_get_thread_num()];
    tsk_batcher_reset(b);
    file_task f = {s, b, g, tsk_genome_floor_length(&job->params), TSK_EXIT_OK};
    /* at least the floor length: a genome is past it when its batch is full (file_batch_full) */
    b->max_bases = f.floor_len > s->batch_bases ? f.floor_len : s->batch_bases;
    tsk_feed_opts opts = {1, 0, file_batch_full, file_stopped, &f};
    char err[TSK_ERRLEN];
    tsk_batcher *cur = b;
    const int io = tsk_feed_file(in->path, NULL, &opts, &cur, err, sizeof err);
    int rc = f.rc;
    if (rc == TSK_EXIT_OK && io < 0) {
        tsk_error("%s", err);
        rc = io == TSK_IO_SYSTEM ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
    }
    if (rc == TSK_EXIT_OK && cur) {
        tsk_batcher_batch(b);
        /* contigs scanned before are counted already (file_batch_full) */
        for (int64_t r = 0; r < b->n; r++) g->raw_len += b->info[r].raw_len;
        const int64_t length = g->clean_len + b->offset[b->n];
        g->clean_len = length;
        if (mostly_not_dna(g->raw_len, g->clean_len)) warn_not_dna(in->path, g->name, g->raw_len, g->clean_len);
        rc = scan_records(s, b, 0, b->n, tsk_genome_candidate_limit(&job->params, length),
                          tsk_ani_max_hash(tsk_ani_rate_log2(length)), g, &g->keys);
    }
    if (rc == TSK_EXIT_OK && finish_anchors(g)) rc = TSK_EXIT_RUNTIME;
    if (rc == TSK_EXIT_RUNTIME && !failed(s)) tsk_error("%s: out of memory for the keys of '%s'", in->path, g->name);
    if (rc == TSK_EXIT_OK) select_keys(&job->params, g);
    return rc;
}

/* Genome i is finished (or failed with rc): its slot is done, and what is ready is written. */
static void genome_done(sketch_run *s, int64_t i, int rc)
{
    if (rc != TSK_EXIT_OK) fail(s, rc);
    pthread_mutex_lock(&s->mu);
    s->slots[i % s->n_slots].done = 1;
    write_ready(s, s->slots, s->n_slots, 0, INT64_MAX);
    pthread_mutex_unlock(&s->mu);
}

static void spawn_ready_files(sketch_run *s);

/* Sketches file i into its slot, then starts the files whose slots that freed. */
static void file_task_run(sketch_run *s, int64_t i)
{
    genome_done(s, i, failed(s) ? TSK_EXIT_OK : sketch_file(s, (size_t)i, &s->slots[i % s->n_slots]));
    spawn_ready_files(s);
}

/* Makes a task of every file whose slot is free (a slot is free once the genome n_slots before it
 * is written). Called at the start and by every finished file, so no thread sleeps on a slot while
 * files wait: a starter that slept there instead of sketching left -p 2 with one working thread
 * for most of a run of many small files. */
static void spawn_ready_files(sketch_run *s)
{
    pthread_mutex_lock(&s->mu);
    const int64_t from = s->next_file;
    int64_t to = s->written + s->n_slots;
    if (to > s->total_genomes) to = s->total_genomes;
    if (s->rc != TSK_EXIT_OK || to < from) to = from;
    s->next_file = to;
    pthread_mutex_unlock(&s->mu);
    for (int64_t i = from; i < to; i++) {
#pragma omp task firstprivate(i)
        file_task_run(s, i);
    }
}

static int run_per_file(sketch_run *s)
{
    const tsk_sketch_job *job = s->job;
    const int64_t n = (int64_t)job->n_inputs;
    s->n_slots = (int64_t)s->threads * FILES_AHEAD;
    s->slots = calloc((size_t)s->n_slots, sizeof *s->slots);
    s->file_batch = calloc((size_t)s->threads, sizeof *s->file_batch);
    if (!s->slots || !s->file_batch) {
        tsk_error("out of memory");
        free(s->slots);
        free(s->file_batch);
        return TSK_EXIT_RUNTIME;
    }
    const tsk_params container = container_params(&job->params);
    for (int t = 0; t < s->threads; t++) {
        tsk_batcher_init(&s->file_batch[t], &container);
        s->file_batch[t].max_records = INT64_MAX;
        s->file_batch[t].max_rows = INT64_MAX;
    }
    s->total_genomes = n;
    s->next_file = 0;
    if (s->threads == 1) {
        for (int64_t i = 0; i < n && !failed(s); i++)
            genome_done(s, i, sketch_file(s, (size_t)i, &s->slots[i % s->n_slots]));
    } else {
#pragma omp parallel num_threads(s->threads)
#pragma omp single
        spawn_ready_files(s);
    }
    for (int64_t j = 0; j < s->n_slots; j++) genome_out_free(&s->slots[j]);
    free(s->slots);
    for (int t = 0; t < s->threads; t++) tsk_batcher_free(&s->file_batch[t]);
    free(s->file_batch);
    return s->rc;
}

/* ---- a genome a record ---- */

/* Batches between the reader thread and the scanning one: each a job of `order`, in
 * b[job % NBATCH]. */
enum { NBATCH = 3 };
typedef struct {
    sketch_run *s;
    tsk_batcher b[NBATCH];
    tsk_ordered order;
    int64_t cur;          /* the job the reader fills (-1: the run stopped) */
    int parse_threads;
} record_reader;

/* The reader's next batch (sleeping until one is free), or NULL once the run stopped. */
static tsk_batcher *take_record_batch(record_reader *r)
{
    if ((r->cur = tsk_ordered_take(&r->order)) < 0) return NULL;
    tsk_batcher *b = &r->b[tsk_ordered_slot(&r->order, r->cur)];
    tsk_batcher_reset(b);
    return b;
}

/* The reader's batch is full: hand it over, take the next. */
static tsk_batcher *record_batch_full(void *ctx)
{
    record_reader *r = ctx;
    tsk_ordered_done(&r->order, r->cur, TSK_EXIT_OK);
    return take_record_batch(r);
}

static int record_stopped(void *ctx)
{
    record_reader *r = ctx;
    return failed(r->s) || tsk_ordered_stopped(&r->order);
}

/* The reader thread: a failure ends the run at the batch it was filling (the genomes of the
 * batches before it are still scanned and written). */
static void *record_reader_main(void *arg)
{
    record_reader *r = arg;
    sketch_run *s = r->s;
    const tsk_sketch_job *job = s->job;
    tsk_feed_opts opts = {r->parse_threads, 0, record_batch_full, record_stopped, r};
    char err[TSK_ERRLEN];
    int rc = TSK_EXIT_OK;
    take_record_batch(r);
    for (size_t f = 0; f < job->n_inputs && rc == TSK_EXIT_OK && r->cur >= 0; f++) {
        tsk_batcher *b = &r->b[tsk_ordered_slot(&r->order, r->cur)];
        const int io = tsk_feed_file(job->inputs[f].path, NULL, &opts, &b, err, sizeof err);
        if (io < 0 && !failed(s)) {
            tsk_error("%s", err);
            rc = io == TSK_IO_SYSTEM ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
        }
    }
    if (r->cur < 0) return NULL;
    if (rc != TSK_EXIT_OK) {
        tsk_ordered_done(&r->order, r->cur, rc);
    } else if (r->b[tsk_ordered_slot(&r->order, r->cur)].n > 0) { /* the last batch */
        tsk_ordered_done(&r->order, r->cur, TSK_EXIT_OK);
        tsk_ordered_end(&r->order, r->cur + 1);
    } else {
        tsk_ordered_end(&r->order, r->cur);
    }
    return NULL;
}

/* The candidate keys of every record of b (each a genome) on the GPU, into s->gpu_keys. */
static int scan_on_gpu(sketch_run *s, const tsk_batcher *b)
{
    if (b->n + 1 > s->gpu_cap) {
        int64_t *o = realloc(s->gpu_offset, (size_t)(b->n + 1) * sizeof *o);
        if (o) s->gpu_offset = o;
        uint64_t *m = realloc(s->gpu_bound, (size_t)(b->n + 1) * sizeof *m);
        if (m) s->gpu_bound = m;
        if (!o || !m) {
            tsk_error("out of memory");
            return TSK_EXIT_RUNTIME;
        }
        s->gpu_cap = b->n + 1;
    }
    for (int64_t r = 0; r < b->n; r++) s->gpu_bound[r] = tsk_genome_candidate_limit(&s->job->params, b->info[r].clean_len);
    char err[TSK_ERRLEN];
    if (tsk_gpu_genome_scan_batch(s->gpu, b->codes, b->offset, s->gpu_bound, b->n, &s->gpu_keys, &s->gpu_keys_cap,
                                  s->gpu_offset, err, sizeof err)) {
        tsk_error("GPU genome sketch failed on %s: %s", s->gpu_name, err);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

/* Scans batch b (each record a genome) on every thread and writes its genomes in order. */
static void sketch_record_batch(sketch_run *s, const tsk_batcher *b, genome_out *g)
{
    const tsk_params *p = &s->job->params;
    const int64_t first = s->written;
#pragma omp parallel num_threads(s->threads)
#pragma omp single
    for (int64_t r = 0; r < b->n && !failed(s); r++) {
#pragma omp task firstprivate(r)
        {
            genome_out *o = &g[r];
            const tsk_record_info *info = &b->info[r];
            o->name = strdup(info->name);
            o->source = info->source;
            o->raw_len = info->raw_len;
            o->clean_len = info->clean_len;
            genome_out_clear(o);
            int rc = o->name ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
            const uint64_t ani_max = tsk_ani_max_hash(tsk_ani_rate_log2(info->clean_len));
            if (rc == TSK_EXIT_OK && s->gpu) { /* the GPU scanned the batch (scan_on_gpu); the anchors here */
                const int64_t n = s->gpu_offset[r + 1] - s->gpu_offset[r];
                if (tsk_key_vec_reserve(&o->keys, n) == 0) {
                    if (n) memcpy(o->keys.keys, s->gpu_keys + s->gpu_offset[r], (size_t)n * sizeof *o->keys.keys);
                    o->keys.n = n;
                    rc = scan_records(s, b, r, r + 1, 0, ani_max, o, NULL);
                } else {
                    rc = TSK_EXIT_RUNTIME;
                }
            } else if (rc == TSK_EXIT_OK) {
                rc = scan_records(s, b, r, r + 1, tsk_genome_candidate_limit(p, info->clean_len), ani_max, o,
                                  &o->keys);
            }
            if (rc == TSK_EXIT_OK && finish_anchors(o)) rc = TSK_EXIT_RUNTIME;
            if (rc == TSK_EXIT_OK) select_keys(p, o);
            else if (!failed(s)) tsk_error("%s: out of memory for the keys of '%s'", info->source, info->name);
            if (rc != TSK_EXIT_OK) fail(s, rc);
            pthread_mutex_lock(&s->mu);
            o->done = 1;
            write_ready(s, g, b->n, first, first + b->n);
            pthread_mutex_unlock(&s->mu);
        }
    }
}

static int run_records(sketch_run *s)
{
    const tsk_sketch_job *job = s->job;
    record_reader r;
    memset(&r, 0, sizeof r);
    r.s = s;
    /* a plain FASTA file is parsed and cleaned by threads of its own (io/fasta_par.c) while the
     * scan takes every thread: the parse is a fifth of the scan's time a base */
    r.parse_threads = s->threads;
    if (tsk_ordered_init(&r.order, NBATCH, -1)) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    const tsk_params container = container_params(&job->params);
    for (int k = 0; k < NBATCH; k++) {
        tsk_batcher_init(&r.b[k], &container);
        r.b[k].max_bases = s->batch_bases;
        r.b[k].max_rows = INT64_MAX;
    }
    s->total_genomes = -1;
    pthread_t reader;
    int rc = TSK_EXIT_OK;
    const int started = pthread_create(&reader, NULL, record_reader_main, &r) == 0;
    if (!started) {
        tsk_error("cannot start the reader thread");
        rc = TSK_EXIT_RUNTIME;
    }
    genome_out *g = NULL;
    int64_t g_cap = 0;
    char *warned_source = NULL; /* the input last warned about (warn_not_dna) */
    for (int64_t k; rc == TSK_EXIT_OK && (k = tsk_ordered_next(&r.order)) >= 0;) {
        tsk_batcher *b = &r.b[tsk_ordered_slot(&r.order, k)];
        tsk_batcher_batch(b); /* names and sources as pointers */
        if (b->n > g_cap) {
            genome_out *more = realloc(g, (size_t)b->n * sizeof *g);
            if (!more) {
                tsk_error("out of memory");
                fail(s, TSK_EXIT_RUNTIME);
                tsk_ordered_release(&r.order, k);
                break;
            }
            memset(more + g_cap, 0, (size_t)(b->n - g_cap) * sizeof *g);
            g = more;
            g_cap = b->n;
        }
        for (int64_t i = 0; i < b->n; i++) {
            const tsk_record_info *info = &b->info[i];
            if (!info->name[0])
                tsk_warn("%s: record %lld has an empty name", info->source, (long long)(s->written + i + 1));
            /* once per input: the first of its genomes that is mostly not DNA */
            if (mostly_not_dna(info->raw_len, info->clean_len) &&
                (!warned_source || strcmp(warned_source, info->source))) {
                warn_not_dna(info->source, info->name, info->raw_len, info->clean_len);
                free(warned_source);
                warned_source = strdup(info->source);
            }
        }
        if (s->gpu && (rc = scan_on_gpu(s, b)) != TSK_EXIT_OK) {
            fail(s, rc);
            tsk_ordered_release(&r.order, k);
            break;
        }
        sketch_record_batch(s, b, g);
        tsk_ordered_release(&r.order, k);
        rc = s->rc;
    }
    if (rc == TSK_EXIT_OK) rc = s->rc; /* a failure the loop left in s alone */
    if (rc != TSK_EXIT_OK) { /* the reader stops at its next record, or wakes if it waits for a batch */
        fail(s, rc);
        tsk_ordered_stop(&r.order, rc);
    }
    if (started) pthread_join(reader, NULL);
    if (rc == TSK_EXIT_OK) rc = tsk_ordered_rc(&r.order);
    for (int64_t i = 0; i < g_cap; i++) genome_out_free(&g[i]);
    free(g);
    free(warned_source);
    for (int k = 0; k < NBATCH; k++) tsk_batcher_free(&r.b[k]);
    tsk_ordered_free(&r.order);
    return rc != TSK_EXIT_OK ? rc : s->rc;
}

/* The GPU scanner --device asks for, or none (the CPU threads scan): the device of
 * tsk_engine_genome_device (engine.h: cuda[:N] device N, the first of a list; auto one where it
 * pays). A missing GPU under cuda is TSK_EXIT_NO_GPU, under auto the CPU case; parameters the GPU
 * scanner does not take scan on the CPU with a note. */
static int open_gpu(sketch_run *s)
{
    const tsk_device_choice *d = &s->job->device;
    const int device = tsk_engine_genome_device(s->job, s->threads);
    if (device < 0) return TSK_EXIT_OK;
    char why[TSK_ERRLEN];
    if (!tsk_gpu_genome_scan_available(why, sizeof why)) {
        if (d->kind == TSK_DEVICE_AUTO) return TSK_EXIT_OK;
        tsk_error("--device cuda: no usable GPU: %s", why);
        return TSK_EXIT_NO_GPU;
    }
    if (!(s->gpu = tsk_gpu_genome_scanner_open(&s->job->params, device, why, sizeof why))) {
        tsk_note("GPU not used for genome sketches (%s); scanning on the CPU", why);
        return TSK_EXIT_OK;
    }
    snprintf(s->gpu_name, sizeof s->gpu_name, "cuda:%d", device);
    return TSK_EXIT_OK;
}

/* --per-file genomes are scanned on the CPU threads whatever --device says: inflating and parsing
 * the files is most of the work, which a GPU does not take, and gathering their contigs into GPU
 * batches cost more than the scan it saved (1,000 gzipped genomes: 1.62 s on the CPU threads, 1.81
 * s with the GPU: docs/performance.md, "Genome sketching"). --device cuda still wants a usable GPU,
 * as every command does (exit 5 without one), and is told where the work went. */
static int per_file_device(const sketch_run *s)
{
    if (s->job->device.kind != TSK_DEVICE_CUDA) return TSK_EXIT_OK;
    char why[TSK_ERRLEN];
    if (!tsk_gpu_genome_scan_available(why, sizeof why)) {
        tsk_error("--device cuda: no usable GPU: %s", why);
        return TSK_EXIT_NO_GPU;
    }
    tsk_note("--device cuda: --genome --per-file sketches on the CPU threads, which are faster at it than a GPU");
    return TSK_EXIT_OK;
}

int tsk_genome_sketch_run(const tsk_sketch_job *job, tsk_genome_sink sink, void *ctx)
{
    const char *why = tsk_genome_params_check(&job->params);
    if (why) {
        tsk_error("invalid genome sketch parameters: %s", why);
        return TSK_EXIT_USAGE;
    }
    int rc = tsk_sketch_job_check_names(job);
    if (rc == TSK_EXIT_OK) rc = tsk_sketch_job_check_name_chars(job);
    if (rc != TSK_EXIT_OK) return rc;
    /* a file's text and codes are allocated and freed for each of thousands of files, on every
     * thread: kept in the heap rather than unmapped and mapped anew, their pages are not faulted in
     * (and zeroed by the kernel) again for every file */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    sketch_run s;
    memset(&s, 0, sizeof s);
    s.job = job;
    s.sink = sink;
    s.sink_ctx = ctx;
    s.threads = job->threads > 0 ? job->threads : 1;
    const tsk_knobs *knobs = tsk_knobs_get();
    s.piece_bases = knobs->genome_piece > 0 ? knobs->genome_piece : PIECE_BASES;
    s.batch_bases = knobs->batch_bases > 0 ? knobs->batch_bases : RECORD_BATCH_BASES;
    tsk_progress_start(&s.progress, 1, PROGRESS_INTERVAL);
    s.started = tsk_seconds();
    pthread_mutex_init(&s.mu, NULL);
    s.scanner = calloc((size_t)s.threads, sizeof *s.scanner);
    for (int i = 0; s.scanner && i < s.threads; i++)
        if (!(s.scanner[i] = tsk_genome_scanner_new(&job->params))) rc = TSK_EXIT_RUNTIME;
    if (!s.scanner || rc != TSK_EXIT_OK) {
        tsk_error("out of memory");
        rc = TSK_EXIT_RUNTIME;
    } else if ((rc = job->per_file ? per_file_device(&s) : open_gpu(&s)) == TSK_EXIT_OK) {
        rc = job->per_file ? run_per_file(&s) : run_records(&s);
        if (s.written > 0) show_progress(&s, 1);
        tsk_progress_end(&s.progress, 1);
    }
    for (int i = 0; s.scanner && i < s.threads; i++) tsk_genome_scanner_free(s.scanner[i]);
    free(s.scanner);
    if (s.gpu) tsk_gpu_genome_scanner_close(s.gpu);
    free(s.gpu_keys);
    free(s.gpu_offset);
    free(s.gpu_bound);
    pthread_mutex_destroy(&s.mu);
    return rc;
}
