/* tss_rows.c: the accuracy harness's own sketcher, for parameter sweeps.
 *
 *   tss_rows -t T -D D [-w W -s S] [-c] [-p THREADS] IN.fa[.gz] OUT
 *
 * Writes OUT.f32 (every row, float32, row-major, D values each) and OUT.idx (one line per
 * record: name TAB rows TAB cleaned_length). Same function as docs/spec.md (tables from
 * core/tsk_def.c), computed with unnormalised subsequence counts that slide: append the character
 * entering the window, drop the one leaving it, O(t^2 D) per base whatever the window. It exists so
 * that a sweep over dozens of (t, D, w, s) choices runs in seconds per choice before (and
 * independently of) the real engines; run_sweep.py checks it against the oracle first, and the
 * reported defaults are re-measured with tsketch itself. */
#include "tsk_def.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    char *name;
    uint8_t *codes;
    int64_t n;
} record;

/* S[j][p] (0 <= j <= p <= t): over the subsequences of length p - j of the current window, the sum
 * of sign products at bin (sum of hashes) mod D, using levels j .. p-1. S[j][j] = e_0. */
typedef struct {
    int t, dim;
    double *buf;
} slider;

static double *S(slider *sl, int j, int p) { return sl->buf + ((size_t)j * (sl->t + 1) + p) * sl->dim; }

static void slider_reset(slider *sl)
{
    memset(sl->buf, 0, sizeof(double) * (size_t)(sl->t + 1) * (sl->t + 1) * sl->dim);
    for (int j = 0; j <= sl->t; j++) S(sl, j, j)[0] = 1.0;
}

/* dst[l] += sg * src[(l - h) mod D] */
static void shift_add(double *dst, const double *src, int h, double sg, int dim)
{
    for (int l = 0; l < h; l++) dst[l] += sg * src[l - h + dim];
    for (int l = h; l < dim; l++) dst[l] += sg * src[l - h];
}

/* Character c joins at the end (levels: the new character is the last of a subsequence). */
static void append(slider *sl, const tsk_params *pr, int c, int all_starts)
{
    int jmax_all = all_starts ? sl->t : 1;
    for (int p = sl->t; p >= 1; p--)
        for (int j = 0; j < p && j < jmax_all; j++)
            shift_add(S(sl, j, p), S(sl, j, p - 1), pr->hash[p - 1][c], pr->sign[p - 1][c], sl->dim);
}

/* Character c leaves from the front: subtract the subsequences that start with it. */
static void pop_front(slider *sl, const tsk_params *pr, int c)
{
    for (int p = 1; p <= sl->t; p++)
        for (int j = p - 1; j >= 0; j--)
            shift_add(S(sl, j, p), S(sl, j + 1, p), pr->hash[j][c], -pr->sign[j][c], sl->dim);
}

/* Character c joins at the front. */
static void prepend(slider *sl, const tsk_params *pr, int c)
{
    for (int p = 1; p <= sl->t; p++)
        for (int j = 0; j < p; j++)
            shift_add(S(sl, j, p), S(sl, j + 1, p), pr->hash[j][c], pr->sign[j][c], sl->dim);
}

/* Character c leaves from the end. */
static void pop_back(slider *sl, const tsk_params *pr, int c)
{
    for (int p = 1; p <= sl->t; p++)
        for (int j = 0; j < p; j++)
            shift_add(S(sl, j, p), S(sl, j, p - 1), pr->hash[p - 1][c], -pr->sign[p - 1][c], sl->dim);
}

static double binom(int64_t n, int k)
{
    if (k < 0 || n < k) return 0.0;
    double r = 1.0;
    for (int i = 0; i < k; i++) r = r * (double)(n - i) / (double)(i + 1);
    return r;
}

static void emit(slider *sl, int64_t len, double *acc, int add)
{
    double c = binom(len, sl->t);
    const double *v = S(sl, 0, sl->t);
    for (int l = 0; l < sl->dim; l++) {
        double x = c > 0 ? v[l] / c : 0.0;
        acc[l] = add ? acc[l] + x : x;
    }
}

