/* genome_dist.c: nearest-row search between two records' slide rows (see genome_dist.h); the
 * summaries are core/genome_summary.c. */
#include "genome_dist.h"

#include <math.h>
#include <stdlib.h>

/* A rows handled together: their 16 x D floats stay in L1 while every row (and chord) of B streams
 * past once per block, so B is read na/16 times instead of na times. */
#define A_BLOCK 16

int64_t tsk_genome_partial_rows(int64_t window, int64_t stride)
{
    if (window <= 0 || stride <= 0) return 0;
    return (window + stride - 1) / stride - 1;
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

/* The nearest row of B for n <= A_BLOCK rows of A, updating best (squared) and arg. The block is
 * transposed so that the A_BLOCK distances to one row of B are independent lanes: each is still
 * the sum over k, in order, of (double)(a_k - b_k)^2, so the values equal point_d2's bit for bit,
 * but the additions no longer wait on each other (4-8x faster than one row at a time).
 * Returns 0 when memory runs out. */
static int block_nearest_points(const float *a, int64_t n, const float *rows_b, int64_t nb, int dim, double *best,
                                int64_t *arg)
{
    float *at = malloc(sizeof *at * (size_t)dim * A_BLOCK);
    if (!at) return 0;
    for (int k = 0; k < dim; k++)
        for (int64_t i = 0; i < A_BLOCK; i++) at[(size_t)k * A_BLOCK + i] = a[(i < n ? i : 0) * dim + k];
    for (int64_t j = 0; j < nb; j++) {
        const float *b = rows_b + j * dim;
        double acc[A_BLOCK] = {0};
        for (int k = 0; k < dim; k++) {
            const float *col = at + (size_t)k * A_BLOCK;
            const float bk = b[k];
            for (int i = 0; i < A_BLOCK; i++) {
                double d = (double)(col[i] - bk);
                acc[i] += d * d;
            }
        }
        for (int64_t i = 0; i < n; i++)
            if (acc[i] < best[i]) best[i] = acc[i], arg[i] = j;
    }
    free(at);
    return 1;
}

int tsk_genome_nearest(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                       int chord, int threads, double *nearest)
{
    return tsk_genome_nearest_index(rows_a, na, rows_b, nb, dim, chord, threads, nearest, NULL);
}

int tsk_genome_nearest_index(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim,
                             int chord, int threads, double *nearest, int64_t *index)
{
    if (na < 0 || nb < 0 || dim < 1 || (na > 0 && (!rows_a || !nearest)) || (nb > 0 && !rows_b))
        return -1;
    if (nb == 0) {
        for (int64_t i = 0; i < na; i++) nearest[i] = INFINITY;
        if (index)
            for (int64_t i = 0; i < na; i++) index[i] = -1;
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
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1) reduction(| : failed)
    for (int64_t blk = 0; blk < nblocks; blk++) {
        int64_t i0 = blk * A_BLOCK, i1 = i0 + A_BLOCK < na ? i0 + A_BLOCK : na;
        double best[A_BLOCK];
        int64_t arg[A_BLOCK];
        for (int64_t i = i0; i < i1; i++) best[i - i0] = INFINITY, arg[i - i0] = 0;
        if (use_chord) {
            for (int64_t j = 0; j + 1 < nb; j++) {
                const float *b0 = rows_b + j * dim, *b1 = b0 + dim;
                for (int64_t i = i0; i < i1; i++) {
                    double d2 = chord_d2(rows_a + i * dim, b0, b1, ee[j], dim);
                    if (d2 < best[i - i0]) best[i - i0] = d2, arg[i - i0] = j;
                }
            }
        } else if (!block_nearest_points(rows_a + i0 * dim, i1 - i0, rows_b, nb, dim, best, arg)) {
            failed = 1;
        }
        for (int64_t i = i0; i < i1; i++) {
            nearest[i] = sqrt(best[i - i0]);
            if (index) index[i] = arg[i - i0];
        }
    }
    free(ee);
    return failed ? -1 : 0;
}

/* Symmetric distance with explicit thread count for the inner search. */
static double genome_distance(const float *ra, int64_t na, const float *rb, int64_t nb, int dim,
                              const tsk_genome_opts *o, int threads)
{
    if (na == 0 && nb == 0) return 0.0;
    if (na == 0 || nb == 0) return o->summary == TSK_GENOME_UNMATCHED ? 1.0 : INFINITY;
    int64_t nmax = na > nb ? na : nb;
    int want_index = o->summary == TSK_GENOME_ANCHORED;
    double *near = malloc(sizeof *near * (size_t)nmax);
    int64_t *index = want_index ? malloc(sizeof *index * (size_t)nmax) : NULL;
    double d = -1.0;
    tsk_genome_direction sa, sb;
    if (near && (index || !want_index) &&
        tsk_genome_nearest_index(ra, na, rb, nb, dim, o->chord, threads, near, index) == 0) {
        sa = tsk_genome_direction_of(near, index, na, nb, o);
        if (tsk_genome_nearest_index(rb, nb, ra, na, dim, o->chord, threads, near, index) == 0) {
            sb = tsk_genome_direction_of(near, index, nb, na, o);
            d = tsk_genome_combine(&sa, &sb, na, nb, o);
        }
    }
    free(near);
    free(index);
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
        int64_t ni, nj;
        const float *ri = tsk_genome_item_rows(s, i, o->skip_rows, &ni), *rj = tsk_genome_item_rows(s, j, o->skip_rows, &nj);
        double d = genome_distance(ri, ni, rj, nj, s->dim, o, 1);
        if (d < 0.0) failed = 1;
        out[i * n + j] = out[j * n + i] = d;
    }
    return failed ? -1 : 0;
}

