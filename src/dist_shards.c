/* dist_shards.c: reference shards over several engines, merged exactly (dist_shards.h). */
#include "dist_shards.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHARDS 16

struct tsk_dist_shards {
    const engine_calls *kind;
    int n;
    int64_t bound[MAX_SHARDS + 1];
    int device[MAX_SHARDS];
    void *engine[MAX_SHARDS];
    pthread_mutex_t lock[MAX_SHARDS]; /* a shard's engine answers one call at a time */
    pthread_mutex_t err_lock;
    char err[TSK_ERRLEN];
};

int tsk_dist_shards_count(const tsk_dist_shards *g) { return g ? g->n : 0; }
void *tsk_dist_shards_engine(const tsk_dist_shards *g, int s) { return g->engine[s]; }
int64_t tsk_dist_shards_bound(const tsk_dist_shards *g, int s) { return g->bound[s]; }

/* Shard s failed: its engine's reason, kept for error() (the first of a call's). */
static void shard_failed(tsk_dist_shards *g, int s)
{
    pthread_mutex_lock(&g->err_lock);
    snprintf(g->err, sizeof g->err, "references %lld..%lld (GPU %d): %s", (long long)g->bound[s],
             (long long)g->bound[s + 1] - 1, g->device[s], g->kind->error(g->engine[s]));
    pthread_mutex_unlock(&g->err_lock);
}

static void shards_close(void *e)
{
    tsk_dist_shards *g = e;
    if (!g) return;
    for (int s = 0; s < g->n; s++) {
        if (g->engine[s]) g->kind->close(g->engine[s]);
        pthread_mutex_destroy(&g->lock[s]);
    }
    pthread_mutex_destroy(&g->err_lock);
    free(g);
}

static const char *shards_error(const void *e) { return ((const tsk_dist_shards *)e)->err; }

/* Runs call(g, s, ctx) for every shard, a thread a shard (the calling thread one of them), each
 * under its shard's lock; 0, or -1 when one failed (its reason kept). */
typedef int (*shard_call)(tsk_dist_shards *g, int s, void *ctx);
typedef struct {
    tsk_dist_shards *g;
    int s;
    shard_call call;
    void *ctx;
    int rc;
    pthread_t thread;
    int started;
} shard_job;

static void *run_one(void *arg)
{
    shard_job *j = arg;
    pthread_mutex_lock(&j->g->lock[j->s]);
    j->rc = j->call(j->g, j->s, j->ctx);
    pthread_mutex_unlock(&j->g->lock[j->s]);
    if (j->rc && j->g->engine[j->s]) shard_failed(j->g, j->s); /* a failed open says why itself */
    return NULL;
}

static int each_shard(tsk_dist_shards *g, shard_call call, void *ctx)
{
    shard_job job[MAX_SHARDS];
    for (int s = 0; s < g->n; s++) {
        job[s] = (shard_job){g, s, call, ctx, 0, 0, 0};
        job[s].started = s > 0 && pthread_create(&job[s].thread, NULL, run_one, &job[s]) == 0;
    }
    for (int s = 0; s < g->n; s++)
        if (!job[s].started) run_one(&job[s]);
    int failed = 0;
    for (int s = 0; s < g->n; s++) {
        if (job[s].started) pthread_join(job[s].thread, NULL);
        failed |= job[s].rc != 0;
    }
    return failed ? -1 : 0;
}

/* The shards' opening, each with its own reason should it fail. */
typedef struct {
    const tsk_dist_items *it;
    int threads;
    char err[MAX_SHARDS][TSK_ERRLEN];
} open_ctx;

static int open_one(tsk_dist_shards *g, int s, void *ctx)
{
    open_ctx *c = ctx;
    g->engine[s] = g->kind->open_shard(c->it, g->bound[s], g->bound[s + 1], g->device[s], c->threads, c->err[s],
                                       sizeof c->err[s]);
    return g->engine[s] ? 0 : -1;
}

