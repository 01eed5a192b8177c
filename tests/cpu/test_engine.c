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
