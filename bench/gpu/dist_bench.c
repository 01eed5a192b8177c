/* dist_bench.c: validates the GPU distance engine against the float64 definition
 * (tsk_distance_naive, brute force) and the CPU engine, then times it.
 *
 *   dist_bench devices                  device count, or the reason there is none (exit 0)
 *   dist_bench validate [quick]         every mode on odd sizes; exit 1 on any mismatch
 *   dist_bench small                    two small cases (for compute-sanitizer racecheck)
 *   dist_bench topk N K [REPS]          all-vs-all top-K of N random D=96 sketches (self excluded)
 *   dist_bench full N [REPS]            N x N dense matrix streamed by query blocks to host memory
 *   dist_bench within N [THR] [REPS]    all-vs-all pairs i<j with distance <= THR (default 5.5)
 * TSKETCH_BENCH_NO_CPU=1 leaves the CPU engine out of validation.
 * Times are wall-clock medians of REPS (default 3) runs after a warm-up, of the synchronous API
 * calls: uploads, kernels, copies back and host merging included. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../cpu/cpu_dist.h"
#include "../../gpu/device.h"
#include "../../gpu/gpu_dist.h"
#include "../bench_clock.h"

static int failures;

/* ---- random sketch sets ---- */

typedef struct {
    tsk_sketch_set s;
    float *rows;
    int64_t *first, *nrows;
} owned_set;

static uint64_t rng_state = 0x1234567ULL;
static double urand(void)
{
    rng_state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

/* n items of rows_of(i) rows each (rows_max when ragged is 0); some items near-duplicates,
 * scaled copies or zero vectors to stress cancellation. */
static owned_set make_set(int64_t n, int dim, int rows_fixed, int ragged_max, int tricky)
{
    owned_set o;
    o.first = malloc(sizeof(int64_t) * (n + 1));
    o.nrows = malloc(sizeof(int64_t) * (n + 1));
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        o.nrows[i] = ragged_max ? (int64_t)(urand() * (ragged_max + 1)) : rows_fixed;
        o.first[i] = total;
        total += o.nrows[i];
    }
    o.rows = malloc(sizeof(float) * (size_t)(total + 1) * dim);
    for (int64_t i = 0; i < n; i++) {
        float *x = o.rows + o.first[i] * dim;
        int64_t len = o.nrows[i] * dim;
        int kind = tricky ? (int)(i % 7) : 6;
        if (i > 0 && kind == 1 && o.nrows[i - 1] == o.nrows[i]) {         /* near-duplicate */
            for (int64_t j = 0; j < len; j++) x[j] = o.rows[o.first[i - 1] * dim + j] * (float)(1 + 1e-5 * (urand() - 0.5));
        } else if (i > 0 && kind == 2 && o.nrows[i - 1] == o.nrows[i]) {  /* scaled copy */
            for (int64_t j = 0; j < len; j++) x[j] = o.rows[o.first[i - 1] * dim + j] * 3.0f;
        } else if (kind == 3) {                                            /* zero vector */
            memset(x, 0, sizeof(float) * (size_t)len);
        } else if (i > 0 && kind == 4 && o.nrows[i - 1] == o.nrows[i]) {  /* exact duplicate */
            memcpy(x, o.rows + o.first[i - 1] * dim, sizeof(float) * (size_t)len);
        } else {
            for (int64_t j = 0; j < len; j++) x[j] = (float)(urand() * 2 - 1);
        }
    }
    o.s.n_items = n;
    o.s.dim = dim;
    o.s.rows = o.rows;
    o.s.first_row = o.first;
    o.s.n_rows = o.nrows;
    return o;
}

static void free_set(owned_set *o)
{
    free(o->rows);
    free(o->first);
    free(o->nrows);
}

static int close_enough(double got, double want) { return fabs(got - want) <= 1e-5 * fabs(want) + 1e-6; }

static int passes(tsk_pair_filter f, int64_t q, int64_t r)
{
    return f == TSK_PAIRS_UPPER ? r > q : f == TSK_PAIRS_UPPER_SELF ? r >= q : f == TSK_PAIRS_NOT_SELF ? r != q : 1;
}

