/* test_golden: the engine against the float64 oracle's golden files (testdata/golden/cases.tsv)
 * and against the Tensor Sketch authors' reference vectors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sketch.h"
#include "golden.h"

/* Runs the engine on fasta with p in both precisions and compares every row with the golden TSV:
 * row names (record, or record:start-end for slides), count, and values (relative, per row). */
static void check_case(const char *fasta, const char *tsv, int skip, tsk_params p, int threads)
{
    test_records r;
    test_read_fasta(fasta, p.alphabet, &r);
    tsk_batch b = test_batch(&r, &p);
    test_tsv g;
    test_read_tsv(tsv, skip, &g);
    const int64_t rows = r.row_offset[r.n_records];
    cr_assert_eq(rows, g.n_rows, "%s: %lld rows, golden has %lld", tsv, (long long)rows, (long long)g.n_rows);
    cr_assert_eq(p.dim, g.dim, "%s: dim", tsv);
    for (int64_t i = 0; i < r.n_records; i++)
        for (int64_t k = r.row_offset[i]; k < r.row_offset[i + 1]; k++) {
            char name[512];
            if (p.window) {
                int64_t first, last;
                tsk_slide_row_span(&p, k - r.row_offset[i], &first, &last);
                snprintf(name, sizeof name, "%s:%lld-%lld", r.names[i], (long long)first + 1, (long long)last + 1);
            } else {
                snprintf(name, sizeof name, "%s", r.names[i]);
            }
            if (skip == 0) cr_assert_str_eq(name, g.names[k], "%s: row %lld", tsv, (long long)k);
        }
    float *sf = malloc((size_t)rows * (size_t)p.dim * sizeof *sf + 1);
    double *sd = malloc((size_t)rows * (size_t)p.dim * sizeof *sd + 1);
    double *tmp = malloc((size_t)p.dim * sizeof *tmp);
    p.precision = TSK_SINGLE;
    cr_assert_eq(tsk_cpu_sketch(&p, &b, sf, threads), 0);
    p.precision = TSK_DOUBLE;
    cr_assert_eq(tsk_cpu_sketch(&p, &b, sd, threads), 0);
    double worst_s = 0, worst_d = 0;
    for (int64_t k = 0; k < rows; k++) {
        const double *want = g.values + (size_t)k * p.dim;
        for (int l = 0; l < p.dim; l++) tmp[l] = sf[(size_t)k * p.dim + l];
        double es = test_rel_err(tmp, want, p.dim), ed = test_rel_err(sd + (size_t)k * p.dim, want, p.dim);
        cr_expect(es <= 1e-5, "%s row %s: single error %.3g", tsv, g.names[k], es);
        cr_expect(ed <= 1e-12, "%s row %s: double error %.3g", tsv, g.names[k], ed);
        worst_s = es > worst_s ? es : worst_s;
        worst_d = ed > worst_d ? ed : worst_d;
    }
    cr_log_info("%s: %lld rows, worst single %.2e, double %.2e", tsv, (long long)rows, worst_s, worst_d);
    free(sf);
    free(sd);
    free(tmp);
    test_tsv_free(&g);
    test_records_free(&r);
}

Test(golden, oracle_cases)
{
    FILE *f = fopen(test_path("golden/cases.tsv"), "r");
    cr_assert(f != NULL, "no golden/cases.tsv");
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char out[256], fa[256], alpha[32];
        int t, dim, canon;
        unsigned long long seed;
        long long w, s;
        cr_assert_eq(sscanf(line, "%255s %255s %d %d %llu %31s %d %lld %lld", out, fa, &t, &dim, &seed, alpha, &canon,
                            &w, &s),
                     9, "bad cases.tsv line: %s", line);
        tsk_params p;
        tsk_params_default(&p);
        p.t = t;
        p.dim = dim;
        p.seed = seed;
        p.alphabet = strcmp(alpha, "protein") ? TSK_DNA : TSK_PROTEIN;
        p.canonical = canon;
        p.window = w;
        p.stride = s;
        tsk_tables_draw(&p);
        cr_assert_null(tsk_params_check(&p), "%s: params", out);
        char fpath[300], opath[300];
        snprintf(fpath, sizeof fpath, "golden/%s", fa);
        snprintf(opath, sizeof opath, "golden/%s", out);
        check_case(fpath, opath, 0, p, 1 + n % 3);
        n++;
    }
    fclose(f);
    cr_assert_geq(n, 10, "too few golden cases");
}

static tsk_params reference_params(void)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = 3;
    p.dim = 16;
    tsk_tables_draw(&p); /* overwritten from the file below */
    memset(p.hash, 0, sizeof p.hash);
    memset(p.sign, 0, sizeof p.sign);
    test_read_tables("golden/tables_t3_D16_seed99.txt", &p);
    return p;
}

Test(golden, tables_file_is_the_splitmix_draw)
{
    tsk_params f = reference_params(), d;
    tsk_params_default(&d);
    d.t = 3;
    d.dim = 16;
    d.seed = 99;
    tsk_tables_draw(&d);
    cr_assert_eq(memcmp(f.hash, d.hash, sizeof f.hash), 0);
    cr_assert_eq(memcmp(f.sign, d.sign, sizeof f.sign), 0);
}

Test(golden, reference_tensor_sketch)
{
    check_case("golden/acgt.fa", "golden/reference_ts_t3_D16.tsv", 0, reference_params(), 2);
}

Test(golden, reference_tensor_slide_sketch)
{
    tsk_params p = reference_params();
    p.window = 40;
    p.stride = 7;
    check_case("golden/acgt.fa", "golden/reference_tss_t3_D16_w40_s7.tsv", 1, p, 2);
}
