/* dist_test.c: the GPU distance engine. Without a usable GPU (CI) it checks that the engine says
 * so cleanly; with one it checks dense, top-k and threshold results against tsk_distance_naive on
 * sizes that straddle the 128-item tiles, for whole-record and slide sketches. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpu/device.h"
#include "../../gpu/gpu_dist.h"

static int have_gpu(void)
{
    char why[128] = "";
    int n = tsk_gpu_device_count(why, sizeof why);
    if (n == 0) cr_assert(strlen(why) > 0, "zero devices must come with a reason");
    return n > 0;
}

/* n items of rows[i] rows of dim floats; deterministic values in [-1, 1]. */
typedef struct {
    tsk_sketch_set s;
    float *v;
    int64_t *first, *nrows;
} set_t;

static set_t make(int64_t n, int dim, int ragged, unsigned seed)
{
    set_t t;
    t.first = malloc(sizeof(int64_t) * n);
    t.nrows = malloc(sizeof(int64_t) * n);
    int64_t rows = 0;
    for (int64_t i = 0; i < n; i++) {
        t.nrows[i] = ragged ? (int64_t)((i * 7 + seed) % 4) : 1;
        t.first[i] = rows;
        rows += t.nrows[i];
    }
    t.v = malloc(sizeof(float) * (size_t)(rows + 1) * dim);
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int64_t i = 0; i < rows * dim; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        t.v[i] = (float)((x >> 11) * (2.0 / 9007199254740992.0) - 1.0);
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

Test(gpu_dist, no_gpu_is_reported_cleanly)
{
    char err[256] = "";
    set_t a = make(3, 8, 0, 1);
    if (have_gpu()) {
        tsk_gpu_dist *g = tsk_gpu_dist_open(&a.s, &a.s, TSK_METRIC_L2, (int[]){999}, 1, 0, err, sizeof err);
        cr_assert_null(g, "device 999 must be refused");
        cr_assert(strstr(err, "999") != NULL, "message names the device: %s", err);
    } else {
        tsk_gpu_dist *g = tsk_gpu_dist_open(&a.s, &a.s, TSK_METRIC_L2, NULL, 0, 0, err, sizeof err);
        cr_assert_null(g);
        cr_assert(strncmp(err, "no usable GPU", 13) == 0, "got: %s", err);
    }
    drop(&a);
}

static void check_all(int ragged, tsk_metric m)
{
    if (!have_gpu()) return;
    set_t q = make(131, 40, ragged, 3), r = make(259, 40, ragged, 5);
    char err[256];
    tsk_gpu_dist *g = tsk_gpu_dist_open(&q.s, &r.s, m, NULL, 0, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    tsk_gpu_dist_set_limits(g, 100, 60);  /* exercise the blocked paths */
    float *d = malloc(sizeof(float) * 131 * 259);
    cr_assert_eq(tsk_gpu_dist_block(g, 0, 131, 0, 259, d, 259), 0, "%s", tsk_gpu_dist_error(g));
    for (int64_t i = 0; i < 131; i++)
        for (int64_t j = 0; j < 259; j++) {
            double w = tsk_item_distance_naive(&q.s, i, &r.s, j, m);
            cr_assert(fabs(d[i * 259 + j] - w) <= 1e-5 * fabs(w) + 1e-6, "(%ld,%ld): %g vs %g", (long)i, (long)j,
                      d[i * 259 + j], w);
        }
    enum { K = 5 };
    tsk_pair top[131 * K];
    cr_assert_eq(tsk_gpu_dist_topk(g, 0, 131, K, TSK_PAIRS_ALL, top), 0, "%s", tsk_gpu_dist_error(g));
    for (int64_t i = 0; i < 131; i++) {
        /* the k-th entry must be the k-th smallest of the dense row, lowest index first on ties */
        int64_t last = -1;
        float lastd = -1;
        for (int x = 0; x < K; x++) {
            const tsk_pair *p = &top[i * K + x];
            cr_assert_eq(p->query, i);
            int64_t smaller = 0;
            for (int64_t j = 0; j < 259; j++) {
                float v = d[i * 259 + j];
                smaller += v < p->dist || (v == p->dist && j < p->ref);
            }
            cr_assert_eq(smaller, x, "query %ld slot %d has %ld better pairs", (long)i, x, (long)smaller);
            cr_assert_eq(p->dist, d[i * 259 + p->ref]);
            cr_assert(p->dist > lastd || (p->dist == lastd && p->ref > last));
            last = p->ref, lastd = p->dist;
        }
    }
    float thr = top[0 * K + K - 1].dist;  /* about K pairs per query survive */
    tsk_pair *pairs = NULL;
    int64_t np = 0, cap = 0, expect = 0;
    cr_assert_eq(tsk_gpu_dist_within(g, 0, 131, thr, TSK_PAIRS_ALL, &pairs, &np, &cap), 0);
    for (int64_t i = 0; i < 131; i++)
        for (int64_t j = 0; j < 259; j++)
            if (d[i * 259 + j] <= thr) {
                cr_assert(expect < np && pairs[expect].query == i && pairs[expect].ref == j, "pair (%ld,%ld)", (long)i,
                          (long)j);
                expect++;
            }
    cr_assert_eq(np, expect);
    free(pairs);
    free(d);
    tsk_gpu_dist_close(g);
    drop(&q);
    drop(&r);
}

Test(gpu_dist, l2_whole_records) { check_all(0, TSK_METRIC_L2); }
Test(gpu_dist, cosine_whole_records) { check_all(0, TSK_METRIC_COSINE); }
Test(gpu_dist, l2_slide_rows) { check_all(1, TSK_METRIC_L2); }
Test(gpu_dist, cosine_slide_rows) { check_all(1, TSK_METRIC_COSINE); }

Test(gpu_dist, self_upper_pairs_once)
{
    if (!have_gpu()) return;
    set_t a = make(200, 96, 0, 9);
    char err[256];
    tsk_gpu_dist *g = tsk_gpu_dist_open(&a.s, &a.s, TSK_METRIC_L2, NULL, 0, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    tsk_pair *pairs = NULL;
    int64_t np = 0, cap = 0;
    cr_assert_eq(tsk_gpu_dist_within(g, 0, 200, 1e30f, TSK_PAIRS_UPPER, &pairs, &np, &cap), 0);
    cr_assert_eq(np, 200 * 199 / 2);
    for (int64_t x = 0; x < np; x++) cr_assert(pairs[x].ref > pairs[x].query);
    tsk_pair top[200];
    cr_assert_eq(tsk_gpu_dist_topk(g, 0, 200, 1, TSK_PAIRS_NOT_SELF, top), 0);
    for (int64_t i = 0; i < 200; i++) cr_assert_neq(top[i].ref, i, "self excluded");
    free(pairs);
    tsk_gpu_dist_close(g);
    drop(&a);
}

/* ---- the top-k filter (gpu/dist_gemm.cu): exactly today's results ----
 * The dense block runs the direct kernel on every pair; the top-k must be the k smallest finite
 * values of each dense row (lower reference first on ties), the very same floats. */

static int cmp_cand(const void *x, const void *y)
{
    const tsk_pair *a = x, *b = y;
    if (a->dist != b->dist) return a->dist < b->dist ? -1 : 1;
    return (a->ref > b->ref) - (a->ref < b->ref);
}

static int filter_passes(tsk_pair_filter f, int64_t q, int64_t r)
{
    return f == TSK_PAIRS_UPPER ? r > q : f == TSK_PAIRS_UPPER_SELF ? r >= q : f == TSK_PAIRS_NOT_SELF ? r != q : 1;
}

static void check_topk_exact(const char *what, const tsk_sketch_set *q, const tsk_sketch_set *r, tsk_metric m,
                             const int *ks, int nk)
{
    if (!have_gpu()) return;
    char err[256];
    tsk_gpu_dist *g = tsk_gpu_dist_open(q, r, m, NULL, 0, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    const int64_t nq = q->n_items, nr = r->n_items;
    float *d = malloc(sizeof(float) * (size_t)(nq * nr));
    cr_assert_eq(tsk_gpu_dist_block(g, 0, nq, 0, nr, d, nr), 0, "%s", tsk_gpu_dist_error(g));
    tsk_pair *row = malloc(sizeof(tsk_pair) * (size_t)(nr + 1));
    const tsk_pair_filter fs[2] = {TSK_PAIRS_ALL, TSK_PAIRS_NOT_SELF};
    for (int fi = 0; fi < (q == r ? 2 : 1); fi++)
        for (int ki = 0; ki < nk; ki++) {
            int k = ks[ki];
            tsk_pair *top = malloc(sizeof(tsk_pair) * (size_t)(nq * k));
            cr_assert_eq(tsk_gpu_dist_topk(g, 0, nq, k, fs[fi], top), 0, "%s", tsk_gpu_dist_error(g));
            for (int64_t i = 0; i < nq; i++) {
                int64_t n = 0;
                for (int64_t j = 0; j < nr; j++) {
                    float v = d[i * nr + j];
                    if (filter_passes(fs[fi], i, j) && v <= 3.4028235e38f) row[n++] = (tsk_pair){i, j, v};
                }
                qsort(row, (size_t)n, sizeof *row, cmp_cand);
                for (int x = 0; x < k; x++) {
                    const tsk_pair *p = &top[i * k + x];
                    int64_t wr = x < n ? row[x].ref : -1;
                    cr_assert(p->query == i && p->ref == wr && (wr < 0 ? isinf(p->dist) : p->dist == row[x].dist),
                              "%s k=%d filter %d query %ld slot %d: (%ld, %.9g), expected (%ld, %.9g)", what, k, fs[fi],
                              (long)i, x, (long)p->ref, p->dist, (long)wr, x < n ? row[x].dist : INFINITY);
                }
            }
            free(top);
        }
    /* thresholds exactly at a distance: the pair at it is kept, the next float below drops it */
    for (int t = 0; t < 3 && nq * nr > 0; t++) {
        float thr = d[(t * 7919) % (nq * nr)];
        if (!(thr <= 3.4028235e38f)) continue;
        tsk_pair *pairs = NULL;
        int64_t np = 0, cap = 0, x = 0;
        cr_assert_eq(tsk_gpu_dist_within(g, 0, nq, thr, TSK_PAIRS_ALL, &pairs, &np, &cap), 0);
        for (int64_t i = 0; i < nq; i++)
            for (int64_t j = 0; j < nr; j++)
                if (d[i * nr + j] <= thr) {
                    cr_assert(x < np && pairs[x].query == i && pairs[x].ref == j && pairs[x].dist == d[i * nr + j],
                              "%s within %.9g: pair (%ld,%ld)", what, thr, (long)i, (long)j);
                    x++;
                }
        cr_assert_eq(np, x, "%s within %.9g: %ld pairs, expected %ld", what, thr, (long)np, (long)x);
        free(pairs);
    }
    free(row);
    free(d);
    tsk_gpu_dist_close(g);
}

/* n items of dim floats built by kind: 0 random, 1 near-ties (each item its predecessor with one
 * coordinate one ulp off), 2 duplicates (a few distinct rows, many copies), 3 zero vectors among
 * random ones, 4 huge and tiny norms (some squares overflow float32, some underflow), 5 one tight
 * cluster (every distance far below the norms: the filter cannot separate it). */
static set_t make_planted(int64_t n, int dim, int kind, unsigned seed)
{
    set_t t = make(n, dim, 0, seed);
    float *v = t.v;
    for (int64_t i = 0; i < n; i++) {
        float *x = v + i * dim;
        switch (kind) {
        case 1:
            if (i % 4) {
                memcpy(x, x - dim, sizeof(float) * dim);
                x[i % dim] = nextafterf(x[i % dim], 2.f);
            }
            break;
        case 2: memcpy(x, v + (i % 5) * dim, sizeof(float) * dim); break;
        case 3:
            if (i % 3 == 0) memset(x, 0, sizeof(float) * dim);
            break;
        case 4: {
            float s = i % 5 == 0 ? 1e18f : i % 5 == 1 ? 3e19f : i % 5 == 2 ? 1e-21f : i % 5 == 3 ? 1e-40f : 1.f;
            for (int j = 0; j < dim; j++) x[j] *= s;
            break;
        }
        case 5:
            for (int j = 0; j < dim; j++) x[j] = v[j] + x[j] * 1e-6f;
            break;
        default: break;
        }
    }
    return t;
}

static void planted_case(int kind, tsk_metric m)
{
    static const char *names[] = {"random", "near-ties", "duplicates", "zero vectors", "huge/tiny norms", "cluster"};
    set_t a = make_planted(300, 96, kind, 11 + kind), b = make_planted(40, 96, kind, 29 + kind);
    const int ks[] = {1, 10, 64, 39, 40, 41};
    char what[96];
    snprintf(what, sizeof what, "%s %s self", names[kind], m == TSK_METRIC_L2 ? "l2" : "cosine");
    check_topk_exact(what, &a.s, &a.s, m, ks, 3);
    snprintf(what, sizeof what, "%s %s 300 x 40", names[kind], m == TSK_METRIC_L2 ? "l2" : "cosine");
    check_topk_exact(what, &a.s, &b.s, m, ks, 6);  /* k at, below and above the reference count */
    drop(&a);
    drop(&b);
}

Test(gpu_dist, filtered_topk_random) { planted_case(0, TSK_METRIC_L2); planted_case(0, TSK_METRIC_COSINE); }
Test(gpu_dist, filtered_topk_near_ties) { planted_case(1, TSK_METRIC_L2); planted_case(1, TSK_METRIC_COSINE); }
Test(gpu_dist, filtered_topk_duplicates) { planted_case(2, TSK_METRIC_L2); planted_case(2, TSK_METRIC_COSINE); }
Test(gpu_dist, filtered_topk_zero_vectors) { planted_case(3, TSK_METRIC_L2); planted_case(3, TSK_METRIC_COSINE); }
Test(gpu_dist, filtered_topk_extreme_norms) { planted_case(4, TSK_METRIC_L2); planted_case(4, TSK_METRIC_COSINE); }
Test(gpu_dist, filtered_topk_cluster) { planted_case(5, TSK_METRIC_L2); planted_case(5, TSK_METRIC_COSINE); }

/* Other lengths: one query panel with zeros past D (D = 8, 40), two panels, the second partial
 * (D = 200); and sets of many tiles, so that a query's bound comes from many reference splits. */
Test(gpu_dist, filtered_topk_lengths_and_tiles)
{
    const int ks[] = {1, 10, 64};
    const int dims[] = {8, 40, 200};
    for (int di = 0; di < 3; di++)
        for (int mi = 0; mi < 2; mi++) {
            const tsk_metric m = mi ? TSK_METRIC_COSINE : TSK_METRIC_L2;
            set_t a = make_planted(700, dims[di], 1, 51 + di), b = make_planted(300, dims[di], 0, 61 + di);
            char what[96];
            snprintf(what, sizeof what, "D %d %s self", dims[di], mi ? "cosine" : "l2");
            check_topk_exact(what, &a.s, &a.s, m, ks, 3);
            snprintf(what, sizeof what, "D %d %s 700 x 300", dims[di], mi ? "cosine" : "l2");
            check_topk_exact(what, &a.s, &b.s, m, ks, 3);
            drop(&a);
            drop(&b);
        }
    set_t c = make_planted(3000, 96, 1, 71);
    check_topk_exact("near-ties l2 3000 self", &c.s, &c.s, TSK_METRIC_L2, ks, 2);
    check_topk_exact("near-ties cosine 3000 self", &c.s, &c.s, TSK_METRIC_COSINE, ks, 2);
    drop(&c);
}
