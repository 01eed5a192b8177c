/* Tests of the GPU sketch engine (gpu/gpu_sketch.h) against the scalar float64 DP of the CPU
 * engine (tsk_cpu_sketch_reference) and the authors' reference vectors (testdata/gpu; its README
 * says where they come from). Without a GPU only the "unavailable" contract is checked. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../cpu/cpu_sketch.h"
#include "../../gpu/device.h"
#include "../../gpu/gpu_sketch.h"

static int gpu_count(void)
{
    char why[128];
    return tsk_gpu_device_count(why, sizeof why);
}

#define NEED_GPU() do { if (gpu_count() == 0) cr_skip_test("no CUDA device"); } while (0)

Test(gpu_sketch, unavailable_is_clean)
{
    char why[128] = "", err[256] = "";
    int n = tsk_gpu_device_count(why, sizeof why);
    if (n > 0) {
        cr_assert_geq(tsk_gpu_max_dim(), 96);
        return;
    }
    cr_assert_neq(why[0], '\0', "a reason is given when no GPU is usable");
    tsk_params p;
    tsk_params_default(&p);
    int dev = 0;
    cr_assert_null(tsk_gpu_sketcher_open(&p, &dev, 1, err, sizeof err));
    cr_assert_neq(err[0], '\0', "open says why it failed");
    tsk_gpu_sketcher_close(NULL);
}

Test(gpu_sketch, rejects_bad_params)
{
    NEED_GPU();
    char err[256] = "";
    tsk_params p;
    tsk_params_default(&p);
    p.dim = tsk_gpu_max_dim() + 1;
    tsk_tables_draw(&p);
    cr_assert_null(tsk_gpu_sketcher_open(&p, NULL, 0, err, sizeof err));
    cr_assert_neq(err[0], '\0');
    tsk_params_default(&p);
    int dev = 999;
    cr_assert_null(tsk_gpu_sketcher_open(&p, &dev, 1, err, sizeof err));
}

/* ||a - ref|| / ||ref|| (absolute when ref is zero) */
static double row_err(const void *row, int dbl, const double *ref, int dim)
{
    double num = 0, den = 0;
    for (int l = 0; l < dim; l++) {
        double g = dbl ? ((const double *)row)[l] : ((const float *)row)[l];
        num += (g - ref[l]) * (g - ref[l]);
        den += ref[l] * ref[l];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Reference of one row (window [first, last] of codes, canonical if asked) in float64. */
static void ref_row(const tsk_params *p, const uint8_t *codes, int64_t first, int64_t last, double *out)
{
    int64_t n = last - first + 1;
    tsk_cpu_sketch_reference(p, codes + first, n, out);
    if (!p->canonical) return;
    uint8_t *rc = malloc(n ? n : 1);
    double *two = malloc(p->dim * sizeof *two);
    tsk_revcomp_codes(codes + first, n, rc);
    tsk_cpu_sketch_reference(p, rc, n, two);
    for (int l = 0; l < p->dim; l++) out[l] = 0.5 * (out[l] + two[l]);
    free(rc), free(two);
}

/* Sketches records of the given lengths (random codes) on the GPU and checks every row. */
static void check_random(tsk_params *p, const int64_t *lens, int nlen, unsigned seed, double tol)
{
    int64_t *off = malloc((nlen + 1) * sizeof *off), *roff = malloc((nlen + 1) * sizeof *roff);
    off[0] = roff[0] = 0;
    for (int i = 0; i < nlen; i++) {
        off[i + 1] = off[i] + lens[i];
        roff[i + 1] = roff[i] + tsk_rows_for_length(p, lens[i]);
    }
    uint8_t *codes = malloc(off[nlen] + 1);
    srand(seed);
    int a = tsk_alphabet_size(p->alphabet);
    for (int64_t i = 0; i < off[nlen]; i++) codes[i] = (uint8_t)(rand() % a);
    tsk_batch b = {nlen, codes, off, roff};
    size_t elt = p->precision == TSK_DOUBLE ? 8 : 4;
    char *out = malloc(roff[nlen] * p->dim * elt + 1);
    memset(out, 0xff, roff[nlen] * p->dim * elt);
    char err[256];
    tsk_gpu_sketcher *g = tsk_gpu_sketcher_open(p, NULL, 0, err, sizeof err);
    cr_assert_not_null(g, "open t=%d D=%d: %s", p->t, p->dim, err);
    cr_assert_eq(tsk_gpu_sketch(g, &b, out, err, sizeof err), 0, "%s", err);
    tsk_gpu_sketcher_close(g);
    double *ref = malloc(p->dim * sizeof *ref);
    for (int i = 0; i < nlen; i++)
        for (int64_t r = 0; r < roff[i + 1] - roff[i]; r++) {
            int64_t first = 0, last = lens[i] - 1;
            if (p->window > 0) tsk_slide_row_span(p, r, &first, &last);
            ref_row(p, codes + off[i], first, last, ref);
            double e = row_err(out + (roff[i] + r) * p->dim * elt, p->precision == TSK_DOUBLE, ref, p->dim);
            cr_assert(e <= tol, "t=%d D=%d %s canon=%d w=%lld s=%lld: record len %lld row %lld: rel err %.3e > %.1e",
                      p->t, p->dim, p->precision == TSK_DOUBLE ? "f64" : "f32", p->canonical, (long long)p->window,
                      (long long)p->stride, (long long)lens[i], (long long)r, e, tol);
        }
    free(ref), free(out), free(codes), free(off), free(roff);
}

/* Lengths around every boundary: 0, 1, t-1, t, t+1, a warp, the count kernels' float block of 128
 * characters +-1 and their smallest piece 4096 +-1 (DNA at t <= 4: at this size rows longer than
 * 4096 are cut into ceil(len / 4096) equal pieces, 52000 into 13, so the merge tree has odd
 * levels), the sketch-DP split threshold 16384 +-1, and split records there (up to 32768 a first
 * and a last piece, 40000 one middle chunk between them, 52000 three); long ones only where the
 * float64 reference stays cheap. */
static int lengths_for(int t, int dim, int64_t *lens)
{
    const int64_t cand[] = {0, 1, t - 1, t, t + 1, 31, 33, 100, 127, 128, 129, 1000, 4095, 4096, 4097, 5000,
                            16383, 16384, 16385, 32768, 32769, 40000, 52000};
    const double budget = 6e7;  /* reference multiply-adds per configuration */
    int n = 0;
    double used = 0;
    for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
        double c = (double)cand[i] * t * dim;
        if (cand[i] < 0 || used + c > budget) continue;
        used += c;
        lens[n++] = cand[i];
    }
    return n;
}

Test(gpu_sketch, sweep_t_dim_precision, .timeout = 600)
{
    NEED_GPU();
    const int ts[] = {1, 2, 3, 4, 5, 8, 16};
    const int dims[] = {7, 32, 64, 96, 100, 128, 256, 1024};
    for (size_t ti = 0; ti < sizeof ts / sizeof *ts; ti++)
        for (size_t di = 0; di < sizeof dims / sizeof *dims; di++)
            for (int prec = 0; prec < 2; prec++) {
                tsk_params p;
                tsk_params_default(&p);
                p.t = ts[ti], p.dim = dims[di], p.precision = prec ? TSK_DOUBLE : TSK_SINGLE;
                tsk_tables_draw(&p);
                int64_t lens[32];
                int n = lengths_for(p.t, p.dim, lens);
                check_random(&p, lens, n, 7 + ti * 31 + di, prec ? 1e-10 : 1e-5);
            }
}

Test(gpu_sketch, canonical_and_protein)
{
    NEED_GPU();
    /* split rows on both strands: two pieces, one and two middle chunks */
    const int64_t lens[] = {0, 3, 4, 97, 2000, 16385, 30000, 40000, 45000};
    const int n = sizeof lens / sizeof *lens;
    for (int d = 0; d < 2; d++) {
        tsk_params p;
        tsk_params_default(&p);
        p.canonical = 1;
        p.dim = d ? 100 : 96;
        tsk_tables_draw(&p);
        check_random(&p, lens, n, 11, 1e-5);
    }
    tsk_params p;
    tsk_params_default(&p);
    p.alphabet = TSK_PROTEIN;
    tsk_tables_draw(&p);
    check_random(&p, lens, n, 12, 1e-5);
}

Test(gpu_sketch, slide_rows_across_chunks)
{
    NEED_GPU();
    const int64_t lens[] = {0, 5, 299, 300, 1001, 20000, 45000};
    const int64_t ws[][2] = {{300, 300}, {1000, 7}, {20000, 7001}, {17000, 17000}};
    for (int k = 0; k < 4; k++)
        for (int canon = 0; canon < 2; canon++) {
            tsk_params p;
            tsk_params_default(&p);
            p.window = ws[k][0], p.stride = ws[k][1], p.canonical = canon;
            if (k == 1) p.dim = 64;
            tsk_tables_draw(&p);
            check_random(&p, lens, 7, 13 + k, 1e-5);
        }
}

/* ---- golden vectors of the authors' implementation ---- */

static char *path_of(const char *name)
{
    static char buf[1024];
    const char *dir = getenv("TESTDATA");
    snprintf(buf, sizeof buf, "%s/gpu/%s", dir ? dir : "testdata", name);
    return buf;
}

static void golden_params(tsk_params *p)
{
    tsk_params_default(p);
    p->t = 3, p->dim = 16;
    memset(p->hash, 0, sizeof p->hash);
    FILE *f = fopen(path_of("tables_t3_D16_seed99.txt"), "r");
    cr_assert_not_null(f);
    char kind;
    int lev;
    while (fscanf(f, " %c", &kind) == 1) {
        if ((kind == 'h' || kind == 's') && fscanf(f, "%d", &lev) == 1) {
            for (int c = 0; c < 4; c++) {
                int v;
                cr_assert_eq(fscanf(f, "%d", &v), 1);
                if (kind == 'h') p->hash[lev][c] = v;
                else p->sign[lev][c] = (int8_t)v;
            }
        } else {
            int v;
            cr_assert_eq(fscanf(f, "%d", &v), 1);  /* 'A 4', 't 3', 'D 16' */
        }
    }
    fclose(f);
    p->tables_from_file = 1;
}

/* acgt.fa: record i is codes[off[i] .. off[i+1]) */
static int read_small_fasta(uint8_t *codes, int64_t *off, int max)
{
    FILE *f = fopen(path_of("acgt.fa"), "r");
    cr_assert_not_null(f);
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    char line[4096];
    int n = 0;
    off[0] = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '>') {
            cr_assert_lt(n, max);
            off[n + 1] = off[n];
            n++;
        } else if (n > 0) {
            off[n] += tsk_encode(lut, line, strlen(line), codes + off[n]);
        }
    }
    fclose(f);
    return n;
}

