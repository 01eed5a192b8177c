/* dist_run.c: the distance runner (dist_run.h): one engine choice over the four engines (vector
 * rows and genome sketches, each on the CPU or a GPU) and the loops over query blocks.
 *
 * Each engine kind is a table of its calls (engine_calls), chosen once; which kind and which GPUs
 * is the --device policy's (engine.h). Genome engines count shared keys; every genome distance is
 * computed here from the counts by tsk_genome_pair_distance, so the CPU and GPU engines give the
 * same bytes. With segment anchors (tsk_dist_items.ani_q), the keys only find candidates, and
 * each candidate is refined here to 1 - ANI (tsk_ani_pair_query, on the -p threads, one scratch a
 * thread), after the engine and before the selection's cut: the same bytes again, whichever engine
 * found the pair.
 *
 * Lanes. A GPU engine runs on lanes: one engine per device, each on a host thread of its own that
 * takes the next query block, while the calling thread hands finished blocks to the sink in query
 * order. So one GPU computes block b + 1 while block b's lines are formatted and written, and two
 * GPUs take turns; the blocks and each block's results are those of a single engine, so the bytes
 * are the same on any number of GPUs. A run large enough for several lanes has them opened at once,
 * each on a thread of its own beside lane 0's opening. Each GPU holds its own index of every
 * reference, but the uploads are shared: each takes shares of the keys (and with ANI of the
 * anchors, which it also sorts) from the host and copies the others' from their GPUs
 * (tsk_gpu_genome_sets_peers, tsk_gpu_ani_peers). References no GPU holds whole go to the GPUs in
 * shards instead (dist_shards.h): the group of shards is the engine of two lanes. The CPU engine
 * runs inline (its -p threads are the whole budget: no lane thread beside them), or, under
 * TSKETCH_DIST_LANES=N (a test knob), on N CPU lanes through the same scheduler as GPUs. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/genome_keys.h"
#include "../core/tsk_knobs.h"
#include "../cpu/cpu_dist.h"
#include "../cpu/genome_index.h"
#include "../cpu/genome_sets.h"
#include "../gpu/ani_pairs.h"
#include "../gpu/device.h"
#include "../gpu/genome_sets.h"
#include "../gpu/gpu_dist.h"
#include "cli.h"
#include "dist_engines.h"
#include "dist_run.h"
#include "dist_shards.h"
#include "engine.h"
#include "gpu_start.h"
#include "ordered_pipeline.h"
#include "progress_line.h"

#define DENSE_BLOCK_BYTES (64 << 20) /* distances or shared counts held per dense block */
#define ROWS_TOPK_BLOCK 8192         /* queries per top-k block of vector rows */
#define GENOME_PAIR_BLOCK 4096       /* queries per top-k or threshold block of genome sketches */
#define PAIR_CHUNK (1 << 16)         /* pairs of a dense block handed to the sink at once */
#define ANI_PAIR_CELLS (1 << 20)     /* cells of a dense block whose pairs are refined to lines (ANI) */
#define ANI_MARGIN 0.04              /* identity a pair's key share may seem to fall short of its ANI by */
#define ANI_CHANCE_IDENTITY 0.80     /* key shares below this identity's (0.80^W / 2): chance matches */
#define MAX_LANES 16
#define MAX_WORKERS (2 * MAX_LANES) /* a run's threads: two a lane at most (workers_per_lane) */

/* A second GPU's context costs 0.2-0.4 s to open: lanes past the first are opened only for a run
 * that one GPU would take about a second for, by the engines' measured rates (vector top-k
 * 4e11 pairs/s through the tensor cores, genome pairs of 10^5 genomes with ANI 3e9 pairs/s:
 * docs/performance.md). */
#define ROWS_PAIRS_PER_LANE 4e11
#define SETS_PAIRS_PER_LANE 4e9

/* Each engine's functions behind the table's signatures (an engine pointer is called as its own
 * type, never through a cast function pointer). */

static void *cpu_rows_open(const tsk_dist_items *it, int device, int threads, void *peers, int member, char *err,
                           size_t errlen)
{
    (void)device, (void)peers, (void)member;
    return tsk_cpu_dist_open(it->rows_q, it->rows_r, it->metric, threads, err, errlen);
}
static void cpu_rows_close(void *e) { tsk_cpu_dist_close(e); }
static const char *cpu_rows_error(const void *e) { return tsk_cpu_dist_error(e); }
static int cpu_rows_block(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    return tsk_cpu_dist_block(e, q0, nq, r0, nr, out, ld);
}
static int cpu_rows_topk(void *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_pair *out)
{
    return tsk_cpu_dist_topk(e, q0, nq, k, f, out);
}
static int cpu_rows_within(void *e, int64_t q0, int64_t nq, float max, tsk_pair_filter f, tsk_pair **p, int64_t *n,
                           int64_t *cap)
{
    return tsk_cpu_dist_within(e, q0, nq, max, f, p, n, cap);
}

static void *gpu_rows_open(const tsk_dist_items *it, int device, int threads, void *peers, int member, char *err,
                           size_t errlen)
{
    (void)peers, (void)member;
    return tsk_gpu_dist_open(it->rows_q, it->rows_r, it->metric, &device, 1, threads, err, errlen);
}
static void gpu_rows_close(void *e) { tsk_gpu_dist_close(e); }
static const char *gpu_rows_error(const void *e) { return tsk_gpu_dist_error(e); }
static int gpu_rows_block(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    return tsk_gpu_dist_block(e, q0, nq, r0, nr, out, ld);
}
static int gpu_rows_topk(void *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_pair *out)
{
    return tsk_gpu_dist_topk(e, q0, nq, k, f, out);
}
static int gpu_rows_within(void *e, int64_t q0, int64_t nq, float max, tsk_pair_filter f, tsk_pair **p, int64_t *n,
                           int64_t *cap)
{
    return tsk_gpu_dist_within(e, q0, nq, max, f, p, n, cap);
}

/* The CPU engine of genome sketches: every pair's merge (cpu/genome_sets.h), which count blocks
 * (dense outputs) always take, and the inverted index (cpu/genome_index.h), built at the first
 * top-k or threshold call when its cost model says it costs less over the run's queries than the
 * merge (TSKETCH_GENOME_CPU_ENGINE=merge or index forces one). Both give the same bytes. */
typedef struct {
    const tsk_key_sets *q, *r;
    int threads;
    tsk_cpu_genome_sets *merge;
    tsk_cpu_genome_index *index;
    int chosen;                /* the choice is made: index, or NULL for the merge */
    char err[TSK_ERRLEN];
} cpu_genomes;

/* Queries whose merges sample the keys they share, for the index's cost before it exists. */
#define WALK_SAMPLES 32

/* Whether the index pays over the run: all the set's queries against all references. */
static int index_pays(const cpu_genomes *g)
{
    const tsk_knob_genome_engine forced = tsk_knobs_get()->genome_cpu_engine;
    if (forced != TSK_KNOB_GENOME_AUTO) return forced == TSK_KNOB_GENOME_INDEX;
    const int64_t nq = g->q->n_items, nr = g->r->n_items;
    if (nq == 0 || nr == 0) return 0;
    const int64_t nq_keys = g->q->offset[nq], nr_keys = g->r->offset[nr];
    const double merge = tsk_genome_merge_cost(nq, nq_keys, nr, nr_keys);
    /* the index costs at least its build and lookups: no sampling where that alone loses */
    if (tsk_genome_index_cost(nq, nq_keys, nr, nr_keys, 0, 0) >= merge) return 0;
    const double walked = tsk_genome_walk_estimate(g->q, 0, nq, g->r, WALK_SAMPLES, g->threads);
    return walked >= 0 && tsk_genome_index_cost(nq, nq_keys, nr, nr_keys, walked, 0) < merge;
}

/* The index, when the choice (made once) is the index: NULL for the merge, or on failure (err set). */
static tsk_cpu_genome_index *chosen_index(cpu_genomes *g, int *failed)
{
    *failed = 0;
    if (!g->chosen) {
        g->chosen = 1;
        if (index_pays(g) && !(g->index = tsk_cpu_genome_index_open(g->q, g->r, g->threads, g->err, sizeof g->err)))
            *failed = 1, g->chosen = 0;
    }
    return g->index;
}

static void cpu_sets_close(void *e)
{
    cpu_genomes *g = e;
    if (!g) return;
    tsk_cpu_genome_sets_close(g->merge);
    tsk_cpu_genome_index_close(g->index);
    free(g);
}
/* The merge engine of references [r_lo, r_hi) (the index chosen later, when it pays); a shard's
 * (tests of the shards' merge on CPU lanes) keeps the merge. */
static void *cpu_genomes_open(const tsk_dist_items *it, int64_t r_lo, int64_t r_hi, int shard, int threads, char *err,
                              size_t errlen)
{
    cpu_genomes *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->q = it->keys_q, g->r = it->keys_r, g->threads = threads, g->chosen = shard;
    if (!(g->merge = tsk_cpu_genome_sets_open_shard(it->keys_q, it->keys_r, r_lo, r_hi, threads, err, errlen))) {
        cpu_sets_close(g);
        return NULL;
    }
    return g;
}
static void *cpu_sets_open(const tsk_dist_items *it, int device, int threads, void *peers, int member, char *err,
                           size_t errlen)
{
    (void)device, (void)peers, (void)member;
    return cpu_genomes_open(it, 0, it->keys_r->n_items, 0, threads, err, errlen);
}
static void *cpu_sets_open_shard(const tsk_dist_items *it, int64_t r_lo, int64_t r_hi, int device, int threads,
                                 char *err, size_t errlen)
{
    (void)device;
    return cpu_genomes_open(it, r_lo, r_hi, 1, threads, err, errlen);
}
static const char *cpu_sets_error(const void *e)
{
    const cpu_genomes *g = e;
    if (g->err[0]) return g->err;
    return g->index ? tsk_cpu_genome_index_error(g->index) : tsk_cpu_genome_sets_error(g->merge);
}
static int cpu_sets_block(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared, int64_t ld)
{
    const cpu_genomes *g = e;
    return tsk_cpu_genome_sets_block(g->merge, q0, nq, r0, nr, shared, ld);
}
static int cpu_sets_topk(void *e, int64_t q0, int64_t nq, int k, tsk_genome_mode m, tsk_pair_filter f,
                         tsk_genome_pair *out)
{
    cpu_genomes *g = e;
    int failed;
    tsk_cpu_genome_index *index = chosen_index(g, &failed);
    if (failed) return -1;
    return index ? tsk_cpu_genome_index_topk(index, q0, nq, k, m, f, out)
                 : tsk_cpu_genome_sets_topk(g->merge, q0, nq, k, m, f, out);
}
static int cpu_sets_within(void *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode m, tsk_pair_filter f,
                           tsk_genome_pair **p, int64_t *n, int64_t *cap)
{
    cpu_genomes *g = e;
    int failed;
    tsk_cpu_genome_index *index = chosen_index(g, &failed);
    if (failed) return -1;
    return index ? tsk_cpu_genome_index_within(index, q0, nq, min_share, m, f, p, n, cap)
                 : tsk_cpu_genome_sets_within(g->merge, q0, nq, min_share, m, f, p, n, cap);
}

