/* dist_run.c: the distance runner (dist_run.h): one engine choice over the four engines (vector
 * rows and genome sketches, each on the CPU or a GPU) and the loops over query blocks.
 *
 * Genome engines count shared keys; every genome distance is computed here from the counts by
 * tsk_genome_key_distance, so the CPU and GPU engines give the same bytes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cpu/cpu_dist.h"
#include "../cpu/genome_sets.h"
#include "../gpu/genome_sets.h"
#include "../gpu/gpu_dist.h"
#include "cli.h"
#include "dist_run.h"
#include "gpu_start.h"

#define DENSE_BLOCK_BYTES (64 << 20) /* distances or shared counts held per dense block */
#define ROWS_TOPK_BLOCK 8192         /* queries per top-k block of vector rows */
#define GENOME_PAIR_BLOCK 4096       /* queries per top-k or threshold block of genome sketches */
#define PAIR_CHUNK (1 << 16)         /* pairs of a dense block handed to the sink at once */

struct tsk_dist_engine {
    tsk_dist_items items;
    int genomes; /* items are genome sketches */
    tsk_cpu_dist *cpu;
    tsk_gpu_dist *gpu;
    tsk_cpu_genome_sets *cpu_sets;
    tsk_gpu_genome_sets *gpu_sets;
};

/* ---- the engine choice ---- */

/* Whether the job's --device asks for a GPU (auto: when one is usable). */
static int wants_gpu(const tsk_sketch_job *job)
{
    char why[256];
    return job->device.kind == TSK_DEVICE_CUDA ||
           (job->device.kind == TSK_DEVICE_AUTO && tsk_gpu_dist_device_count(why, sizeof why) > 0);
}

/* The GPU engine of e's kind, or -1 with the reason in err. Genome sketches use one GPU: the first
 * one named (cuda:all and lists use device 0 or their first entry). */
static int open_gpu(tsk_dist_engine *e, const tsk_sketch_job *job, char *err, size_t errlen)
{
    const tsk_dist_items *it = &e->items;
    if (e->genomes) {
        const int dev = job->device.n_devices > 0 ? job->device.devices[0] : 0;
        e->gpu_sets = tsk_gpu_genome_sets_open(it->keys_q, it->keys_r, dev, err, errlen);
        return e->gpu_sets ? 0 : -1;
    }
    e->gpu = tsk_gpu_dist_open(it->rows_q, it->rows_r, it->metric, job->device.devices, job->device.n_devices,
                               job->threads, err, errlen);
    return e->gpu ? 0 : -1;
}

static int open_cpu(tsk_dist_engine *e, int threads, char *err, size_t errlen)
{
    const tsk_dist_items *it = &e->items;
    if (e->genomes) {
        e->cpu_sets = tsk_cpu_genome_sets_open(it->keys_q, it->keys_r, threads, err, errlen);
        return e->cpu_sets ? 0 : -1;
    }
    e->cpu = tsk_cpu_dist_open(it->rows_q, it->rows_r, it->metric, threads, err, errlen);
    return e->cpu ? 0 : -1;
}

int tsk_dist_engine_open(const tsk_dist_items *items, const tsk_sketch_job *job, tsk_dist_engine **out)
{
    char err[TSK_ERRLEN];
    tsk_dist_engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (!e) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    e->items = *items;
    e->genomes = items->keys_q != NULL;
    if (wants_gpu(job) && open_gpu(e, job, err, sizeof err)) {
        if (job->device.kind == TSK_DEVICE_CUDA) {
            tsk_error("%s", err);
            tsk_dist_engine_close(e);
            return TSK_EXIT_NO_GPU;
        }
        tsk_warn("%s; %s on the CPU", err, e->genomes ? "comparing genome sketches" : "computing distances");
    }
    if (!e->gpu && !e->gpu_sets && open_cpu(e, job->threads, err, sizeof err)) {
        tsk_error("%s", err);
        tsk_dist_engine_close(e);
        return TSK_EXIT_RUNTIME;
    }
    *out = e;
    return TSK_EXIT_OK;
}

