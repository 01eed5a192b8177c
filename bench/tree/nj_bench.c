/* nj_bench.c: times neighbour joining alone (cpu/nj_tree.c) on a float32 square matrix written by
 * `tsketch dist -f npy`, and, with --naive, the plain O(n^3) scan on the same matrix (checking
 * that both give the same tree).
 *
 *   nj_bench [--naive] [-p THREADS] MATRIX.npy
 *
 * Prints n, wall and CPU seconds of each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../cpu/nj_tree.h"

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static float *load_npy(const char *path, int64_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char head[10];
    if (!f || fread(head, 1, 10, f) != 10 || memcmp(head, "\x93NUMPY", 6)) return NULL;
    size_t hlen = (size_t)head[8] | (size_t)head[9] << 8;
    char *h = calloc(hlen + 1, 1);
    if (!h || fread(h, 1, hlen, f) != hlen) return NULL;
    long long rows = 0, cols = 0;
    const char *s = strstr(h, "'shape': (");
    if (!strstr(h, "<f4") || !s || sscanf(s, "'shape': (%lld, %lld)", &rows, &cols) != 2 || rows != cols) return NULL;
    free(h);
    float *d = malloc((size_t)(rows * cols) * sizeof *d);
    if (!d || fread(d, sizeof *d, (size_t)(rows * cols), f) != (size_t)(rows * cols)) return NULL;
    fclose(f);
    *n = rows;
    return d;
}

int main(int argc, char **argv)
{
    int naive = 0, threads = 1;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--naive")) naive = 1;
        else if (!strcmp(argv[i], "-p") && i + 1 < argc) threads = atoi(argv[++i]);
        else path = argv[i];
    }
    int64_t n = 0;
    float *d = path ? load_npy(path, &n) : NULL;
    if (!d) {
        fprintf(stderr, "usage: nj_bench [--naive] [-p THREADS] MATRIX.npy (a float32 square .npy)\n");
        return 2;
    }
    float *copy = naive ? malloc((size_t)(n * n) * sizeof *copy) : NULL;
    if (copy) memcpy(copy, d, (size_t)(n * n) * sizeof *d);
    char err[256];
    tsk_tree fast, slow;
    double w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
    if (tsk_nj_build(d, n, threads, &fast, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    printf("n %lld  sorted-row search (-p %d): wall %.2f s  cpu %.2f s\n", (long long)n, threads,
           now(CLOCK_MONOTONIC) - w, now(CLOCK_PROCESS_CPUTIME_ID) - c);
    if (copy) {
        w = now(CLOCK_MONOTONIC), c = now(CLOCK_PROCESS_CPUTIME_ID);
        if (tsk_nj_build_naive(copy, n, &slow, err, sizeof err)) return 1;
        int same = 1;
        for (int64_t k = 0; k < fast.n_joins; k++)
            same &= fast.children[k][0] == slow.children[k][0] && fast.children[k][1] == slow.children[k][1];
        for (int64_t v = 0; v < n + fast.n_joins; v++) same &= fast.length[v] == slow.length[v];
        printf("n %lld  plain scan: wall %.2f s  cpu %.2f s  same tree: %s\n", (long long)n, now(CLOCK_MONOTONIC) - w,
               now(CLOCK_PROCESS_CPUTIME_ID) - c, same ? "yes" : "NO");
        if (!same) return 1;
    }
    return 0;
}