static void *gpu_sets_open(const tsk_dist_items *it, int device, int threads, void *peers, int member, char *err,
                           size_t errlen)
{
    (void)threads;
    return tsk_gpu_genome_sets_open(it->keys_q, it->keys_r, device, peers, member, err, errlen);
}
static void *gpu_sets_open_shard(const tsk_dist_items *it, int64_t r_lo, int64_t r_hi, int device, int threads,
                                 char *err, size_t errlen)
{
    (void)threads;
    return tsk_gpu_genome_sets_open_shard(it->keys_q, it->keys_r, r_lo, r_hi, device, err, errlen);
}
static void gpu_sets_close(void *e) { tsk_gpu_genome_sets_close(e); }
static const char *gpu_sets_error(const void *e) { return tsk_gpu_genome_sets_error(e); }
static int gpu_sets_block(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared, int64_t ld)
{
    return tsk_gpu_genome_sets_block(e, q0, nq, r0, nr, shared, ld);
}
static int gpu_sets_topk(void *e, int64_t q0, int64_t nq, int k, tsk_genome_mode m, tsk_pair_filter f,
                         tsk_genome_pair *out)
{
    return tsk_gpu_genome_sets_topk(e, q0, nq, k, m, f, out);
}
static int gpu_sets_within(void *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode m, tsk_pair_filter f,
                           tsk_genome_pair **p, int64_t *n, int64_t *cap)
{
    return tsk_gpu_genome_sets_within(e, q0, nq, min_share, m, f, p, n, cap);
}

static const engine_calls CPU_ROWS = {"distance computation", cpu_rows_open, NULL, cpu_rows_close, cpu_rows_error,
                                      cpu_rows_block, cpu_rows_topk, cpu_rows_within, NULL, NULL, NULL};
static const engine_calls GPU_ROWS = {"distance computation", gpu_rows_open, NULL, gpu_rows_close, gpu_rows_error,
                                      gpu_rows_block, gpu_rows_topk, gpu_rows_within, NULL, NULL, NULL};
static const engine_calls CPU_SETS = {"genome distance computation", cpu_sets_open, cpu_sets_open_shard,
                                      cpu_sets_close, cpu_sets_error, NULL, NULL, NULL, cpu_sets_block,
                                      cpu_sets_topk, cpu_sets_within};
static const engine_calls GPU_SETS = {"genome distance computation", gpu_sets_open, gpu_sets_open_shard,
                                      gpu_sets_close, gpu_sets_error, NULL, NULL, NULL, gpu_sets_block,
                                      gpu_sets_topk, gpu_sets_within};

/* The table of the items' kind on the CPU or a GPU. */
static const engine_calls *engine_kind(int genomes, int on_gpu)
{
    return genomes ? (on_gpu ? &GPU_SETS : &CPU_SETS) : (on_gpu ? &GPU_ROWS : &CPU_ROWS);
}

/* One engine instance, an open lane's; on a GPU with ANI, its device's ANI engine too (NULL: the
 * host refines). A run's worker thread computes blocks on a copy of it: two workers share a GPU
 * lane's engines where a block's ANI refinement can run beside the next block's keys
 * (workers_per_lane), each engine then taken under its lock (NULL: the worker is its lane's only one). */
typedef struct {
    void *engine;
    tsk_gpu_ani *ani;
    pthread_mutex_t *keys_mu, *ani_mu;
    int index; /* the worker's slot in a run's timing sums */
} dist_lane;

/* Seconds this thread waited for a lane's engines (lane_lock), which TSKETCH_TIMING's sums leave out. */
static _Thread_local double lock_waited_s;

static void lane_lock(pthread_mutex_t *mu)
{
    if (!mu || !pthread_mutex_trylock(mu)) return;
    const double t0 = tsk_seconds();
    pthread_mutex_lock(mu);
    lock_waited_s += tsk_seconds() - t0;
}

static void lane_unlock(pthread_mutex_t *mu)
{
    if (mu) pthread_mutex_unlock(mu);
}

/* A lane opened on a thread of its own while lane 0 opens on the caller's: a second GPU's opening
 * (its context, the upload and index of every reference key, its anchors) takes as long as the
 * first's, 0.8 s for 10^5 genomes, which opened after the first would cost as much as the second
 * GPU saves. rc: 0 opened, -1 failed with the reason in err. */
typedef struct {
    tsk_dist_engine *e;
    int lane;
    pthread_t thread;
    int started; /* the thread runs or ran and is not joined yet */
    int rc;
    char err[TSK_ERRLEN];
} lane_opener;

struct tsk_dist_engine {
    tsk_dist_items items;
    int genomes;                 /* items are genome sketches */
    int on_gpu;
    const engine_calls *calls;   /* the lanes' engine kind */
    int n_open;                  /* lanes a run has taken: lane[0] opened at tsk_dist_engine_open, the others beside it */
    int n_lanes;                 /* lanes a large run may use: the devices, or TSKETCH_DIST_LANES CPU lanes */
    int devices[MAX_LANES];      /* the GPU of each lane */
    int threads;                 /* -p: the CPU engine's threads, the GPU engines' host helpers */
    int required;                /* --device cuda: a lane that fails to open is an error, not a warning */
    dist_lane lane[MAX_LANES];
    lane_opener opener[MAX_LANES]; /* lanes past the first opened beside it, for a run that will take them */
    /* GPU lanes of genome sketches opened at once: their engines share the upload of the keys
     * (genome_sets.h) and, with ANI, the anchors' upload and sort (ani_pairs.h); in_peers[i]: lane
     * i's engines are still to open among them */
    tsk_gpu_genome_sets_peers *keys_peers;
    tsk_gpu_ani_peers *ani_peers;
    int in_peers[MAX_LANES];
    /* the references sharded over the devices (or CPU lanes) instead, NULL when whole on each: the
     * group is the engine of two lanes (two blocks in flight), lane i's ANI engine on devices[i] */
    tsk_dist_shards *shards;
    pthread_mutex_t keys_mu[MAX_LANES], ani_mu[MAX_LANES]; /* lane i's engines, when two workers share them */
};

/* ---- the engine choice ---- */

/* Threads of each of n CPU lanes: -p shared out, at least one each. */
static int lane_threads(int threads, int n)
{
    const int t = threads / n;
    return t > 0 ? t : 1;
}

/* Opens lane i on its GPU (on_gpu; -p host helpers) or as a CPU engine with its share of -p; -1
 * with the reason in err. */
static int open_lane(tsk_dist_engine *e, int i, char *err, size_t errlen)
{
    const int threads = e->on_gpu ? e->threads : lane_threads(e->threads, e->n_lanes);
    /* the ANI engine first: it takes its device memory at once and fills it on a thread of its own
     * while the keys' engine uploads and indexes the keys, sized to what is left */
    const int ani = e->on_gpu && tsk_dist_items_ani(&e->items);
    if (e->on_gpu) tsk_gpu_host_threads(threads); /* the uploads' copies, below and in the fill */
    char why[512] = "";
    const int in_peers = e->in_peers[i];
    e->in_peers[i] = 0; /* its one open among them, whatever it gives */
    if (ani)
        e->lane[i].ani = tsk_gpu_ani_open(e->items.ani_q, e->items.ani_r, e->items.anchor_k, (int)e->items.window,
                                          e->devices[i], in_peers ? e->ani_peers : NULL, i, why, sizeof why);
    e->lane[i].engine = e->calls->open(&e->items, e->devices[i], threads, in_peers ? e->keys_peers : NULL, i, err, errlen);
    if (!e->lane[i].engine) { /* the device is not usable: its failure is the keys' engine's to report */
        tsk_gpu_ani_close(e->lane[i].ani);
        e->lane[i].ani = NULL;
        return -1;
    }
    if (ani && !e->lane[i].ani) tsk_warn("%s; ANI of the candidate pairs on the CPU", why);
    return 0;
}

static void print_keys_timing(const tsk_gpu_genome_sets *engine, const char *which)
{
    tsk_gpu_genome_sets_times t;
    tsk_gpu_genome_sets_timing(engine, &t);
    char share[80] = "";
    if (t.members > 1)
        snprintf(share, sizeof share, " (its shares, of %d GPUs), the others' copied and waited for in %.3f s",
                 t.members, t.peers_s);
    fprintf(stderr,
            "tsketch: timing: keys' engine on the GPU%s: set up in %.3f s (its context, sizes and thresholds), "
            "buffers %.3f s, keys uploaded in %.3f s%s, indexed in %.3f s\n",
            which, t.setup_s, t.alloc_s, t.upload_s, share, t.index_s);
}

/* Lane l's timing lines (TSKETCH_TIMING), read before it closes; the shards' once, by lane 0. (The
 * lanes close one after another: closing 4 GPUs' side by side measured 0.46 s against 0.53 s, one
 * run each, so it stays simple.) */
