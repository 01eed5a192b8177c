/* sketch_reference.c: the plain scalar DP of docs/spec.md in double, the slow reference that benches
 * and tests measure the engine against (tsk_cpu_sketch_reference in cpu_sketch.h). Deliberately
 * written as the definition reads, with no tricks. */
#include "cpu_sketch.h"

#include <stdlib.h>
#include <string.h>

void tsk_cpu_sketch_reference(const tsk_params *p, const uint8_t *codes, int64_t n, double *out)
{
    const int t = p->t, dim = p->dim;
    memset(out, 0, (size_t)dim * sizeof *out);
    if (n < t) return;
    double *T = calloc((size_t)(t + 1) * (size_t)dim, sizeof *T);
    double *next = malloc((size_t)dim * sizeof *next);
    if (!T || !next) { /* the reference has no error path; callers are tests and benches */
        free(T);
        free(next);
        abort();
    }
    T[0] = 1.0;
    for (int64_t i = 0; i < n; i++) {
        const int c = codes[i];
        for (int pp = (i + 1 < t ? (int)i + 1 : t); pp >= 1; pp--) {
            const double z = (double)pp / (double)(i + 1);
            const int h = p->hash[pp - 1][c];
            const double s = p->sign[pp - 1][c];
            const double *prev = T + (size_t)(pp - 1) * dim;
            double *cur = T + (size_t)pp * dim;
            for (int l = 0; l < dim; l++) next[l] = (1.0 - z) * cur[l] + z * s * prev[(l - h + dim) % dim];
            memcpy(cur, next, (size_t)dim * sizeof *next);
        }
    }
    memcpy(out, T + (size_t)t * dim, (size_t)dim * sizeof *out);
    free(T);
    free(next);
}

void tsk_cpu_suffix_reference(const tsk_params *p, const uint8_t *codes, int64_t n, double *out)
{
    const int t = p->t, dim = p->dim;
    double *G = calloc((size_t)(t + 1) * (size_t)dim, sizeof *G);
    double *next = malloc((size_t)dim * sizeof *next);
    if (!G || !next) {
        free(G);
        free(next);
        abort();
    }
    G[0] = 1.0;
    for (int64_t i = 0; i < n; i++) {  /* i characters seen, from the right */
        const int c = codes[n - 1 - i];
        for (int q = (i + 1 < t ? (int)i + 1 : t); q >= 1; q--) {
            const double z = (double)q / (double)(i + 1);
            const int lev = t - q;  /* level t-q+1, 0-based */
            const int h = p->hash[lev][c];
            const double s = p->sign[lev][c];
            const double *prev = G + (size_t)(q - 1) * dim;
            double *cur = G + (size_t)q * dim;
            for (int l = 0; l < dim; l++) next[l] = (1.0 - z) * cur[l] + z * s * prev[(l - h + dim) % dim];
            memcpy(cur, next, (size_t)dim * sizeof *next);
        }
    }
    for (int j = 0; j < t; j++) memcpy(out + (size_t)j * dim, G + (size_t)(t - j) * dim, (size_t)dim * sizeof *out);
    free(G);
    free(next);
}
