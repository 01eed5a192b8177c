/* genome_scan_bench.c: the GPU genome scanner (gpu/genome_scan.h) on a generated batch of genomes,
 * validated against the CPU scanner (cpu/genome_scan.h), then timed.
 *
 *   genome_scan_bench [MBP [REPS [SCALED [DEVICE]]]]     defaults: 100 Mbp, 7 repeats, scaled 500, device 0
 *
 * The batch: contigs of 1-6 Mbp (bacterial sizes) up to MBP million bases, random codes with
 * planted repeats (copies and reverse-complement copies); the genome defaults of `tsketch sketch
 * --genome` (t 4, D 16, W 20, anchor k 16) with scaled = stride = SCALED and no size floor, each
 * contig's candidate bound tsk_genome_candidate_limit of its length. Validation: every contig's keys
 * from the GPU (sorted) equal the CPU scanner's (sorted); exit 1 on a mismatch. Times: wall-clock
 * medians of REPS synchronous calls: the GPU batch call (codes from pageable memory, transfers and
 * keys back included, scanner opened beforehand), and the CPU scanner over the same contigs on one
 * thread. Prints one TSV line per measurement:
 *   genome_scan <engine> <bases> <contigs> <keys> <median seconds> <Gbp/s>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/genome_keys.h"
#include "../../cpu/genome_scan.h"
#include "../../gpu/genome_scan.h"
#include "../bench_clock.h"

static uint64_t next_rand(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const double mbp = argc > 1 ? atof(argv[1]) : 100;
    const int reps = argc > 2 ? atoi(argv[2]) : 7;
    const int64_t scaled = argc > 3 ? atoll(argv[3]) : 500;
    const int device = argc > 4 ? atoi(argv[4]) : 0;
    if (mbp <= 0 || reps < 1 || scaled < 1) {
        fprintf(stderr, "usage: genome_scan_bench [MBP [REPS [SCALED [DEVICE]]]]\n");
        return 2;
    }
    tsk_params p;
    tsk_params_default(&p);
    p.t = 4;
    p.dim = 16;
    tsk_tables_draw(&p);
    p.canonical = 1;
    p.window = 20;
    p.anchor_k = 16;
    p.scaled = p.stride = scaled;
    p.min_keys = 0;
    const char *bad = tsk_genome_params_check(&p);
    if (bad) {
        fprintf(stderr, "parameters: %s\n", bad);
        return 2;
    }

    /* the batch */
    const int64_t total = (int64_t)(mbp * 1e6);
    uint64_t seed = 42;
    int64_t n = 0, cap_c = 64;
    int64_t *offset = malloc((size_t)(cap_c + 1) * sizeof *offset);
    offset[0] = 0;
    while (offset[n] < total) {
        if (n == cap_c) offset = realloc(offset, (size_t)((cap_c *= 2) + 1) * sizeof *offset);
        int64_t len = 1000000 + (int64_t)(next_rand(&seed) % 5000000);
        if (len > total - offset[n]) len = total - offset[n];
        offset[n + 1] = offset[n] + len;
        n++;
    }
    uint8_t *codes = malloc((size_t)total);
    uint64_t *max_hash = malloc((size_t)n * sizeof *max_hash);
    if (!codes || !max_hash) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < total; i++) codes[i] = (uint8_t)(next_rand(&seed) & 3);
    for (int64_t r = 0; r < total / 5000; r++) {
        const int64_t l = 100 + (int64_t)(next_rand(&seed) % 4900);
        const int64_t a = (int64_t)(next_rand(&seed) % (uint64_t)(total - l)),
                      d = (int64_t)(next_rand(&seed) % (uint64_t)(total - l));
        const int rev = next_rand(&seed) & 1;
        for (int64_t i = 0; i < l; i++) codes[d + i] = rev ? (uint8_t)(3 - codes[a + l - 1 - i]) : codes[a + i];
    }
    for (int64_t c = 0; c < n; c++) max_hash[c] = tsk_genome_candidate_limit(&p, offset[c + 1] - offset[c]);

    char err[256] = "";
    tsk_gpu_genome_scanner *g = tsk_gpu_genome_scanner_open(&p, device, err, sizeof err);
    if (!g) {
        fprintf(stderr, "GPU genome scanner: %s\n", err);
        return 1;
    }
    uint64_t *keys = NULL;
    int64_t keys_cap = 0;
    int64_t *koff = malloc((size_t)(n + 1) * sizeof *koff);
    tsk_genome_scanner *s = tsk_genome_scanner_new(&p);
    tsk_key_vec v = {0};

    /* validation (the first GPU call also warms up) */
    double t0 = bench_now();
    if (tsk_gpu_genome_scan_batch(g, codes, offset, max_hash, n, &keys, &keys_cap, koff, err, sizeof err)) {
        fprintf(stderr, "GPU batch: %s\n", err);
        return 1;
    }
    const double first = bench_now() - t0;
    const int64_t n_keys = koff[n];
    int ok = 1;
    for (int64_t c = 0; c < n && ok; c++) {
        const int64_t len = offset[c + 1] - offset[c];
        v.n = 0;
        if (tsk_genome_scan(s, codes + offset[c], len, 0, len, max_hash[c], &v)) {
            fprintf(stderr, "CPU scan: out of memory\n");
            return 1;
        }
        const int64_t got = koff[c + 1] - koff[c];
        if (got != v.n) {
            fprintf(stderr, "FAIL contig %lld: GPU %lld keys, CPU %lld\n", (long long)c, (long long)got, (long long)v.n);
            ok = 0;
            break;
        }
        qsort(keys + koff[c], (size_t)got, sizeof *keys, cmp_u64);
        qsort(v.keys, (size_t)v.n, sizeof *v.keys, cmp_u64);
        for (int64_t j = 0; j < got; j++)
            if (keys[koff[c] + j] != v.keys[j]) {
                fprintf(stderr, "FAIL contig %lld: sorted key %lld: GPU %016llx, CPU %016llx\n", (long long)c,
                        (long long)j, (unsigned long long)keys[koff[c] + j], (unsigned long long)v.keys[j]);
                ok = 0;
                break;
            }
    }
    printf("# %s: GPU keys = CPU keys for %lld contigs, %lld bases, %lld keys (first GPU call %.3f s)\n",
           ok ? "PASS" : "FAIL", (long long)n, (long long)total, (long long)n_keys, first);
    if (!ok) return 1;

    double *t = malloc((size_t)reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        if (tsk_gpu_genome_scan_batch(g, codes, offset, max_hash, n, &keys, &keys_cap, koff, err, sizeof err)) {
            fprintf(stderr, "GPU batch: %s\n", err);
            return 1;
        }
        t[r] = bench_now() - t0;
    }
    double m = bench_median(t, reps);
    printf("genome_scan\tgpu\t%lld\t%lld\t%lld\t%.6f\t%.3f\n", (long long)total, (long long)n, (long long)n_keys, m,
           (double)total / m * 1e-9);
    fflush(stdout);

    const int cpu_reps = reps < 3 ? reps : 3;
    int64_t cpu_keys = 0;
    for (int r = 0; r < cpu_reps; r++) {
        v.n = 0;
        t0 = bench_now();
        for (int64_t c = 0; c < n; c++) {
            const int64_t len = offset[c + 1] - offset[c];
            if (tsk_genome_scan(s, codes + offset[c], len, 0, len, max_hash[c], &v)) {
                fprintf(stderr, "CPU scan: out of memory\n");
                return 1;
            }
        }
        t[r] = bench_now() - t0;
        cpu_keys = v.n;
    }
    m = bench_median(t, cpu_reps);
    printf("genome_scan\tcpu_1_thread\t%lld\t%lld\t%lld\t%.6f\t%.3f\n", (long long)total, (long long)n,
           (long long)cpu_keys, m, (double)total / m * 1e-9);

    free(t);
    tsk_key_vec_free(&v);
    tsk_genome_scanner_free(s);
    tsk_gpu_genome_scanner_close(g);
    free(keys), free(koff), free(codes), free(offset), free(max_hash);
    return 0;
}