static void lane_timing(const tsk_dist_engine *e, const dist_lane *l)
{
    if (!tsk_timing_wanted()) return;
    if (e->shards && l->engine == e->shards) {
        for (int s = 0; e->on_gpu && l == &e->lane[0] && s < tsk_dist_shards_count(e->shards); s++) {
            char which[64];
            snprintf(which, sizeof which, " (shard %d, from reference %lld)", s,
                     (long long)tsk_dist_shards_bound(e->shards, s));
            print_keys_timing(tsk_dist_shards_engine(e->shards, s), which);
        }
    } else if (l->engine && e->on_gpu && !e->genomes) {
        double passes_s, devices_s;
        tsk_gpu_dist_open_times(l->engine, &passes_s, &devices_s);
        fprintf(stderr, "tsketch: timing: vector engine opened: passes over the items %.3f s, then the GPU %.3f s\n",
                passes_s, devices_s);
    } else if (l->engine && e->on_gpu) {
        print_keys_timing(l->engine, "");
    }
    if (l->ani) {
        tsk_gpu_ani_times t;
        tsk_gpu_ani_timing(l->ani, &t);
        char share[96] = "";
        if (t.members > 1)
            snprintf(share, sizeof share, " (its shares, of %d GPUs; the others' copied in %.3f s)", t.members, t.others_s);
        fprintf(stderr,
                "tsketch: timing: ANI on the GPU: opened in %.3f s (buffers %.3f s, the sort sized %.3f s, tables %.3f s, "
                "the blocks' scratch %.3f s); anchors uploaded and sorted in %.3f s%s, all there by %.3f s beside the "
                "keys, %.3f s waited for; %lld pairs in %.3f s\n",
                t.open_s, t.open_parts_s[0], t.open_parts_s[1], t.open_parts_s[2], t.open_parts_s[3], t.upload_s, share,
                t.fill_s, t.waited_s, (long long)t.pairs, t.pairs_s);
    }
}

static void close_lane(const tsk_dist_engine *e, dist_lane *l)
{
    lane_timing(e, l);
    if (e->shards && l != &e->lane[0] && l->engine == e->shards) l->engine = NULL; /* lane 0's group */
    if (l->engine) e->calls->close(l->engine);
    tsk_gpu_ani_close(l->ani);
    l->engine = NULL;
    l->ani = NULL;
}

static void *lane_opener_main(void *arg)
{
    lane_opener *o = arg;
    o->rc = open_lane(o->e, o->lane, o->err, sizeof o->err);
    return NULL;
}

/* Whether n_query queries against every reference make pairs enough for GPUs past the first to pay
 * (ROWS/SETS_PAIRS_PER_LANE); CPU lanes (TSKETCH_DIST_LANES) always. */
static int more_lanes_pay(const tsk_dist_engine *e, int64_t n_query)
{
    if (!e->on_gpu) return 1;
    const int64_t n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    return (double)n_query * (double)n_ref >= (e->genomes ? SETS_PAIRS_PER_LANE : ROWS_PAIRS_PER_LANE);
}

/* Lanes from..MAX_LANES-1 that are still to open among the peers will not (their shares are the
 * others' to take). */
static void leave_peers(tsk_dist_engine *e, int from)
{
    for (int i = from; i < MAX_LANES; i++) {
        if (!e->in_peers[i]) continue;
        tsk_gpu_genome_sets_peers_leave(e->keys_peers, i);
        tsk_gpu_ani_peers_leave(e->ani_peers, i);
        e->in_peers[i] = 0;
    }
}

/* When the run's queries (the items' run_queries) make more lanes pay: lanes 1 .. n_lanes-1 start
 * opening now, each on a thread of its own, and a run that takes them waits for their opening
 * (open_lanes). */
static void start_lane_openers(tsk_dist_engine *e)
{
    const tsk_dist_items *it = &e->items;
    const int64_t n_query = it->run_queries < 0 ? 0
                            : it->run_queries > 0 ? it->run_queries
                            : e->genomes          ? it->keys_q->n_items
                                                  : it->rows_q->n_items;
    if (e->n_lanes < 2 || !more_lanes_pay(e, n_query)) return;
    if (e->on_gpu && e->genomes) {
        e->keys_peers = tsk_gpu_genome_sets_peers_new(it->keys_r, e->n_lanes);
        if (tsk_dist_items_ani(it)) e->ani_peers = tsk_gpu_ani_peers_new(it->ani_q, it->ani_r, e->n_lanes);
        for (int i = 0; i < e->n_lanes; i++) e->in_peers[i] = e->keys_peers || e->ani_peers;
    }
    for (int i = 1; i < e->n_lanes; i++) {
        lane_opener *o = &e->opener[i];
        o->e = e, o->lane = i, o->rc = -1;
        if (pthread_create(&o->thread, NULL, lane_opener_main, o) != 0) { /* open_lanes opens them itself, alone */
            leave_peers(e, i);
            return;
        }
        o->started = 1;
    }
}

/* Waits for lane i's opener, if it has one; its outcome: 0 opened, -1 failed (err set), 1 none. */
static int join_lane_opener(tsk_dist_engine *e, int i, char *err, size_t errlen)
{
    lane_opener *o = &e->opener[i];
    if (!o->started) return 1;
    pthread_join(o->thread, NULL);
    o->started = 0;
    if (o->rc) snprintf(err, errlen, "%s", o->err);
    return o->rc;
}

/* Device memory an ANI engine must leave beside a shard: the keys' batches (about 2 GB). */
#define SHARD_BATCH_BYTES (INT64_C(3) << 30)

/* Whether the references go to the lanes in shards (dist_shards.h) rather than whole to each:
 * TSKETCH_DIST_SHARDS=on (GPUs, or TSKETCH_DIST_LANES CPU lanes), or, on several GPUs, when a GPU
 * named has too little free memory for the keys' index of every reference in one part beside the
 * ANI engine's anchors (10^6 genomes: about 190 GB of both). */
static int shards_wanted(const tsk_dist_engine *e)
{
    const tsk_knob_shards knob = tsk_knobs_get()->dist_shards;
    if (!e->genomes || e->n_lanes < 2 || knob == TSK_KNOB_SHARDS_OFF) return 0;
    if (knob == TSK_KNOB_SHARDS_ON) return 1;
    if (!e->on_gpu) return 0;
    const tsk_dist_items *it = &e->items;
    const int64_t need = tsk_gpu_genome_sets_bytes(it->keys_r, 0, it->keys_r->n_items) +
                         (tsk_dist_items_ani(it) ? tsk_gpu_ani_bytes(it->ani_q, it->ani_r) : 0);
    for (int i = 0; i < e->n_lanes; i++) {
        const size_t free_b = tsk_gpu_free_bytes(e->devices[i]);
        if (free_b > 0 && (int64_t)free_b < need) return 1;
    }
    return 0;
}

/* The references in shards over the n_lanes devices (or CPU lanes): the group becomes the engine of
 * lanes 0 and 1. With ANI on GPUs, each of the two lanes opens an ANI engine of every genome on its
 * own device (sharing the uploads) where the anchors fit beside its shard; else the host refines.
 * 0, or -1 with the reason in err. */
static int open_shards(tsk_dist_engine *e, char *err, size_t errlen)
{
    const int threads = e->on_gpu ? e->threads : lane_threads(e->threads, e->n_lanes);
    if (e->on_gpu) tsk_gpu_host_threads(threads);
    e->shards = tsk_dist_shards_open(e->calls, &e->items, e->n_lanes, e->devices, threads, err, errlen);
    if (!e->shards) return -1;
    e->calls = &TSK_DIST_SHARDS;
    e->lane[0].engine = e->lane[1].engine = e->shards;
    const int n_shards = e->n_lanes;
    e->n_lanes = 2;
    if (tsk_timing_wanted())
        fprintf(stderr, "tsketch: timing: the references in %d shards on %s\n", n_shards, e->on_gpu ? "GPUs" : "CPU lanes");
    const tsk_dist_items *it = &e->items;
    if (!e->on_gpu || !tsk_dist_items_ani(it)) return 0;
    const int64_t need = tsk_gpu_ani_bytes(it->ani_q, it->ani_r) + SHARD_BATCH_BYTES;
    for (int i = 0; i < 2; i++)
        if ((int64_t)tsk_gpu_free_bytes(e->devices[i]) < need) {
            tsk_warn("the references are sharded over %d GPUs, and their anchors (%.1f GB) do not fit beside a "
                     "shard: ANI of the candidate pairs on the CPU",
                     n_shards, (double)need / 1e9);
            return 0;
        }
    e->ani_peers = tsk_gpu_ani_peers_new(it->ani_q, it->ani_r, 2);
    for (int i = 0; i < 2; i++) {
        char why[512] = "";
        e->lane[i].ani = tsk_gpu_ani_open(it->ani_q, it->ani_r, it->anchor_k, (int)it->window, e->devices[i],
                                          e->ani_peers, i, why, sizeof why);
        if (!e->lane[i].ani) tsk_warn("%s; ANI of the candidate pairs on the CPU", why);
    }
    return 0;
}

/* Lanes 1 .. n_lanes-1 that openers opened but no run took are closed too. */
static void close_lanes(tsk_dist_engine *e)
{
    char err[TSK_ERRLEN];
    for (int i = 1; i < MAX_LANES; i++) join_lane_opener(e, i, err, sizeof err);
    leave_peers(e, 0);
    for (int i = MAX_LANES - 1; i >= 0; i--) close_lane(e, &e->lane[i]); /* the shards' aliases before lane 0 */
    tsk_gpu_ani_peers_free(e->ani_peers); /* every member's engine is closed */
    tsk_gpu_genome_sets_peers_free(e->keys_peers);
    e->ani_peers = NULL, e->keys_peers = NULL, e->shards = NULL;
    e->n_open = 0;
}

/* A GPU whose memory does not hold the index of its references (all of them, or its shard's)
 * builds it in parts again for every block of queries, minutes where one index takes seconds: said
 * once, with the way out. */
static void index_parts_note(const tsk_dist_engine *e)
{
    const int n = e->shards ? tsk_dist_shards_count(e->shards) : 1;
    int64_t parts = 0, largest = 0;
    int device = -1;
    for (int s = 0; s < n && device < 0; s++) {
        tsk_gpu_genome_sets_layout(e->shards ? tsk_dist_shards_engine(e->shards, s) : e->lane[0].engine, &parts,
                                   &largest);
        if (parts > 1) device = e->devices[s];
    }
    if (device < 0) return;
    const int count = tsk_gpu_device_count(NULL, 0);
    char way[128];
    if (count > (e->shards ? n : e->n_lanes))
        snprintf(way, sizeof way, "--device cuda:all shards the references over the %d GPUs", count);
    else
        snprintf(way, sizeof way, "more GPUs, GPUs with more memory, or --device cpu avoid that");
    tsk_warn("the index of the reference genomes%s does not fit GPU %d's memory: it is built in %lld parts for "
             "every block of queries (slow); %s",
             e->shards ? " (a shard's)" : "", device, (long long)parts, way);
}

