/* test_slide: sliding windows (add the new character, remove the leaving one) against recomputing
 * every window, and the reverse-complement tables against the reverse complement. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sketch.h"
#include "golden.h"
#include "sketch_dp.h"

static void compare_modes(tsk_params p, const uint8_t *x, int64_t n, double tol)
{
    const int64_t rows = tsk_rows_for_length(&p, n);
    double *a = malloc((size_t)(rows + 1) * (size_t)p.dim * sizeof *a);
    double *b = malloc((size_t)(rows + 1) * (size_t)p.dim * sizeof *b);
    double *ref = malloc((size_t)p.dim * sizeof *ref);
    cr_assert_eq(tsk_cpu_slide_rows(&p, x, n, 0, rows, TSK_SLIDE_INCREMENTAL, TSK_DOUBLE, a), 0);
    cr_assert_eq(tsk_cpu_slide_rows(&p, x, n, 0, rows, TSK_SLIDE_RECOMPUTE, TSK_DOUBLE, b), 0);
    double worst = 0;
    for (int64_t r = 0; r < rows; r++) {
        double e = test_rel_err(a + (size_t)r * p.dim, b + (size_t)r * p.dim, p.dim);
        worst = e > worst ? e : worst;
        if (!p.canonical && r % 17 == 0) { /* spot check against the reference DP too */
            int64_t first, last;
            tsk_slide_row_span(&p, r, &first, &last);
            tsk_cpu_sketch_reference(&p, x + first, last - first + 1, ref);
            cr_expect_leq(test_rel_err(b + (size_t)r * p.dim, ref, p.dim), 1e-12, "row %lld vs reference", (long long)r);
        }
    }
    cr_expect_leq(worst, tol, "t=%d D=%d w=%lld s=%lld canonical=%d n=%lld: sliding vs recomputing %.3g", p.t, p.dim,
                  (long long)p.window, (long long)p.stride, p.canonical, (long long)n, worst);
    free(a);
    free(b);
    free(ref);
}

Test(slide, incremental_equals_recompute)
{
    const int cfg[][5] = {
        /* t, D, window, stride, canonical */
        {1, 8, 10, 1, 0}, {2, 5, 3, 1, 0},  {3, 16, 40, 7, 0}, {4, 24, 100, 3, 0},
        {4, 96, 500, 50, 1}, {5, 33, 9, 9, 0}, {3, 16, 60, 1, 1}, {6, 20, 200, 1, 0},
        {16, 32, 64, 4, 0}, {4, 24, 5000, 10, 0}, /* window longer than the record */
    };
    for (size_t k = 0; k < sizeof cfg / sizeof *cfg; k++) {
        tsk_params p;
        tsk_params_default(&p);
        p.t = cfg[k][0];
        p.dim = cfg[k][1];
        p.window = cfg[k][2];
        p.stride = cfg[k][3];
        p.canonical = cfg[k][4];
        tsk_tables_draw(&p);
        cr_assert_null(tsk_params_check(&p));
        uint8_t *x = test_random_codes(1500, 4, 11u + (unsigned)k);
        compare_modes(p, x, 1500, 1e-12);
        compare_modes(p, x, p.t > 1 ? p.t - 1 : 0, 0); /* too short: all rows zero */
        free(x);
    }
}

Test(slide, protein_incremental)
{
    tsk_params p;
    tsk_params_default(&p);
    p.alphabet = TSK_PROTEIN;
    p.t = 3;
    p.dim = 40;
    p.window = 80;
    p.stride = 2;
    tsk_tables_draw(&p);
    uint8_t *x = test_random_codes(1000, 20, 3u);
    compare_modes(p, x, 1000, 1e-12);
    free(x);
}

Test(slide, revcomp_tables_sketch_the_reverse_complement)
{
    tsk_params p, rc;
    tsk_params_default(&p);
    p.t = 5;
    p.dim = 29;
    tsk_tables_draw(&p);
    tsk_cpu_revcomp_tables(&p, &rc);
    uint8_t *x = test_random_codes(400, 4, 8u), *y = malloc(400);
    tsk_revcomp_codes(x, 400, y);
    double a[29], b[29];
    tsk_cpu_sketch_reference(&p, y, 400, a);
    tsk_cpu_sketch_reference(&rc, x, 400, b);
    cr_expect_leq(test_rel_err(b, a, p.dim), 1e-13);
    free(x);
    free(y);
}

/* Drift: a window slid across 1 Mbp without any rebuild stays at the recomputed value. */
Test(slide, no_drift_over_a_long_record, .timeout = 120)
{
    tsk_params p;
    tsk_params_default(&p);
    p.window = 20000;
    p.stride = 1000;
    tsk_tables_draw(&p);
    const int64_t n = 1000000, rows = n / p.stride;
    uint8_t *x = test_random_codes(n, 4, 21u);
    double *a = malloc((size_t)rows * (size_t)p.dim * sizeof *a), ref[96];
    cr_assert_eq(tsk_cpu_slide_rows(&p, x, n, 0, rows, TSK_SLIDE_INCREMENTAL, TSK_DOUBLE, a), 0);
    const int64_t check[] = {25, rows / 2, rows - 1};
    for (int k = 0; k < 3; k++) {
        int64_t first, last;
        tsk_slide_row_span(&p, check[k], &first, &last);
        tsk_cpu_sketch_reference(&p, x + first, last - first + 1, ref);
        double e = test_rel_err(a + (size_t)check[k] * p.dim, ref, p.dim);
        cr_log_info("slide drift at row %lld (1 Mbp, no rebuild): %.2e", (long long)check[k], e);
        cr_expect_leq(e, 1e-12, "row %lld: %.3g", (long long)check[k], e);
    }
    free(a);
    free(x);
}
