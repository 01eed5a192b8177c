/* genome_index_bench.c: the inverted-index CPU engine (cpu/genome_index.h) against the merge
 * engine (cpu/genome_sets.h) on synthetic genome sketches, validated, then timed.
 *
 *   genome_index_bench run N KEYS [REPS] [MERGE_QUERIES]
 *   genome_index_bench share N KEYS F [MERGE_QUERIES]    the break-even (share_sweep below)
 *
 * N genomes of ~KEYS keys, made by the generator of bench/gpu/genome_sets_bench.c (copied below,
 * the same sketches for the same N and KEYS: its `gen N KEYS OUT.tsk` writes them as a file):
 * species-like clusters, genera, small genomes above the size floor. It validates a run of queries
 * from the middle of the set (top-10 and the -d 0.05 share floor, both modes) index = merge byte
 * for byte, exit 1 on any mismatch; then times, as medians of REPS (3) runs of whole-set calls on
 * OMP_NUM_THREADS threads (default: all): the index build (open), its top-10 (NOT_SELF), its
 * pairs i < j with d <= 0.05 (UPPER), and the same two of the merge engine on MERGE_QUERIES
 * queries (default min(N, 1000)) scaled to N (a merge query costs the same against every
 * reference, so the scaling is fair). It prints the index's bytes against the sketches', the
 * postings walked, and the per-unit costs genome_index.h's cost model takes. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../../core/genome_keys.h"
#include "../../cpu/genome_index.h"
#include "../../cpu/genome_sets.h"
#include "../bench_clock.h"
#include "../genome/synthetic_sets.h"

/* ---- validation and timing (the sketches: ../genome/synthetic_sets.h) ---- */

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

static double peak_rss_mb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0;
}

/* Queries q0 .. q0+nq-1: top-10 and the share floor, index = merge, both modes. */
static void validate(tsk_cpu_genome_index *x, tsk_cpu_genome_sets *m, int64_t q0, int64_t nq, double floor_share)
{
    const int k = 10;
    tsk_genome_pair *want = malloc(sizeof *want * (size_t)(k * nq)), *got = malloc(sizeof *got * (size_t)(k * nq));
    char what[200];
    for (int mode = 0; mode < 2; mode++) {
        tsk_cpu_genome_sets_topk(m, q0, nq, k, (tsk_genome_mode)mode, TSK_PAIRS_NOT_SELF, want);
        int ok = !tsk_cpu_genome_index_topk(x, q0, nq, k, (tsk_genome_mode)mode, TSK_PAIRS_NOT_SELF, got);
        snprintf(what, sizeof what, "%s top-10 of queries %lld..%lld: index = merge",
                 mode ? "containment" : "symmetric", (long long)q0, (long long)(q0 + nq - 1));
        check(ok && !memcmp(want, got, sizeof *got * (size_t)(k * nq)), what);
        tsk_genome_pair *wp = NULL, *gp = NULL;
        int64_t nw = 0, ng = 0, cw = 0, cg = 0;
        const tsk_pair_filter f = mode ? TSK_PAIRS_NOT_SELF : TSK_PAIRS_UPPER;
        tsk_cpu_genome_sets_within(m, q0, nq, floor_share, (tsk_genome_mode)mode, f, &wp, &nw, &cw);
        ok = !tsk_cpu_genome_index_within(x, q0, nq, floor_share, (tsk_genome_mode)mode, f, &gp, &ng, &cg);
        snprintf(what, sizeof what, "%s share >= %.4f (%lld pairs): index = merge", mode ? "containment" : "symmetric",
                 floor_share, (long long)nw);
        check(ok && nw == ng && (nw == 0 || !memcmp(wp, gp, sizeof *gp * (size_t)nw)), what);
        free(wp), free(gp);
    }
    free(want), free(got);
}

