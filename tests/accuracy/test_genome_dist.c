/* tests/accuracy: cpu/genome_dist.c against a brute force written here from the definition
 * (every row against every row or chord, in double, by dense sampling of the chord), on random
 * rows and on rows built so that the answer is known exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "genome_dist.h"

static uint64_t rng_state = 12345;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static float *random_rows(int64_t n, int dim, double scale)
{
    float *r = malloc(sizeof *r * (size_t)(n * dim) + 1);
    for (int64_t i = 0; i < n * dim; i++) r[i] = (float)(scale * (uniform() - 0.5));
    return r;
}

/* *s: a set of 5 items with n_rows[i] random rows each (first[] is filled in). Returns the rows,
 * the caller's to free. */
static float *random_set(const int64_t n_rows[5], int64_t first[5], int dim, tsk_sketch_set *s)
{
    int64_t total = 0;
    for (int i = 0; i < 5; i++) {
        first[i] = total;
        total += n_rows[i];
    }
    float *rows = random_rows(total, dim, 2.0);
    *s = (tsk_sketch_set){5, dim, rows, first, n_rows};
    return rows;
}

static double d2_point(const float *a, const float *b, int dim)
{
    double s = 0;
    for (int k = 0; k < dim; k++) s += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    return s;
}

/* Nearest point on each chord by the closed form in double, written independently of the kernel:
 * u* = clamp(<a - b0, b1 - b0> / |b1 - b0|^2), then the distance evaluated at u* directly. */
static double brute_nearest(const float *a, const float *b, int64_t nb, int dim, int chord)
{
    double best = INFINITY;
    for (int64_t j = 0; j < nb; j++) {
        double d = d2_point(a, b + j * dim, dim);
        if (d < best) best = d;
        if (!chord || j + 1 >= nb) continue;
        const float *b0 = b + j * dim, *b1 = b0 + dim;
        double pe = 0, ee = 0;
        for (int k = 0; k < dim; k++) {
            pe += ((double)a[k] - b0[k]) * ((double)b1[k] - b0[k]);
            ee += ((double)b1[k] - b0[k]) * ((double)b1[k] - b0[k]);
        }
        double u = ee > 0 ? fmin(1.0, fmax(0.0, pe / ee)) : 0.0;
        double s = 0;
        for (int k = 0; k < dim; k++) {
            double x = (double)b0[k] + u * ((double)b1[k] - b0[k]) - a[k];
            s += x * x;
        }
        if (s < best) best = s;
    }
    return sqrt(best);
}

static void check_nearest(int64_t na, int64_t nb, int dim, int chord, int threads)
{
    float *a = random_rows(na, dim, 1.0), *b = random_rows(nb, dim, 1.0);
    double *got = malloc(sizeof *got * (size_t)na + 8);
    cr_assert_eq(tsk_genome_nearest(a, na, b, nb, dim, chord, threads, got), 0);
    for (int64_t i = 0; i < na; i++) {
        double want = brute_nearest(a + i * dim, b, nb, dim, chord);
        cr_assert(fabs(got[i] - want) <= 1e-6 * (1.0 + want),
                  "row %lld (na %lld nb %lld dim %d chord %d): got %.12g want %.12g",
                  (long long)i, (long long)na, (long long)nb, dim, chord, got[i], want);
    }
    free(a);
    free(b);
    free(got);
}

Test(genome_dist, nearest_matches_brute_force)
{
    /* sizes around the 16-row block, D odd and even, chord on and off, 1 and 3 threads */
    int64_t sizes[][2] = {{1, 1}, {1, 7}, {15, 16}, {16, 17}, {17, 33}, {40, 2}, {33, 64}};
    int dims[] = {1, 7, 64};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t d = 0; d < 3; d++)
            for (int chord = 0; chord < 2; chord++)
                check_nearest(sizes[s][0], sizes[s][1], dims[d], chord, 1 + 2 * chord);
}