static void golden(int window, int stride, const char *tsv, int prec)
{
    tsk_params p;
    golden_params(&p);
    p.window = window, p.stride = stride, p.precision = prec;
    uint8_t codes[8192];
    int64_t off[17], roff[17];
    int n = read_small_fasta(codes, off, 15);
    roff[0] = 0;
    for (int i = 0; i < n; i++) roff[i + 1] = roff[i] + tsk_rows_for_length(&p, off[i + 1] - off[i]);
    tsk_batch b = {n, codes, off, roff};
    size_t elt = prec ? 8 : 4;
    char *out = malloc(roff[n] * 16 * elt + 1), err[256];
    tsk_gpu_sketcher *g = tsk_gpu_sketcher_open(&p, NULL, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    cr_assert_eq(tsk_gpu_sketch(g, &b, out, err, sizeof err), 0, "%s", err);
    tsk_gpu_sketcher_close(g);
    FILE *f = fopen(path_of(tsv), "r");
    cr_assert_not_null(f);
    char line[8192];
    int64_t row = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = strchr(line, '\t');
        if (window) s = strchr(s + 1, '\t');
        double ref[16];
        for (int l = 0; l < 16; l++) ref[l] = strtod(s + 1, &s);
        cr_assert_lt(row, roff[n]);
        double e = row_err(out + row * 16 * elt, prec, ref, 16);
        cr_assert(e <= (prec ? 1e-12 : 1e-6), "%s row %lld: rel err %.3e", tsv, (long long)row, e);
        row++;
    }
    fclose(f);
    cr_assert_eq(row, roff[n], "every reference row compared");
    free(out);
}