static int run(int64_t n, int64_t keys, int reps, int64_t merge_queries)
{
    const int threads = omp_get_max_threads();
    double t0 = bench_now();
    owned_sets o = make_genomes(n, keys);
    const tsk_key_sets *s = &o.s;
    const int64_t n_keys = s->offset[n];
    /* what the sketches take in memory: keys, offsets, thresholds (a .tsk adds names and lengths) */
    const double sketch_mb = (double)(8 * n_keys + 16 * (n + 1)) / 1048576.0;
    printf("made %lld genomes, %lld keys (%.0f per genome, %.1f MB of sketches) in %.1f s; %d threads\n", (long long)n,
           (long long)n_keys, (double)n_keys / (double)n, sketch_mb, bench_now() - t0, threads);
    char err[256];
    double t[16], t_open[16];
    tsk_cpu_genome_index *x = NULL;
    reps = reps < 1 ? 1 : reps > 16 ? 16 : reps;
    const double rss_before = peak_rss_mb();
    for (int r = 0; r < reps; r++) {
        if (x) tsk_cpu_genome_index_close(x);
        t0 = bench_now();
        x = tsk_cpu_genome_index_open(s, s, threads, err, sizeof err);
        t_open[r] = bench_now() - t0;
        if (!x) {
            fprintf(stderr, "open: %s\n", err);
            free_sets(&o);
            return 2;
        }
    }
    const double index_mb = (double)tsk_cpu_genome_index_bytes(x) / 1048576.0;
    printf("index: %.1f MB (%.2f bytes per key; index + sketches = %.2f x the sketches), built in %.3f s; peak RSS "
           "%.0f MB (%.0f MB before the index)\n",
           index_mb, index_mb * 1048576.0 / (double)n_keys, (index_mb + sketch_mb) / sketch_mb, bench_median(t_open, reps),
           peak_rss_mb(), rss_before);
    tsk_cpu_genome_sets *m = tsk_cpu_genome_sets_open(s, s, threads, err, sizeof err);
    const double floor_share = tsk_genome_share_floor(0.05, WINDOW);
    int64_t sample = 640000 / n;
    sample = sample > merge_queries ? merge_queries : sample; /* the validation costs what the merge's timing does */
    sample = sample < 16 ? 16 : sample > n ? n : sample;
    t0 = bench_now();
    validate(x, m, (n - sample) / 2, sample, floor_share);
    printf("validation of %lld queries: %.1f s\n", (long long)sample, bench_now() - t0);

    t0 = bench_now();
    const int64_t walked = tsk_cpu_genome_index_walk(x, 0, n);
    const double t_walk = bench_now() - t0;
    const int k = 10;
    tsk_genome_pair *top = malloc(sizeof *top * (size_t)(n * k));
    tsk_genome_pair *pp = NULL;
    int64_t np = 0, cap = 0, found = 0;
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        if (tsk_cpu_genome_index_topk(x, 0, n, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top)) {
            fprintf(stderr, "topk: %s\n", tsk_cpu_genome_index_error(x));
            return 2;
        }
        t[r] = bench_now() - t0;
    }
    const double x_top = bench_median(t, reps);
    for (int64_t i = 0; i < n * k; i++) found += top[i].ref >= 0;
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        if (tsk_cpu_genome_index_within(x, 0, n, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &pp, &np, &cap)) {
            fprintf(stderr, "within: %s\n", tsk_cpu_genome_index_error(x));
            return 2;
        }
        t[r] = bench_now() - t0;
    }
    const double x_within = bench_median(t, reps);
    /* the merge on a run of queries from the middle, scaled to the whole set */
    const int64_t mq = merge_queries > 0 && merge_queries < n ? merge_queries : n, mq0 = (n - mq) / 2;
    const double scale = (double)n / (double)mq;
    const int mreps = mq == n && n > 4000 ? 1 : reps;
    for (int r = 0; r < mreps; r++) {
        t0 = bench_now();
        tsk_cpu_genome_sets_topk(m, mq0, mq, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top);
        t[r] = bench_now() - t0;
    }
    const double m_top = bench_median(t, mreps) * scale;
    int64_t mnp = 0;
    for (int r = 0; r < mreps; r++) {
        t0 = bench_now();
        /* UPPER would leave the later queries little to do: NOT_SELF then halved is the same work per pair */
        tsk_cpu_genome_sets_within(m, mq0, mq, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, &pp, &mnp, &cap);
        t[r] = bench_now() - t0;
    }
    const double m_within = bench_median(t, mreps) * scale / 2;
    printf("N=%lld keys=%lld threads=%d: index open %.3f s | top-10: index %.3f s, merge %.3f s%s (%.1fx; %lld "
           "neighbours) | d<=0.05: index %.3f s, merge %.3f s%s (%.1fx; %lld pairs i<j)\n",
           (long long)n, (long long)keys, threads, bench_median(t_open, reps), x_top, m_top, mq < n ? " (scaled)" : "",
           m_top / x_top, (long long)found, x_within, m_within, mq < n ? " (scaled)" : "", m_within / x_within,
           (long long)np);
    /* the cost model's units, in ns of one thread */
    const double pairs = (double)n * (double)n, pair_keys = 2.0 * (double)n * (double)n_keys;
    printf("walked %lld postings (%.1f per query key, %.4f of all pair keys) in %.3f s | per thread: index top-10 "
           "%.2f ns per posting walked, build %.1f ns per key; merge top-10 %.3f ns per key merged (%.0f ns per pair)\n",
           (long long)walked, (double)walked / (double)n_keys, (double)walked / pair_keys * 2.0, t_walk,
           x_top * threads * 1e9 / (double)walked, bench_median(t_open, reps) * threads * 1e9 / (double)n_keys,
           m_top * threads * 1e9 / pair_keys, m_top * threads * 1e9 / pairs);
    const double model_merge = tsk_genome_merge_cost(n, n_keys, n, n_keys) / threads * 1e-9;
    const double model_index = tsk_genome_index_cost(n, n_keys, n, n_keys, (double)walked, 0) / threads * 1e-9;
    printf("cost model (genome_index.h) on %d threads: merge %.2f s, index %.2f s (build included); measured top-10 "
           "merge %.2f s, index %.2f s + open %.2f s\n",
           threads, model_merge, model_index, m_top, x_top, bench_median(t_open, reps));
    free(top);
    free(pp);
    tsk_cpu_genome_sets_close(m);
    tsk_cpu_genome_index_close(x);
    free_sets(&o);
    return failures ? 1 : 0;
}

