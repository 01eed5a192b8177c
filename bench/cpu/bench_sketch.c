/* bench_sketch: validates the CPU sketch engine against tsk_cpu_sketch_reference, then times the
 * plain scalar DP loop (float, as a straightforward C port of docs/spec.md would be written) and the
 * engine at 1 and N threads on FASTA workloads (bench/cpu/run.sh makes them).
 *
 *   bench_sketch [-t T] [-d D] [-T THREADS] [-w WINDOW -s STRIDE] [-c] FASTA...
 *   bench_sketch -e N [-t T] [-d D] [-T THREADS]    single vs double on one random N bp record
 *
 * Prints one TSV line per workload: name, Mbp, scalar Mbp/s, engine Mbp/s at 1 thread and at
 * THREADS, speed-up over scalar, thread scaling, and the validation errors. Exits 1 when the
 * engine disagrees with the reference beyond 1e-5 (single) or 1e-12 (double). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_sketch.h"

typedef struct {
    uint8_t *codes;
    int64_t *offset;
    int64_t n_records, cap_records, n_codes, cap_codes;
} records;

/* Wall clock, or the process's CPU time with TSKETCH_BENCH_CPU_TIME=1 (a shared, loaded machine:
 * meaningful for one thread only). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(getenv("TSKETCH_BENCH_CPU_TIME") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "bench_sketch: out of memory\n");
        exit(1);
    }
    return q;
}

/* Minimal FASTA reader (the real one is io/'s): '>' starts a record, other lines are sequence. */
static int read_fasta(const char *path, const uint8_t lut[256], records *r)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    memset(r, 0, sizeof *r);
    r->offset = xrealloc(NULL, sizeof *r->offset);
    r->offset[0] = 0;
    char line[1 << 16];
    int in_record = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (line[0] == '>') {
            if (in_record) r->offset[r->n_records] = r->n_codes;
            if (r->n_records + 2 > r->cap_records) {
                r->cap_records = 2 * r->cap_records + 16;
                r->offset = xrealloc(r->offset, (size_t)r->cap_records * sizeof *r->offset);
            }
            r->n_records++;
            r->offset[r->n_records] = r->n_codes;
            in_record = 1;
            continue;
        }
        if (!in_record) continue;
        if (r->n_codes + (int64_t)len > r->cap_codes) {
            r->cap_codes = 2 * r->cap_codes + (int64_t)len + (1 << 20);
            r->codes = xrealloc(r->codes, (size_t)r->cap_codes);
        }
        r->n_codes += (int64_t)tsk_encode(lut, line, len, r->codes + r->n_codes);
        r->offset[r->n_records] = r->n_codes;
    }
    fclose(f);
    return 0;
}

/* The plain scalar DP of docs/spec.md in float: the baseline the engine is measured against. */
static void scalar_float_dp(const tsk_params *p, const uint8_t *codes, int64_t n, float *T, float *tmp, float *out)
{
    const int t = p->t, dim = p->dim;
    memset(T, 0, (size_t)(t + 1) * (size_t)dim * sizeof *T);
    T[0] = 1.0f;
    for (int64_t i = 0; i < n; i++) {
        const int c = codes[i];
        for (int pp = (i + 1 < t ? (int)i + 1 : t); pp >= 1; pp--) {
            const float z = (float)pp / (float)(i + 1);
            const int h = p->hash[pp - 1][c];
            const float s = p->sign[pp - 1][c];
            const float *prev = T + (size_t)(pp - 1) * dim;
            float *cur = T + (size_t)pp * dim;
            for (int l = 0; l < dim; l++) {
                const int from = l - h < 0 ? l - h + dim : l - h;
                tmp[l] = (1.0f - z) * cur[l] + z * s * prev[from];
            }
            memcpy(cur, tmp, (size_t)dim * sizeof *tmp);
        }
    }
    memcpy(out, T + (size_t)t * dim, (size_t)dim * sizeof *out);
}

