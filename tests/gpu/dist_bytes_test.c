/* dist_bytes_test.c: the GPU distance engine prints the very floats of the CPU engine, cosine and
 * l2, on every path: dense blocks (tsv, square, npy), top-k (the fused kernel, the TF32 filter of
 * l2, host selection for k > 64), thresholds (-d), whole records, long vectors (chunked sums) and
 * slide sketches of unequal row counts (the ragged kernel), on random sets of a few thousand rows
 * and planted near-ties, duplicates, zero vectors and extreme norms (#42). Without a GPU it skips.
 *
 * On the main branch before #42 cosine failed here on every kind of set, for three reasons:
 *  - the tiled kernels printed (|a - b|^2 - (|a| - |b|)^2) * (0.5 / (|a| |b|)) over the unscaled
 *    vectors, where the CPU sums the differences of the vectors scaled by 1/|x| and halves it
 *    (1 - cos = |a/|a| - b/|b||^2 / 2): another formula, other roundings (and cancellation);
 *  - the ragged (slide) kernel printed 1 - a.b / (|a| |b|) in float64, a third formula;
 *  - past 128 floats a vector (D = 200, or rows x D) was one float32 sum on the GPU where the CPU
 *    carries 128-element chunk sums in float64 (l2 too); the ragged kernel summed in float64 while
 *    the CPU pair path sums 16 float32 lanes (l2 too).
 * Now both engines call core/vec_dist.h. Each comparison is bitwise (memcmp of the floats), and a
 * failure names the set, the metric, the path and the first differing pair. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cpu/cpu_dist.h"
#include "../../gpu/device.h"
#include "../../gpu/gpu_dist.h"

static int have_gpu(void)
{
    char why[128] = "";
    return tsk_gpu_device_count(why, sizeof why) > 0;
}

typedef struct {
    tsk_sketch_set s;
    float *v;
    int64_t *first, *nrows;
} set_t;

static uint64_t rng_state;
static float uniform_pm1(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (float)((rng_state >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

enum { RANDOM, NEAR_TIES, DUPLICATES, ZEROS, EXTREME, N_KINDS };
static const char *const kind_name[] = {"random", "near-ties", "duplicates", "zero vectors", "extreme norms"};

/* n items of rows_of(i) rows of dim floats (max_rows == 1: whole records), values in [-1, 1]
 * reshaped by kind: near-ties (each item its predecessor with one coordinate one ulp off, or a
 * copy scaled by a power of two: cosine ties), duplicates (a few distinct items, many copies),
 * zero vectors (every third item, and empty slide records), extreme norms (items scaled by 1e17,
 * 3e16, 1e-21, 1e-30: squares near the float range's ends, none overflowing). */
static set_t make(int64_t n, int dim, int max_rows, int kind, uint64_t seed)
{
    set_t t;
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 7;
    t.first = malloc(sizeof(int64_t) * (size_t)n);
    t.nrows = malloc(sizeof(int64_t) * (size_t)n);
    int64_t rows = 0;
    for (int64_t i = 0; i < n; i++) {
        t.nrows[i] = max_rows == 1 ? 1 : (int64_t)((i * 7 + seed) % (uint64_t)(max_rows + 1));
        t.first[i] = rows;
        rows += t.nrows[i];
    }
    t.v = malloc(sizeof(float) * (size_t)(rows + 1) * (size_t)dim);
    for (int64_t i = 0; i < rows * dim; i++) t.v[i] = uniform_pm1();
    for (int64_t i = 0; i < n; i++) {
        float *x = t.v + t.first[i] * dim;
        int64_t len = t.nrows[i] * dim, plen = i ? t.nrows[i - 1] * dim : 0;
        const float *prev = i ? t.v + t.first[i - 1] * dim : NULL;
        switch (kind) {
        case NEAR_TIES:
            if (i % 4 && prev) {
                for (int64_t e = 0; e < len; e++) x[e] = e < plen ? prev[e] : x[e];
                if (i % 8 == 3) /* a scaled copy: the same direction, cosine 0 in exact arithmetic */
                    for (int64_t e = 0; e < len; e++) x[e] *= 4.0f;
                else if (len) x[i % len] = nextafterf(x[i % len], 2.f);
            }
            break;
        case DUPLICATES:
            if (i >= 5) {
                const float *src = t.v + t.first[i % 5] * dim;
                int64_t slen = t.nrows[i % 5] * dim;
                for (int64_t e = 0; e < len && e < slen; e++) x[e] = src[e];
            }
            break;
        case ZEROS:
            if (i % 3 == 0) memset(x, 0, sizeof(float) * (size_t)len);
            break;
        case EXTREME: {
            float s = i % 5 == 0 ? 1e17f : i % 5 == 1 ? 3e16f : i % 5 == 2 ? 1e-21f : i % 5 == 3 ? 1e-30f : 1.f;
            for (int64_t e = 0; e < len; e++) x[e] *= s;
            break;
        }
        default: break;
        }
    }
    t.s = (tsk_sketch_set){n, dim, t.v, t.first, t.nrows};
    return t;
}

