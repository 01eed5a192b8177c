/* dist_bench.c: throughput of the CPU distance engine (pairs/s) per kernel and thread count, and
 * the accuracy argument for its design: the same blocked loop computing a.b for the expansion
 * |a|^2 + |b|^2 - 2ab (float32) against the direct sum of (a-b)^2, on near-identical sketches.
 *
 *   ninja -C build bench/cpu/dist_bench && build/bench/cpu/dist_bench 8000 96
 *   for k in avx512 avx2 portable; do TSKETCH_DIST_KERNEL=$k build/bench/cpu/dist_bench 8000 96; done
 * The kernel is the one tsketch picks (the environment's knobs are read once a process: one kernel
 * a run); the thread count doubles from 1 to the cores.
 */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_dist.h"

static uint64_t rng = 88172645463325252ULL;
static float uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 - 0.5);
}

/* The dot-product expansion in float32, as a GEMM would give it. */
__attribute__((target("avx512f"))) static float l2_by_dot(const float *a, const float *b, int dim, float na2, float nb2)
{
    __m512 acc = _mm512_setzero_ps();
    int k = 0;
    for (; k + 16 <= dim; k += 16) acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + k), _mm512_loadu_ps(b + k), acc);
    float ab = _mm512_reduce_add_ps(acc);
    for (; k < dim; k++) ab += a[k] * b[k];
    float s = na2 + nb2 - 2 * ab;
    return s > 0 ? sqrtf(s) : 0;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 8000;
    int dim = argc > 2 ? atoi(argv[2]) : 96;
    float *rows = malloc((size_t)(n * dim) * sizeof *rows);
    int64_t *first = malloc((size_t)n * sizeof *first), *nrows = malloc((size_t)n * sizeof *nrows);
    for (int64_t i = 0; i < n * dim; i++) rows[i] = uniform();
    for (int64_t i = 0; i < n; i++) first[i] = i, nrows[i] = 1;
    tsk_sketch_set s = {n, dim, rows, first, nrows};
    float *out = malloc((size_t)(n * n) * sizeof *out);
    tsk_pair *top = malloc((size_t)n * 10 * sizeof *top);
    char err[256];
    const char *kernel = getenv("TSKETCH_DIST_KERNEL") ? getenv("TSKETCH_DIST_KERNEL") : "auto";
    for (int threads = 1; threads <= omp_get_num_procs(); threads *= 2) {
        tsk_cpu_dist *d = tsk_cpu_dist_open(&s, &s, TSK_METRIC_L2, threads, err, sizeof err);
        tsk_cpu_dist_block(d, 0, n, 0, n, out, n); /* warm up: page in the output */
        double t0 = omp_get_wtime();
        tsk_cpu_dist_block(d, 0, n, 0, n, out, n);
        double t1 = omp_get_wtime();
        tsk_cpu_dist_topk(d, 0, n, 10, TSK_PAIRS_NOT_SELF, top);
        double t2 = omp_get_wtime();
        printf("kernel %-8s threads %d  D=%d N=%lld  block %.3g pairs/s (%.3g per thread)  top-10 %.3g pairs/s\n",
               kernel, threads, dim, (long long)n, (double)n * n / (t1 - t0),
               (double)n * n / (t1 - t0) / threads, (double)n * n / (t2 - t1));
        tsk_cpu_dist_close(d);
    }
    /* Accuracy on near-identical sketches: b = a (1 + 1e-4 e), l2 ~ 1e-4 |a|. */
    double worst_direct = 0, worst_dot = 0;
    int m = 200;
    for (int i = 0; i < m; i++)
        for (int k = 0; k < dim; k++) rows[(2 * i + 1) * dim + k] = rows[2 * i * dim + k] * (1 + 1e-4f * uniform());
    tsk_sketch_set pairs = {2 * m, dim, rows, first, nrows};
    tsk_cpu_dist *d = tsk_cpu_dist_open(&pairs, &pairs, TSK_METRIC_L2, 1, err, sizeof err);
    float *o = malloc((size_t)(4 * m * m) * sizeof *o);
    tsk_cpu_dist_block(d, 0, 2 * m, 0, 2 * m, o, 2 * m);
    for (int i = 0; i < m; i++) {
        const float *a = rows + 2 * i * dim, *b = a + dim;
        double want = tsk_distance_naive(a, b, dim, TSK_METRIC_L2);
        float na2 = 0, nb2 = 0;
        for (int k = 0; k < dim; k++) na2 += a[k] * a[k], nb2 += b[k] * b[k];
        double e1 = fabs(o[(2 * i) * 2 * m + 2 * i + 1] - want) / want, e2 = fabs(l2_by_dot(a, b, dim, na2, nb2) - want) / want;
        worst_direct = fmax(worst_direct, e1);
        worst_dot = fmax(worst_dot, e2);
    }
    printf("near-identical pairs (l2 ~ 1e-4 |a|): worst relative error  direct (a-b)^2 %.2g   dot expansion %.2g\n",
           worst_direct, worst_dot);
    tsk_cpu_dist_close(d);
    return 0;
}
