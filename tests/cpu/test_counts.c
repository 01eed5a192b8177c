/* test_counts: the tuple-count form of the sketch (cpu/sketch_counts.h), the plain twin of the
 * GPU's count kernel, against the float64 oracle's golden files, the split of a state into pieces
 * and the strand symmetry. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "sketch_counts.h"

/* Every row of a golden DNA case with t <= 4, from the counts of its window. */
static void check_case(const char *tsv, int t, int dim, int canonical, int64_t window, int64_t stride)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = t, p.dim = dim, p.canonical = canonical, p.window = window, p.stride = stride;
    tsk_tables_draw(&p);
    test_records r;
    test_read_fasta("golden/mixed.fa", TSK_DNA, &r);
    test_batch(&r, &p);
    test_tsv g;
    test_read_tsv(tsv, 0, &g);
    cr_assert_eq(r.row_offset[r.n_records], g.n_rows, "%s: rows", tsv);
    double *state = malloc(sizeof(double) * (size_t)tsk_counts_size(t));
    double *row = malloc(sizeof(double) * (size_t)dim);
    double worst = 0;
    for (int64_t i = 0; i < r.n_records; i++)
        for (int64_t k = r.row_offset[i]; k < r.row_offset[i + 1]; k++) {
            int64_t first = 0, last = r.offset[i + 1] - r.offset[i] - 1;
            if (window) tsk_slide_row_span(&p, k - r.row_offset[i], &first, &last);
            tsk_counts_scan(t, r.codes + r.offset[i] + first, last - first + 1, state);
            tsk_counts_row(&p, state, last - first + 1, row);
            const double e = test_rel_err(row, g.values + (size_t)k * dim, dim);
            cr_expect(e <= 1e-12, "%s row %s: error %.3g", tsv, g.names[k], e);
            worst = e > worst ? e : worst;
        }
    cr_log_info("%s: worst %.2e", tsv, worst);
    free(state);
    free(row);
    test_tsv_free(&g);
    test_records_free(&r);
}

Test(counts, oracle_cases)
{
    check_case("golden/mixed_t4_D96.tsv", 4, 96, 0, 0, 0);
    check_case("golden/mixed_t1_D7.tsv", 1, 7, 0, 0, 0);
    check_case("golden/mixed_t2_D1.tsv", 2, 1, 0, 0, 0);
    check_case("golden/mixed_t3_D16_canon.tsv", 3, 16, 1, 0, 0);
    check_case("golden/mixed_t4_D24_w50_s10.tsv", 4, 24, 0, 50, 10);
    check_case("golden/mixed_t3_D16_w5000_s300.tsv", 3, 16, 0, 5000, 300);
}

/* Pieces merge exactly: the counts are integers far below 2^53 here, so equality is bitwise. */
Test(counts, concat_equals_scan)
{
    const int64_t n = 3001;
    uint8_t *x = test_random_codes(n, 4, 17);
    for (int t = 1; t <= TSK_COUNT_MAX_T; t++) {
        const int size = tsk_counts_size(t);
        double *whole = malloc(sizeof(double) * (size_t)size * 4), *u = whole + size, *v = u + size, *uv = v + size;
        tsk_counts_scan(t, x, n, whole);
        for (int64_t cut = 0; cut <= n; cut += 373) {  /* 0 and n included: empty pieces */
            tsk_counts_scan(t, x, cut, u);
            tsk_counts_scan(t, x + cut, n - cut, v);
            tsk_counts_concat(t, u, v, uv);
            cr_assert_eq(memcmp(uv, whole, sizeof(double) * (size_t)size), 0, "t=%d cut %lld", t, (long long)cut);
        }
        free(whole);
    }
    free(x);
}

/* The canonical row of x and of its reverse complement are the same; the plain ones of x and rc(x)
 * average to it. */
Test(counts, canonical_is_strand_symmetric)
{
    const int64_t n = 2000;
    uint8_t *x = test_random_codes(n, 4, 5), *rc = malloc((size_t)n);
    tsk_revcomp_codes(x, (size_t)n, rc);
    tsk_params p;
    tsk_params_default(&p);
    tsk_tables_draw(&p);
    double s[341], a[96], b[96], c[96], d[96];
    p.canonical = 1;
    tsk_counts_scan(4, x, n, s);
    tsk_counts_row(&p, s, n, a);
    tsk_counts_scan(4, rc, n, s);
    tsk_counts_row(&p, s, n, b);
    p.canonical = 0;
    tsk_counts_row(&p, s, n, d);
    tsk_counts_scan(4, x, n, s);
    tsk_counts_row(&p, s, n, c);
    for (int l = 0; l < 96; l++) {
        cr_assert_float_eq(a[l], b[l], 1e-15 * (1 + a[l] * a[l]), "bin %d", l);
        cr_assert_float_eq(a[l], 0.5 * (c[l] + d[l]), 1e-15, "bin %d", l);
    }
    free(x);
    free(rc);
}