Test(genome_dist, known_answers)
{
    /* B: rows (0,0) and (2,0); A: (1,1), (3,0), (0,0). Without chords the nearest distances are
     * sqrt(2), 1, 0; with the chord from (0,0) to (2,0) the first becomes 1. */
    const float b[] = {0, 0, 2, 0};
    const float a[] = {1, 1, 3, 0, 0, 0};
    double near[3];
    cr_assert_eq(tsk_genome_nearest(a, 3, b, 2, 2, 0, 1, near), 0);
    cr_assert_float_eq(near[0], sqrt(2.0), 1e-12);
    cr_assert_float_eq(near[1], 1.0, 1e-12);
    cr_assert_float_eq(near[2], 0.0, 1e-12);
    cr_assert_eq(tsk_genome_nearest(a, 3, b, 2, 2, 1, 1, near), 0);
    cr_assert_float_eq(near[0], 1.0, 1e-12);
    cr_assert_float_eq(near[1], 1.0, 1e-12);

    /* B -> A without chords: (0,0) -> 0, (2,0) -> 1 (to (3,0)); mean both ways:
     * 0.5 * ((sqrt2 + 1 + 0)/3 + (0 + 1)/2) */
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    o.chord = 0;
    double want = 0.5 * ((sqrt(2.0) + 1.0) / 3.0 + 0.5);
    cr_assert_float_eq(tsk_genome_distance(a, 3, b, 2, 2, &o), want, 1e-12);
    /* unmatched within radius 0.5: A has 2 of 3 rows unmatched, B 1 of 2 */
    o.summary = TSK_GENOME_UNMATCHED;
    o.match_radius = 0.5;
    cr_assert_float_eq(tsk_genome_distance(a, 3, b, 2, 2, &o), 0.5 * (2.0 / 3.0 + 0.5), 1e-12);
}

Test(genome_dist, identical_sets_and_reordering)
{
    /* The same rows in another order (a rearranged genome) are at distance 0; a set against a
     * shuffled copy with one row perturbed is at distance > 0. */
    int64_t n = 50;
    int dim = 24;
    float *a = random_rows(n, dim, 1.0);
    float *b = malloc(sizeof *b * (size_t)(n * dim));
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < dim; k++) b[((i * 7) % n) * dim + k] = a[i * dim + k];
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    cr_assert_float_eq(tsk_genome_distance(a, n, b, n, dim, &o), 0.0, 1e-12);
    b[3] += 10.0f;
    cr_assert_gt(tsk_genome_distance(a, n, b, n, dim, &o), 0.0);
    free(a);
    free(b);
}

Test(genome_dist, empty_sets)
{
    float a[4] = {1, 2, 3, 4};
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    cr_assert_float_eq(tsk_genome_distance(a, 0, a, 0, 4, &o), 0.0, 0.0);
    cr_assert(isinf(tsk_genome_distance(a, 1, a, 0, 4, &o)));
    o.summary = TSK_GENOME_UNMATCHED;
    cr_assert_float_eq(tsk_genome_distance(a, 0, a, 1, 4, &o), 1.0, 0.0);
    cr_assert_lt(tsk_genome_distance(a, -1, a, 1, 4, &o), 0.0);
}

Test(genome_dist, matrix_equals_pairwise_and_ignores_threads)
{
    /* 5 items with 0, 1, 3, 20 and 9 rows */
    int64_t n_rows[] = {0, 1, 3, 20, 9}, first[5];
    int dim = 10;
    tsk_sketch_set s;
    float *rows = random_set(n_rows, first, dim, &s);
    double m1[25], m3[25];
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    cr_assert_eq(tsk_genome_distance_matrix(&s, &o, m1), 0);
    o.threads = 3;
    cr_assert_eq(tsk_genome_distance_matrix(&s, &o, m3), 0);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            double want = i == j ? 0.0
                                 : tsk_genome_distance(rows + first[i] * dim, n_rows[i], rows + first[j] * dim,
                                                       n_rows[j], dim, &o);
            cr_assert(m1[i * 5 + j] == want || (isinf(want) && isinf(m1[i * 5 + j])), "m[%d][%d]", i, j);
            cr_assert(m3[i * 5 + j] == m1[i * 5 + j] || (isinf(m1[i * 5 + j]) && isinf(m3[i * 5 + j])));
        }
    free(rows);
}

/* ---- nearest index and the anchored summary (dist --genome) ---- */

static int64_t brute_argmin(const float *a, const float *b, int64_t nb, int dim)
{
    int64_t best = 0;
    for (int64_t j = 1; j < nb; j++)
        if (d2_point(a, b + j * dim, dim) < d2_point(a, b + best * dim, dim)) best = j;
    return best;
}

/* One direction from the definition: nearest distance and index by brute force; a row is anchored
 * when a neighbour's match is next to its own (or either side has a single row). */