Test(gpu_sketch, golden_whole) { NEED_GPU(); golden(0, 0, "reference_ts_t3_D16.tsv", 0); golden(0, 0, "reference_ts_t3_D16.tsv", 1); }
Test(gpu_sketch, golden_slide) { NEED_GPU(); golden(40, 7, "reference_tss_t3_D16_w40_s7.tsv", 0); golden(40, 7, "reference_tss_t3_D16_w40_s7.tsv", 1); }

Test(gpu_sketch, real_mitochondrion)
{
    NEED_GPU();
    FILE *f = fopen(path_of("MT-human.fa"), "r");
    cr_assert_not_null(f);
    static uint8_t codes[20000];
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    char line[1024];
    int64_t n = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '>') n += tsk_encode(lut, line, strlen(line), codes + n);
    fclose(f);
    cr_assert_eq(n, 16569);
    for (int canon = 0; canon < 2; canon++) {
        tsk_params p;
        tsk_params_default(&p);
        p.canonical = canon;
        int64_t off[2] = {0, n}, roff[2] = {0, 1};
        tsk_batch b = {1, codes, off, roff};
        float out[96];
        double ref[96];
        char err[256];
        tsk_gpu_sketcher *g = tsk_gpu_sketcher_open(&p, NULL, 0, err, sizeof err);
        cr_assert_not_null(g, "%s", err);
        cr_assert_eq(tsk_gpu_sketch(g, &b, out, err, sizeof err), 0, "%s", err);
        tsk_gpu_sketcher_close(g);
        ref_row(&p, codes, 0, n - 1, ref);
        cr_assert(row_err(out, 0, ref, 96) <= 1e-5, "MT-human canonical=%d: %.3e", canon, row_err(out, 0, ref, 96));
    }
}

