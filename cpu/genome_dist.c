/* genome_dist.c: nearest-row search between two records' slide rows and its summaries
 * (see genome_dist.h). */
#include "genome_dist.h"

#include <math.h>
#include <stdlib.h>

/* A rows handled together: their 16 x D floats stay in L1 while every row (and chord) of B streams
 * past once per block, so B is read na/16 times instead of na times. */
#define A_BLOCK 16

void tsk_genome_opts_default(tsk_genome_opts *o)
{
    o->summary = TSK_GENOME_MEAN_NEAREST;
    o->match_radius = 0.0;
    o->chord = 0;   /* chords gave no consistent gain (docs/accuracy.md) and cost twice the time */
    o->threads = 1;
}

/* Squared distance from a to the segment b0 + u (b1 - b0), u in [0, 1]; ee = |b1 - b0|^2.
 * Differences are taken in float (exact enough: neighbouring rows agree in most digits) and
 * accumulated in double. */
static double chord_d2(const float *a, const float *b0, const float *b1, double ee, int dim)
{
    double pp = 0.0, pe = 0.0;
    for (int k = 0; k < dim; k++) {
        double p = (double)(a[k] - b0[k]);
        double e = (double)(b1[k] - b0[k]);
        pp += p * p;
        pe += p * e;
    }
    if (ee <= 0.0 || pe <= 0.0) return pp;                /* b0 is the nearest point */
    if (pe >= ee) {                                       /* past b1: the next chord (or b1) owns it */
        double q = 0.0;
        for (int k = 0; k < dim; k++) {
            double d = (double)(a[k] - b1[k]);
            q += d * d;
        }
        return q;
    }
    double u = pe / ee;
    double d2 = pp - u * pe;                              /* pp - 2 u pe + u^2 ee with u = pe/ee */
    return d2 > 0.0 ? d2 : 0.0;
}

static double point_d2(const float *a, const float *b, int dim)
{
    double s = 0.0;
    for (int k = 0; k < dim; k++) {
        double d = (double)(a[k] - b[k]);
        s += d * d;
    }
    return s;
}

int tsk_genome_nearest(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                       int chord, int threads, double *nearest)
{
    if (na < 0 || nb < 0 || dim < 1 || (na > 0 && (!rows_a || !nearest)) || (nb > 0 && !rows_b))
        return -1;
    if (nb == 0) {
        for (int64_t i = 0; i < na; i++) nearest[i] = INFINITY;
        return 0;
    }
    int use_chord = chord && nb >= 2;
    double *ee = NULL;
    if (use_chord) {
        ee = malloc(sizeof *ee * (size_t)(nb - 1));
        if (!ee) return -1;
        for (int64_t j = 0; j + 1 < nb; j++)
            ee[j] = point_d2(rows_b + (j + 1) * dim, rows_b + j * dim, dim);
    }
    int64_t nblocks = (na + A_BLOCK - 1) / A_BLOCK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)
    for (int64_t blk = 0; blk < nblocks; blk++) {
        int64_t i0 = blk * A_BLOCK, i1 = i0 + A_BLOCK < na ? i0 + A_BLOCK : na;
        double best[A_BLOCK];
        for (int64_t i = i0; i < i1; i++) best[i - i0] = INFINITY;
        if (use_chord) {
            for (int64_t j = 0; j + 1 < nb; j++) {
                const float *b0 = rows_b + j * dim, *b1 = b0 + dim;
                for (int64_t i = i0; i < i1; i++) {
                    double d2 = chord_d2(rows_a + i * dim, b0, b1, ee[j], dim);
                    if (d2 < best[i - i0]) best[i - i0] = d2;
                }
            }
        } else {
            for (int64_t j = 0; j < nb; j++)
                for (int64_t i = i0; i < i1; i++) {
                    double d2 = point_d2(rows_a + i * dim, rows_b + j * dim, dim);
                    if (d2 < best[i - i0]) best[i - i0] = d2;
                }
        }
        for (int64_t i = i0; i < i1; i++) nearest[i] = sqrt(best[i - i0]);
    }
    free(ee);
    return 0;
}

/* One direction's summary: the mean nearest distance, or the share of rows left unmatched. */
static double summarise(const double *nearest, int64_t n, const tsk_genome_opts *o)
{
    if (o->summary == TSK_GENOME_UNMATCHED) {
        int64_t far = 0;
        for (int64_t i = 0; i < n; i++) far += !(nearest[i] <= o->match_radius);
        return (double)far / (double)n;
    }
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += nearest[i];
    return s / (double)n;
}

/* Symmetric distance with explicit thread count for the inner search. */
static double genome_distance(const float *ra, int64_t na, const float *rb, int64_t nb, int dim,
                              const tsk_genome_opts *o, int threads)
{
    if (na == 0 && nb == 0) return 0.0;
    if (na == 0 || nb == 0) return o->summary == TSK_GENOME_UNMATCHED ? 1.0 : INFINITY;
    double *near = malloc(sizeof *near * (size_t)(na > nb ? na : nb));
    if (!near) return -1.0;
    double d = 0.0;
    if (tsk_genome_nearest(ra, na, rb, nb, dim, o->chord, threads, near) == 0) {
        d = summarise(near, na, o);
        if (tsk_genome_nearest(rb, nb, ra, na, dim, o->chord, threads, near) == 0)
            d = 0.5 * (d + summarise(near, nb, o));
        else
            d = -1.0;
    } else {
        d = -1.0;
    }
    free(near);
    return d;
}

double tsk_genome_distance(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                           const tsk_genome_opts *o)
{
    tsk_genome_opts def;
    if (!o) {
        tsk_genome_opts_default(&def);
        o = &def;
    }
    if (na < 0 || nb < 0 || dim < 1) return -1.0;
    return genome_distance(rows_a, na, rows_b, nb, dim, o, o->threads);
}

int tsk_genome_distance_matrix(const tsk_sketch_set *s, const tsk_genome_opts *o, double *out)
{
    tsk_genome_opts def;
    if (!o) {
        tsk_genome_opts_default(&def);
        o = &def;
    }
    int64_t n = s->n_items;
    int64_t npairs = n * (n - 1) / 2;
    int failed = 0;
    for (int64_t i = 0; i < n; i++) out[i * n + i] = 0.0;
    /* Threads over pairs, each pair's search single-threaded: results do not depend on threads. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(o->threads > 0 ? o->threads : 1) reduction(| : failed)
    for (int64_t k = 0; k < npairs; k++) {
        /* pair k -> (i, j), i < j, row by row of the upper triangle */
        int64_t i = 0, rem = k;
        while (rem >= n - 1 - i) {
            rem -= n - 1 - i;
            i++;
        }
        int64_t j = i + 1 + rem;
        double d = genome_distance(s->rows + s->first_row[i] * s->dim, s->n_rows[i],
                                   s->rows + s->first_row[j] * s->dim, s->n_rows[j], s->dim, o, 1);
        if (d < 0.0) failed = 1;
        out[i * n + j] = out[j * n + i] = d;
    }
    return failed ? -1 : 0;
}
