/* dist_genome.c: `dist` and `triangle` over genome sketches (dist_run.h).
 *
 * The engines (cpu/genome_sets.h, gpu/genome_sets.h) count shared keys and select pairs by the
 * exact share f; every distance printed is computed here from the counts by
 * tsk_genome_key_distance, so both engines give the same bytes. Output is streamed a block of
 * query genomes at a time, as for sketch rows. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/genome_sets.h"
#include "../gpu/genome_sets.h"
#include "../gpu/gpu_dist.h"
#include "cli.h"
#include "gpu_start.h"
#include "dist_run.h"
#include "genome_source.h"

#define DENSE_BLOCK_BYTES (64 << 20) /* shared counts held per dense block */
#define PAIR_BLOCK 4096              /* queries per top-k or threshold block */

/* ---- one interface over the two engines ---- */

typedef struct {
    tsk_cpu_genome_sets *cpu;
    tsk_gpu_genome_sets *gpu;
} engine;

static int engine_open(engine *e, const tsk_key_sets *q, const tsk_key_sets *r, const tsk_sketch_job *job)
{
    char err[TSK_ERRLEN], why[256];
    memset(e, 0, sizeof *e);
    const int want_gpu = job->device.kind == TSK_DEVICE_CUDA ||
                         (job->device.kind == TSK_DEVICE_AUTO && tsk_gpu_dist_device_count(why, sizeof why) > 0);
    if (want_gpu) {
        /* one GPU: the first one named */
        const int dev = job->device.n_devices > 0 ? job->device.devices[0] : 0;
        if ((e->gpu = tsk_gpu_genome_sets_open(q, r, dev, err, sizeof err))) return TSK_EXIT_OK;
        if (job->device.kind == TSK_DEVICE_CUDA) {
            tsk_error("%s", err);
            return TSK_EXIT_NO_GPU;
        }
        tsk_warn("%s; comparing genome sketches on the CPU", err);
    }
    if (!(e->cpu = tsk_cpu_genome_sets_open(q, r, job->threads, err, sizeof err))) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

static void engine_close(engine *e)
{
    if (e->cpu) tsk_cpu_genome_sets_close(e->cpu);
    if (e->gpu) tsk_gpu_genome_sets_close(e->gpu);
    if (e->gpu) tsk_gpu_context_left();
}

static int engine_failed(const engine *e)
{
    tsk_error("genome distance computation failed: %s", e->gpu ? tsk_gpu_genome_sets_error(e->gpu) : "out of memory");
    return TSK_EXIT_RUNTIME;
}

static int engine_block(engine *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared, int64_t ld)
{
    return e->gpu ? tsk_gpu_genome_sets_block(e->gpu, q0, nq, r0, nr, shared, ld)
                  : tsk_cpu_genome_sets_block(e->cpu, q0, nq, r0, nr, shared, ld);
}

static int engine_topk(engine *e, int64_t q0, int64_t nq, int k, tsk_genome_mode m, tsk_pair_filter f,
                       tsk_genome_pair *out)
{
    return e->gpu ? tsk_gpu_genome_sets_topk(e->gpu, q0, nq, k, m, f, out)
                  : tsk_cpu_genome_sets_topk(e->cpu, q0, nq, k, m, f, out);
}

static int engine_within(engine *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode m, tsk_pair_filter f,
                         tsk_genome_pair **p, int64_t *n, int64_t *cap)
{
    return e->gpu ? tsk_gpu_genome_sets_within(e->gpu, q0, nq, min_share, m, f, p, n, cap)
                  : tsk_cpu_genome_sets_within(e->cpu, q0, nq, min_share, m, f, p, n, cap);
}

/* ---- the run ---- */

typedef struct {
    const dist_opts *o;
    const tsk_key_sets *q, *r;
    tsk_genome_mode mode;
    int64_t window;
    int one_set;
    /* one set, symmetric: a line per pair q < r, "q TAB r" as sketch rows print it; otherwise a
     * line per (reference, query), the query's share being the one that counts */
    int lines_upper;
} run_ctx;

/* The line of pair (query q, reference r) sharing `shared` keys, if it is within -d. */
static int make_line(const run_ctx *c, int64_t q, int64_t r, int64_t shared, tsk_genome_line *line)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(c->q, q, c->r, r, &nq, &nr);
    const float d = tsk_genome_key_distance(tsk_genome_share(shared, nq, nr, c->mode), c->window);
    if (!((double)d <= c->o->max_dist)) return 0;
    *line = (tsk_genome_line){c->lines_upper ? r : q, c->lines_upper ? q : r, shared,
                              tsk_genome_total(shared, nq, nr, c->mode), d};
    return 1;
}