/* Sketches batch b with the engine's pinned buffers made four ways: grown by the first batch,
 * reserved, reserved from a prefaulted region of the right size (gpu/host_pinned.h), and from one
 * far too small (the rest mapped as needed); the rows must not change. A prefault that no engine
 * takes is released by closing none. */
Test(gpu_sketch, prefaulted_pinned_buffers, .timeout = 120)
{
    NEED_GPU();
    tsk_params p;
    tsk_params_default(&p);
    enum { N = 300 };
    int64_t off[N + 1], roff[N + 1];
    off[0] = roff[0] = 0;
    srand(7);
    for (int i = 0; i < N; i++) {
        off[i + 1] = off[i] + (i % 50 == 0 ? 70000 : 1 + rand() % 3000);
        roff[i + 1] = i + 1;
    }
    uint8_t *codes = malloc(off[N]);
    for (int64_t i = 0; i < off[N]; i++) codes[i] = (uint8_t)(rand() % 4);
    tsk_batch b = {N, codes, off, roff};
    float *first = malloc(sizeof(float) * N * p.dim), *out = malloc(sizeof(float) * N * p.dim);
    char err[256];
    tsk_gpu_sketcher_prefault(&p, 1, 1 << 30, 1 << 20, 16);
    tsk_gpu_sketcher_close(NULL);
    for (int way = 0; way < 4; way++) {
        if (way == 2) tsk_gpu_sketcher_prefault(&p, 1, off[N], N, 4);
        if (way == 3) tsk_gpu_sketcher_prefault(&p, 1, 100, 1, 1);
        tsk_gpu_sketcher *g = tsk_gpu_sketcher_open(&p, NULL, 0, err, sizeof err);
        cr_assert_not_null(g, "%s", err);
        if (way > 0) cr_assert_eq(tsk_gpu_sketcher_reserve(g, way == 3 ? 2 * off[N] : off[N], N, err, sizeof err), 0, "%s", err);
        memset(out, 0xff, sizeof(float) * N * p.dim);
        cr_assert_eq(tsk_gpu_sketch(g, &b, out, err, sizeof err), 0, "%s", err);
        tsk_gpu_sketcher_close(g);
        if (way == 0) {
            memcpy(first, out, sizeof(float) * N * p.dim);
            double ref[96];
            ref_row(&p, codes, off[1], off[2] - 1, ref);
            cr_assert(row_err(out + p.dim, 0, ref, p.dim) <= 1e-5, "row 1 against the reference");
            continue;
        }
        for (int i = 0; i < N; i++) {
            double ref[96];
            for (int l = 0; l < p.dim; l++) ref[l] = first[(size_t)i * p.dim + l];
            cr_assert(row_err(out + (size_t)i * p.dim, 0, ref, p.dim) <= 1e-6, "way %d, row %d", way, i);
        }
    }
    free(first), free(out), free(codes);
}