tsk_dist_shards *tsk_dist_shards_open(const engine_calls *kind, const tsk_dist_items *it, int n, const int *devices,
                                      int threads, char *err, size_t errlen)
{
    if (n < 1 || n > MAX_SHARDS || !kind->open_shard) {
        snprintf(err, errlen, "cannot shard references over %d engines", n);
        return NULL;
    }
    tsk_dist_shards *g = calloc(1, sizeof *g);
    open_ctx *c = calloc(1, sizeof *c);
    if (!g || !c) {
        free(g), free(c);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->kind = kind, g->n = n;
    pthread_mutex_init(&g->err_lock, NULL);
    for (int s = 0; s < n; s++) pthread_mutex_init(&g->lock[s], NULL), g->device[s] = devices[s];
    /* runs of about equal keys: what each shard's index and its uploads hold */
    const tsk_key_sets *r = it->keys_r;
    const int64_t total = r->offset[r->n_items] - r->offset[0];
    int64_t i = 0;
    for (int s = 0; s <= n; s++) {
        const int64_t want = s == n ? total + 1 : (int64_t)((long double)total * s / n);
        while (i < r->n_items && r->offset[i] - r->offset[0] < want) i++;
        g->bound[s] = s == n ? r->n_items : i;
    }
    /* the shards open side by side: each its context, its uploads and its index */
    c->it = it, c->threads = threads;
    const int failed = each_shard(g, open_one, c);
    for (int s = 0; failed && s < n; s++)
        if (!g->engine[s]) {
            snprintf(err, errlen, "%s", c->err[s]);
            break;
        }
    free(c);
    if (failed) {
        shards_close(g);
        return NULL;
    }
    return g;
}

/* ---- counts of a block: each shard its columns ---- */

typedef struct {
    int64_t q0, nq, r0, nr, ld;
    uint32_t *shared;
} block_ctx;

static int block_one(tsk_dist_shards *g, int s, void *ctx)
{
    const block_ctx *c = ctx;
    const int64_t lo = c->r0 > g->bound[s] ? c->r0 : g->bound[s];
    const int64_t hi = c->r0 + c->nr < g->bound[s + 1] ? c->r0 + c->nr : g->bound[s + 1];
    if (lo >= hi) return 0;
    return g->kind->block_sets(g->engine[s], c->q0, c->nq, lo, hi - lo, c->shared + (lo - c->r0), c->ld);
}

static int shards_block(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared, int64_t ld)
{
    block_ctx c = {q0, nq, r0, nr, ld, shared};
    return each_shard(e, block_one, &c);
}

/* ---- top-k: each shard's lists, merged query by query ---- */

typedef struct {
    int64_t q0, nq;
    int k;
    tsk_genome_mode mode;
    tsk_pair_filter filter;
    tsk_genome_pair *list[MAX_SHARDS]; /* shard s's lists: nq * k */
} topk_ctx;

static int topk_one(tsk_dist_shards *g, int s, void *ctx)
{
    topk_ctx *c = ctx;
    return g->kind->topk_sets(g->engine[s], c->q0, c->nq, c->k, c->mode, c->filter, c->list[s]);
}

static int shards_topk(void *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode, tsk_pair_filter filter,
                       tsk_genome_pair *out)
{
    tsk_dist_shards *g = e;
    topk_ctx c = {q0, nq, k, mode, filter, {NULL}};
    int failed = 0;
    for (int s = 0; s < g->n; s++) failed |= !(c.list[s] = malloc((size_t)(nq > 0 ? nq : 1) * (size_t)k * sizeof *out));
    if (failed) snprintf(g->err, sizeof g->err, "out of memory for the shards' top-k lists");
    if (!failed) failed = each_shard(g, topk_one, &c) != 0;
    for (int64_t i = 0; !failed && i < nq; i++) {
        int at[MAX_SHARDS] = {0};
        for (int j = 0; j < k; j++) {
            int best = -1;
            for (int s = 0; s < g->n; s++) {
                const tsk_genome_pair *p = &c.list[s][i * k + at[s]];
                if (at[s] < k && p->ref >= 0 &&
                    (best < 0 || tsk_genome_ranks_before(p, &c.list[best][i * k + at[best]])))
                    best = s;
            }
            out[i * k + j] = best < 0 ? (tsk_genome_pair){q0 + i, -1, 0, 0.0} : c.list[best][i * k + at[best]++];
        }
    }
    for (int s = 0; s < g->n; s++) free(c.list[s]);
    return failed ? -1 : 0;
}

/* ---- pairs within a share: each shard's, query by query, shard after shard ---- */

typedef struct {
    int64_t q0, nq;
    double min_share;
    tsk_genome_mode mode;
    tsk_pair_filter filter;
    tsk_genome_pair *pairs[MAX_SHARDS];
    int64_t n[MAX_SHARDS], cap[MAX_SHARDS];
} within_ctx;

static int within_one(tsk_dist_shards *g, int s, void *ctx)
{
    within_ctx *c = ctx;
    return g->kind->within_sets(g->engine[s], c->q0, c->nq, c->min_share, c->mode, c->filter, &c->pairs[s], &c->n[s],
                                &c->cap[s]);
}

static int shards_within(void *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode mode,
                         tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n, int64_t *cap)
{
    tsk_dist_shards *g = e;
    within_ctx c;
    memset(&c, 0, sizeof c);
    c.q0 = q0, c.nq = nq, c.min_share = min_share, c.mode = mode, c.filter = filter;
    *n = 0;
    int failed = each_shard(g, within_one, &c) != 0;
    int64_t total = 0;
    for (int s = 0; s < g->n; s++) total += c.n[s];
    if (!failed && total > *cap) {
        tsk_genome_pair *grown = realloc(*pairs, (size_t)total * sizeof **pairs);
        if (grown) *pairs = grown, *cap = total;
        else {
            snprintf(g->err, sizeof g->err, "out of memory for the pairs within the distance");
            failed = 1;
        }
    }
    if (!failed) {
        int64_t at[MAX_SHARDS] = {0}, m = 0;
        for (int64_t q = q0; q < q0 + nq; q++)
            for (int s = 0; s < g->n; s++)
                while (at[s] < c.n[s] && c.pairs[s][at[s]].query == q) (*pairs)[m++] = c.pairs[s][at[s]++];
        *n = m;
    }
    for (int s = 0; s < g->n; s++) free(c.pairs[s]);
    return failed ? -1 : 0;
}

const engine_calls TSK_DIST_SHARDS = {"genome distance computation", NULL, NULL, shards_close, shards_error,
                                      NULL, NULL, NULL, shards_block, shards_topk, shards_within};