static int grow_lines(tsk_genome_line **lines, int64_t need, int64_t *cap)
{
    if (need <= *cap) return 0;
    int64_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    tsk_genome_line *l = realloc(*lines, (size_t)c * sizeof *l);
    if (!l) return -1;
    *lines = l;
    *cap = c;
    return 0;
}

/* --top-k (and -d with it): the k nearest references of each query of [q_begin, q_end). */
static int run_topk(engine *e, tsk_dist_out *out, const run_ctx *c, int64_t q_begin, int64_t q_end, int threads)
{
    const int k = (int)c->o->top_k;
    const tsk_pair_filter f = c->one_set && !c->o->with_self ? TSK_PAIRS_NOT_SELF : TSK_PAIRS_ALL;
    /* queries per block: PAIR_BLOCK, fewer for a large k (--top-k goes up to 2^20) */
    int64_t block = (int64_t)DENSE_BLOCK_BYTES / ((int64_t)k * (int64_t)sizeof(tsk_genome_pair));
    block = block < 1 ? 1 : block > PAIR_BLOCK ? PAIR_BLOCK : block;
    tsk_genome_pair *pairs = malloc((size_t)block * (size_t)k * sizeof *pairs);
    tsk_genome_line *lines = malloc((size_t)block * (size_t)k * sizeof *lines);
    int rc = pairs && lines ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    if (rc) tsk_error("out of memory for a block of genome distances");
    for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += block) {
        const int64_t nq = q_end - q0 < block ? q_end - q0 : block;
        if (engine_topk(e, q0, nq, k, c->mode, f, pairs)) {
            rc = engine_failed(e);
            break;
        }
        int64_t n = 0;
        for (int64_t i = 0; i < nq * k; i++)
            if (pairs[i].ref >= 0 && make_line(c, pairs[i].query, pairs[i].ref, pairs[i].shared, &lines[n])) {
                /* top-k lines are always "reference = the neighbour, query = the genome asked about" */
                lines[n].ref = pairs[i].ref;
                lines[n].query = pairs[i].query;
                n++;
            }
        if (tsk_dist_out_genome_lines(out, lines, n, threads)) rc = TSK_EXIT_WRITE_FAILED;
    }
    free(pairs);
    free(lines);
    return rc;
}

/* -d without --top-k: the pairs within the distance, selected by the engine. */
static int run_within(engine *e, tsk_dist_out *out, const run_ctx *c, tsk_pair_filter f, int64_t q_begin,
                      int64_t q_end, int threads)
{
    const double floor = tsk_genome_share_floor(c->o->max_dist, c->window);
    tsk_genome_pair *pairs = NULL;
    tsk_genome_line *lines = NULL;
    int64_t cap = 0, line_cap = 0;
    int rc = TSK_EXIT_OK;
    for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += PAIR_BLOCK) {
        const int64_t nq = q_end - q0 < PAIR_BLOCK ? q_end - q0 : PAIR_BLOCK;
        int64_t np = 0, n = 0;
        if (engine_within(e, q0, nq, floor, c->mode, f, &pairs, &np, &cap)) {
            rc = engine_failed(e);
            break;
        }
        if (grow_lines(&lines, np, &line_cap)) {
            tsk_error("out of memory for a block of genome distances");
            rc = TSK_EXIT_RUNTIME;
            break;
        }
        for (int64_t i = 0; i < np; i++) n += make_line(c, pairs[i].query, pairs[i].ref, pairs[i].shared, &lines[n]);
        if (tsk_dist_out_genome_lines(out, lines, n, threads)) rc = TSK_EXIT_WRITE_FAILED;
    }
    free(pairs);
    free(lines);
    return rc;
}