/* The open's line (TSKETCH_TIMING), placed in the run: from and to when, and when the warm start
 * (tsk_engine_dist_warm, while the inputs loaded) had the driver and the contexts of its GPUs. */
static void open_timing(const tsk_dist_engine *e, double t0)
{
    const double t1 = tsk_seconds();
    char warm[256] = "";
    double driver_at = 0, made_at[MAX_LANES];
    if (e->on_gpu) tsk_gpu_warm_times(&driver_at, made_at, MAX_LANES);
    if (driver_at > 0) { /* else no warm start ran: the engine's open made the contexts itself */
        int len = snprintf(warm, sizeof warm, "; warm start: the driver at %.3f s", tsk_since_start(driver_at));
        const int n_devices = e->shards ? tsk_dist_shards_count(e->shards) : e->n_lanes; /* shards: 2 lanes */
        for (int i = 0; i < n_devices && len < (int)sizeof warm - 40; i++) {
            const int d = e->devices[i];
            if (d >= 0 && d < MAX_LANES && made_at[d] > 0)
                len += snprintf(warm + len, sizeof warm - (size_t)len, ", GPU %d's context at %.3f s", d,
                                tsk_since_start(made_at[d]));
        }
    }
    fprintf(stderr, "tsketch: timing: engine opened in %.3f s (from %.3f to %.3f s after the start%s)\n", t1 - t0,
            tsk_since_start(t0), tsk_since_start(t1), warm);
}

/* The items' inputs_checked, once; TSK_EXIT_OK without one. */
static int inputs_checked(tsk_dist_engine *e)
{
    int (*check)(void *) = e->items.inputs_checked;
    e->items.inputs_checked = NULL;
    return check ? check(e->items.inputs_checked_ctx) : TSK_EXIT_OK;
}

int tsk_dist_engine_open(const tsk_dist_items *items, const tsk_sketch_job *job, tsk_dist_engine **out)
{
    const double t0 = tsk_seconds();
    char err[TSK_ERRLEN];
    tsk_dist_engine *e = calloc(1, sizeof *e);
    *out = NULL;
    if (!e) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    e->items = *items;
    for (int i = 0; i < MAX_LANES; i++) {
        pthread_mutex_init(&e->keys_mu[i], NULL);
        pthread_mutex_init(&e->ani_mu[i], NULL);
        e->lane[i].index = i;
    }
    e->genomes = items->keys_q != NULL;
    e->threads = job->threads > 0 ? job->threads : 1;
    e->required = job->device.kind == TSK_DEVICE_CUDA;
    if (tsk_engine_dist_on_gpu(&job->device)) {
        e->on_gpu = 1;
        e->calls = engine_kind(e->genomes, 1);
        e->n_lanes = tsk_engine_dist_devices(&job->device, MAX_LANES, e->devices, err, sizeof err);
        const int sharded = e->n_lanes >= 2 && shards_wanted(e);
        if (e->n_lanes >= 1 && !sharded) start_lane_openers(e);
        if (e->n_lanes < 1 || (sharded ? open_shards(e, err, sizeof err) : open_lane(e, 0, err, sizeof err))) {
            close_lanes(e); /* the lanes opened beside it: the run goes to the CPU, or ends */
            e->on_gpu = 0;
            if (e->required) {
                tsk_error("%s", err);
                tsk_dist_engine_close(e);
                return TSK_EXIT_NO_GPU;
            }
            tsk_warn("%s; %s on the CPU", err, e->genomes ? "comparing genome sketches" : "computing distances");
        }
    }
    if (!e->on_gpu) {
        const int checked = inputs_checked(e); /* its threads are the CPU engine's: first */
        if (checked != TSK_EXIT_OK) {
            tsk_dist_engine_close(e);
            return checked;
        }
        const long long lanes = tsk_knobs_get()->dist_lanes;
        e->calls = engine_kind(e->genomes, 0);
        e->n_lanes = lanes > 1 ? (int)lanes : 1;
        const int sharded = shards_wanted(e);
        if (!sharded) start_lane_openers(e);
        if (sharded ? open_shards(e, err, sizeof err) : open_lane(e, 0, err, sizeof err)) {
            tsk_error("%s", err);
            tsk_dist_engine_close(e);
            return TSK_EXIT_RUNTIME;
        }
    }
    e->n_open = e->shards ? 2 : 1;
    const int checked = inputs_checked(e);
    if (checked != TSK_EXIT_OK) {
        tsk_dist_engine_leave(e);
        return checked;
    }
    if (e->on_gpu && e->genomes) index_parts_note(e);
    *out = e;
    if (tsk_timing_wanted()) open_timing(e, t0);
    return TSK_EXIT_OK;
}

void tsk_dist_engine_close(tsk_dist_engine *e)
{
    if (!e) return;
    const double t0 = tsk_seconds();
    close_lanes(e);
    if (e->on_gpu) tsk_gpu_context_left();
    if (tsk_timing_wanted()) fprintf(stderr, "tsketch: timing: engine closed in %.3f s\n", tsk_seconds() - t0);
    for (int i = 0; i < MAX_LANES; i++) {
        pthread_mutex_destroy(&e->keys_mu[i]);
        pthread_mutex_destroy(&e->ani_mu[i]);
    }
    free(e);
}

void tsk_dist_engine_leave(tsk_dist_engine *e)
{
    if (!e || !e->on_gpu) {
        tsk_dist_engine_close(e);
        return;
    }
    char err[TSK_ERRLEN];
    for (int i = 1; i < MAX_LANES; i++) join_lane_opener(e, i, err, sizeof err); /* no thread inside an opening */
    for (int i = MAX_LANES - 1; i >= 0; i--) {
        lane_timing(e, &e->lane[i]);
        tsk_gpu_ani_settle(e->lane[i].ani);
    }
    tsk_gpu_context_left();
    if (tsk_timing_wanted()) fprintf(stderr, "tsketch: timing: engine left to the exit\n");
}

/* Opens lanes up to `want` (at most n_lanes) for a run. A GPU that fails to open is an error under
 * --device cuda (exit 5, naming it) and otherwise a warning: the run goes on on the lanes open. */
static int open_lanes(tsk_dist_engine *e, int want)
{
    char err[TSK_ERRLEN];
    if (want > e->n_lanes) want = e->n_lanes;
    while (e->n_open < want) {
        const int i = e->n_open;
        const int opened = join_lane_opener(e, i, err, sizeof err);
        if (opened < 0 || (opened == 1 && open_lane(e, i, err, sizeof err))) {
            if (e->on_gpu && e->required) {
                tsk_error("%s", err);
                return TSK_EXIT_NO_GPU;
            }
            if (!e->on_gpu) {
                tsk_error("%s", err);
                return TSK_EXIT_RUNTIME;
            }
            tsk_warn("%s; going on with %d GPU%s", err, e->n_open, e->n_open > 1 ? "s" : "");
            e->n_lanes = e->n_open;
            break;
        }
        e->n_open++;
    }
    return TSK_EXIT_OK;
}

/* An engine call on lane l failed: the engine's reason, and the exit code. */
static int engine_failed(const tsk_dist_engine *e, const dist_lane *l)
{
    tsk_error("%s failed: %s", e->calls->what, e->calls->error(l->engine));
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

/* ---- genome distances from shared counts ---- */

/* The line of pair (query q, reference r) sharing `shared` keys, if it is within max_dist; swap:
 * the line names r first (one set, each unordered pair once). */
static int genome_line(const tsk_dist_engine *e, int64_t q, int64_t r, int64_t shared, double max_dist, int swap,
                       tsk_genome_line *line)
{
    const tsk_dist_items *it = &e->items;
    int64_t total;
    const float d = tsk_genome_pair_distance(it->keys_q, q, it->keys_r, r, shared, it->mode, it->window, &total);
    if (!((double)d <= max_dist)) return 0;
    *line = (tsk_genome_line){swap ? r : q, swap ? q : r, shared, total, d, NAN, NAN};
    return 1;
}

/* ---- ANI: candidates from the keys, refined on the host ---- */

int tsk_dist_items_ani(const tsk_dist_items *it)
{
    /* sets that hold no anchors for these items (a source loaded without them) leave the keys' distance */
    return it->keys_q && it->ani_q && it->ani_r && it->mode == TSK_GENOME_SYMMETRIC &&
           it->ani_q->n_items == it->keys_q->n_items && it->ani_r->n_items == it->keys_r->n_items &&
           (it->ani_q->genome || it->ani_q->n_items == 0) && (it->ani_r->genome || it->ani_r->n_items == 0);
}

double tsk_dist_ani_chance_share(int64_t window) { return pow(ANI_CHANCE_IDENTITY, (double)window) * 0.5; }

double tsk_dist_ani_share_floor(double max_dist, int64_t window)
{
    const double key = tsk_genome_share_floor(max_dist, window);
    const double identity = 1.0 - max_dist - ANI_MARGIN;
    const double ani = identity > 0.0 ? pow(identity, (double)window) * 0.5 : 0.0;
    return ani < key ? ani : key;
}

int64_t tsk_dist_ani_candidates(int64_t k) { return 4 * k > k + 16 ? 4 * k : k + 16; }

/* The line of a pair up to its estimate: counts and the key distance, and the cases decided without
 * one (an item with itself, chance matches, a genome under 3 kb). Returns 1 when the pair needs
 * tsk_ani_pair (with ANI), else 0. */
static int genome_pair_start(const tsk_dist_items *it, int64_t q, int64_t r, int64_t shared, tsk_genome_line *line)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(it->keys_q, q, it->keys_r, r, &nq, &nr);
    const double share = tsk_genome_share(shared, nq, nr, it->mode);
    *line = (tsk_genome_line){q, r, shared, tsk_genome_total(shared, nq, nr, it->mode),
                              tsk_genome_key_distance(share, it->window), NAN, NAN};
    if (!tsk_dist_items_ani(it)) return 0;
    const tsk_ani_genome *a = &it->ani_q->genome[q], *b = &it->ani_r->genome[r];
    if (a->n_anchors <= 0 || b->n_anchors <= 0) return 0; /* under 3 kb: no estimate, the key distance */
    if (it->ani_q == it->ani_r && q == r) {
        line->dist = 0.0f, line->ani = 1.0f, line->af = 1.0f; /* an item with itself, exactly */
        return 0;
    }
    if (share < tsk_dist_ani_chance_share(it->window)) {
        line->dist = 1.0f, line->ani = 0.0f, line->af = 0.0f; /* chance matches: unrelated */
        return 0;
    }
    return 1;
}

