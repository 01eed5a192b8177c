/* float_text_bench: io/float_text.h's tsk_float_g9 against snprintf("%.9g"): validates, then times.
 *
 *   float_text_bench [all]
 *
 * Validation: by default every 101st float32 bit pattern; `all` compares every one of the 2^32
 * (both signs, NaNs and infinities included) on every OpenMP thread: about 20 core-minutes. Any
 * difference is printed and the exit status is 1, before any timing. Timing: 10^7 distances of
 * the kind `dist` prints (0.001 to 2), ns per value for each, median of 5 runs. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/float_text.h"
#include "../bench_clock.h"

int main(int argc, char **argv)
{
    const uint64_t step = argc > 1 && !strcmp(argv[1], "all") ? 1 : 101;
    long long bad = 0, checked = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : bad, checked)
    for (int64_t block = 0; block < 4096; block++) {
        const uint64_t lo = (uint64_t)block << 20, hi = lo + (UINT64_C(1) << 20);
        for (uint64_t u = lo + (step - lo % step) % step; u < hi; u += step) {
            const uint32_t bits = (uint32_t)u;
            float v;
            memcpy(&v, &bits, sizeof v);
            char fast[40], ref[40];
            const size_t n = tsk_float_g9(fast, v);
            const int m = snprintf(ref, sizeof ref, "%.9g", (double)v);
            checked++;
            if ((int)n != m || strcmp(fast, ref)) {
                if (bad < 10) fprintf(stderr, "%08x: '%s', printf '%s'\n", (unsigned)bits, fast, ref);
                bad++;
            }
        }
    }
    printf("validated: %lld floats, %lld differ\n", checked, bad);
    if (bad) return 1;

    enum { N = 10000000, RUNS = 5 };
    float *v = malloc(N * sizeof *v);
    if (!v) return 1;
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v[i] = 0.001f + 1.999f * (float)(x >> 40) / (float)(1 << 24);
    }
    double t[2][RUNS];
    size_t sink = 0;
    for (int r = 0; r < RUNS; r++) {
        char b[40];
        double t0 = bench_now();
        for (int i = 0; i < N; i++) sink += tsk_float_g9(b, v[i]);
        double t1 = bench_now();
        for (int i = 0; i < N; i++) sink += (size_t)snprintf(b, sizeof b, "%.9g", (double)v[i]);
        t[0][r] = (t1 - t0) / N * 1e9, t[1][r] = (bench_now() - t1) / N * 1e9;
    }
    const double ours = bench_median(t[0], RUNS), theirs = bench_median(t[1], RUNS);
    printf("ns per distance (median of %d): tsk_float_g9 %.1f, snprintf %.1f (%.1fx)  [%zu]\n", RUNS, ours, theirs,
           theirs / ours, sink % 7);
    free(v);
    return 0;
}