/* Every pair: dense blocks of shared counts, as lines (tsv) or distance rows (matrix formats). */
static int run_dense(engine *e, tsk_dist_out *out, const run_ctx *c, tsk_pair_filter f, int64_t q_begin,
                     int64_t q_end, int threads)
{
    const int64_t n_ref = c->r->n_items, ld = n_ref > 0 ? n_ref : 1;
    const int tsv = c->o->fmt == TSK_DIST_TSV;
    int64_t block = DENSE_BLOCK_BYTES / (int64_t)(sizeof(uint32_t) * (size_t)ld);
    if (block < 1) block = 1;
    if (block > q_end - q_begin) block = q_end - q_begin > 0 ? q_end - q_begin : 1;
    uint32_t *shared = malloc((size_t)block * (size_t)ld * sizeof *shared);
    float *dist = tsv ? NULL : malloc((size_t)block * (size_t)ld * sizeof *dist);
    tsk_genome_line *lines = NULL;
    int64_t line_cap = 0;
    int rc = shared && (tsv || dist) ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    if (rc) tsk_error("out of memory for a block of genome distances");
    for (int64_t q0 = q_begin; q0 < q_end && rc == TSK_EXIT_OK; q0 += block) {
        const int64_t nq = q_end - q0 < block ? q_end - q0 : block;
        /* only the columns the output shows: r > q0 for the upper triangle, r < q0+nq for phylip */
        int64_t r0 = 0, r1 = n_ref;
        if (tsv && c->lines_upper) r0 = q0;
        if (c->o->fmt == TSK_DIST_PHYLIP || c->o->fmt == TSK_DIST_MATRIX) r1 = q0 + nq;
        if (r1 > r0 && engine_block(e, q0, nq, r0, r1 - r0, shared + r0, ld)) {
            rc = engine_failed(e);
            break;
        }
        if (!tsv) {
            for (int64_t i = 0; i < nq; i++)
                for (int64_t r = r0; r < r1; r++) {
                    int64_t n_q, n_r;
                    tsk_genome_pair_sizes(c->q, q0 + i, c->r, r, &n_q, &n_r);
                    const double s = tsk_genome_share(shared[i * ld + r], n_q, n_r, c->mode);
                    dist[i * ld + r] = tsk_genome_key_distance(s, c->window);
                }
            if (tsk_dist_out_rows(out, q0, nq, dist, ld)) rc = TSK_EXIT_WRITE_FAILED;
            continue;
        }
        if (grow_lines(&lines, nq * (r1 - r0), &line_cap)) {
            tsk_error("out of memory for a block of genome distances");
            rc = TSK_EXIT_RUNTIME;
            break;
        }
        int64_t n = 0;
        for (int64_t i = 0; i < nq; i++)
            for (int64_t r = r0; r < r1; r++)
                if (tsk_pair_admitted(f, q0 + i, r)) n += make_line(c, q0 + i, r, shared[i * ld + r], &lines[n]);
        if (tsk_dist_out_genome_lines(out, lines, n, threads)) rc = TSK_EXIT_WRITE_FAILED;
    }
    free(shared);
    free(dist);
    free(lines);
    return rc;
}

/* Genome inputs that must be refused before anything runs. */
static const char *usage_problem(const dist_opts *o)
{
    if (o->containment && o->fmt == TSK_DIST_PHYLIP)
        return "--containment is not symmetric: PHYLIP needs a symmetric matrix (use -f square or tsv)";
    if (o->metric != TSK_METRIC_L2) return "genome sketches are compared by shared fingerprints: --metric does not apply";
    return NULL;
}

