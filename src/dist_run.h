/* dist_run.h: the one distance runner behind `dist`, `triangle`, `tree` and `plot` (and any command
 * that needs pairs of sketches: nearest neighbours, pairs within a distance, a whole matrix).
 *
 * A caller loads its items (sketch_source.h or genome_source.h), opens an engine (the one CPU/GPU
 * choice for every command), and runs one selection over a range of query items; results go to a
 * sink a block of queries at a time, so memory stays O(items + block) whatever the output. The
 * runner knows no file format and no command line: the dist commands' sink is io/dist_out.h.
 *
 * Every pair of one set of genome sketches within 0.05, streamed (what a clustering needs):
 *     tsk_dist_items it = {.keys_q = &g.set, .keys_r = &g.set, .window = params.window};
 *     tsk_dist_select s = {.q_end = g.set.n_items, .one_set = 1, .symmetric = 1, .max_dist = 0.05};
 *     tsk_dist_sink sink = {.lines = add_edges, .ctx = &graph};
 *     if (!(rc = tsk_dist_engine_open(&it, &job, &e))) rc = tsk_dist_run(e, &s, &sink, NULL);
 *     tsk_dist_engine_close(e);
 * A top-k is the same with .top_k = k (and .max_dist = INFINITY for no bound). */
#ifndef TSK_DIST_RUN_H
#define TSK_DIST_RUN_H

#include <stdint.h>

#include "../core/genome_ani.h"
#include "../core/genome_keys.h"
#include "../core/tsk_def.h"
#include "sketch_opts.h"

/* What is compared: vector rows (the l2 or cosine distance of sketch vectors) or genome sketches
 * (1 - f^(1/window) from shared keys; with segment anchors and the symmetric mode, 1 - ANI). Exactly
 * one of rows_q / keys_q is set; q and r may be the same set (one set against itself: pass the same
 * pointer). Borrowed until the engine closes.
 *
 * ANI (docs/distances.md, "The genome distance"). With ani_q and ani_r (the same items' segment
 * anchors) and the symmetric mode, the engines only find candidates from the keys, and every pair
 * that is output is refined on the host by tsk_ani_pair: its distance is 1 - ANI, its line carries
 * ANI and AF. So CPU and GPU engines give the same bytes. A pair whose key share is below the chance
 * floor is unrelated (1) without refinement; a pair with a genome without anchors (under 3 kb) keeps
 * its key distance. */
typedef struct {
    const tsk_sketch_set *rows_q, *rows_r;
    tsk_metric metric;
    const tsk_key_sets *keys_q, *keys_r;
    tsk_genome_mode mode;   /* symmetric share, or the query's share only (--containment) */
    int64_t window;         /* the genome distance's exponent: the window length W */
    const tsk_ani_set *ani_q, *ani_r; /* segment anchors, or NULL: the key distance alone */
    int anchor_k;           /* the anchors' k-mer length (tsk_params.anchor_k) */
    int64_t run_queries;    /* the queries the runs will take (a --block part's), which decide whether
                             * GPUs past the first open beside the first; 0: all, < 0: none */
    /* When set, tsk_dist_engine_open calls it once: after a GPU engine's opening (a check of the
     * inputs started at their load, tsk_genome_source_checked, runs beside the uploads), before a
     * CPU engine's. A TSK_EXIT_* code, the message printed; any other than OK ends the open. */
    int (*inputs_checked)(void *ctx);
    void *inputs_checked_ctx;
} tsk_dist_items;

/* Whether the items' genome distance is 1 - ANI: ANI sets of the key sets' items, symmetric mode. */
int tsk_dist_items_ani(const tsk_dist_items *it);

/* Key shares below this (a mean share below (0.80)^W / 2) are chance matches: d = 1, not refined. */
double tsk_dist_ani_chance_share(int64_t window);

/* The share the engines select candidates by for pairs within max_dist of 1 - ANI: the key share
 * overstates identity under uneven divergence and a piece's mean share is at least half its
 * containment, so a pair within max_dist has mean share >= (1 - max_dist - 0.04)^W / 2
 * (docs/distances.md); never above the key distance's own floor. */
double tsk_dist_ani_share_floor(double max_dist, int64_t window);

/* The line of one pair of genome items, query q of keys_q and reference r of keys_r sharing `shared`
 * keys, as every selection computes it: counts, the key distance, and with ANI (tsk_dist_items_ani)
 * the refined distance, ani and af (NAN and NAN where there is no estimate). w: the calling
 * thread's scratch (unused without ANI). Returns 0, or -1 when out of memory. */
int tsk_dist_genome_pair(const tsk_dist_items *it, tsk_ani_work *w, int64_t q, int64_t r, int64_t shared,
                         tsk_genome_line *line);