static void brute_direction(const float *a, int64_t na, const float *b, int64_t nb, int dim, double *mean_all,
                            double *share, double *mean_anch)
{
    int64_t *j = malloc(sizeof *j * (size_t)na);
    double *d = malloc(sizeof *d * (size_t)na), s = 0, sa = 0;
    int64_t c = 0;
    for (int64_t i = 0; i < na; i++) {
        j[i] = brute_argmin(a + i * dim, b, nb, dim);
        d[i] = sqrt(d2_point(a + i * dim, b + j[i] * dim, dim));
    }
    for (int64_t i = 0; i < na; i++) {
        int anch = na < 2 || nb < 2 || (i > 0 && llabs(j[i - 1] - j[i]) == 1) || (i + 1 < na && llabs(j[i + 1] - j[i]) == 1);
        s += d[i];
        if (anch) sa += d[i], c++;
    }
    *mean_all = s / (double)na;
    *share = (double)c / (double)na;
    *mean_anch = c ? sa / (double)c : 0.0;
    free(j);
    free(d);
}

static double brute_anchored(const float *a, int64_t na, const float *b, int64_t nb, int dim)
{
    double ma, fa, aa, mb, fb, ab;
    brute_direction(a, na, b, nb, dim, &ma, &fa, &aa);
    brute_direction(b, nb, a, na, dim, &mb, &fb, &ab);
    double m = fa > 0 && fb > 0 ? 0.5 * (aa + ab) : fa > 0 ? aa : fb > 0 ? ab : 0.5 * (ma + mb);
    double share = 0.5 * (fa + fb), fl = 1.0 / (double)(na + nb);
    return m / (share > fl ? share : fl);
}

/* B: A's rows in reverse order (the other strand) with noise, a random block moved elsewhere
 * (a rearrangement) and extra unrelated rows: partly anchored, partly not. */
static float *related_rows(const float *a, int64_t na, int64_t extra, int dim, double noise)
{
    int64_t nb = na + extra;
    float *b = malloc(sizeof *b * (size_t)(nb * dim));
    for (int64_t i = 0; i < na; i++)
        for (int k = 0; k < dim; k++)
            b[(na - 1 - i) * dim + k] = a[i * dim + k] + (float)(noise * (uniform() - 0.5));
    for (int64_t i = na * dim; i < nb * dim; i++) b[i] = (float)(uniform() - 0.5);
    for (int64_t i = 0; i < na / 4; i++) /* swap rows: breaks some chains */
        for (int k = 0; k < dim; k++) {
            int64_t x = (int64_t)(uniform() * (double)nb), y = (int64_t)(uniform() * (double)nb);
            float t = b[x * dim + k];
            b[x * dim + k] = b[y * dim + k];
            b[y * dim + k] = t;
        }
    return b;
}

Test(genome_dist, nearest_index_matches_brute_force)
{
    int64_t sizes[][2] = {{1, 1}, {17, 5}, {40, 33}};
    for (size_t s = 0; s < 3; s++) {
        int64_t na = sizes[s][0], nb = sizes[s][1];
        int dim = 9;
        float *a = random_rows(na, dim, 1.0), *b = random_rows(nb, dim, 1.0);
        double *near = malloc(sizeof *near * (size_t)na);
        int64_t *idx = malloc(sizeof *idx * (size_t)na);
        cr_assert_eq(tsk_genome_nearest_index(a, na, b, nb, dim, 0, 2, near, idx), 0);
        for (int64_t i = 0; i < na; i++) {
            cr_assert_eq(idx[i], brute_argmin(a + i * dim, b, nb, dim), "row %lld", (long long)i);
            cr_assert_float_eq(near[i], sqrt(d2_point(a + i * dim, b + idx[i] * dim, dim)), 1e-6);
        }
        free(a);
        free(b);
        free(near);
        free(idx);
    }
}

Test(genome_dist, anchored_matches_brute_force)
{
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    o.summary = TSK_GENOME_ANCHORED;
    int64_t nas[] = {1, 2, 15, 40, 77};
    int64_t extras[] = {0, 3, 1, 12, 30};
    for (int s = 0; s < 5; s++) {
        int dim = 16;
        float *a = random_rows(nas[s], dim, 1.0);
        float *b = related_rows(a, nas[s], extras[s], dim, 0.05);
        int64_t nb = nas[s] + extras[s];
        for (int threads = 1; threads <= 3; threads += 2) {
            o.threads = threads;
            double got = tsk_genome_distance(a, nas[s], b, nb, dim, &o);
            double want = brute_anchored(a, nas[s], b, nb, dim);
            cr_assert(fabs(got - want) <= 1e-6 * want, "na %lld: got %.15g want %.15g", (long long)nas[s], got, want);
        }
        free(a);
        free(b);
    }
}