static void check(int ok, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void check(int ok, const char *what, const char *fmt, ...)
{
    if (ok) return;
    if (failures++ < 20) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "MISMATCH %s: ", what);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
}

/* ---- validation of one configuration ---- */

static void validate_case(const char *name, const tsk_sketch_set *q, const tsk_sketch_set *r, tsk_metric m,
                          int64_t lim_ref, int64_t lim_query)
{
    char err[512];
    int before_fail = failures;
    tsk_gpu_dist *g = tsk_gpu_dist_open(q, r, m, NULL, 0, 0, err, sizeof err);
    if (!g) {
        check(0, name, "open: %s", err);
        return;
    }
    tsk_gpu_dist_set_limits(g, lim_ref, lim_query);
    tsk_cpu_dist *c = getenv("TSKETCH_BENCH_NO_CPU") ? NULL : tsk_cpu_dist_open(q, r, m, 0, err, sizeof err);
    const int64_t nq = q->n_items, nr = r->n_items;
    const int same = q == r;

    /* dense, in two query blocks with an odd split and an offset reference window */
    float *dense = malloc(sizeof(float) * (size_t)(nq * nr + 1));
    for (int64_t i = 0; i < nq * nr; i++) dense[i] = NAN;  /* poison: every entry must be written */
    int64_t h = nq / 3;
    if (tsk_gpu_dist_block(g, 0, h, 0, nr, dense, nr) || tsk_gpu_dist_block(g, h, nq - h, 0, nr, dense + h * nr, nr))
        check(0, name, "block: %s", tsk_gpu_dist_error(g));
    double maxrel = 0;
    for (int64_t i = 0; i < nq; i++)
        for (int64_t j = 0; j < nr; j++) {
            double want = tsk_item_distance_naive(q, i, r, j, m), got = dense[i * nr + j];
            check(close_enough(got, want), name, "dense (%lld,%lld) gpu %.9g ref %.9g", (long long)i, (long long)j, got, want);
            if (want != 0) maxrel = fmax(maxrel, fabs(got - want) / fabs(want));
        }
    if (nr > 2) {  /* sub-window of references */
        int64_t r0 = 1, w = nr - 2;
        float *sub = malloc(sizeof(float) * (size_t)(nq * w));
        if (tsk_gpu_dist_block(g, 0, nq, r0, w, sub, w)) check(0, name, "block window: %s", tsk_gpu_dist_error(g));
        for (int64_t i = 0; i < nq; i++)
            for (int64_t j = 0; j < w; j++)
                check(sub[i * w + j] == dense[i * nr + r0 + j], name, "window (%lld,%lld)", (long long)i, (long long)j);
        free(sub);
    }
    if (c) {  /* the CPU engine on the same block */
        float *cd = malloc(sizeof(float) * (size_t)(nq * nr + 1));
        tsk_cpu_dist_block(c, 0, nq, 0, nr, cd, nr);
        for (int64_t i = 0; i < nq * nr; i++)
            check(close_enough(dense[i], cd[i]), name, "gpu vs cpu dense %lld: %.9g vs %.9g", (long long)i, dense[i], cd[i]);
        free(cd);
    }

    /* top-k for several k and filters */
    const int ks[] = {1, 3, 10, 64, 65};
    const tsk_pair_filter filters[] = {TSK_PAIRS_ALL, TSK_PAIRS_NOT_SELF, TSK_PAIRS_UPPER, TSK_PAIRS_UPPER_SELF};
    for (size_t fi = 0; fi < (same ? 4u : 1u); fi++) {
        tsk_pair_filter f = filters[fi];
        for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
            int k = ks[ki];
            tsk_pair *out = malloc(sizeof(tsk_pair) * (size_t)(nq * k + 1));
            if (tsk_gpu_dist_topk(g, 0, nq, k, f, out)) {
                check(0, name, "topk: %s", tsk_gpu_dist_error(g));
                free(out);
                continue;
            }
            double *row = malloc(sizeof(double) * (size_t)(nr + 1));
            for (int64_t i = 0; i < nq; i++) {
                int64_t cand = 0;
                for (int64_t j = 0; j < nr; j++)
                    if (passes(f, i, j)) row[cand++] = dense[i * nr + j];
                /* k smallest GPU dense values (selection by repeated min: sizes are small) */
                for (int x = 0; x < k; x++) {
                    const tsk_pair *p = &out[i * k + x];
                    check(p->query == i, name, "topk query index");
                    if (x >= cand) {
                        check(p->ref == -1 && isinf(p->dist), name, "topk k=%d f=%d q=%lld slot %d should be empty", k, f,
                              (long long)i, x);
                        continue;
                    }
                    int best = -1;
                    for (int64_t j = 0; j < cand; j++)
                        if (best < 0 || row[j] < row[best]) best = (int)j;
                    double kth = row[best];
                    row[best] = INFINITY;
                    check(p->ref >= 0 && p->ref < nr && passes(f, i, p->ref), name, "topk bad ref %lld", (long long)p->ref);
                    if (p->ref < 0 || p->ref >= nr) continue;
                    check(p->dist == kth, name, "topk k=%d f=%d q=%lld slot %d: dist %.9g, expected %.9g", k, f,
                          (long long)i, x, p->dist, kth);
                    check(close_enough(p->dist, tsk_item_distance_naive(q, i, r, p->ref, m)), name, "topk dist vs ref");
                    if (x > 0 && out[i * k + x - 1].ref >= 0) {
                        const tsk_pair *o = &out[i * k + x - 1];
                        check(o->dist < p->dist || (o->dist == p->dist && o->ref < p->ref), name, "topk order q=%lld slot %d",
                              (long long)i, x);
                    }
                }
            }
            if (c) {
                tsk_pair *co = malloc(sizeof(tsk_pair) * (size_t)(nq * k + 1));
                tsk_cpu_dist_topk(c, 0, nq, k, f, co);
                for (int64_t i = 0; i < nq * k; i++)
                    check((co[i].ref < 0) == (out[i].ref < 0) &&
                              (co[i].ref < 0 || close_enough(out[i].dist, co[i].dist)), name,
                          "gpu vs cpu topk k=%d entry %lld: (%lld %.9g) vs (%lld %.9g)", k, (long long)i,
                          (long long)out[i].ref, out[i].dist, (long long)co[i].ref, co[i].dist);
                free(co);
            }
            free(row);
            free(out);
        }
    }

    /* within: threshold at about the 5% quantile of the dense values, plus 0 and a huge one */
    float thr[3] = {0.f, 0.f, 1e30f};
    {
        int64_t n = nq * nr, step = n / 64 + 1, cnt = 0;
        float *s = malloc(sizeof(float) * (size_t)(n / step + 2));
        for (int64_t i = 0; i < n; i += step) s[cnt++] = dense[i];
        float mx = 0;
        for (int64_t i = 0; i < cnt; i++) if (s[i] > mx) mx = s[i];
        thr[0] = mx * 0.05f + 1e-3f;
        free(s);
    }
    for (size_t fi = 0; fi < (same ? 4u : 1u); fi++) {
        tsk_pair_filter f = filters[fi];
        for (int ti = 0; ti < 3; ti++) {
            tsk_pair *pairs = NULL;
            int64_t np = 0, cap = 0;
            if (tsk_gpu_dist_within(g, 0, h, thr[ti], f, &pairs, &np, &cap) ||
                tsk_gpu_dist_within(g, h, nq - h, thr[ti], f, &pairs, &np, &cap)) {
                check(0, name, "within: %s", tsk_gpu_dist_error(g));
                free(pairs);
                continue;
            }
            int64_t x = 0;
            for (int64_t i = 0; i < nq; i++)
                for (int64_t j = 0; j < nr; j++) {
                    if (!passes(f, i, j) || !(dense[i * nr + j] <= thr[ti])) continue;
                    check(x < np && pairs[x].query == i && pairs[x].ref == j, name, "within thr %g f=%d: missing (%lld,%lld)",
                          thr[ti], f, (long long)i, (long long)j);
                    if (x < np && pairs[x].query == i && pairs[x].ref == j) {
                        check(pairs[x].dist == dense[i * nr + j], name, "within dist");
                        x++;
                    }
                }
            check(x == np, name, "within thr %g f=%d: %lld pairs, expected %lld", thr[ti], f, (long long)np, (long long)x);
            free(pairs);
        }
    }
    free(dense);
    tsk_cpu_dist_close(c);
    tsk_gpu_dist_close(g);
    printf("%-44s %s  (dense max rel err %.2e%s)\n", name, failures == before_fail ? "PASS" : "FAIL", maxrel,
           c ? ", cpu compared" : "");
}