static void drop(set_t *t)
{
    free(t->v);
    free(t->first);
    free(t->nrows);
}

static int same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Dense, top-k and thresholds of query against ref under m, GPU against CPU, bit for bit. */
static void compare(const char *what, const tsk_sketch_set *q, const tsk_sketch_set *r, tsk_metric m, int limits)
{
    const char *mn = m == TSK_METRIC_COSINE ? "cosine" : "l2";
    char err[256];
    tsk_cpu_dist *c = tsk_cpu_dist_open(q, r, m, 0, err, sizeof err);
    cr_assert_not_null(c, "%s", err);
    tsk_gpu_dist *g = tsk_gpu_dist_open(q, r, m, NULL, 0, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    if (limits) tsk_gpu_dist_set_limits(g, 1000, 700); /* the blocked paths: references re-sent */
    const int64_t nq = q->n_items, nr = r->n_items;
    float *dc = malloc(sizeof(float) * (size_t)(nq * nr + 1)), *dg = malloc(sizeof(float) * (size_t)(nq * nr + 1));
    cr_assert_eq(tsk_cpu_dist_block(c, 0, nq, 0, nr, dc, nr), 0);
    cr_assert_eq(tsk_gpu_dist_block(g, 0, nq, 0, nr, dg, nr), 0, "%s", tsk_gpu_dist_error(g));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < nq * nr; i++)
        if (!same_float(dc[i], dg[i])) {
            if (first < 0) first = i;
            bad++;
        }
    cr_assert_eq(bad, 0, "%s %s dense: %ld of %ld pairs differ, first (%ld, %ld): cpu %.9g gpu %.9g", what, mn,
                 (long)bad, (long)(nq * nr), (long)(first / nr), (long)(first % nr), dc[first], dg[first]);

    const tsk_pair_filter filter = q == r ? TSK_PAIRS_NOT_SELF : TSK_PAIRS_ALL;
    const int ks[] = {1, 10, 64, 100};
    for (int ki = 0; ki < 4; ki++) {
        int k = ks[ki];
        tsk_pair *tc = malloc(sizeof(tsk_pair) * (size_t)(nq * k)), *tg = malloc(sizeof(tsk_pair) * (size_t)(nq * k));
        cr_assert_eq(tsk_cpu_dist_topk(c, 0, nq, k, filter, tc), 0);
        cr_assert_eq(tsk_gpu_dist_topk(g, 0, nq, k, filter, tg), 0, "%s", tsk_gpu_dist_error(g));
        for (int64_t i = 0; i < nq * k; i++)
            cr_assert(tc[i].query == tg[i].query && tc[i].ref == tg[i].ref && same_float(tc[i].dist, tg[i].dist),
                      "%s %s top-%d query %ld slot %ld: cpu (%ld, %.9g) gpu (%ld, %.9g)", what, mn, k,
                      (long)tc[i].query, (long)(i % k), (long)tc[i].ref, tc[i].dist, (long)tg[i].ref, tg[i].dist);
        free(tc);
        free(tg);
    }

    /* Thresholds at distances that occur (the pair at one is kept by both or by neither). */
    for (int t = 0; t < 3; t++) {
        float thr = dc[(int64_t)(t * 7919 + 13) % (nq * nr)];
        if (!(thr <= 3.4028235e38f)) continue;
        tsk_pair *pc = NULL, *pg = NULL;
        int64_t nc = 0, ng = 0, capc = 0, capg = 0;
        cr_assert_eq(tsk_cpu_dist_within(c, 0, nq, thr, filter, &pc, &nc, &capc), 0);
        cr_assert_eq(tsk_gpu_dist_within(g, 0, nq, thr, filter, &pg, &ng, &capg), 0, "%s", tsk_gpu_dist_error(g));
        cr_assert_eq(nc, ng, "%s %s -d %.9g: cpu %ld pairs, gpu %ld", what, mn, thr, (long)nc, (long)ng);
        for (int64_t i = 0; i < nc; i++)
            cr_assert(pc[i].query == pg[i].query && pc[i].ref == pg[i].ref && same_float(pc[i].dist, pg[i].dist),
                      "%s %s -d %.9g pair %ld: cpu (%ld, %ld, %.9g) gpu (%ld, %ld, %.9g)", what, mn, thr, (long)i,
                      (long)pc[i].query, (long)pc[i].ref, pc[i].dist, (long)pg[i].query, (long)pg[i].ref, pg[i].dist);
        free(pc);
        free(pg);
    }
    free(dc);
    free(dg);
    tsk_gpu_dist_close(g);
    tsk_cpu_dist_close(c);
}

