/* test_engine: tsk_cpu_sketch as a whole: the same bits for any thread count (long records split
 * across threads included), strand invariance of canonical sketches, and the float path on a
 * record long enough to be chunked. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sketch.h"
#include "golden.h"
#include "sketch_dp.h"

/* A batch of records of the given lengths over one random code array. */
typedef struct {
    uint8_t *codes;
    int64_t offset[16], row_offset[16];
    tsk_batch b;
} batch;

static void make_batch(batch *m, const tsk_params *p, const int64_t *lens, int n, unsigned seed)
{
    m->offset[0] = m->row_offset[0] = 0;
    for (int i = 0; i < n; i++) {
        m->offset[i + 1] = m->offset[i] + lens[i];
        m->row_offset[i + 1] = m->row_offset[i] + tsk_rows_for_length(p, lens[i]);
    }
    m->codes = test_random_codes(m->offset[n], tsk_alphabet_size(p->alphabet), seed);
    m->b = (tsk_batch){n, m->codes, m->offset, m->row_offset};
}

static void *run(const tsk_params *p, const batch *m, int threads)
{
    size_t bytes = (size_t)m->row_offset[m->b.n_records] * (size_t)p->dim *
                   (p->precision == TSK_DOUBLE ? sizeof(double) : sizeof(float));
    void *out = malloc(bytes + 1);
    memset(out, 0x7f, bytes); /* every value must be written */
    cr_assert_eq(tsk_cpu_sketch(p, &m->b, out, threads), 0);
    return out;
}

static void check_threads(tsk_params p, const int64_t *lens, int n)
{
    batch m;
    make_batch(&m, &p, lens, n, 17u);
    const size_t bytes = (size_t)m.row_offset[n] * (size_t)p.dim * (p.precision == TSK_DOUBLE ? 8 : 4);
    void *one = run(&p, &m, 1);
    for (int threads = 2; threads <= 4; threads++) {
        void *more = run(&p, &m, threads);
        cr_expect_eq(memcmp(one, more, bytes), 0, "threads %d differ (t=%d window=%lld canonical=%d precision=%d)",
                     threads, p.t, (long long)p.window, p.canonical, p.precision);
        free(more);
    }
    free(one);
    free(m.codes);
}

Test(engine, bit_identical_for_any_thread_count, .timeout = 120)
{
    /* one record longer than the chunk (split across threads), short ones, one shorter than t */
    const int64_t lens[] = {3 * TSK_CPU_CHUNK + 1234, 5000, 150, 2, 0, 70000, 151};
    tsk_params p;
    tsk_params_default(&p);
    check_threads(p, lens, 7);
    p.precision = TSK_DOUBLE;
    check_threads(p, lens, 7);
    p.canonical = 1;
    check_threads(p, lens, 7);
    p.canonical = 0;
    p.window = 1000;
    p.stride = 100;
    check_threads(p, lens, 7);
    p.window = 100000; /* groups of rows share the record */
    p.stride = 10;
    p.precision = TSK_SINGLE;
    const int64_t few[] = {200000, 20};
    check_threads(p, few, 2);
}

/* The sketch DP's path (t > 4, protein) on many records longer than the chunk, whose chunks all
 * threads share: each row is tsk_cpu_record_sketch's (one thread, chunks combined left to right),
 * bit for bit, for 1-4 threads, single and double, both strands. The meson run with
 * TSKETCH_CPU_LEVELS_BUDGET=1 folds one chunk at a time, so a record's chunks span many windows. */
static void check_long_records(tsk_params p, unsigned seed)
{
    const int64_t chunk = tsk_cpu_chunk_length(&p);
    const int64_t lens[] = {chunk + 1, 5 * chunk - 7, 300, 2 * chunk, 3 * chunk + 999, chunk / 2, 4 * chunk + 1};
    const int n = (int)(sizeof lens / sizeof *lens);
    batch m;
    make_batch(&m, &p, lens, n, seed);
    const int in_double = tsk_cpu_counts_in_double(&p, p.precision);
    double *want = malloc((size_t)n * (size_t)p.dim * sizeof *want), *one = malloc((size_t)p.dim * sizeof *one);
    uint8_t *rc = malloc((size_t)m.offset[n]);
    for (int r = 0; r < n; r++) {
        double *row = want + (size_t)r * (size_t)p.dim;
        const uint8_t *x = m.codes + m.offset[r];
        memset(row, 0, (size_t)p.dim * sizeof *row);
        for (int s = 0; s < (p.canonical ? 2 : 1); s++) {
            if (s == 1) tsk_revcomp_codes(x, (size_t)lens[r], rc);
            cr_assert_eq(tsk_cpu_record_sketch(&p, s ? rc : x, lens[r], chunk, in_double, one), 0);
            for (int l = 0; l < p.dim; l++) row[l] += (p.canonical ? 0.5 : 1.0) * one[l];
        }
    }
    for (int threads = 1; threads <= 4; threads++) {
        void *got = run(&p, &m, threads);
        for (int r = 0; r < n; r++)
            for (int l = 0; l < p.dim; l++) {
                const double w = want[(size_t)r * (size_t)p.dim + (size_t)l];
                const size_t at = (size_t)r * (size_t)p.dim + (size_t)l;
                if (p.precision == TSK_DOUBLE)
                    cr_assert_eq(memcmp(&((double *)got)[at], &w, sizeof w), 0, "threads %d record %d bin %d", threads,
                                 r, l);
                else
                    cr_assert_eq(((float *)got)[at], (float)w, "threads %d record %d bin %d", threads, r, l);
            }
        free(got);
    }
    free(rc);
    free(one);
    free(want);
    free(m.codes);
}