static void validate(int quick)
{
    const int dims[] = {96, 5, 33};
    const int64_t sizes[][2] = {{1, 1}, {2, 2}, {127, 129}, {128, 128}, {129, 127}, {385, 257}, {300, 1000}};
    for (size_t di = 0; di < (quick ? 1u : 3u); di++) {
        int dim = dims[di];
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            if (quick && si > 3) break;
            for (int m = 0; m < 2; m++) {
                owned_set a = make_set(sizes[si][0], dim, 1, 0, 1), b = make_set(sizes[si][1], dim, 1, 0, 1);
                char name[96];
                snprintf(name, sizeof name, "%s D=%d %lldx%lld", m ? "cosine" : "l2", dim, (long long)sizes[si][0],
                         (long long)sizes[si][1]);
                validate_case(name, &a.s, &b.s, (tsk_metric)m, 0, 0);
                snprintf(name, sizeof name, "%s D=%d self %lld", m ? "cosine" : "l2", dim, (long long)sizes[si][0]);
                validate_case(name, &a.s, &a.s, (tsk_metric)m, 0, 0);
                free_set(&a);
                free_set(&b);
            }
        }
    }
    for (int m = 0; m < 2; m++) {
        owned_set a = make_set(700, 96, 1, 0, 1), b = make_set(450, 96, 1, 0, 1);
        validate_case(m ? "cosine blocked refs 200 queries 150" : "l2 blocked refs 200 queries 150", &a.s, &b.s, m, 200, 150);
        validate_case(m ? "cosine blocked self 700 (refs 200)" : "l2 blocked self 700 (refs 200)", &a.s, &a.s, m, 200, 150);
        free_set(&a);
        free_set(&b);
        owned_set u = make_set(150, 16, 3, 0, 1);
        validate_case(m ? "cosine 3-row items D=16 self 150" : "l2 3-row items D=16 self 150", &u.s, &u.s, m, 0, 0);
        free_set(&u);
        owned_set s1 = make_set(90, 16, 0, 5, 1), s2 = make_set(70, 16, 0, 5, 1);
        validate_case(m ? "cosine slide 0..5 rows D=16 90x70" : "l2 slide 0..5 rows D=16 90x70", &s1.s, &s2.s, m, 0, 0);
        validate_case(m ? "cosine slide self 90" : "l2 slide self 90", &s1.s, &s1.s, m, 0, 0);
        free_set(&s1);
        free_set(&s2);
    }
}