/* Top-k of ANI: the candidates the engines rank by keys before refinement, max(4k, k + 16). */
int64_t tsk_dist_ani_candidates(int64_t k);

typedef struct tsk_dist_engine tsk_dist_engine;

/* Opens the engine for items: on the GPU when job->device asks for one (--device cuda, or auto
 * with a usable GPU), else on job->threads CPU threads. A GPU that fails to open is an error with
 * --device cuda (TSK_EXIT_NO_GPU) and a warning otherwise (the CPU takes over). Returns a TSK_EXIT_*
 * code, the message printed; *e is NULL on failure. */
int tsk_dist_engine_open(const tsk_dist_items *items, const tsk_sketch_job *job, tsk_dist_engine **e);

/* Closes e (NULL is fine), letting go of the GPU context when it held one. */
void tsk_dist_engine_close(tsk_dist_engine *e);

/* For a command that ends once its output is written: a GPU engine's device memory, streams and
 * host buffers are left as they are, for the process's end to free (detached_exit.h: a helper does
 * it after the caller has its exit status), where freeing them one by one took 0.1-0.5 s of the
 * wait (more with more GPUs). A CPU engine is closed as tsk_dist_engine_close does. e is not to
 * be used again. */
void tsk_dist_engine_leave(tsk_dist_engine *e);

/* Where a run's results go. Each callback returns 0, or -1 when a write failed (errno says why);
 * the run then stops. A callback a run never calls may be NULL. */
typedef struct {
    /* dense rows of distances: query q0+i's distance to reference r at d[i * ld + r], for the
     * columns the selection asked for (tsk_dist_select.lower_only) */
    int (*rows)(void *ctx, int64_t q0, int64_t nq, const float *d, int64_t ld);
    /* selected pairs of vector rows, in output order; entries with ref < 0 (top-k padding) or
     * dist > max_dist are not pairs; swap: a pair (q, r) is reported as (r, q), so that one set
     * against itself lists "earlier item, later item" */
    int (*pairs)(void *ctx, const tsk_pair *p, int64_t n, int swap, double max_dist);
    /* selected pairs of genome sketches, in output order, already within the distance and in
     * the order of the line (ref, query), with their shared and total key counts (and ANI, AF) */
    int (*lines)(void *ctx, const tsk_genome_line *l, int64_t n);
    void *ctx;
} tsk_dist_sink;

/* One selection over the query items [q_begin, q_end) against every reference. */
typedef struct {
    int64_t q_begin, q_end;
    int one_set;        /* the query set is the reference set */
    int symmetric;      /* one set with a symmetric distance: each unordered pair once (q < r) */
    int with_self;      /* one set: also the pair of an item with itself */
    int64_t top_k;      /* > 0: the top_k nearest references of each query (pairs / lines); with ANI:
                         * the engine's top tsk_dist_ani_candidates(k) by keys, refined, ranked by
                         * the ANI distance (ties: larger key share, then smaller reference) */
    double max_dist;    /* pairs at distance <= max_dist; INFINITY: all of them */
    int dense;          /* every pair as dense rows (sink.rows) instead of pairs / lines */
    int lower_only;     /* dense: the sink reads only r < q (a lower triangle) */
    int threads;        /* to format lines and refine pairs (ANI) on */
} tsk_dist_select;

/* Runs the selection s on e, handing results to sink in query order. Returns TSK_EXIT_OK, or a
 * TSK_EXIT_* code after printing the message (an engine failure, out of memory, or a failed
 * write, reported as "<output>: write failed: <reason>" with output_name, "stdout" when NULL). */
int tsk_dist_run(tsk_dist_engine *e, const tsk_dist_select *s, const tsk_dist_sink *sink, const char *output_name);

/* The one report of a failed write of a run's output, "<output>: write failed: <errno's reason>"
 * (output NULL: "stdout"), for the runner and the caller's own writes (a header line). Returns
 * TSK_EXIT_RUNTIME (exit 1: README's "disk full"). */
int tsk_dist_write_failed(const char *output);

/* --block I/N: the query items [*begin, *end) of part I of N (1-based) of n items. Parts are
 * disjoint, cover every item and come in output order, so concatenating parts 1..N gives the
 * single run's output byte for byte. by_pairs (one set, each unordered pair once) splits so that
 * each part holds about 1/N of the pairs (item q has n-1-q of them, one more with_self);
 * otherwise every item weighs the same. */
void tsk_dist_block_rows(int64_t part, int64_t n_parts, int by_pairs, int with_self, int64_t n, int64_t *begin,
                         int64_t *end);

#endif