int tsk_dist_genome_run(const tsk_input *inputs, size_t n_inputs, const int *group_of, int one_set, const dist_opts *o,
                        const tsk_sketch_job *job, int params_given)
{
    const char *why = usage_problem(o);
    if (why) {
        tsk_error("%s", why);
        return TSK_EXIT_USAGE;
    }
    tsk_genome_source groups[2];
    memset(groups, 0, sizeof groups);
    tsk_params params;
    int rc = tsk_genome_sources_load(inputs, n_inputs, group_of, groups, one_set ? 1 : 2, job, params_given, &params);
    const tsk_genome_source *ref = &groups[0], *query = one_set ? &groups[0] : &groups[1];
    engine e = {0};
    tsk_dist_out *out = NULL;
    float *matrix = NULL;
    char err[TSK_ERRLEN];
    if (rc == TSK_EXIT_OK) {
        if (query->set.n_items == 0) tsk_warn("no query genomes: the output has no distances");
        rc = engine_open(&e, &query->set, &ref->set, job);
    }
    if (rc == TSK_EXIT_OK && o->matrix) {
        if (!(out = tsk_dist_matrix_open(ref->set.n_items, &matrix))) rc = TSK_EXIT_RUNTIME;
    } else if (rc == TSK_EXIT_OK &&
        !(out = tsk_dist_out_open(o->output, o->fmt, query->names, query->set.n_items, ref->names, ref->set.n_items, 0,
                                  err, sizeof err))) {
        tsk_error("%s", err);
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK && o->fmt == TSK_DIST_TSV && o->header && o->block_i == 1 &&
        tsk_dist_out_text(out, "reference\tquery\tdistance\tshared\ttotal\n"))
        rc = TSK_EXIT_WRITE_FAILED;
    if (rc == TSK_EXIT_OK) {
        run_ctx c = {o, &query->set, &ref->set, o->containment ? TSK_GENOME_CONTAINMENT : TSK_GENOME_SYMMETRIC,
                     params.window, one_set, one_set && !o->containment};
        /* a one-set run with containment lists every ordered pair: each direction has its own value */
        const tsk_pair_filter f = !one_set           ? TSK_PAIRS_ALL
                                  : c.lines_upper    ? (o->with_self ? TSK_PAIRS_UPPER_SELF : TSK_PAIRS_UPPER)
                                  : o->with_self     ? TSK_PAIRS_ALL
                                                     : TSK_PAIRS_NOT_SELF;
        int64_t q_begin = 0, q_end = query->set.n_items;
        dist_opts parts = *o;
        if (!c.lines_upper) parts.with_self = 0, parts.top_k = 1; /* parts split rows evenly */
        tsk_dist_block_rows(&parts, one_set, query->set.n_items, &q_begin, &q_end);
        if (o->top_k > 0) rc = run_topk(&e, out, &c, q_begin, q_end, job->threads);
        else if (o->fmt == TSK_DIST_TSV && isfinite(o->max_dist))
            rc = run_within(&e, out, &c, f, q_begin, q_end, job->threads);
        else rc = run_dense(&e, out, &c, f, q_begin, q_end, job->threads);
    }
    if (rc == TSK_EXIT_WRITE_FAILED) {
        tsk_error("%s: write failed: %s", o->output ? o->output : "stdout", strerror(errno));
        rc = TSK_EXIT_RUNTIME;
    }
    if (rc == TSK_EXIT_OK) {
        rc = tsk_dist_out_finish(out, err, sizeof err) ? TSK_EXIT_RUNTIME : TSK_EXIT_OK;
        out = NULL;
        if (rc) tsk_error("%s", err);
    }
    if (rc == TSK_EXIT_OK && o->matrix)
        rc = tsk_dist_matrix_deliver(o, matrix, ref->set.n_items, ref->names, "genome distance", "1 - ANI, estimated",
                                     job->threads);
    free(matrix);
    tsk_dist_out_abort(out);
    engine_close(&e);
    tsk_genome_source_free(&groups[0]);
    tsk_genome_source_free(&groups[1]);
    return rc;
}