/* Pair (q, r) of a block: the item rows of each side. */
static double block_pair(const tsk_sketch_set *q, int64_t qi, const tsk_sketch_set *r, int64_t ri,
                         const tsk_genome_opts *o, int threads)
{
    if (q == r && qi == ri) return 0.0;
    int64_t na, nb;
    const float *a = tsk_genome_item_rows(q, qi, o->skip_rows, &na), *b = tsk_genome_item_rows(r, ri, o->skip_rows, &nb);
    return genome_distance(a, na, b, nb, q->dim, o, threads);
}

int tsk_genome_distance_block(const tsk_sketch_set *q, int64_t q0, int64_t nq, const tsk_sketch_set *r, int64_t r0,
                              int64_t nr, const tsk_genome_opts *o, float *out, int64_t ld)
{
    tsk_genome_opts def;
    if (!o) {
        tsk_genome_opts_default(&def);
        o = &def;
    }
    if (q->dim != r->dim || nq < 0 || nr < 0 || ld < nr) return -1;
    int threads = o->threads > 0 ? o->threads : 1;
    /* One set against itself: a pair inside the block whose mirror is also inside is computed
     * once (the distance is symmetric) and copied afterwards. */
    int same = q == r;
    int64_t npairs = nq * nr;
    int failed = 0;
    /* Few pairs (two genomes): every thread works inside one pair; many: one thread per pair.
     * Either way each value is computed by the same sequential sums, whatever the threads. */
    int inner = npairs < threads ? threads : 1;
#pragma omp parallel for schedule(dynamic, 1) num_threads(inner > 1 ? 1 : threads) reduction(| : failed)
    for (int64_t k = 0; k < npairs; k++) {
        int64_t i = k / nr, j = k % nr, qi = q0 + i, rj = r0 + j;
        if (same && tsk_genome_is_mirror(qi, rj, q0, r0, nr)) continue;   /* its twin is computed */
        double d = block_pair(q, qi, r, rj, o, inner);
        if (d < 0.0) failed = 1;
        out[i * ld + j] = (float)d;
    }
    if (same) tsk_genome_copy_mirrors(q0, nq, r0, nr, out, ld);
    return failed ? -1 : 0;
}
