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
    int64_t n_rows[] = {0, 1, 3, 20, 9}, first[5], total = 0;
    for (int i = 0; i < 5; i++) {
        first[i] = total;
        total += n_rows[i];
    }
    int dim = 10;
    float *rows = random_rows(total, dim, 2.0);
    tsk_sketch_set s = {5, dim, rows, first, n_rows};
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