void tsk_dist_engine_close(tsk_dist_engine *e)
{
    if (!e) return;
    if (e->cpu) tsk_cpu_dist_close(e->cpu);
    if (e->gpu) tsk_gpu_dist_close(e->gpu);
    if (e->cpu_sets) tsk_cpu_genome_sets_close(e->cpu_sets);
    if (e->gpu_sets) tsk_gpu_genome_sets_close(e->gpu_sets);
    if (e->gpu || e->gpu_sets) tsk_gpu_context_left();
    free(e);
}

/* An engine call failed: the message, and the exit code. */
static int engine_failed(const tsk_dist_engine *e)
{
    if (e->genomes)
        tsk_error("genome distance computation failed: %s",
                  e->gpu_sets ? tsk_gpu_genome_sets_error(e->gpu_sets) : "out of memory");
    else
        tsk_error("distance computation failed: %s", e->gpu ? tsk_gpu_dist_error(e->gpu) : "out of memory");
    return TSK_EXIT_RUNTIME;
}

static int out_of_memory(const tsk_dist_engine *e)
{
    tsk_error("out of memory for a block of %sdistances", e->genomes ? "genome " : "");
    return TSK_EXIT_RUNTIME;
}

int tsk_dist_write_failed(const char *output)
{
    tsk_error("%s: write failed: %s", output ? output : "stdout", strerror(errno));
    return TSK_EXIT_RUNTIME;
}

/* ---- the engines' calls, each for either engine of a kind ---- */

static int rows_block(tsk_dist_engine *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    return e->gpu ? tsk_gpu_dist_block(e->gpu, q0, nq, r0, nr, out, ld)
                  : tsk_cpu_dist_block(e->cpu, q0, nq, r0, nr, out, ld);
}

static int rows_topk(tsk_dist_engine *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_pair *out)
{
    return e->gpu ? tsk_gpu_dist_topk(e->gpu, q0, nq, k, f, out) : tsk_cpu_dist_topk(e->cpu, q0, nq, k, f, out);
}

static int rows_within(tsk_dist_engine *e, int64_t q0, int64_t nq, float max, tsk_pair_filter f, tsk_pair **p,
                       int64_t *n, int64_t *cap)
{
    return e->gpu ? tsk_gpu_dist_within(e->gpu, q0, nq, max, f, p, n, cap)
                  : tsk_cpu_dist_within(e->cpu, q0, nq, max, f, p, n, cap);
}

static int sets_block(tsk_dist_engine *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared,
                      int64_t ld)
{
    return e->gpu_sets ? tsk_gpu_genome_sets_block(e->gpu_sets, q0, nq, r0, nr, shared, ld)
                       : tsk_cpu_genome_sets_block(e->cpu_sets, q0, nq, r0, nr, shared, ld);
}

static int sets_topk(tsk_dist_engine *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_genome_pair *out)
{
    const tsk_genome_mode m = e->items.mode;
    return e->gpu_sets ? tsk_gpu_genome_sets_topk(e->gpu_sets, q0, nq, k, m, f, out)
                       : tsk_cpu_genome_sets_topk(e->cpu_sets, q0, nq, k, m, f, out);
}

static int sets_within(tsk_dist_engine *e, int64_t q0, int64_t nq, double min_share, tsk_pair_filter f,
                       tsk_genome_pair **p, int64_t *n, int64_t *cap)
{
    const tsk_genome_mode m = e->items.mode;
    return e->gpu_sets ? tsk_gpu_genome_sets_within(e->gpu_sets, q0, nq, min_share, m, f, p, n, cap)
                       : tsk_cpu_genome_sets_within(e->cpu_sets, q0, nq, min_share, m, f, p, n, cap);
}

/* ---- genome distances from shared counts ---- */

static float genome_distance(const tsk_dist_engine *e, int64_t q, int64_t r, int64_t shared)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(e->items.keys_q, q, e->items.keys_r, r, &nq, &nr);
    return tsk_genome_key_distance(tsk_genome_share(shared, nq, nr, e->items.mode), e->items.window);
}

/* The line of pair (query q, reference r) sharing `shared` keys, if it is within max_dist; swap:
 * the line names r first (one set, each unordered pair once). */