/* The line of a pair from its estimate (either engine's), with the level near identity from its keys. */
static void genome_pair_end(const tsk_dist_items *it, const tsk_ani_result *estimate, tsk_genome_line *line)
{
    tsk_ani_result res = *estimate;
    int64_t nq, nr;
    tsk_genome_pair_sizes(it->keys_q, line->query, it->keys_r, line->ref, &nq, &nr);
    tsk_ani_level_from_keys(&res, line->shared, nq, nr, (int)it->window);
    if (res.defined) line->dist = tsk_ani_distance(&res), line->ani = (float)res.ani, line->af = (float)res.af;
}

int tsk_dist_genome_pair(const tsk_dist_items *it, tsk_ani_work *w, int64_t q, int64_t r, int64_t shared,
                         tsk_genome_line *line)
{
    if (!genome_pair_start(it, q, r, shared, line)) return 0;
    const tsk_ani_genome *a = &it->ani_q->genome[q], *b = &it->ani_r->genome[r];
    tsk_ani_result res; /* the work keeps its query's sorted anchors for the next pair of the same query */
    if (tsk_ani_work_set_window(w, (int)it->window) ||
        (tsk_ani_work_current_query(w) != a && tsk_ani_work_query(w, a)) ||
        tsk_ani_pair_query(w, b, it->anchor_k, &res))
        return -1;
    genome_pair_end(it, &res, line);
    return 0;
}

/* A line that needs an estimate: its pair as estimated (lo the query), where it is, and the pair's
 * sort key lo * n_hi + hi. */
typedef struct {
    int64_t lo, hi, line;
    uint64_t key;
} pair_line;

/* Sorts p[0..n) by key, equal keys kept in their order (they come in line order, so the result is
 * sorted by (lo, hi, line)): a stable radix sort, a byte a pass over the bits the largest key takes
 * (a top-k block's 4 x 10^5 lines of 10^4 genomes: 4 passes, against qsort's 19 calls of a
 * comparison a line). tmp: room for n more. */
static void sort_pair_lines(pair_line *p, pair_line *tmp, int64_t n)
{
    uint64_t top = 0;
    for (int64_t i = 0; i < n; i++)
        if (p[i].key > top) top = p[i].key;
    for (int shift = 0; shift < 64 && (shift == 0 || top >> shift); shift += 8) {
        int64_t count[256] = {0};
        for (int64_t i = 0; i < n; i++) count[(p[i].key >> shift) & 255]++;
        int64_t at = 0;
        for (int d = 0; d < 256; d++) {
            const int64_t c = count[d];
            count[d] = at, at += c;
        }
        for (int64_t i = 0; i < n; i++) tmp[count[(p[i].key >> shift) & 255]++] = p[i];
        memcpy(p, tmp, (size_t)n * sizeof *p);
    }
}

/* The estimates of the pairs u in [0, n) with want[u] (queries q[u], references r[u], sorted by
 * query) on up to `threads` threads, one scratch each. A thread
 * takes a run of at most REFINE_RUN pairs of one query, so that a query's anchors are sorted once
 * a run, not once a pair. 0, or -1 out of memory. */
#define REFINE_RUN 64
static int estimate_on_host(const tsk_dist_items *it, const int64_t *q, const int64_t *r, const uint8_t *want,
                            int64_t n, tsk_ani_result *res, int threads)
{
    int64_t *run = malloc((size_t)(n + 1) * sizeof *run), n_runs = 0, n_pairs = 0;
    if (!run) return -1;
    for (int64_t u = 0; u < n; u++) { /* runs [run[j], run[j + 1]) */
        if (!want[u]) continue;
        n_pairs++;
        if (!(n_runs > 0 && q[u] == q[run[n_runs - 1]] && u - run[n_runs - 1] < REFINE_RUN)) run[n_runs++] = u;
    }
    run[n_runs] = n;
    if (threads > n_runs) threads = (int)n_runs;
    if (threads < 1) threads = 1;
    const double t0 = tsk_seconds();
    int failed = 0;
    if (n_runs > 0) {
#pragma omp parallel num_threads(threads) reduction(| : failed)
        {
            tsk_ani_work *w = tsk_ani_work_new();
            failed |= !w || tsk_ani_work_set_window(w, (int)it->window);
#pragma omp for schedule(dynamic, 1)
            for (int64_t j = 0; j < n_runs; j++)
                for (int64_t u = run[j]; !failed && u < run[j + 1]; u++) {
                    if (!want[u]) continue;
                    const tsk_ani_genome *a = &it->ani_q->genome[q[u]], *b = &it->ani_r->genome[r[u]];
                    failed |= (tsk_ani_work_current_query(w) != a && tsk_ani_work_query(w, a)) ||
                              tsk_ani_pair_query(w, b, it->anchor_k, &res[u]);
                }
            tsk_ani_work_free(w);
        }
        if (tsk_timing_wanted())
            fprintf(stderr, "tsketch: timing: ANI of %lld pairs on %d threads in %.3f s\n", (long long)n_pairs,
                    threads, tsk_seconds() - t0);
    }
    free(run);
    return failed ? -1 : 0;
}

/* The distinct pairs' estimates res[0..n_pairs) (qi[u], ri[u]): on the lane's GPU ANI engine (NULL:
 * none), the pairs it leaves on up to `threads` host threads; the lane's ANI engine held by this
 * worker meanwhile, so that a lane's estimates use the GPU and the -p threads one at a time (the
 * lines' own work, before and after, runs beside the other worker's). 0, or -1 out of memory. */
static int estimate_pairs(const tsk_dist_items *it, const dist_lane *lane, const int64_t *qi, const int64_t *ri,
                          int64_t n_pairs, tsk_ani_result *res, uint8_t *left, int threads)
{
    lane_lock(lane ? lane->ani_mu : NULL);
    memset(left, 1, (size_t)n_pairs);
    tsk_gpu_ani *gpu = lane ? lane->ani : NULL;
    const int gpu_rc = gpu && n_pairs > 0 ? tsk_gpu_ani_pairs(gpu, qi, ri, n_pairs, res, left) : 0;
    if (gpu_rc == -1) tsk_warn("ANI on the GPU: %s; estimating on the CPU", tsk_gpu_ani_error(gpu)); /* -2: said */
    if (gpu_rc) memset(left, 1, (size_t)n_pairs); /* every pair left to the host */
    const int failed = estimate_on_host(it, qi, ri, left, n_pairs, res, threads);
    lane_unlock(lane ? lane->ani_mu : NULL);
    return failed;
}

/* Refines lines[0..n) in place (each line's query and reference as the items index them: one set
 * when lines are swapped), the distinct pairs estimated by estimate_pairs. Within one set a pair's
 * two lines, (q, r) and (r, q), share one estimate (tsk_ani_result_swap): top-k lists hold many
 * pairs both ways round. 0, or -1 out of memory or on a GPU error (said). */
static int refine_lines(const tsk_dist_items *it, const dist_lane *lane, tsk_genome_line *lines, int64_t n, int threads)
{
    if (n <= 0) return 0;
    const int one_set = it->ani_q == it->ani_r && it->keys_q == it->keys_r;
    pair_line *order = malloc((size_t)n * sizeof *order), *sort_tmp = malloc((size_t)n * sizeof *sort_tmp);
    uint8_t *needs = malloc((size_t)n);
    if (!order || !sort_tmp || !needs) {
        free(order), free(sort_tmp), free(needs);
        return -1;
    }
    /* the lines' starts on the threads (a top-k block has 4 x 10^5), then the pairs in line order */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t i = 0; i < n; i++) needs[i] = (uint8_t)genome_pair_start(it, lines[i].query, lines[i].ref, lines[i].shared, &lines[i]);
    int64_t m = 0;
    const uint64_t n_hi = (uint64_t)(one_set ? it->keys_q->n_items : it->keys_r->n_items);
    for (int64_t i = 0; i < n; i++) {
        if (!needs[i]) continue;
        const tsk_genome_line *l = &lines[i];
        const int swap = one_set && l->ref < l->query;
        const int64_t lo = swap ? l->ref : l->query, hi = swap ? l->query : l->ref;
        order[m++] = (pair_line){lo, hi, i, (uint64_t)lo * n_hi + (uint64_t)hi};
    }
    free(needs);
    sort_pair_lines(order, sort_tmp, m);
    free(sort_tmp);
    int64_t n_pairs = 0; /* the distinct pairs: order's groups of one (lo, hi) */
    int64_t *group = malloc((size_t)(m + 1) * sizeof *group), *qi = malloc((size_t)(m + 1) * sizeof *qi),
            *ri = malloc((size_t)(m + 1) * sizeof *ri);
    tsk_ani_result *res = malloc((size_t)(m + 1) * sizeof *res);
    uint8_t *left = malloc((size_t)(m + 1));
    int failed = !group || !qi || !ri || !res || !left;
    for (int64_t k = 0; !failed && k < m; k++) {
        if (k == 0 || order[k].lo != order[k - 1].lo || order[k].hi != order[k - 1].hi)
            qi[n_pairs] = order[k].lo, ri[n_pairs] = order[k].hi, n_pairs++;
        group[k] = n_pairs - 1;
    }
    if (!failed) failed = estimate_pairs(it, lane, qi, ri, n_pairs, res, left, threads);
    if (!failed) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int64_t k = 0; k < m; k++) { /* each writes its own line */
            tsk_genome_line *l = &lines[order[k].line];
            const tsk_ani_result *e = &res[group[k]];
            tsk_ani_result swapped;
            if (l->query != order[k].lo) {
                tsk_ani_result_swap(&it->ani_q->genome[order[k].lo], &it->ani_r->genome[order[k].hi], e, &swapped);
                e = &swapped;
            }
            genome_pair_end(it, e, l);
        }
    }
    free(order), free(group), free(qi), free(ri), free(res), free(left);
    return failed ? -1 : 0;
}

