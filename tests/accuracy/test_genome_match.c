/* tests/accuracy: cpu/genome_match.c (genome mode on anchored rows) against its definition: the
 * sorted search counts exactly what brute force counts, including rows that differ from a twin by
 * just under or just over the radius and rows that share a projection; the distance formula; empty
 * genomes; blocks and threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "genome_match.h"

#define DIM 16
#define ITEMS 6

static uint64_t rng_state = 777;

static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void random_row(float *r)
{
    for (int k = 0; k < DIM; k++) r[k] = (float)(uniform() - 0.5);
}

/* Copies row src into dst, moved by `rel` times its norm along a random direction. */
static void near_copy(float *dst, const float *src, double rel)
{
    double n = 0, dn = 0, dir[DIM];
    for (int k = 0; k < DIM; k++) n += (double)src[k] * src[k], dir[k] = uniform() - 0.5, dn += dir[k] * dir[k];
    for (int k = 0; k < DIM; k++) dst[k] = (float)(src[k] + rel * sqrt(n) * dir[k] / sqrt(dn));
}

/* A set of ITEMS genomes with sizes[i] rows; genome i > 0 takes about share[i] of its rows from
 * genome 0, as exact copies, copies within 0.5 radius, or copies at 2 radii (which must not match),
 * plus zero rows in genome 5 (a window whose row is 0 matches only a 0 row). */
static float *build_set(const int64_t sizes[ITEMS], int64_t first[ITEMS], tsk_sketch_set *s)
{
    int64_t total = 0;
    for (int i = 0; i < ITEMS; i++) first[i] = total, total += sizes[i];
    float *rows = malloc(sizeof *rows * (size_t)(total * DIM));
    for (int64_t g = 0; g < total; g++) random_row(rows + g * DIM);
    const double share[ITEMS] = {0, 0.9, 0.5, 0.2, 0.05, 0.3};
    for (int i = 1; i < ITEMS; i++)
        for (int64_t r = 0; r < sizes[i]; r++) {
            if (uniform() >= share[i]) continue;
            const float *src = rows + (first[0] + (int64_t)(uniform() * sizes[0])) * DIM;
            float *dst = rows + (first[i] + r) * DIM;
            const double u = uniform();
            if (u < 0.5) memcpy(dst, src, sizeof *dst * DIM);
            else if (u < 0.8) near_copy(dst, src, 0.5 * TSK_GENOME_MATCH_EPS);
            else near_copy(dst, src, 2.0 * TSK_GENOME_MATCH_EPS);
        }
    for (int64_t r = 0; r < sizes[5]; r += 7) memset(rows + (first[5] + r) * DIM, 0, sizeof *rows * DIM);
    memset(rows + first[0] * DIM, 0, sizeof *rows * DIM);
    *s = (tsk_sketch_set){ITEMS, DIM, rows, first, sizes};
    return rows;
}

static double expected(const tsk_sketch_set *a, int64_t i, const tsk_sketch_set *b, int64_t j, int64_t w)
{
    const float *ra = a->rows + a->first_row[i] * DIM, *rb = b->rows + b->first_row[j] * DIM;
    const int64_t na = a->n_rows[i], nb = b->n_rows[j];
    return tsk_genome_match_distance(tsk_genome_matched_ref(ra, na, rb, nb, DIM), na,
                                     tsk_genome_matched_ref(rb, nb, ra, na, DIM), nb, w);
}