/* The break-even: N genomes of KEYS keys, each key the j-th of a pool all genomes draw from with
 * probability F, else the genome's own, so that a pair shares about F^2 of its keys and a query
 * walks about F N postings a key; index (build included) against merge, top-10, one call. */
static int share_sweep(int64_t n, int64_t keys, double f, int64_t merge_queries)
{
    const int threads = omp_get_max_threads();
    uint64_t *k = malloc(sizeof *k * (size_t)(n * keys));
    int64_t *offset = malloc(sizeof *offset * (size_t)(n + 1));
    offset[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t m = 0;
        for (int64_t j = 0; j < keys; j++) k[i * keys + m++] = u01(T_KEEP, (uint64_t)i, (uint64_t)j) < f ? h3(T_POOL, 0, (uint64_t)j) : h3(T_OWN, (uint64_t)i, (uint64_t)j);
        offset[i + 1] = offset[i] + tsk_genome_keys_sort_unique(k + i * keys, m);
        memmove(k + offset[i], k + i * keys, sizeof *k * (size_t)(offset[i + 1] - offset[i]));
    }
    const tsk_key_sets s = {n, k, offset, NULL};
    char err[256];
    const int kk = 10;
    tsk_genome_pair *top = malloc(sizeof *top * (size_t)(n * kk)), *want = malloc(sizeof *want * (size_t)(n * kk));
    double t0 = bench_now();
    tsk_cpu_genome_index *x = tsk_cpu_genome_index_open(&s, &s, threads, err, sizeof err);
    const double t_open = bench_now() - t0;
    t0 = bench_now();
    tsk_cpu_genome_index_topk(x, 0, n, kk, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top);
    const double t_top = bench_now() - t0;
    const int64_t walked = tsk_cpu_genome_index_walk(x, 0, n);
    tsk_cpu_genome_sets *m = tsk_cpu_genome_sets_open(&s, &s, threads, err, sizeof err);
    const int64_t mq = merge_queries > 0 && merge_queries < n ? merge_queries : n, mq0 = (n - mq) / 2;
    t0 = bench_now();
    tsk_cpu_genome_sets_topk(m, mq0, mq, kk, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, want);
    const double t_merge = (bench_now() - t0) * (double)n / (double)mq;
    check(!memcmp(want, top + mq0 * kk, sizeof *top * (size_t)(mq * kk)), "top-10 index = merge");
    const double model_x = tsk_genome_index_cost(n, offset[n], n, offset[n], (double)walked, 0) / threads * 1e-9;
    const double model_m = tsk_genome_merge_cost(n, offset[n], n, offset[n]) / threads * 1e-9;
    printf("N=%lld keys=%lld F=%.2f threads=%d: walked %.3f of pair keys (%.0f per query key) | index %.3f s (open %.3f "
           "+ top-10 %.3f) | merge %.3f s%s | merge/index %.2f | model: index %.3f s, merge %.3f s\n",
           (long long)n, (long long)keys, f, threads, (double)walked / ((double)n * (double)offset[n]),
           (double)walked / (double)offset[n], t_open + t_top, t_open, t_top, t_merge, mq < n ? " (scaled)" : "",
           t_merge / (t_open + t_top), model_x, model_m);
    tsk_cpu_genome_index_close(x);
    tsk_cpu_genome_sets_close(m);
    free(top), free(want), free(k), free(offset);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "run"))
        return run(atoll(argv[2]), atoll(argv[3]), argc > 4 ? atoi(argv[4]) : 3, argc > 5 ? atoll(argv[5]) : 1000);
    if (argc >= 5 && !strcmp(argv[1], "share"))
        return share_sweep(atoll(argv[2]), atoll(argv[3]), atof(argv[4]), argc > 5 ? atoll(argv[5]) : 1000);
    fprintf(stderr, "usage: genome_index_bench run N KEYS [REPS] [MERGE_QUERIES] | share N KEYS F [MERGE_QUERIES]\n");
    return 2;
}