/* One shape of set under both metrics: self (upper and not-self pairs) and query x reference. */
static void shape(int dim, int max_rows, int64_t n_self, int64_t n_query, int limits)
{
    if (!have_gpu()) {
        cr_skip_test("no usable GPU");
        return;
    }
    for (int kind = 0; kind < N_KINDS; kind++)
        for (int mi = 0; mi < 2; mi++) {
            tsk_metric m = mi ? TSK_METRIC_L2 : TSK_METRIC_COSINE;
            char what[128];
            set_t a = make(n_self, dim, max_rows, kind, 11 + kind), b = make(n_query, dim, max_rows, kind, 29 + kind);
            snprintf(what, sizeof what, "%s D=%d rows<=%d self %ld", kind_name[kind], dim, max_rows, (long)n_self);
            compare(what, &a.s, &a.s, m, limits);
            snprintf(what, sizeof what, "%s D=%d rows<=%d %ld x %ld", kind_name[kind], dim, max_rows, (long)n_query,
                     (long)n_self);
            compare(what, &b.s, &a.s, m, 0);
            drop(&a);
            drop(&b);
        }
}

/* Whole records of D = 96 (the default; one float32 chunk): the fused top-k, the TF32 filter. */
Test(gpu_dist_bytes, whole_records_d96, .timeout = 600) { shape(96, 1, 3000, 700, 0); }
/* The same through the blocked paths (reference blocks of 1000, query launches of 700). */
Test(gpu_dist_bytes, whole_records_d96_blocked, .timeout = 600) { shape(96, 1, 2500, 300, 1); }
/* Odd D, below and above a chunk: D = 33 (padding inside a stage), D = 200 (two chunks). */
Test(gpu_dist_bytes, whole_records_d33, .timeout = 600) { shape(33, 1, 1500, 300, 0); }
Test(gpu_dist_bytes, whole_records_d200, .timeout = 600) { shape(200, 1, 1500, 300, 0); }
/* Slide sketches: equal row counts (3 x 96 = 288 floats, tiled and chunked), and unequal ones of
 * 0..40 rows of 16 (the ragged kernel, pair sums over min(rows), empty records). */
static void equal_slides(void)
{
    if (!have_gpu()) {
        cr_skip_test("no usable GPU");
        return;
    }
    for (int mi = 0; mi < 2; mi++)
        for (int kind = 0; kind < N_KINDS; kind++) {
            /* rows_of = 3 for all: make() with max_rows = 1 and dim 288 is the same memory layout,
             * but the engines see 3 rows of 96: build it by hand. */
            set_t a = make(900, 288, 1, kind, 41 + kind);
            for (int64_t i = 0; i < a.s.n_items; i++) {
                a.first[i] = 3 * i;
                a.nrows[i] = 3;
            }
            a.s.dim = 96;
            char what[96];
            snprintf(what, sizeof what, "%s slides 3 x 96 self 900", kind_name[kind]);
            compare(what, &a.s, &a.s, mi ? TSK_METRIC_L2 : TSK_METRIC_COSINE, 0);
            drop(&a);
        }
}
Test(gpu_dist_bytes, slides_equal_rows, .timeout = 600) { equal_slides(); }
Test(gpu_dist_bytes, slides_unequal_rows, .timeout = 600) { shape(16, 40, 700, 150, 0); }
