/* genome_test.c: genome mode's GPU engine (gpu/gpu_genome.h) against the CPU engine
 * (tsk_genome_distance_block): the same distances bit for bit, for every summary, one set against
 * itself and two sets, with partial rows skipped, empty items, single rows, duplicated rows (ties)
 * and genomes that straddle the kernel's 128-row tiles and 64-row shared-memory tiles. Without a
 * usable GPU (CI) it checks that the engine says so cleanly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cpu/genome_dist.h"
#include "../../gpu/gpu_dist.h"
#include "../../gpu/gpu_genome.h"

static int have_gpu(void)
{
    char why[128] = "";
    return tsk_gpu_dist_device_count(why, sizeof why) > 0;
}

/* n genomes of rows[i] rows: related rows (a shared walk plus per-genome noise, so nearest rows
 * mean something), some of them exact duplicates so that ties occur. */
typedef struct {
    tsk_sketch_set s;
    float *v;
    int64_t *first, *nrows;
} set_t;

static set_t make(int n, const int64_t *rows_of, int dim, unsigned seed)
{
    set_t t;
    t.first = malloc(sizeof(int64_t) * (size_t)n);
    t.nrows = malloc(sizeof(int64_t) * (size_t)n);
    int64_t rows = 0;
    for (int i = 0; i < n; i++) t.first[i] = rows, t.nrows[i] = rows_of[i], rows += rows_of[i];
    t.v = malloc(sizeof(float) * (size_t)(rows + 1) * (size_t)dim);
    uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < n; i++)
        for (int64_t r = 0; r < t.nrows[i]; r++) {
            float *row = t.v + (size_t)(t.first[i] + r) * (size_t)dim;
            if (r % 7 == 3 && r > 0) {  /* a duplicate of the previous row: ties */
                memcpy(row, row - dim, sizeof(float) * (size_t)dim);
                continue;
            }
            for (int k = 0; k < dim; k++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                const float noise = (float)((double)(x >> 11) / 9007199254740992.0 - 0.5) * 0.02f * (float)(i + 1);
                row[k] = sinf(0.05f * (float)(r * dim + k)) * 0.1f + noise;
            }
        }
    t.s = (tsk_sketch_set){n, dim, t.v, t.first, t.nrows};
    return t;
}

static void drop(set_t *t)
{
    free(t->v);
    free(t->first);
    free(t->nrows);
}

static void same_as_cpu(const tsk_sketch_set *q, const tsk_sketch_set *r, const tsk_genome_opts *o)
{
    const int64_t nq = q->n_items, nr = r->n_items;
    float *want = malloc(sizeof(float) * (size_t)(nq * nr + 1)), *got = malloc(sizeof(float) * (size_t)(nq * nr + 1));
    cr_assert_eq(tsk_genome_distance_block(q, 0, nq, r, 0, nr, o, want, nr), 0);
    char err[256];
    tsk_gpu_genome *g = tsk_gpu_genome_open(q, r, o, 0, err, sizeof err);
    cr_assert_not_null(g, "open: %s", err);
    cr_assert_eq(tsk_gpu_genome_block(g, 0, nq, 0, nr, got, nr), 0, "%s", tsk_gpu_genome_error(g));
    for (int64_t k = 0; k < nq * nr; k++)
        cr_assert(memcmp(&want[k], &got[k], sizeof(float)) == 0, "summary %d skip %lld pair %lld/%lld: cpu %.9g gpu %.9g",
                  (int)o->summary, (long long)o->skip_rows, (long long)(k / nr), (long long)(k % nr), want[k], got[k]);
    /* a block inside the matrix (the mirror logic of one set against itself) */
    if (nq > 3 && nr > 3) {
        cr_assert_eq(tsk_genome_distance_block(q, 1, nq - 2, r, 2, nr - 3, o, want, nr), 0);
        cr_assert_eq(tsk_gpu_genome_block(g, 1, nq - 2, 2, nr - 3, got, nr), 0);
        for (int64_t i = 0; i < nq - 2; i++)
            cr_assert(memcmp(want + i * nr, got + i * nr, sizeof(float) * (size_t)(nr - 3)) == 0, "sub-block row %lld",
                      (long long)i);
    }
    tsk_gpu_genome_close(g);
    free(want);
    free(got);
}

Test(gpu_genome, same_as_cpu_bit_for_bit, .timeout = 300)
{
    if (!have_gpu()) {
        char err[256] = "";
        tsk_genome_opts o;
        tsk_genome_opts_default(&o);
        const int64_t rows_of[] = {2};
        set_t a = make(1, rows_of, 8, 1);
        cr_assert_null(tsk_gpu_genome_open(&a.s, &a.s, &o, 0, err, sizeof err));
        cr_assert(strlen(err) > 0, "a refusal comes with a reason");
        drop(&a);
        return;
    }
    const int64_t rows_a[] = {300, 1, 0, 129, 65, 257, 2, 130};
    const int64_t rows_b[] = {64, 200, 127, 3};
    const int dims[] = {64, 96, 100};
    for (int di = 0; di < 3; di++) {
        set_t a = make(8, rows_a, dims[di], 3 + di), b = make(4, rows_b, dims[di], 11 + di);
        for (int s = 0; s < 3; s++)
            for (int64_t skip = 0; skip <= 9; skip += 9) {
                tsk_genome_opts o;
                tsk_genome_opts_default(&o);
                o.summary = (tsk_genome_summary)s;
                o.match_radius = 0.05;
                o.skip_rows = skip;
                o.threads = 2;
                same_as_cpu(&a.s, &a.s, &o);
                same_as_cpu(&a.s, &b.s, &o);
            }
        drop(&a);
        drop(&b);
    }
}

Test(gpu_genome, refuses_chords_and_large_dim)
{
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    const int64_t rows_of[] = {3, 4};
    set_t a = make(2, rows_of, 2000, 5);
    char err[256] = "";
    cr_assert_null(tsk_gpu_genome_open(&a.s, &a.s, &o, 0, err, sizeof err));
    cr_assert(strlen(err) > 0);
    drop(&a);
    set_t b = make(2, rows_of, 16, 5);
    o.chord = 1;
    err[0] = 0;
    cr_assert_null(tsk_gpu_genome_open(&b.s, &b.s, &o, 0, err, sizeof err));
    cr_assert(strlen(err) > 0);
    drop(&b);
}
