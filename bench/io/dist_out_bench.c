/* dist_out_bench: io/dist_out.c writing the lines of a vector top-k, as `dist --top-k 10` of 10^6
 * read sketches hands them over (blocks of 8,192 queries, each line naming a random neighbour of
 * 10^6 first): validates, then times.
 *
 *   dist_out_bench [N [THREADS [RUNS]]]     (N queries and names, 10^6; 1 thread; 5 runs)
 *
 * Validation: the first 2 x 10^5 lines against snprintf("%s\t%s\t%.9g\n") of the same pairs, byte
 * for byte (exit 1 on any difference, before any timing). Timing: all N x 10 lines written to
 * /dev/null, ns per line, median of RUNS. The names ("r0" .. "r999999", as reads files name reads)
 * lie in one block in item order, as a loaded .tsk holds them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/tsk_def.h"
#include "../../io/dist_out.h"
#include "../bench_clock.h"

#define K 10
#define BLOCK 8192 /* queries a block, as src/dist_run.c hands vector top-k blocks to the sink */

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* The lines of pairs [0, n) written through io/dist_out.c into path, block by block. */
static int write_all(const char *path, const char *const *names, int64_t n_names, const tsk_pair *pairs, int64_t n,
                     int threads)
{
    char err[256];
    tsk_dist_out *o = tsk_dist_out_open(path, TSK_DIST_TSV, names, n_names, names, n_names, 0, err, sizeof err);
    if (!o) {
        fprintf(stderr, "dist_out_bench: %s\n", err);
        return -1;
    }
    for (int64_t at = 0; at < n; at += (int64_t)BLOCK * K)
        if (tsk_dist_out_pairs(o, pairs + at, n - at < (int64_t)BLOCK * K ? n - at : (int64_t)BLOCK * K, 0, INFINITY,
                               threads)) {
            tsk_dist_out_abort(o);
            return -1;
        }
    return tsk_dist_out_finish(o, err, sizeof err);
}

int main(int argc, char **argv)
{
    const int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    const int threads = argc > 2 ? atoi(argv[2]) : 1, runs = argc > 3 ? atoi(argv[3]) : 5;
    char *text = malloc((size_t)n * 12);
    const char **names = malloc((size_t)n * sizeof *names);
    tsk_pair *pairs = malloc((size_t)n * K * sizeof *pairs);
    if (n < 1 || !text || !names || !pairs) return 2;
    size_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        names[i] = text + at;
        at += (size_t)sprintf(text + at, "r%lld", (long long)i) + 1;
    }
    uint64_t s = 88172645463325252ull;
    for (int64_t q = 0; q < n; q++)
        for (int j = 0; j < K; j++) {
            const float d = 0.1f + (float)(next(&s) >> 40) / (float)(1 << 24);
            pairs[q * K + j] = (tsk_pair){q, (int64_t)(next(&s) % (uint64_t)n), d};
        }

    /* validation */
    const int64_t n_check = n * K < 200000 ? n * K : 200000;
    char tmp[] = "/tmp/dist_out_bench.XXXXXX";
    const int fd = mkstemp(tmp);
    if (fd < 0 || write_all(tmp, names, n, pairs, n_check, threads)) return 2;
    FILE *f = fopen(tmp, "rb");
    if (!f) return 2;
    long bad = 0;
    char want[128], got[128];
    for (int64_t i = 0; i < n_check && !bad; i++) {
        const tsk_pair *p = &pairs[i];
        snprintf(want, sizeof want, "%s\t%s\t%.9g\n", names[p->ref], names[p->query], (double)p->dist);
        if (!fgets(got, sizeof got, f) || strcmp(want, got)) {
            fprintf(stderr, "line %lld differs: want '%s' got '%s'\n", (long long)i, want, got);
            bad++;
        }
    }
    if (fgetc(f) != EOF) bad++;
    fclose(f);
    unlink(tmp);
    if (bad) return 1;
    printf("validated: %lld lines = snprintf's\n", (long long)n_check);

    double *t = malloc((size_t)runs * sizeof *t);
    for (int r = 0; r < runs; r++) {
        const double t0 = bench_now();
        if (write_all("/dev/null", names, n, pairs, n * K, threads)) return 2;
        t[r] = bench_now() - t0;
    }
    const double med = bench_median(t, runs);
    printf("%lld lines of %lld names, %d thread%s: %.3f s (median of %d), %.1f ns a line\n", (long long)(n * K),
           (long long)n, threads, threads > 1 ? "s" : "", med, runs, 1e9 * med / (double)(n * K));
    free(t);
    free(pairs);
    free(names);
    free(text);
    return 0;
}