/* ---- timing ---- */

typedef int (*bench_fn)(tsk_gpu_dist *g, int64_t n, void *ctx);

static int run_topk(tsk_gpu_dist *g, int64_t n, void *ctx)
{
    int k = *(int *)ctx;
    tsk_pair *out = malloc(sizeof(tsk_pair) * (size_t)n * k);
    int rc = tsk_gpu_dist_topk(g, 0, n, k, TSK_PAIRS_NOT_SELF, out);
    free(out);
    return rc;
}

static int run_full(tsk_gpu_dist *g, int64_t n, void *ctx)
{
    (void)ctx;
    const int64_t blk = 2048;  /* query block as the CLI streams it */
    float *buf = malloc(sizeof(float) * (size_t)blk * n);
    int rc = 0;
    for (int64_t q = 0; q < n && !rc; q += blk) rc = tsk_gpu_dist_block(g, q, n - q < blk ? n - q : blk, 0, n, buf, n);
    free(buf);
    return rc;
}

static int run_within(tsk_gpu_dist *g, int64_t n, void *ctx)
{
    float thr = *(float *)ctx;
    tsk_pair *pairs = NULL;
    int64_t np = 0, cap = 0;
    int rc = tsk_gpu_dist_within(g, 0, n, thr, TSK_PAIRS_UPPER, &pairs, &np, &cap);
    free(pairs);
    return rc;
}