Test(engine, long_records_on_the_dp_path, .timeout = 120)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = 5;
    p.dim = 32;
    tsk_tables_draw(&p);
    check_long_records(p, 41u);
    p.canonical = 1;
    p.precision = TSK_DOUBLE;
    check_long_records(p, 42u);
    tsk_params_default(&p);
    p.alphabet = TSK_PROTEIN;
    p.t = 3;
    p.dim = 24;
    tsk_tables_draw(&p);
    check_long_records(p, 43u);
}

Test(engine, canonical_is_strand_invariant)
{
    const int64_t lens[] = {3 * TSK_CPU_CHUNK / 2, 777, 5};
    tsk_params p;
    tsk_params_default(&p);
    p.canonical = 1;
    p.precision = TSK_DOUBLE;
    for (int w = 0; w < 2; w++) {
        p.window = w ? 0 : 0;
        batch m, r;
        make_batch(&m, &p, lens, 3, 4u);
        make_batch(&r, &p, lens, 3, 4u);
        for (int i = 0; i < 3; i++)
            tsk_revcomp_codes(m.codes + m.offset[i], (size_t)lens[i], r.codes + r.offset[i]);
        double *a = run(&p, &m, 2), *b = run(&p, &r, 2);
        for (int i = 0; i < 3; i++)
            cr_expect_leq(test_rel_err(a + (size_t)i * p.dim, b + (size_t)i * p.dim, p.dim), 1e-12, "record %d", i);
        free(a);
        free(b);
        free(m.codes);
        free(r.codes);
    }
}

Test(engine, canonical_slide_rows_of_the_reverse_complement)
{
    /* the rows of revcomp(x) are those of x in reverse order when the windows tile the record */
    const int64_t lens[] = {3000};
    tsk_params p;
    tsk_params_default(&p);
    p.canonical = 1;
    p.precision = TSK_DOUBLE;
    p.window = 300;
    p.stride = 300;
    batch m, r;
    make_batch(&m, &p, lens, 1, 9u);
    make_batch(&r, &p, lens, 1, 9u);
    tsk_revcomp_codes(m.codes, 3000, r.codes);
    double *a = run(&p, &m, 2), *b = run(&p, &r, 1);
    for (int k = 0; k < 10; k++)
        cr_expect_leq(test_rel_err(a + (size_t)k * p.dim, b + (size_t)(9 - k) * p.dim, p.dim), 1e-12, "row %d", k);
    free(a);
    free(b);
    free(m.codes);
    free(r.codes);
}

Test(engine, single_precision_on_a_chunked_record, .timeout = 120)
{
    const int64_t lens[] = {1000000};
    tsk_params p;
    tsk_params_default(&p);
    batch m;
    make_batch(&m, &p, lens, 1, 12u);
    float *s = run(&p, &m, 2);
    p.precision = TSK_DOUBLE;
    double *d = run(&p, &m, 2), sd[96];
    for (int l = 0; l < 96; l++) sd[l] = s[l];
    double e = test_rel_err(sd, d, 96);
    cr_log_info("1 Mbp record, single vs double: %.2e", e);
    cr_expect_leq(e, 1e-5, "%.3g", e);
    free(s);
    free(d);
    free(m.codes);
}

Test(engine, large_dimension_and_t16)
{
    const int64_t lens[] = {300, 40};
    tsk_params p;
    tsk_params_default(&p);
    p.t = 16;
    p.dim = 65536;
    p.precision = TSK_DOUBLE;
    tsk_tables_draw(&p);
    batch m;
    make_batch(&m, &p, lens, 2, 2u);
    double *d = run(&p, &m, 2);
    double *ref = malloc(65536 * sizeof *ref);
    tsk_cpu_sketch_reference(&p, m.codes, 300, ref);
    cr_expect_leq(test_rel_err(d, ref, 65536), 1e-12);
    tsk_cpu_sketch_reference(&p, m.codes + 300, 40, ref);
    cr_expect_leq(test_rel_err(d + 65536, ref, 65536), 1e-12);
    free(ref);
    free(d);
    free(m.codes);
}