static int genome_line(const tsk_dist_engine *e, int64_t q, int64_t r, int64_t shared, double max_dist, int swap,
                       tsk_genome_line *line)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(e->items.keys_q, q, e->items.keys_r, r, &nq, &nr);
    const float d = tsk_genome_key_distance(tsk_genome_share(shared, nq, nr, e->items.mode), e->items.window);
    if (!((double)d <= max_dist)) return 0;
    *line = (tsk_genome_line){swap ? r : q, swap ? q : r, shared, tsk_genome_total(shared, nq, nr, e->items.mode), d};
    return 1;
}

static int grow(void **buf, size_t size, int64_t need, int64_t *cap)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    void *b = realloc(*buf, (size_t)c * size);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* ---- the selections ---- */

/* The pairs one set against itself shows: each unordered pair once (with or without the self
 * pairs), or, for an asymmetric distance, every ordered pair of two items. */
static tsk_pair_filter pair_filter(const tsk_dist_select *s)
{
    if (!s->one_set) return TSK_PAIRS_ALL;
    if (s->symmetric) return s->with_self ? TSK_PAIRS_UPPER_SELF : TSK_PAIRS_UPPER;
    return s->with_self ? TSK_PAIRS_ALL : TSK_PAIRS_NOT_SELF;
}

/* The neighbours top-k looks among: everything but the item itself in one set, unless with_self. */
static tsk_pair_filter topk_filter(const tsk_dist_select *s)
{
    return s->one_set && !s->with_self ? TSK_PAIRS_NOT_SELF : TSK_PAIRS_ALL;
}

/* Top-k of vector rows: the engine's pairs as they come (a line names the neighbour first). */
/* ---- progress on a terminal ---- */

static long double pairs_before(int64_t q, int64_t n, int with_self);

#define PROGRESS_INTERVAL 0.25 /* seconds between updates of the line */

/* The progress line of the run in hand: one line on stderr, rewritten with \r, only when stderr is
 * a terminal and not --quiet (a log file or a pipe gets no control characters). */
static struct {
    int on, shown;
    double last;
    int64_t q_begin, n_query, n_ref;
    int one_set, with_self;
    long double total;
} progress;

/* Pairs of the selection up to query row q. */
static long double progress_pairs(int64_t q)
{
    if (progress.one_set)
        return pairs_before(q, progress.n_query, progress.with_self) -
               pairs_before(progress.q_begin, progress.n_query, progress.with_self);
    return (long double)(q - progress.q_begin) * (long double)progress.n_ref;
}

static void progress_start(const tsk_dist_engine *e, const tsk_dist_select *s, const char *output_name)
{
    memset(&progress, 0, sizeof progress);
    /* distances written to the same terminal would be torn by the line: none then */
    progress.on = !tsk_quiet && isatty(2) && (output_name || !isatty(1));
    if (!progress.on) return;
    progress.q_begin = s->q_begin;
    progress.n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    progress.n_query = e->genomes ? e->items.keys_q->n_items : e->items.rows_q->n_items;
    progress.one_set = s->one_set;
    progress.with_self = s->with_self;
    progress.total = progress_pairs(s->q_end);
    progress.last = -INFINITY; /* the first block done shows the line */
}

/* The queries before q are done. */
static void progress_update(int64_t q)
{
    if (!progress.on || !(progress.total > 0) || q <= progress.q_begin) return;
    const double now = tsk_seconds();
    if (now - progress.last < PROGRESS_INTERVAL) return;
    progress.last = now;
    const long double done = progress_pairs(q);
    fprintf(stderr, "\rtsketch: %.3g of %.3g pairs (%.0f %%) ", (double)done, (double)progress.total,
            (double)(100 * done / progress.total));
    progress.shown = 1;
}

static void progress_end(void)
{
    if (progress.shown) fputs("\r\033[K", stderr); /* the line cleared: what follows starts clean */
    progress.on = progress.shown = 0;
}