Test(genome_match, sorted_search_counts_what_brute_force_counts)
{
    const int64_t sizes[ITEMS] = {900, 700, 1200, 500, 800, 300};
    int64_t first[ITEMS];
    tsk_sketch_set s;
    float *rows = build_set(sizes, first, &s);
    char err[256];
    for (int threads = 1; threads <= 3; threads += 2) {
        tsk_genome_match *m = tsk_genome_match_open(&s, &s, 16, threads, err, sizeof err);
        cr_assert_not_null(m, "%s", err);
        float out[ITEMS * ITEMS];
        cr_assert_eq(tsk_genome_match_block(m, 0, ITEMS, 0, ITEMS, out, ITEMS), 0);
        for (int i = 0; i < ITEMS; i++)
            for (int j = 0; j < ITEMS; j++) {
                const double want = i == j ? 0.0 : expected(&s, i, &s, j, 16);
                cr_assert_eq(out[i * ITEMS + j], (float)want, "(%d, %d) threads %d: %.9g, want %.9g", i, j, threads,
                             out[i * ITEMS + j], want);
            }
        /* a sub-block with a larger stride between output rows */
        float sub[2 * 5];
        cr_assert_eq(tsk_genome_match_block(m, 3, 2, 1, 4, sub, 5), 0);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 4; j++) cr_assert_eq(sub[i * 5 + j], out[(3 + i) * ITEMS + 1 + j]);
        tsk_genome_match_close(m);
    }
    /* the counts behind those numbers are the planted ones: near copies within the radius count,
     * those at twice the radius do not (so the shares differ from "any copy") */
    const int64_t matched = tsk_genome_matched_ref(rows + first[1] * DIM, sizes[1], rows, sizes[0], DIM);
    cr_assert(matched > 0.55 * sizes[1] && matched < 0.8 * sizes[1], "matched %lld of %lld", (long long)matched,
              (long long)sizes[1]);
    free(rows);
}

Test(genome_match, two_sets_and_empty_genomes)
{
    const int64_t sizes[ITEMS] = {400, 300, 0, 250, 200, 150};
    int64_t first[ITEMS];
    tsk_sketch_set s;
    float *rows = build_set(sizes, first, &s);
    /* a second set: items 0..2 of the first, in another order */
    const int64_t sizes2[3] = {sizes[1], sizes[0], 0};
    int64_t first2[3] = {0, sizes[1], sizes[0] + sizes[1]};
    float *rows2 = malloc(sizeof *rows2 * (size_t)((sizes[0] + sizes[1]) * DIM));
    memcpy(rows2, rows + first[1] * DIM, sizeof *rows2 * (size_t)(sizes[1] * DIM));
    memcpy(rows2 + sizes[1] * DIM, rows, sizeof *rows2 * (size_t)(sizes[0] * DIM));
    tsk_sketch_set s2 = {3, DIM, rows2, first2, sizes2};
    char err[256];
    tsk_genome_match *m = tsk_genome_match_open(&s2, &s, 1000, 2, err, sizeof err);
    cr_assert_not_null(m, "%s", err);
    float out[3 * ITEMS];
    cr_assert_eq(tsk_genome_match_block(m, 0, 3, 0, ITEMS, out, ITEMS), 0);
    cr_assert_eq(out[0 * ITEMS + 1], 0.0f, "a genome against its copy in another set");
    cr_assert_eq(out[1 * ITEMS + 0], 0.0f);
    cr_assert_eq(out[0 * ITEMS + 0], (float)expected(&s2, 0, &s, 0, 1000));
    cr_assert(isinf(out[0 * ITEMS + 2]), "against an empty genome: inf");
    cr_assert_eq(out[2 * ITEMS + 2], 0.0f, "two empty genomes: 0");
    cr_assert_eq(tsk_genome_match_block(m, 2, 2, 0, 1, out, 1), -1, "items beyond the set");
    tsk_genome_match_close(m);
    free(rows);
    free(rows2);
}

Test(genome_match, distance_estimates_divergence)
{
    /* f = (1 - d)^w gives back d; nothing shared gives 1; everything shared gives 0 */
    cr_assert_float_eq(tsk_genome_match_distance(81, 100, 81, 100, 2), 0.1, 1e-12);
    cr_assert_float_eq(tsk_genome_match_distance(70, 100, 90, 100, 1), 0.2, 1e-12);
    cr_assert_eq(tsk_genome_match_distance(0, 10, 0, 20, 16), 1.0);
    cr_assert_eq(tsk_genome_match_distance(10, 10, 20, 20, 16), 0.0);
    cr_assert(isinf(tsk_genome_match_distance(0, 0, 0, 5, 16)));
    cr_assert_eq(tsk_genome_match_distance(0, 0, 0, 0, 16), 0.0);
}