static double rel_err_f(const float *a, const double *ref, int dim)
{
    double dd = 0, nn = 0;
    for (int l = 0; l < dim; l++) {
        dd += ((double)a[l] - ref[l]) * ((double)a[l] - ref[l]);
        nn += ref[l] * ref[l];
    }
    return nn > 0 ? sqrt(dd / nn) : sqrt(dd);
}

static double rel_err_d(const double *a, const double *ref, int dim)
{
    double dd = 0, nn = 0;
    for (int l = 0; l < dim; l++) {
        dd += (a[l] - ref[l]) * (a[l] - ref[l]);
        nn += ref[l] * ref[l];
    }
    return nn > 0 ? sqrt(dd / nn) : sqrt(dd);
}

/* Single vs double engine on one random record of n bases (the long-record accuracy check). */
static int long_record_error(const tsk_params *p, int64_t n, int threads)
{
    uint8_t *x = xrealloc(NULL, (size_t)n);
    uint64_t state = 42;
    for (int64_t i = 0; i < n; i++) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        x[i] = (uint8_t)(state >> 62);
    }
    int64_t offset[2] = {0, n}, rows[2] = {0, 1};
    tsk_batch b = {1, x, offset, rows};
    tsk_params ps = *p, pd = *p;
    ps.precision = TSK_SINGLE;
    pd.precision = TSK_DOUBLE;
    float *s = xrealloc(NULL, (size_t)p->dim * sizeof *s);
    double *d = xrealloc(NULL, (size_t)p->dim * sizeof *d);
    double t0 = now();
    if (tsk_cpu_sketch(&ps, &b, s, threads)) return 1;
    double t1 = now();
    if (tsk_cpu_sketch(&pd, &b, d, threads)) return 1;
    double t2 = now();
    printf("record %lld bp, t=%d D=%d: single vs double relative error %.2e (single %.1f Mbp/s, double %.1f Mbp/s, "
           "%d threads)\n",
           (long long)n, p->t, p->dim, rel_err_f(s, d, p->dim), (double)n / 1e6 / (t1 - t0),
           (double)n / 1e6 / (t2 - t1), threads);
    free(x);
    free(s);
    free(d);
    return 0;
}