static int rows_run_topk(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output)
{
    const int k = (int)s->top_k;
    tsk_pair *pairs = malloc((size_t)ROWS_TOPK_BLOCK * (size_t)k * sizeof *pairs);
    if (!pairs) return out_of_memory(e);
    int rc = TSK_EXIT_OK;
    for (int64_t q0 = s->q_begin; q0 < s->q_end && rc == TSK_EXIT_OK; q0 += ROWS_TOPK_BLOCK) {
        progress_update(q0);
        const int64_t nq = s->q_end - q0 < ROWS_TOPK_BLOCK ? s->q_end - q0 : ROWS_TOPK_BLOCK;
        if (rows_topk(e, q0, nq, k, topk_filter(s), pairs)) rc = engine_failed(e);
        else if (sink->pairs(sink->ctx, pairs, nq * k, 0, s->max_dist)) rc = tsk_dist_write_failed(output);
    }
    free(pairs);
    return rc;
}

/* Top-k of genome sketches: lines "neighbour TAB genome asked about", within max_dist. */
static int sets_run_topk(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output)
{
    const int k = (int)s->top_k;
    /* queries per block: GENOME_PAIR_BLOCK, fewer for a large k (--top-k goes up to 2^20) */
    int64_t block = (int64_t)DENSE_BLOCK_BYTES / ((int64_t)k * (int64_t)sizeof(tsk_genome_pair));
    block = block < 1 ? 1 : block > GENOME_PAIR_BLOCK ? GENOME_PAIR_BLOCK : block;
    tsk_genome_pair *pairs = malloc((size_t)block * (size_t)k * sizeof *pairs);
    tsk_genome_line *lines = malloc((size_t)block * (size_t)k * sizeof *lines);
    int rc = pairs && lines ? TSK_EXIT_OK : out_of_memory(e);
    for (int64_t q0 = s->q_begin; q0 < s->q_end && rc == TSK_EXIT_OK; q0 += block) {
        progress_update(q0);
        const int64_t nq = s->q_end - q0 < block ? s->q_end - q0 : block;
        if (sets_topk(e, q0, nq, k, topk_filter(s), pairs)) {
            rc = engine_failed(e);
            break;
        }
        int64_t n = 0;
        for (int64_t i = 0; i < nq * k; i++)
            n += pairs[i].ref >= 0 && genome_line(e, pairs[i].query, pairs[i].ref, pairs[i].shared, s->max_dist, 0,
                                                  &lines[n]);
        if (sink->lines(sink->ctx, lines, n)) rc = tsk_dist_write_failed(output);
    }
    free(pairs);
    free(lines);
    return rc;
}

/* Pairs within max_dist of vector rows, selected by the engine. */
static int rows_run_within(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink,
                           const char *output)
{
    const int64_t n_ref = e->items.rows_r->n_items;
    /* about 256 MB of candidate pairs, enough queries to keep every thread busy */
    int64_t block = (int64_t)(256 << 20) / (16 * (n_ref > 0 ? n_ref : 1));
    if (block > 4096) block = 4096;
    if (block < 192 * (int64_t)s->threads) block = 192 * (int64_t)s->threads;
    tsk_pair *pairs = NULL;
    int64_t cap = 0;
    int rc = TSK_EXIT_OK;
    for (int64_t q0 = s->q_begin; q0 < s->q_end && rc == TSK_EXIT_OK; q0 += block) {
        progress_update(q0);
        int64_t nq = s->q_end - q0 < block ? s->q_end - q0 : block, n = 0;
        if (rows_within(e, q0, nq, (float)s->max_dist, pair_filter(s), &pairs, &n, &cap)) rc = engine_failed(e);
        else if (sink->pairs(sink->ctx, pairs, n, s->symmetric, INFINITY)) rc = tsk_dist_write_failed(output);
    }
    free(pairs);
    return rc;
}

/* Pairs within max_dist of genome sketches: the engine selects by the share that max_dist needs,
 * the exact distance decides. */