static int timed(const char *what, int64_t n, double pairs, int reps, bench_fn fn, void *ctx)
{
    owned_set a = make_set(n, 96, 1, 0, 0);
    char err[512];
    tsk_gpu_dist *g = tsk_gpu_dist_open(&a.s, &a.s, TSK_METRIC_L2, NULL, 0, 0, err, sizeof err);
    if (!g) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double t[16];
    if (reps > 16) reps = 16;
    if (fn(g, n < 4096 ? n : 4096, ctx)) goto fail;  /* warm-up: uploads, module load */
    for (int i = 0; i < reps; i++) {
        double t0 = bench_now();
        if (fn(g, n, ctx)) goto fail;
        t[i] = bench_now() - t0;
    }
    double med = bench_median(t, reps);
    printf("%-28s N=%-8lld median %9.4f s  %.3e pairs/s  (min %.4f, max %.4f, %d reps)\n", what, (long long)n, med,
           pairs / med, t[0], t[reps - 1], reps);
    tsk_gpu_dist_close(g);
    free_set(&a);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", what, tsk_gpu_dist_error(g));
    tsk_gpu_dist_close(g);
    free_set(&a);
    return 1;
}

int main(int argc, char **argv)
{
    char why[256] = "";
    const char *cmd = argc > 1 ? argv[1] : "validate";
    int n_dev = tsk_gpu_device_count(why, sizeof why);
    if (!strcmp(cmd, "devices")) {
        if (n_dev) printf("%d CUDA device(s)\n", n_dev);
        else printf("no GPU: %s\n", why);
        return 0;
    }
    if (!n_dev) {
        fprintf(stderr, "dist_bench: no GPU: %s\n", why);
        return 5;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!strcmp(cmd, "small")) {  /* one small case per metric, for compute-sanitizer racecheck */
        owned_set a = make_set(131, 20, 1, 0, 1);
        validate_case("l2 D=20 self 131", &a.s, &a.s, TSK_METRIC_L2, 0, 0);
        validate_case("cosine D=20 self 131 (blocked)", &a.s, &a.s, TSK_METRIC_COSINE, 100, 60);
        free_set(&a);
        return failures ? 1 : 0;
    }
    if (!strcmp(cmd, "validate")) {
        validate(argc > 2 && !strcmp(argv[2], "quick"));
        printf("validation: %s (%d mismatches)\n", failures ? "FAILED" : "all passed", failures);
        return failures ? 1 : 0;
    }
    int64_t n = argc > 2 ? atoll(argv[2]) : 10000;
    if (!strcmp(cmd, "topk")) {
        int k = argc > 3 ? atoi(argv[3]) : 10, reps = argc > 4 ? atoi(argv[4]) : 3;
        char what[64];
        snprintf(what, sizeof what, "top-%d all-vs-all", k);
        return timed(what, n, (double)n * n, reps, run_topk, &k);
    }
    if (!strcmp(cmd, "full")) return timed("full matrix (blocks of 2048)", n, (double)n * n, argc > 3 ? atoi(argv[3]) : 3, run_full, NULL);
    if (!strcmp(cmd, "within")) {
        /* random uniform [-1,1]^96: distances concentrate near sqrt(64) = 8; keep the close tail */
        float thr = argc > 3 ? (float)atof(argv[3]) : 5.5f;
        return timed("within i<j", n, (double)n * (n - 1) / 2, argc > 4 ? atoi(argv[4]) : 3, run_within, &thr);
    }
    fprintf(stderr, "usage: dist_bench devices|validate [quick]|topk N K [REPS]|full N [REPS]|within N [THR] [REPS]\n");
    return 2;
}