int main(int argc, char **argv)
{
    tsk_params p;
    tsk_params_default(&p);
    int threads = omp_get_num_procs(), a = 1;
    int64_t error_len = 0;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "-t") && a + 1 < argc) p.t = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-d") && a + 1 < argc) p.dim = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-T") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-w") && a + 1 < argc) p.window = atoll(argv[++a]);
        else if (!strcmp(argv[a], "-s") && a + 1 < argc) p.stride = atoll(argv[++a]);
        else if (!strcmp(argv[a], "-c")) p.canonical = 1;
        else if (!strcmp(argv[a], "-e") && a + 1 < argc) error_len = atoll(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_sketch [-t T] [-d D] [-T THREADS] [-w W -s S] [-c] FASTA...\n");
            return 2;
        }
    }
    if (p.window && !p.stride) p.stride = p.window;
    tsk_tables_draw(&p);
    const char *why = tsk_params_check(&p);
    if (!why && error_len > 0) return long_record_error(&p, error_len, threads);
    if (why || a >= argc) {
        fprintf(stderr, "bench_sketch: %s\n", why ? why : "no FASTA given");
        return 2;
    }
    uint8_t lut[256];
    tsk_encode_table(p.alphabet, lut);
    printf("workload\tMbp\tscalar_Mbps\tengine1_Mbps\tengine%d_Mbps\tx_scalar\tscaling\tmax_err_single\tmax_err_double\n",
           threads);
    int bad = 0;
    for (; a < argc; a++) {
        records r;
        if (read_fasta(argv[a], lut, &r)) return 1;
        int64_t *row_offset = xrealloc(NULL, (size_t)(r.n_records + 1) * sizeof *row_offset);
        row_offset[0] = 0;
        for (int64_t i = 0; i < r.n_records; i++)
            row_offset[i + 1] = row_offset[i] + tsk_rows_for_length(&p, r.offset[i + 1] - r.offset[i]);
        tsk_batch b = {r.n_records, r.codes, r.offset, row_offset};
        const int64_t n_rows = row_offset[r.n_records];
        float *out = xrealloc(NULL, (size_t)n_rows * (size_t)p.dim * sizeof *out);
        double *outd = xrealloc(NULL, (size_t)n_rows * (size_t)p.dim * sizeof *outd);
        double *ref = xrealloc(NULL, (size_t)p.dim * sizeof *ref);
        const double mbp = (double)r.n_codes / 1e6;

        /* 1. validate: engine (single and double) vs the double reference, on whole-record
         * sketches of up to 2 Mbp of records spread over the file */
        tsk_params pw = p, pd = p;
        pd.precision = TSK_DOUBLE;
        double err_s = 0, err_d = 0;
        if (!p.window && !p.canonical) {
            if (tsk_cpu_sketch(&pw, &b, out, threads) || tsk_cpu_sketch(&pd, &b, outd, threads)) {
                fprintf(stderr, "bench_sketch: engine failed\n");
                return 1;
            }
            int64_t budget = 2000000, step = r.n_records > 50 ? r.n_records / 50 : 1;
            for (int64_t i = 0; i < r.n_records && budget > 0; i += step) {
                const int64_t n = r.offset[i + 1] - r.offset[i];
                tsk_cpu_sketch_reference(&p, r.codes + r.offset[i], n, ref);
                double es = rel_err_f(out + (size_t)i * p.dim, ref, p.dim);
                double ed = rel_err_d(outd + (size_t)i * p.dim, ref, p.dim);
                err_s = es > err_s ? es : err_s;
                err_d = ed > err_d ? ed : err_d;
                budget -= n;
            }
            if (err_s > 1e-5 || err_d > 1e-12) bad = 1;
        }

        /* 2. time the scalar float loop (whole-record sketches only; at most ~3 s of it) */
        double scalar = NAN;
        if (!p.window && !p.canonical) {
            float *T = xrealloc(NULL, (size_t)(p.t + 1) * (size_t)p.dim * sizeof *T);
            float *tmp = xrealloc(NULL, (size_t)p.dim * sizeof *tmp);
            int64_t done = 0;
            double t0 = now();
            for (int64_t i = 0; i < r.n_records && now() - t0 < 5.0; i++) {
                const int64_t n = r.offset[i + 1] - r.offset[i];
                scalar_float_dp(&p, r.codes + r.offset[i], n, T, tmp, out + (size_t)i * p.dim);
                done += n;
            }
            scalar = (double)done / 1e6 / (now() - t0);
            free(T);
            free(tmp);
        }

        /* 3. time the engine, single precision, 1 thread and `threads` threads (best of 2) */
        double speed[2];
        const int counts[2] = {1, threads};
        for (int k = 0; k < 2; k++) {
            double best = 1e30;
            for (int rep = 0; rep < 2; rep++) {
                double t0 = now();
                if (tsk_cpu_sketch(&pw, &b, out, counts[k])) return 1;
                double dt = now() - t0;
                best = dt < best ? dt : best;
            }
            speed[k] = mbp / best;
        }
        const char *name = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        printf("%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2e\t%.2e\n", name, mbp, scalar, speed[0], speed[1],
               speed[0] / scalar, speed[1] / speed[0], err_s, err_d);
        fflush(stdout);
        free(out);
        free(outd);
        free(ref);
        free(row_offset);
        free(r.codes);
        free(r.offset);
    }
    if (bad) fprintf(stderr, "bench_sketch: VALIDATION FAILED (single > 1e-5 or double > 1e-12)\n");
    return bad;
}