/* Rows of one record into out (rows x dim floats). */
static void sketch_record(const tsk_params *pr, const record *r, float *out)
{
    int dim = pr->dim, t = pr->t;
    slider fw = {t, dim, malloc(sizeof(double) * (size_t)(t + 1) * (t + 1) * dim)};
    slider rc = {t, dim, pr->canonical ? malloc(sizeof(double) * (size_t)(t + 1) * (t + 1) * dim) : NULL};
    double *acc = malloc(sizeof(double) * dim);
    slider_reset(&fw);
    if (rc.buf) slider_reset(&rc);
    int64_t n = r->n;
    if (pr->window == 0) {
        for (int64_t i = 0; i < n; i++) append(&fw, pr, r->codes[i], 0);
        emit(&fw, n, acc, 0);
        if (rc.buf) {
            for (int64_t i = n - 1; i >= 0; i--) append(&rc, pr, 3 - r->codes[i], 0);
            emit(&rc, n, acc, 1);
            for (int l = 0; l < dim; l++) acc[l] *= 0.5;
        }
        for (int l = 0; l < dim; l++) out[l] = (float)acc[l];
    } else {
        int64_t w = pr->window, s = pr->stride, row = 0;
        for (int64_t i = 0; i < n; i++) {
            int c = r->codes[i];
            append(&fw, pr, c, 1);
            if (rc.buf) prepend(&rc, pr, 3 - c);
            if (i >= w) {
                int old = r->codes[i - w];
                pop_front(&fw, pr, old);
                if (rc.buf) pop_back(&rc, pr, 3 - old);
            }
            if ((i + 1) % s == 0) {
                int64_t len = i + 1 < w ? i + 1 : w;
                emit(&fw, len, acc, 0);
                if (rc.buf) {
                    emit(&rc, len, acc, 1);
                    for (int l = 0; l < dim; l++) acc[l] *= 0.5;
                }
                for (int l = 0; l < dim; l++) out[row * dim + l] = (float)acc[l];
                row++;
            }
        }
    }
    free(fw.buf);
    free(rc.buf);
    free(acc);
}

static int read_fasta(const char *path, const uint8_t lut[256], record **recs, int64_t *nrec)
{
    gzFile f = gzopen(path, "rb");
    if (!f) return -1;
    size_t cap = 0, len = 0, rcap = 0;
    record *v = NULL;
    int64_t k = 0;
    char line[1 << 16];
    while (gzgets(f, line, sizeof line)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r')) line[--l] = 0;
        if (line[0] == '>') {
            if (k) v[k - 1].n = (int64_t)len;
            if ((size_t)k == rcap) v = realloc(v, sizeof *v * (rcap = rcap ? 2 * rcap : 64));
            char *sp = strpbrk(line + 1, " \t");
            if (sp) *sp = 0;
            v[k].name = strdup(line + 1);
            v[k].codes = NULL;
            cap = len = 0;
            k++;
            continue;
        }
        if (!k) continue;
        if (len + l > cap) v[k - 1].codes = realloc(v[k - 1].codes, cap = 2 * (len + l) + 1024);
        len += tsk_encode(lut, line, l, v[k - 1].codes + len);
    }
    if (k) v[k - 1].n = (int64_t)len;
    gzclose(f);
    *recs = v;
    *nrec = k;
    return 0;
}

int main(int argc, char **argv)
{
    tsk_params pr;
    tsk_params_default(&pr);
    int threads = 1, ai = 1;
    for (; ai < argc && argv[ai][0] == '-' && argv[ai][1]; ai++) {
        const char *o = argv[ai];
        if (!strcmp(o, "-c")) { pr.canonical = 1; continue; }
        if (ai + 1 >= argc) break;
        long long v = atoll(argv[++ai]);
        if (!strcmp(o, "-t")) pr.t = (int)v;
        else if (!strcmp(o, "-D")) pr.dim = (int)v;
        else if (!strcmp(o, "-w")) pr.window = v;
        else if (!strcmp(o, "-s")) pr.stride = v;
        else if (!strcmp(o, "-p")) threads = (int)v;
        else { fprintf(stderr, "tss_rows: unknown option %s\n", o); return 2; }
    }
    if (pr.window && !pr.stride) pr.stride = pr.window;
    if (argc - ai != 2) {
        fprintf(stderr, "usage: tss_rows -t T -D D [-w W -s S] [-c] [-p THREADS] IN.fa OUT\n");
        return 2;
    }
    tsk_tables_draw(&pr);
    const char *err = tsk_params_check(&pr);
    if (err) { fprintf(stderr, "tss_rows: %s\n", err); return 2; }
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    record *recs;
    int64_t nrec;
    if (read_fasta(argv[ai], lut, &recs, &nrec)) { perror(argv[ai]); return 3; }
    int64_t *first = malloc(sizeof(int64_t) * (nrec + 1));
    first[0] = 0;
    for (int64_t i = 0; i < nrec; i++) first[i + 1] = first[i] + tsk_rows_for_length(&pr, recs[i].n);
    float *rows = calloc((size_t)first[nrec] * pr.dim + 1, sizeof(float));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t i = 0; i < nrec; i++) sketch_record(&pr, &recs[i], rows + first[i] * pr.dim);
    char path[4096];
    snprintf(path, sizeof path, "%s.f32", argv[ai + 1]);
    FILE *fo = fopen(path, "wb");
    if (!fo || fwrite(rows, sizeof(float) * pr.dim, (size_t)first[nrec], fo) != (size_t)first[nrec]) {
        perror(path);
        return 1;
    }
    fclose(fo);
    snprintf(path, sizeof path, "%s.idx", argv[ai + 1]);
    fo = fopen(path, "w");
    if (!fo) { perror(path); return 1; }
    for (int64_t i = 0; i < nrec; i++)
        fprintf(fo, "%s\t%lld\t%lld\n", recs[i].name, (long long)(first[i + 1] - first[i]), (long long)recs[i].n);
    fclose(fo);
    return 0;
}
