/* test_counts: the tuple-count form of the sketch (cpu/sketch_counts.h), the plain twin of the
 * GPU's count kernel, against the float64 oracle's golden files, the split of a state into pieces
 * and the strand symmetry. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "cpu_sketch.h"
#include "sketch_counts.h"
#include "sketch_dp.h"

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

/* The engine's counts (32-bit blocks, vector kernel, merged totals) are tsk_counts_scan's, exactly:
 * below 2^53 every count is an integer either way. Lengths around the block size; the meson runs with
 * TSKETCH_COUNTS_KERNEL=portable (the plain kernel) and =avx2 check those kernels the same way (the
 * default run takes the widest). */
Test(counts, engine_state_equals_scan)
{
    const int64_t lens[] = {0, 1, 3, 4, 511, 512, 513, 1025, 5000, 20000};
    uint8_t *x = test_random_codes(20000, 4, 23);
    for (int t = 1; t <= TSK_COUNT_MAX_T; t++) {
        const int size = tsk_counts_size(t);
        double plain[341], engine[341], back[341];
        for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
            tsk_counts_scan(t, x, lens[i], plain);
            tsk_counts_scan_engine(t, x, lens[i], engine);
            tsk_counts_to_plain(t, engine, back);
            cr_assert_eq(memcmp(plain, back, sizeof(double) * (size_t)size), 0, "t=%d n=%lld", t, (long long)lens[i]);
        }
    }
    free(x);
}

/* Every count kernel this CPU can run gives the plain kernel's integers, for every level count and
 * block length (random letters, and runs of one letter, where the counts are largest). */
Test(counts, kernels_equal_plain)
{
    const char *names[] = {"plain", "avx2", "avx512"};
    uint8_t *x = test_random_codes(TSK_COUNTS_BLOCK, 4, 31);
    uint8_t same[TSK_COUNTS_BLOCK];
    int ran = 0;
    for (int k = TSK_COUNTS_KERNEL_AVX2; k <= TSK_COUNTS_KERNEL_AVX512; k++) {
        if (!tsk_counts_kernel_available((tsk_counts_kernel)k)) {
            cr_log_info("count kernel %s: not on this CPU, not checked", names[k]);
            continue;
        }
        ran++;
        for (int letter = -1; letter < 4; letter++) {
            const uint8_t *in = x;
            if (letter >= 0) memset(same, letter, sizeof same), in = same;
            for (int t = 1; t <= TSK_COUNT_MAX_T; t++)
                for (int64_t n = 0; n <= TSK_COUNTS_BLOCK; n += n < 40 ? 1 : 37) {
                    uint32_t want[341], got[341];
                    memset(got, 0xA5, sizeof got); /* every value must be written */
                    tsk_counts_block_with(TSK_COUNTS_KERNEL_PLAIN, t, in, n, want);
                    tsk_counts_block_with((tsk_counts_kernel)k, t, in, n, got);
                    cr_assert_eq(memcmp(want, got, sizeof(uint32_t) * (size_t)tsk_counts_size(t)), 0,
                                 "kernel %s t=%d n=%lld letter %d", names[k], t, (long long)n, letter);
                }
        }
    }
    cr_log_info("count kernels checked against plain: %d", ran);
    free(x);
}

/* Every kernel's merge gives the bits of the formula computed one value at a time, also where the
 * totals are beyond 2^53 and round (states of random large values, not only integers). */
Test(counts, merge_kernels_same_bits)
{
    const char *names[] = {"plain", "avx2", "avx512"};
    uint64_t rng = 77;
    for (int k = TSK_COUNTS_KERNEL_PLAIN; k <= TSK_COUNTS_KERNEL_AVX512; k++) {
        if (!tsk_counts_kernel_available((tsk_counts_kernel)k)) continue;
        for (int t = 1; t <= TSK_COUNT_MAX_T; t++)
            for (int trial = 0; trial < 20; trial++) {
                double u[341], v[341], want[341];
                for (int i = 0; i < tsk_counts_size(t); i++) {
                    rng = rng * 6364136223846793005u + 1442695040888963407u;
                    u[i] = (double)(rng >> 11) * (trial % 2 ? 1e3 : 1e-2);
                    rng = rng * 6364136223846793005u + 1442695040888963407u;
                    v[i] = (double)(rng >> 11) * (trial % 3 ? 1e2 : 1e-3);
                }
                u[0] = v[0] = 1.0;
                memcpy(want, u, sizeof want);
                for (int lv = t; lv >= 1; lv--)
                    for (int j = 0; j < lv; j++) {
                        const int nj = 1 << (2 * j), nr = 1 << (2 * (lv - j));
                        for (int s = 0; s < nr; s++)
                            for (int q = 0; q < nj; q++) {
                                /* volatile: the product rounded on its own, never fused into the add */
                                volatile double prod =
                                    want[tsk_counts_offset(j) + q] * v[tsk_counts_offset(lv - j) + s];
                                want[tsk_counts_offset(lv) + s * nj + q] += prod;
                            }
                    }
                tsk_counts_merge_with((tsk_counts_kernel)k, t, u, v);
                cr_assert_eq(memcmp(u, want, sizeof(double) * (size_t)tsk_counts_size(t)), 0, "kernel %s t=%d trial %d",
                             names[k], t, trial);
            }
    }
}