/* Keeps the lines within max_dist, in order; returns their number. */
static int64_t keep_within(tsk_genome_line *lines, int64_t n, double max_dist)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if ((double)lines[i].dist <= max_dist) lines[m++] = lines[i];
    return m;
}

/* Sorts l[0..n) by distance, stably (tmp: n lines of room): ties keep the engine's key order. */
static void sort_by_dist(tsk_genome_line *l, int64_t n, tsk_genome_line *tmp)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            const int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = l[j].dist < l[i].dist ? l[j++] : l[i++];
            while (i < mid) tmp[o++] = l[i++];
            while (j < hi) tmp[o++] = l[j++];
        }
        memcpy(l, tmp, (size_t)n * sizeof *l);
    }
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

/* ---- progress on a terminal ---- */

static long double pairs_before(int64_t q, int64_t n, int with_self);

#define PROGRESS_INTERVAL 0.25 /* seconds between updates of the line */

/* A run's progress line: the share of its pairs done, counted by query row. */
typedef struct {
    tsk_progress line;
    int64_t q_begin, n_query, n_ref;
    int one_set, with_self;
    long double total;
} pair_progress;

/* Pairs of the selection up to query row q. */
static long double progress_pairs(const pair_progress *p, int64_t q)
{
    if (p->one_set)
        return pairs_before(q, p->n_query, p->with_self) - pairs_before(p->q_begin, p->n_query, p->with_self);
    return (long double)(q - p->q_begin) * (long double)p->n_ref;
}

static void progress_start(pair_progress *p, const tsk_dist_engine *e, const tsk_dist_select *s,
                           const char *output_name)
{
    memset(p, 0, sizeof *p);
    /* distances written to the same terminal would be torn by the line: none then */
    tsk_progress_start(&p->line, output_name || !isatty(STDOUT_FILENO), PROGRESS_INTERVAL);
    if (!p->line.on) return;
    p->q_begin = s->q_begin;
    p->n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    p->n_query = e->genomes ? e->items.keys_q->n_items : e->items.rows_q->n_items;
    p->one_set = s->one_set;
    p->with_self = s->with_self;
    p->total = progress_pairs(p, s->q_end);
}

/* The queries before q are done. */
static void progress_update(pair_progress *p, int64_t q)
{
    if (!p->line.on || !(p->total > 0) || q <= p->q_begin) return;
    const long double done = progress_pairs(p, q);
    tsk_progress_show(&p->line, 0, "tsketch: %.3g of %.3g pairs (%.0f %%) ", (double)done, (double)p->total,
                      (double)(100 * done / p->total));
}

/* ---- the block scheduler ---- */

/* One run: the engine, the selection and where its results go. */
typedef struct {
    tsk_dist_engine *e;
    const tsk_dist_select *s;
    const tsk_dist_sink *sink;
    const char *output;
    void *pair_buf; /* dense selections' pairs, gathered on the calling thread for the sink */
    pair_progress *progress;
    double *keys_s, *refine_s; /* TSKETCH_TIMING: each lane's seconds in its engine calls and in ANI */
    double *sink_s;            /* TSKETCH_TIMING: the calling thread's seconds handing results to the sink */
    int *per_lane;             /* TSKETCH_TIMING: the workers a lane had (workers_per_lane) */
} dist_job;

/* A genome block's seconds into worker l's timing slots (each worker writes its own): the keys'
 * engine from t0 to t1, the refinement from t1 to now, less what the worker waited for the lane's
 * engines (lock_waited_s read as waited0 at t0, waited1 at t1). */
static void add_genome_times(const dist_job *r, const dist_lane *l, double t0, double waited0, double t1,
                             double waited1)
{
    r->keys_s[l->index] += t1 - t0 - (waited1 - waited0);
    r->refine_s[l->index] += tsk_seconds() - t1 - (lock_waited_s - waited1);
}

/* A selection cut into blocks of `block` queries from s->q_begin. compute fills a slot (a struct of
 * slot_size bytes, zeroed at first, reused block after block) with the results of queries
 * [q0, q0+nq) on lane l, on whichever thread runs that lane; deliver hands a slot's results to the
 * sink, on the calling thread, block after block in query order; free_slot frees what compute
 * allocated. compute and deliver return TSK_EXIT_OK, or an exit code with the message printed. */
typedef struct {
    int64_t n_blocks, block;
    size_t slot_size;
    int (*compute)(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot);
    int (*deliver)(const dist_job *r, int64_t q0, int64_t nq, void *slot);
    void (*free_slot)(void *slot);
} block_plan;

static void block_queries(const dist_job *r, const block_plan *p, int64_t b, int64_t *q0, int64_t *nq)
{
    *q0 = r->s->q_begin + b * p->block;
    *nq = r->s->q_end - *q0 < p->block ? r->s->q_end - *q0 : p->block;
}

/* The plan on lanes: block b is a job of an ordered pipeline (ordered_pipeline.h), computed by
 * the first lane thread free into slot b % (2 lanes), delivered by the calling thread in order. */
typedef struct {
    const dist_job *r;
    const block_plan *plan;
    char *slots;
    dist_lane workers[MAX_WORKERS]; /* worker w computes on lane w % lanes (dist_lane) */
} lanes_run;

static int lane_compute(void *ctx, int worker, int64_t b, int slot)
{
    const lanes_run *lr = ctx;
    int64_t q0, nq;
    block_queries(lr->r, lr->plan, b, &q0, &nq);
    return lr->plan->compute(lr->r, &lr->workers[worker], q0, nq, lr->slots + (size_t)slot * lr->plan->slot_size);
}

static int lane_deliver(void *ctx, int64_t b, int slot)
{
    const lanes_run *lr = ctx;
    int64_t q0, nq;
    block_queries(lr->r, lr->plan, b, &q0, &nq);
    return lr->plan->deliver(lr->r, q0, nq, lr->slots + (size_t)slot * lr->plan->slot_size);
}

/* The plan on lanes 0 .. n_lanes-1, each on a thread of its own, or on two (per_lane 2) that take
 * its engines in turn. */
static int run_threaded(const dist_job *r, const block_plan *p, int n_lanes, int per_lane)
{
    const int n_workers = n_lanes * per_lane, n_slots = 2 * n_workers;
    lanes_run lr = {r, p, calloc((size_t)n_slots, p->slot_size), {{0}}};
    if (!lr.slots) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    for (int w = 0; w < n_workers; w++) {
        const int lane = w % n_lanes;
        lr.workers[w] = r->e->lane[lane];
        lr.workers[w].index = w;
        if (per_lane > 1) lr.workers[w].keys_mu = &r->e->keys_mu[lane], lr.workers[w].ani_mu = &r->e->ani_mu[lane];
    }
    const tsk_ordered_steps steps = {lane_compute, lane_deliver, &lr};
    int rc = tsk_ordered_run(n_workers, n_slots, p->n_blocks, &steps);
    if (rc < 0) {
        tsk_error("cannot start a thread for the distance engine: %s", strerror(errno));
        rc = TSK_EXIT_RUNTIME;
    }
    for (int i = 0; i < n_slots; i++) p->free_slot(lr.slots + (size_t)i * p->slot_size);
    free(lr.slots);
    return rc;
}

/* The plan on lane 0 of the calling thread: compute a block, deliver it, the next. */
static int run_inline(const dist_job *r, const block_plan *p)
{
    void *slot = calloc(1, p->slot_size);
    if (!slot) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    int rc = TSK_EXIT_OK;
    for (int64_t b = 0; b < p->n_blocks && rc == TSK_EXIT_OK; b++) {
        int64_t q0, nq;
        block_queries(r, p, b, &q0, &nq);
        rc = p->compute(r, &r->e->lane[0], q0, nq, slot);
        if (rc == TSK_EXIT_OK) rc = p->deliver(r, q0, nq, slot);
    }
    p->free_slot(slot);
    free(slot);
    return rc;
}

/* Lanes a run uses: every device when its queries make more lanes pay (more_lanes_pay), one per
 * block at most; CPU lanes (TSKETCH_DIST_LANES) always. */
static int lanes_for(const dist_job *r, const block_plan *p)
{
    const tsk_dist_engine *e = r->e;
    int want = e->shards || more_lanes_pay(e, r->s->q_end - r->s->q_begin) ? e->n_lanes : 1;
    if (want > p->n_blocks) want = p->n_blocks > 0 ? (int)p->n_blocks : 1;
    return want;
}

/* Workers per lane: two where a GPU's genome lane refines to ANI and has blocks enough, so that
 * its keys' engine takes the next block while the ANI engine (and the host's share) refines this
 * one; each engine is then held by one worker at a time. The shards' group (two lanes already)
 * and CPU lanes keep one (TSKETCH_DIST_PIPELINE=on gives CPU lanes two as well, for the tests). */
static int workers_per_lane(const tsk_dist_engine *e, const block_plan *p, int lanes)
{
    const tsk_knob_pipeline knob = tsk_knobs_get()->dist_pipeline;
    const int fits = e->genomes && !e->shards && tsk_dist_items_ani(&e->items) && p->n_blocks > lanes;
    return fits && (knob == TSK_KNOB_PIPELINE_ON || (knob == TSK_KNOB_PIPELINE_AUTO && e->on_gpu)) ? 2 : 1;
}

static int run_blocks(const dist_job *r, block_plan *p)
{
    const long long forced = tsk_knobs_get()->dist_block;
    if (forced > 0) p->block = forced;
    const int64_t n_query = r->s->q_end - r->s->q_begin;
    p->n_blocks = n_query > 0 ? (n_query + p->block - 1) / p->block : 0;
    if (p->n_blocks == 0) return TSK_EXIT_OK;
    int lanes = lanes_for(r, p);
    const int rc = open_lanes(r->e, lanes);
    if (rc != TSK_EXIT_OK) return rc;
    if (lanes > r->e->n_open) lanes = r->e->n_open;
    /* a GPU lane computes on its own thread even alone: the next block runs while this one is written */
    const int per_lane = workers_per_lane(r->e, p, lanes);
    *r->per_lane = per_lane;
    return r->e->on_gpu || lanes > 1 || per_lane > 1 ? run_threaded(r, p, lanes, per_lane) : run_inline(r, p);
}

/* ---- the selections ---- */

/* A slot of pairs or lines (tsk_pair, tsk_genome_pair, tsk_genome_line), grown as blocks need. */
typedef struct {
    void *pairs, *lines;
    int64_t n, n_lines, cap, line_cap;
} pair_slot;