static int sets_run_within(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink,
                           const char *output)
{
    const double floor = tsk_genome_share_floor(s->max_dist, e->items.window);
    tsk_genome_pair *pairs = NULL;
    tsk_genome_line *lines = NULL;
    int64_t cap = 0, line_cap = 0;
    int rc = TSK_EXIT_OK;
    for (int64_t q0 = s->q_begin; q0 < s->q_end && rc == TSK_EXIT_OK; q0 += GENOME_PAIR_BLOCK) {
        progress_update(q0);
        const int64_t nq = s->q_end - q0 < GENOME_PAIR_BLOCK ? s->q_end - q0 : GENOME_PAIR_BLOCK;
        int64_t np = 0, n = 0;
        if (sets_within(e, q0, nq, floor, pair_filter(s), &pairs, &np, &cap)) {
            rc = engine_failed(e);
            break;
        }
        if (grow((void **)&lines, sizeof *lines, np, &line_cap)) {
            rc = out_of_memory(e);
            break;
        }
        for (int64_t i = 0; i < np; i++)
            n += genome_line(e, pairs[i].query, pairs[i].ref, pairs[i].shared, s->max_dist, s->symmetric, &lines[n]);
        if (sink->lines(sink->ctx, lines, n)) rc = tsk_dist_write_failed(output);
    }
    free(pairs);
    free(lines);
    return rc;
}

/* A dense block's results: the distances of query rows q0 .. q0+nq-1 for references [r0, r1)
 * (vector rows: dist; genome sketches: shared counts, dist filled here when rows are wanted). */
typedef struct {
    int64_t q0, nq, r0, r1, ld;
    float *dist;
    uint32_t *shared;
} dense_block;

/* n pairs gathered in buf (tsk_genome_line or tsk_pair, by e's kind) to the sink. */
static int flush_pairs(const tsk_dist_engine *e, const tsk_dist_select *s, const void *buf, int64_t n,
                       const tsk_dist_sink *sink)
{
    return e->genomes ? sink->lines(sink->ctx, buf, n) : sink->pairs(sink->ctx, buf, n, s->symmetric, INFINITY);
}

/* The block's admitted pairs within max_dist, in order, to the sink in chunks of PAIR_CHUNK
 * gathered in buf. Returns 0, or -1 when a write failed. */
static int dense_pairs(tsk_dist_engine *e, const tsk_dist_select *s, const dense_block *b, void *buf,
                       const tsk_dist_sink *sink)
{
    const tsk_pair_filter f = pair_filter(s);
    int64_t n = 0;
    for (int64_t i = 0; i < b->nq; i++) {
        const int64_t q = b->q0 + i;
        for (int64_t r = b->r0; r < b->r1; r++) {
            if (!tsk_pair_admitted(f, q, r)) continue;
            if (e->genomes) {
                n += genome_line(e, q, r, b->shared[i * b->ld + r], s->max_dist, s->symmetric,
                                 (tsk_genome_line *)buf + n);
            } else if ((double)b->dist[i * b->ld + r] <= s->max_dist) {
                ((tsk_pair *)buf)[n++] = (tsk_pair){q, r, b->dist[i * b->ld + r]};
            }
            if (n == PAIR_CHUNK) {
                if (flush_pairs(e, s, buf, n, sink)) return -1;
                n = 0;
            }
        }
    }
    return flush_pairs(e, s, buf, n, sink);
}

/* Computes block b (its columns set by the caller). */
static int dense_compute(tsk_dist_engine *e, const tsk_dist_select *s, dense_block *b)
{
    if (b->r1 <= b->r0) return 0;
    if (!e->genomes) return rows_block(e, b->q0, b->nq, b->r0, b->r1 - b->r0, b->dist + b->r0, b->ld);
    if (sets_block(e, b->q0, b->nq, b->r0, b->r1 - b->r0, b->shared + b->r0, b->ld)) return -1;
    if (s->dense)
        for (int64_t i = 0; i < b->nq; i++)
            for (int64_t r = b->r0; r < b->r1; r++)
                b->dist[i * b->ld + r] = genome_distance(e, b->q0 + i, r, b->shared[i * b->ld + r]);
    return 0;
}