/* A merge of engine states is the state of the concatenation, exactly. */
Test(counts, engine_merge_equals_scan)
{
    const int64_t n = 3001;
    uint8_t *x = test_random_codes(n, 4, 29);
    for (int t = 1; t <= TSK_COUNT_MAX_T; t++) {
        double whole[341], u[341], v[341];
        tsk_counts_scan_engine(t, x, n, whole);
        for (int64_t cut = 0; cut <= n; cut += 1000) {
            tsk_counts_scan_engine(t, x, cut, u);
            tsk_counts_scan_engine(t, x + cut, n - cut, v);
            tsk_counts_merge(t, u, v);
            cr_assert_eq(memcmp(u, whole, sizeof(double) * (size_t)tsk_counts_size(t)), 0, "t=%d cut %lld", t,
                         (long long)cut);
        }
    }
    free(x);
}

/* The engine's projection is tsk_counts_row bit for bit (same operations, same order). */
Test(counts, engine_row_is_tsk_counts_row)
{
    const int64_t n = 777;
    uint8_t *x = test_random_codes(n, 4, 31);
    static const int dims[] = {1, 7, 96, 1000};
    for (int t = 1; t <= TSK_COUNT_MAX_T; t++)
        for (int d = 0; d < 4; d++)
            for (int canonical = 0; canonical <= 1; canonical++) {
                tsk_params p;
                tsk_params_default(&p);
                p.t = t, p.dim = dims[d], p.canonical = canonical;
                tsk_tables_draw(&p);
                tsk_counts_map map;
                tsk_counts_map_init(&p, &map);
                double plain[341], engine[341], a[1000], b[1000];
                tsk_counts_scan(t, x, n, plain);
                tsk_counts_scan_engine(t, x, n, engine);
                tsk_counts_row(&p, plain, n, a);
                tsk_counts_row_engine(&map, engine, n, b);
                cr_assert_eq(memcmp(a, b, sizeof(double) * (size_t)p.dim), 0, "t=%d D=%d canonical=%d", t, p.dim,
                             canonical);
            }
    free(x);
}

/* The engine's count path (tsk_cpu_sketch for DNA, t <= 4) on records cut into pieces (longer than
 * 2^16) and past exact double counts (C(n, 4) > 2^53), against the sketch DP of every record (the
 * other method, tsk_cpu_record_sketch) in double, and the float rows against the double ones. */
Test(counts, engine_path_matches_the_dp, .timeout = 120)
{
    const int64_t lens[] = {200000, 65536, 65537, 30000, 150, 3, 0, 1000};
    const int n_rec = 8;
    int64_t offset[9] = {0}, row_offset[9] = {0};
    for (int i = 0; i < n_rec; i++) offset[i + 1] = offset[i] + lens[i], row_offset[i + 1] = i + 1;
    uint8_t *x = test_random_codes(offset[n_rec], 4, 37);
    const tsk_batch b = {n_rec, x, offset, row_offset};
    for (int t = 2; t <= TSK_COUNT_MAX_T; t += 2)
        for (int canonical = 0; canonical <= 1; canonical++) {
            tsk_params p;
            tsk_params_default(&p);
            p.t = t, p.canonical = canonical, p.precision = TSK_DOUBLE;
            tsk_tables_draw(&p);
            cr_assert(tsk_cpu_counts_used(&p));
            double *rows = malloc(sizeof(double) * (size_t)n_rec * (size_t)p.dim), ref[96], rc[96];
            float *rows_f = malloc(sizeof(float) * (size_t)n_rec * (size_t)p.dim);
            cr_assert_eq(tsk_cpu_sketch(&p, &b, rows, 3), 0);
            p.precision = TSK_SINGLE;
            cr_assert_eq(tsk_cpu_sketch(&p, &b, rows_f, 2), 0);
            for (int i = 0; i < n_rec; i++) {
                const uint8_t *xi = x + offset[i];
                cr_assert_eq(tsk_cpu_record_sketch(&p, xi, lens[i], tsk_cpu_chunk_length(&p), 1, ref), 0);
                if (canonical) {
                    uint8_t *r = malloc((size_t)lens[i] + 1);
                    tsk_revcomp_codes(xi, (size_t)lens[i], r);
                    cr_assert_eq(tsk_cpu_record_sketch(&p, r, lens[i], tsk_cpu_chunk_length(&p), 1, rc), 0);
                    for (int l = 0; l < p.dim; l++) ref[l] = 0.5 * (ref[l] + rc[l]);
                    free(r);
                }
                const double *got = rows + (size_t)i * (size_t)p.dim;
                const double e = test_rel_err(got, ref, p.dim);
                cr_expect(e <= 1e-12, "t=%d canonical=%d record %d (n=%lld): error %.3g", t, canonical, i,
                          (long long)lens[i], e);
                for (int l = 0; l < p.dim; l++)
                    cr_expect_eq(rows_f[(size_t)i * (size_t)p.dim + l], (float)got[l], "record %d bin %d", i, l);
            }
            free(rows);
            free(rows_f);
        }
    free(x);
}