static void free_pair_slot(void *slot)
{
    pair_slot *ps = slot;
    free(ps->pairs);
    free(ps->lines);
}

/* Top-k of vector rows: the engine's pairs as they come (a line names the neighbour first). */
static int rows_topk_compute(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot)
{
    pair_slot *ps = slot;
    const int k = (int)r->s->top_k;
    if (grow(&ps->pairs, sizeof(tsk_pair), nq * k, &ps->cap)) return out_of_memory(r->e);
    const double t0 = tsk_seconds();
    if (r->e->calls->topk_rows(l->engine, q0, nq, k, topk_filter(r->s), ps->pairs)) return engine_failed(r->e, l);
    r->keys_s[l->index] += tsk_seconds() - t0;
    return TSK_EXIT_OK;
}

static int rows_topk_deliver(const dist_job *r, int64_t q0, int64_t nq, void *slot)
{
    const pair_slot *ps = slot;
    progress_update(r->progress, q0);
    const double t0 = tsk_seconds();
    const int rc = r->sink->pairs(r->sink->ctx, ps->pairs, nq * r->s->top_k, 0, r->s->max_dist);
    *r->sink_s += tsk_seconds() - t0;
    return rc ? tsk_dist_write_failed(r->output) : TSK_EXIT_OK;
}

/* The engine's candidates a top-k of k asks for: k, or with ANI tsk_dist_ani_candidates(k) (no
 * more than the references, unless k is). */
static int64_t topk_candidates(const tsk_dist_engine *e, int64_t k)
{
    if (!tsk_dist_items_ani(&e->items)) return k;
    const int64_t c = tsk_dist_ani_candidates(k), n_ref = e->items.keys_r->n_items;
    return c < n_ref ? c : n_ref > k ? n_ref : k;
}

/* The lines of the engine's pairs[0..n) (ref < 0: none) within max_dist into lines, in order, on
 * the -p threads (a top-k block has 4 x 10^5 candidates): each line where its pair is, then the
 * kept ones moved up. Returns their number. */
static int64_t candidate_lines(const dist_job *r, const tsk_genome_pair *pairs, int64_t n, double max_dist, int swap,
                               tsk_genome_line *lines)
{
#pragma omp parallel for num_threads(r->s->threads) schedule(static)
    for (int64_t i = 0; i < n; i++)
        if (!(pairs[i].ref >= 0 && genome_line(r->e, pairs[i].query, pairs[i].ref, pairs[i].shared, max_dist, swap, &lines[i])))
            lines[i].query = -1;
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++)
        if (lines[i].query >= 0) lines[kept++] = lines[i];
    return kept;
}

/* Top-k with ANI: each query's candidates (lines[0..n), query after query, in key order) refined,
 * ranked by distance (ties: key order) and cut to k within max_dist. Unrelated references (1) are
 * no neighbours, as references that share no key are none. Returns the lines kept, or -1 out of
 * memory. */
static int64_t ani_topk(const dist_job *r, const dist_lane *l, tsk_genome_line *lines, int64_t n, int64_t k)
{
    if (refine_lines(&r->e->items, l, lines, n, r->s->threads)) return -1;
    tsk_genome_line *tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    int64_t *from = malloc((size_t)(n + 1) * sizeof *from), n_queries = 0; /* each query's lines [from[g], from[g + 1]) */
    if (!tmp || !from) {
        free(tmp), free(from);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || lines[i].query != lines[i - 1].query) from[n_queries++] = i;
    from[n_queries] = n;
    /* the queries' lines sorted on the threads: disjoint ranges, and of tmp too */
#pragma omp parallel for num_threads(r->s->threads) schedule(dynamic, 64)
    for (int64_t g = 0; g < n_queries; g++) sort_by_dist(lines + from[g], from[g + 1] - from[g], tmp + from[g]);
    int64_t kept = 0;
    for (int64_t g = 0; g < n_queries; g++)
        for (int64_t t = from[g]; t < from[g + 1] && t - from[g] < k; t++)
            if ((double)lines[t].dist <= r->s->max_dist && lines[t].dist < 1.0f) lines[kept++] = lines[t];
    free(tmp), free(from);
    return kept;
}

/* Top-k of genome sketches: lines "neighbour TAB genome asked about", within max_dist. */
static int sets_topk_compute(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot)
{
    pair_slot *ps = slot;
    const int ani = tsk_dist_items_ani(&r->e->items);
    const int64_t kk = topk_candidates(r->e, r->s->top_k);
    if (grow(&ps->pairs, sizeof(tsk_genome_pair), nq * kk, &ps->cap) ||
        grow(&ps->lines, sizeof(tsk_genome_line), nq * kk, &ps->line_cap))
        return out_of_memory(r->e);
    tsk_genome_pair *pairs = ps->pairs;
    tsk_genome_line *lines = ps->lines;
    const double waited0 = lock_waited_s, t0 = tsk_seconds();
    lane_lock(l->keys_mu);
    const int failed = r->e->calls->topk_sets(l->engine, q0, nq, (int)kk, r->e->items.mode, topk_filter(r->s), pairs);
    lane_unlock(l->keys_mu);
    if (failed) return engine_failed(r->e, l);
    const double t1 = tsk_seconds(), waited1 = lock_waited_s;
    ps->n_lines = candidate_lines(r, pairs, nq * kk, ani ? INFINITY : r->s->max_dist, 0, lines);
    if (ani && (ps->n_lines = ani_topk(r, l, lines, ps->n_lines, r->s->top_k)) < 0) return out_of_memory(r->e);
    add_genome_times(r, l, t0, waited0, t1, waited1);
    return TSK_EXIT_OK;
}

static int lines_deliver(const dist_job *r, int64_t q0, int64_t nq, void *slot)
{
    (void)nq;
    const pair_slot *ps = slot;
    progress_update(r->progress, q0);
    return r->sink->lines(r->sink->ctx, ps->lines, ps->n_lines) ? tsk_dist_write_failed(r->output) : TSK_EXIT_OK;
}

/* Pairs within max_dist of vector rows, selected by the engine. */
static int rows_within_compute(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot)
{
    pair_slot *ps = slot;
    ps->n = 0;
    tsk_pair *pairs = ps->pairs;
    const int failed = r->e->calls->within_rows(l->engine, q0, nq, (float)r->s->max_dist, pair_filter(r->s), &pairs,
                                                 &ps->n, &ps->cap);
    ps->pairs = pairs;
    return failed ? engine_failed(r->e, l) : TSK_EXIT_OK;
}

static int rows_within_deliver(const dist_job *r, int64_t q0, int64_t nq, void *slot)
{
    (void)nq;
    const pair_slot *ps = slot;
    progress_update(r->progress, q0);
    return r->sink->pairs(r->sink->ctx, ps->pairs, ps->n, r->s->symmetric, INFINITY) ? tsk_dist_write_failed(r->output)
                                                                                     : TSK_EXIT_OK;
}

/* Pairs within max_dist of genome sketches: the engine selects by the share that max_dist needs
 * (with ANI: the looser candidate bound), the exact distance decides. */
static int sets_within_compute(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot)
{
    pair_slot *ps = slot;
    const int ani = tsk_dist_items_ani(&r->e->items);
    const double floor = ani ? tsk_dist_ani_share_floor(r->s->max_dist, r->e->items.window)
                             : tsk_genome_share_floor(r->s->max_dist, r->e->items.window);
    tsk_genome_pair *pairs = ps->pairs;
    ps->n = 0;
    const double waited0 = lock_waited_s, t0 = tsk_seconds();
    lane_lock(l->keys_mu);
    const int failed = r->e->calls->within_sets(l->engine, q0, nq, floor, r->e->items.mode, pair_filter(r->s), &pairs,
                                                 &ps->n, &ps->cap);
    lane_unlock(l->keys_mu);
    const double t1 = tsk_seconds(), waited1 = lock_waited_s;
    ps->pairs = pairs;
    if (failed) return engine_failed(r->e, l);
    if (grow(&ps->lines, sizeof(tsk_genome_line), ps->n, &ps->line_cap)) return out_of_memory(r->e);
    tsk_genome_line *lines = ps->lines;
    ps->n_lines = candidate_lines(r, pairs, ps->n, ani ? INFINITY : r->s->max_dist, r->s->symmetric, lines);
    if (ani) {
        if (refine_lines(&r->e->items, l, lines, ps->n_lines, r->s->threads)) return out_of_memory(r->e);
        ps->n_lines = keep_within(lines, ps->n_lines, r->s->max_dist);
    }
    add_genome_times(r, l, t0, waited0, t1, waited1);
    return TSK_EXIT_OK;
}

/* A dense block's results: the distances of query rows q0 .. q0+nq-1 for references [r0, r1)
 * (vector rows: dist; genome sketches: shared counts, dist filled here when rows are wanted). */
typedef struct {
    int64_t q0, nq, r0, r1, ld;
    float *dist;
    uint32_t *shared;
    tsk_genome_line *lines;  /* ANI pairs (not dense rows): the block's lines, refined, within max_dist */
    int64_t n_lines, line_cap;
} dense_block;

/* n pairs gathered in buf (tsk_genome_line or tsk_pair, by e's kind) to the sink. */
static int flush_pairs(const tsk_dist_engine *e, const tsk_dist_select *s, const void *buf, int64_t n,
                       const tsk_dist_sink *sink)
{
    return e->genomes ? sink->lines(sink->ctx, buf, n) : sink->pairs(sink->ctx, buf, n, s->symmetric, INFINITY);
}

/* The block's admitted pairs within max_dist, in order, to the sink in chunks of PAIR_CHUNK
 * gathered in buf. Returns 0, or -1 when a write failed. */