/* Every pair: dense blocks of query rows, as rows (s->dense) or as pairs / lines. */
static int run_dense(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output)
{
    const int64_t n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    const int64_t n_query = e->genomes ? e->items.keys_q->n_items : e->items.rows_q->n_items;
    const int64_t ld = n_ref > 0 ? n_ref : 1;
    int64_t block = DENSE_BLOCK_BYTES / (4 * ld);
    if (block < 1) block = 1;
    if (progress.on && block > 64 && block > n_query / 100) /* a block per percent or so, for the line */
        block = n_query / 100 > 64 ? n_query / 100 : 64;
    if (block > n_query) block = n_query > 0 ? n_query : 1;
    dense_block b = {0};
    b.ld = ld;
    const int need_dist = !e->genomes || s->dense;
    b.dist = need_dist ? malloc((size_t)block * (size_t)ld * sizeof *b.dist) : NULL;
    b.shared = e->genomes ? malloc((size_t)block * (size_t)ld * sizeof *b.shared) : NULL;
    const size_t pair_size = e->genomes ? sizeof(tsk_genome_line) : sizeof(tsk_pair);
    void *buf = s->dense ? NULL : malloc((size_t)PAIR_CHUNK * pair_size);
    const int allocated = (!need_dist || b.dist) && (!e->genomes || b.shared) && (s->dense || buf);
    int rc = allocated ? TSK_EXIT_OK : out_of_memory(e);
    for (b.q0 = s->q_begin; b.q0 < s->q_end && rc == TSK_EXIT_OK; b.q0 += block) {
        progress_update(b.q0);
        b.nq = s->q_end - b.q0 < block ? s->q_end - b.q0 : block;
        /* only the columns the sink reads: r >= q0 for each unordered pair once, r < q0+nq for a
         * lower triangle */
        b.r0 = !s->dense && s->symmetric ? b.q0 : 0;
        b.r1 = s->dense && s->lower_only ? b.q0 + b.nq : n_ref;
        if (dense_compute(e, s, &b)) {
            rc = engine_failed(e);
        } else if (s->dense) {
            if (sink->rows(sink->ctx, b.q0, b.nq, b.dist, ld)) rc = tsk_dist_write_failed(output);
        } else if (dense_pairs(e, s, &b, buf, sink)) {
            rc = tsk_dist_write_failed(output);
        }
    }
    free(b.dist);
    free(b.shared);
    free(buf);
    return rc;
}

static int run_selection(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink,
                         const char *output_name)
{
    if (s->top_k > 0)
        return e->genomes ? sets_run_topk(e, s, sink, output_name) : rows_run_topk(e, s, sink, output_name);
    if (!s->dense && isfinite(s->max_dist))
        return e->genomes ? sets_run_within(e, s, sink, output_name) : rows_run_within(e, s, sink, output_name);
    return run_dense(e, s, sink, output_name);
}

int tsk_dist_run(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output_name)
{
    progress_start(e, s, output_name);
    const int rc = run_selection(e, s, sink, output_name);
    progress_end();
    return rc;
}

/* ---- --block I/N ---- */

/* Pairs of query row q that a one-set run writes: the later rows (and itself with_self). */
static long double pairs_before(int64_t q, int64_t n, int with_self)
{
    long double lq = (long double)q;
    return lq * (long double)(n - 1) - lq * (lq - 1) / 2 + (with_self ? lq : 0);
}

void tsk_dist_block_rows(int64_t part_i, int64_t n_parts, int by_pairs, int with_self, int64_t n, int64_t *begin,
                         int64_t *end)
{
    int64_t bound[2];
    for (int side = 0; side < 2; side++) {
        const int64_t part = part_i - 1 + side;
        if (part == 0 || part == n_parts) {
            bound[side] = part == 0 ? 0 : n;
            continue;
        }
        if (!by_pairs) {
            bound[side] = (int64_t)((long double)n * (long double)part / (long double)n_parts);
            continue;
        }
        /* first row whose preceding pairs reach part/N of them all */
        const long double target = pairs_before(n, n, with_self) * (long double)part / (long double)n_parts;
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (pairs_before(mid, n, with_self) < target) lo = mid + 1;
            else hi = mid;
        }
        bound[side] = lo;
    }
    *begin = bound[0];
    *end = bound[1];
}