Test(genome_dist, anchored_known_answers)
{
    /* A: 4 rows on a line (a collinear stretch). B = A reversed (the other strand): every row
     * finds itself, every match is next to its neighbour's: distance 0. */
    const float a[] = {0, 0, 1, 0, 2, 0, 3, 0};
    const float rev[] = {3, 0, 2, 0, 1, 0, 0, 0};
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    o.summary = TSK_GENOME_ANCHORED;
    cr_assert_float_eq(tsk_genome_distance(a, 4, rev, 4, 2, &o), 0.0, 0.0);
    /* B shifted by (0, 0.5): every nearest distance is 0.5, all anchored: 0.5 / 1 */
    const float up[] = {0, 0.5f, 1, 0.5f, 2, 0.5f, 3, 0.5f};
    cr_assert_float_eq(tsk_genome_distance(a, 4, up, 4, 2, &o), 0.5, 1e-12);
    /* B = rows 0, 2, 1, 3 of `up`: A's matches are 0, 2, 1, 3; only rows 1 and 2 have a
     * neighbour matched next to their own match (2 and 1). B -> A is the same. Share 1/2, anchored
     * mean 0.5: distance 1.0. */
    const float mixed[] = {0, 0.5f, 2, 0.5f, 1, 0.5f, 3, 0.5f};
    cr_assert_float_eq(tsk_genome_distance(a, 4, mixed, 4, 2, &o), 1.0, 1e-12);
    /* one direction anchored only: A's matches in B are 0, 0, 2, 2 (never adjacent: share 0);
     * B's rows match A's rows 0, 3, 2, 3, so B's rows 1, 2, 3 are anchored (share 3/4) with
     * distances sqrt(149), 0.5, sqrt(689). Share (0 + 3/4) / 2, mean of the anchored direction. */
    const float far[] = {0, 0.5f, 10, 10, 2, 0.5f, 20, 20};
    double want = (sqrt(149.0) + 0.5 + sqrt(689.0)) / 3.0 / 0.375;
    cr_assert_float_eq(tsk_genome_distance(a, 4, far, 4, 2, &o), want, 1e-5);
}

Test(genome_dist, block_equals_pairwise_skips_partial_rows_and_ignores_threads)
{
    int64_t n_rows[] = {3, 1, 12, 20, 9}, first[5];
    int dim = 6;
    tsk_sketch_set s;
    float *rows = random_set(n_rows, first, dim, &s);
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    o.summary = TSK_GENOME_ANCHORED;
    o.skip_rows = 2;
    cr_assert_eq(tsk_genome_partial_rows(300, 30), 9);
    cr_assert_eq(tsk_genome_partial_rows(1000, 300), 3);
    cr_assert_eq(tsk_genome_partial_rows(0, 0), 0);
    float full[25], part[25], t3[25];
    cr_assert_eq(tsk_genome_distance_block(&s, 0, 5, &s, 0, 5, &o, full, 5), 0);
    /* rows 1..3 against columns 2..4 of another set object with the same rows: no mirroring */
    tsk_sketch_set s2 = s;
    cr_assert_eq(tsk_genome_distance_block(&s, 1, 3, &s2, 2, 3, &o, part, 3), 0);
    o.threads = 3;
    cr_assert_eq(tsk_genome_distance_block(&s, 0, 5, &s, 0, 5, &o, t3, 5), 0);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            /* items with more than 2 rows lose their first 2; the others keep all */
            int64_t si = n_rows[i] > 2 ? 2 : 0, sj = n_rows[j] > 2 ? 2 : 0;
            double want = i == j ? 0.0
                                 : brute_anchored(rows + (first[i] + si) * dim, n_rows[i] - si,
                                                  rows + (first[j] + sj) * dim, n_rows[j] - sj, dim);
            cr_assert(fabsf(full[i * 5 + j] - (float)want) <= 1e-6f * (float)want, "[%d][%d] %g %g", i, j,
                      full[i * 5 + j], want);
            cr_assert(t3[i * 5 + j] == full[i * 5 + j]);
            if (i >= 1 && i < 4 && j >= 2) cr_assert(fabsf(part[(i - 1) * 3 + j - 2] - full[i * 5 + j]) <= 1e-6f * full[i * 5 + j] + 1e-30f);
        }
    free(rows);
}