static int dense_pairs(const tsk_dist_engine *e, const tsk_dist_select *s, const dense_block *b, void *buf,
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

/* A dense slot: its block and the block size its buffers hold. */
typedef struct {
    dense_block b;
    int64_t rows_held;
} dense_slot;

static void free_dense_slot(void *slot)
{
    dense_slot *ds = slot;
    free(ds->b.dist);
    free(ds->b.shared);
    free(ds->b.lines);
}

/* Dense rows with ANI: every cell the sink reads refined as a line (refine_lines: on the lane's GPU
 * when it has one, else on the threads), the others at the key distance. 0, or -1 out of memory. */
static int dense_ani_rows(const tsk_dist_engine *e, const dist_lane *l, const tsk_dist_select *s, dense_block *b)
{
    if (grow((void **)&b->lines, sizeof *b->lines, b->nq * (b->r1 - b->r0), &b->line_cap)) return -1;
    int64_t n = 0;
    for (int64_t i = 0; i < b->nq; i++) {
        const int64_t q = b->q0 + i, read = s->lower_only && q < b->r1 ? q : b->r1; /* r < q, as read */
        for (int64_t c = b->r0; c < b->r1; c++) {
            const uint32_t shared = b->shared[i * b->ld + c];
            if (c < read) b->lines[n++] = (tsk_genome_line){.query = q, .ref = c, .shared = shared};
            else /* not read: the key distance is enough */
                b->dist[i * b->ld + c] = tsk_genome_pair_distance(e->items.keys_q, q, e->items.keys_r, c, shared,
                                                                  e->items.mode, e->items.window, NULL);
        }
    }
    if (refine_lines(&e->items, l, b->lines, n, s->threads)) return -1;
    for (int64_t k = 0; k < n; k++) b->dist[(b->lines[k].query - b->q0) * b->ld + b->lines[k].ref] = b->lines[k].dist;
    return 0;
}

/* Pairs (lines) of a dense block with ANI: the admitted pairs refined, those within max_dist kept
 * in order in b->lines. 0, or -1 out of memory. */
static int dense_ani_lines(const tsk_dist_engine *e, const dist_lane *l, const tsk_dist_select *s, dense_block *b)
{
    const tsk_pair_filter f = pair_filter(s);
    b->n_lines = 0;
    if (grow((void **)&b->lines, sizeof *b->lines, b->nq * (b->r1 - b->r0), &b->line_cap)) return -1;
    for (int64_t i = 0; i < b->nq; i++)
        for (int64_t r = b->r0; r < b->r1; r++)
            if (tsk_pair_admitted(f, b->q0 + i, r))
                b->n_lines += genome_line(e, b->q0 + i, r, b->shared[i * b->ld + r], INFINITY, s->symmetric,
                                          &b->lines[b->n_lines]);
    if (refine_lines(&e->items, l, b->lines, b->n_lines, s->threads)) return -1;
    b->n_lines = keep_within(b->lines, b->n_lines, s->max_dist);
    return 0;
}

/* Computes block [q0, q0+nq): only the columns the sink reads (r >= q0 for each unordered pair
 * once, r < q0+nq for a lower triangle). */
static int dense_compute(const dist_job *r, const dist_lane *l, int64_t q0, int64_t nq, void *slot)
{
    const tsk_dist_engine *e = r->e;
    const tsk_dist_select *s = r->s;
    dense_slot *ds = slot;
    dense_block *b = &ds->b;
    const int64_t n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    b->ld = n_ref > 0 ? n_ref : 1;
    if (ds->rows_held < nq) {
        const size_t cells = (size_t)nq * (size_t)b->ld;
        if (!e->genomes || s->dense) {
            free(b->dist);
            if (!(b->dist = malloc(cells * sizeof *b->dist))) return out_of_memory(e);
        }
        if (e->genomes) {
            free(b->shared);
            if (!(b->shared = malloc(cells * sizeof *b->shared))) return out_of_memory(e);
        }
        ds->rows_held = nq;
    }
    b->q0 = q0, b->nq = nq;
    b->r0 = !s->dense && s->symmetric ? q0 : 0;
    b->r1 = s->dense && s->lower_only ? q0 + nq : n_ref;
    if (b->r1 <= b->r0) return TSK_EXIT_OK;
    if (!e->genomes)
        return e->calls->block_rows(l->engine, q0, nq, b->r0, b->r1 - b->r0, b->dist + b->r0, b->ld) ? engine_failed(e, l)
                                                                                                   : TSK_EXIT_OK;
    lane_lock(l->keys_mu);
    const int failed = e->calls->block_sets(l->engine, q0, nq, b->r0, b->r1 - b->r0, b->shared + b->r0, b->ld);
    lane_unlock(l->keys_mu);
    if (failed) return engine_failed(e, l);
    if (s->dense && tsk_dist_items_ani(&e->items)) return dense_ani_rows(e, l, s, b) ? out_of_memory(e) : TSK_EXIT_OK;
    if (s->dense)
        for (int64_t i = 0; i < nq; i++)
            for (int64_t c = b->r0; c < b->r1; c++)
                b->dist[i * b->ld + c] = tsk_genome_pair_distance(e->items.keys_q, q0 + i, e->items.keys_r, c,
                                                                  b->shared[i * b->ld + c], e->items.mode,
                                                                  e->items.window, NULL);
    if (!s->dense && tsk_dist_items_ani(&e->items)) return dense_ani_lines(e, l, s, b) ? out_of_memory(e) : TSK_EXIT_OK;
    return TSK_EXIT_OK;
}

static int dense_deliver(const dist_job *r, int64_t q0, int64_t nq, void *slot)
{
    const dense_slot *ds = slot;
    progress_update(r->progress, q0);
    const int failed = r->s->dense ? r->sink->rows(r->sink->ctx, q0, nq, ds->b.dist, ds->b.ld)
                       : tsk_dist_items_ani(&r->e->items) ? r->sink->lines(r->sink->ctx, ds->b.lines, ds->b.n_lines)
                                                          : dense_pairs(r->e, r->s, &ds->b, r->pair_buf, r->sink);
    return failed ? tsk_dist_write_failed(r->output) : TSK_EXIT_OK;
}

/* Every pair: dense blocks of query rows, as rows (s->dense) or as pairs / lines. */
static int run_dense(dist_job *r)
{
    const tsk_dist_engine *e = r->e;
    const int64_t n_ref = e->genomes ? e->items.keys_r->n_items : e->items.rows_r->n_items;
    const int64_t n_query = e->genomes ? e->items.keys_q->n_items : e->items.rows_q->n_items;
    const int64_t ld = n_ref > 0 ? n_ref : 1;
    int64_t block = DENSE_BLOCK_BYTES / (4 * ld);
    if (block < 1) block = 1;
    if (r->progress->line.on && block > 64 && block > n_query / 100) /* a block per percent or so, for the line */
        block = n_query / 100 > 64 ? n_query / 100 : 64;
    if (e->genomes && tsk_dist_items_ani(&e->items) && block > ANI_PAIR_CELLS / ld) /* each cell a line */
        block = ANI_PAIR_CELLS / ld > 0 ? ANI_PAIR_CELLS / ld : 1;
    if (block > n_query) block = n_query > 0 ? n_query : 1;
    const size_t pair_size = e->genomes ? sizeof(tsk_genome_line) : sizeof(tsk_pair);
    if (!r->s->dense && !(r->pair_buf = malloc((size_t)PAIR_CHUNK * pair_size))) return out_of_memory(e);
    block_plan p = {.block = block, .slot_size = sizeof(dense_slot), .compute = dense_compute,
                    .deliver = dense_deliver, .free_slot = free_dense_slot};
    const int rc = run_blocks(r, &p);
    free(r->pair_buf);
    return rc;
}

static int run_selection(dist_job *r)
{
    const tsk_dist_engine *e = r->e;
    const tsk_dist_select *s = r->s;
    block_plan p = {.slot_size = sizeof(pair_slot), .free_slot = free_pair_slot};
    if (s->top_k > 0 && e->genomes) {
        /* queries per block: GENOME_PAIR_BLOCK, fewer for a large k (--top-k goes up to 2^20) */
        const int64_t block = (int64_t)DENSE_BLOCK_BYTES / (topk_candidates(e, s->top_k) * (int64_t)sizeof(tsk_genome_pair));
        p.block = block < 1 ? 1 : block > GENOME_PAIR_BLOCK ? GENOME_PAIR_BLOCK : block;
        p.compute = sets_topk_compute, p.deliver = lines_deliver;
    } else if (s->top_k > 0) {
        p.block = ROWS_TOPK_BLOCK;
        p.compute = rows_topk_compute, p.deliver = rows_topk_deliver;
    } else if (!s->dense && isfinite(s->max_dist) && e->genomes) {
        p.block = GENOME_PAIR_BLOCK;
        p.compute = sets_within_compute, p.deliver = lines_deliver;
    } else if (!s->dense && isfinite(s->max_dist)) {
        /* about 256 MB of candidate pairs, enough queries to keep every thread busy */
        const int64_t n_ref = e->items.rows_r->n_items;
        int64_t block = (int64_t)(256 << 20) / (16 * (n_ref > 0 ? n_ref : 1));
        if (block > 4096) block = 4096;
        if (block < 192 * (int64_t)s->threads) block = 192 * (int64_t)s->threads;
        p.block = block;
        p.compute = rows_within_compute, p.deliver = rows_within_deliver;
    } else {
        return run_dense(r);
    }
    return run_blocks(r, &p);
}

int tsk_dist_run(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output_name)
{
    pair_progress progress;
    progress_start(&progress, e, s, output_name);
    double keys_s[MAX_WORKERS] = {0}, refine_s[MAX_WORKERS] = {0}, sink_s = 0;
    int per_lane = 1;
    dist_job r = {e, s, sink, output_name, NULL, &progress, keys_s, refine_s, &sink_s, &per_lane};
    const double t0 = tsk_seconds();
    const int rc = run_selection(&r);
    tsk_progress_end(&progress.line, 0);
    if (tsk_timing_wanted()) {
        double keys = 0, refine = 0;
        for (int i = 0; i < MAX_WORKERS; i++) keys += keys_s[i], refine += refine_s[i];
        fprintf(stderr, "tsketch: timing: the pairs in %.3f s on %d lane%s%s", tsk_seconds() - t0, e->n_open,
                e->n_open == 1 ? "" : "s", per_lane > 1 ? ", 2 workers each" : "");
        if (e->genomes) /* top-k and -d: the keys' engine, then the refinement (dense outputs: neither) */
            fprintf(stderr, " (summed over lanes: keys' engine %.3f s, candidates refined to ANI %.3f s)", keys, refine);
        else if (keys > 0) /* vector top-k */
            fprintf(stderr, " (summed over lanes: engine %.3f s; lines written in %.3f s)", keys, sink_s);
        fputc('\n', stderr);
    }
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