/* The short path (sketch_short.h, genome sketches' windows): against the slow reference for every
 * t, both strand modes and every length up to TSK_SHORT_MAX_BASES, and the count path's integers:
 * rows times 2 C(n, t) are the same integers (what genome keys are made of). */
#include "sketch_short.h"

Test(counts, short_records_match_the_reference)
{
    uint8_t x[TSK_SHORT_MAX_BASES], rc[TSK_SHORT_MAX_BASES];
    double row[16], ref[16], ref_rc[16], state_row[16];
    double *state = malloc(sizeof(double) * (size_t)tsk_counts_size(4));
    uint64_t z = 12345;
    for (int t = 1; t <= 4; t++)
        for (int canonical = 0; canonical < 2; canonical++) {
            tsk_params p;
            tsk_params_default(&p);
            p.t = t, p.dim = 16, p.canonical = canonical, p.seed = 77 + (uint64_t)t;
            tsk_tables_draw(&p);
            tsk_short_tables *st = tsk_short_tables_make(&p);
            cr_assert(st, "t=%d: the short path applies at D = 16", t);
            for (int64_t n = 0; n <= TSK_SHORT_MAX_BASES; n++) {
                for (int64_t i = 0; i < n; i++) {
                    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
                    x[i] = (uint8_t)(z >> 62);
                }
                tsk_short_row(&p, st, x, n, row);
                tsk_cpu_sketch_reference(&p, x, n, ref);
                if (canonical) {
                    tsk_revcomp_codes(x, (size_t)n, rc);
                    tsk_cpu_sketch_reference(&p, rc, n, ref_rc);
                    for (int b = 0; b < 16; b++) ref[b] = 0.5 * (ref[b] + ref_rc[b]);
                }
                tsk_counts_scan(t, x, n, state);
                tsk_counts_row(&p, state, n, state_row);
                double tuples = 1;
                for (int i = 0; i < t; i++) tuples = tuples * (double)(n - i) / (double)(i + 1);
                const double scale = (canonical ? 2.0 : 1.0) * tuples;
                for (int b = 0; b < 16; b++) {
                    cr_expect(fabs(row[b] - ref[b]) <= 1e-12, "t=%d canonical=%d n=%lld bin %d: %.17g vs reference %.17g",
                              t, canonical, (long long)n, b, row[b], ref[b]);
                    if (n >= t)
                        cr_expect_eq(nearbyint(row[b] * scale), nearbyint(state_row[b] * scale),
                                     "t=%d canonical=%d n=%lld bin %d: integer sketch differs from the count path", t,
                                     canonical, (long long)n, b);
                    else cr_expect_eq(row[b], 0.0, "shorter than t: zero");
                }
            }
            tsk_short_tables_free(st);
        }
    free(state);
}

Test(counts, short_path_applies_only_where_exact)
{
    tsk_params p;
    tsk_params_default(&p);
    p.dim = 16;
    tsk_tables_draw(&p);
    tsk_short_tables *st = tsk_short_tables_make(&p);
    cr_expect(st != NULL, "DNA t=4 D=16");
    tsk_short_tables_free(st);
    p.dim = 17;
    tsk_tables_draw(&p);
    cr_expect(tsk_short_tables_make(&p) == NULL, "D != 16");
    p.dim = 16, p.t = 5;
    tsk_tables_draw(&p);
    cr_expect(tsk_short_tables_make(&p) == NULL, "t > 4");
    p.t = 3, p.alphabet = TSK_PROTEIN;
    tsk_tables_draw(&p);
    cr_expect(tsk_short_tables_make(&p) == NULL, "protein");
}
