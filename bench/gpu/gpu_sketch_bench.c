/* gpu_sketch_bench: times the GPU sketch engine on FASTA files and checks it against the CPU
 * engine in float64 (every row) and the scalar reference DP (a few rows).
 *
 *   gpu_sketch_bench [--t T] [--dim D] [--canonical] [--window W [--stride S]] [--double]
 *                    [--repeats R] [--tol X] [--no-check] FASTA[.gz]...
 *
 * Each file is one batch. Prints, per file: records, Mbp, median kernel-only Gbp/s (CUDA events
 * around the kernels), median end-to-end Gbp/s (host wall clock around tsk_gpu_sketch: packing,
 * copies, kernels), the CPU engine's time, and the largest relative error ||gpu - ref|| / ||ref||
 * of a row. Exit status 1 when an error exceeds --tol. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../core/tsk_def.h"
#include "../../cpu/cpu_sketch.h"
#include "../../gpu/device.h"
#include "../../gpu/gpu_sketch.h"
#include "../bench_clock.h"

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "gpu_sketch_bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* Reads every record of a (possibly gzipped) FASTA file, cleaned, end to end. */
static int read_fasta(const char *path, const uint8_t lut[256], uint8_t **codes, int64_t **offset, int64_t *n_rec)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gpu_sketch_bench: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 1 << 20, n = 0, ocap = 1024;
    uint8_t *c = xrealloc(NULL, cap);
    int64_t *off = xrealloc(NULL, ocap * sizeof *off);
    int64_t nr = 0;
    static char line[1 << 16];
    while (gzgets(f, line, sizeof line)) {
        size_t len = strlen(line);
        if (line[0] == '>') {
            if ((size_t)nr + 2 > ocap) off = xrealloc(off, (ocap *= 2) * sizeof *off);
            off[nr++] = (int64_t)n;
            /* skip the rest of a header longer than the buffer */
            while (len && line[len - 1] != '\n' && gzgets(f, line, sizeof line)) len = strlen(line);
            continue;
        }
        if (nr == 0) continue;
        if (n + len > cap) c = xrealloc(c, (cap = 2 * (n + len)));
        n += tsk_encode(lut, line, len, c + n);
    }
    gzclose(f);
    off[nr] = (int64_t)n;
    *codes = c, *offset = off, *n_rec = nr;
    return 0;
}

static double rel_err(const void *got, int dbl, const double *ref, int dim)
{
    double num = 0, den = 0;
    for (int l = 0; l < dim; l++) {
        double g = dbl ? ((const double *)got)[l] : ((const float *)got)[l];
        num += (g - ref[l]) * (g - ref[l]);
        den += ref[l] * ref[l];
    }
    if (den == 0) return sqrt(num);
    return sqrt(num / den);
}

int main(int argc, char **argv)
{
    tsk_params p;
    tsk_params_default(&p);
    int repeats = 5, check = 1, nfiles = 0;
    double tol = -1;
    const char *files[256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--t") && i + 1 < argc) p.t = atoi(argv[++i]);
        else if (!strcmp(a, "--dim") && i + 1 < argc) p.dim = atoi(argv[++i]);
        else if (!strcmp(a, "--canonical")) p.canonical = 1;
        else if (!strcmp(a, "--window") && i + 1 < argc) p.window = atoll(argv[++i]);
        else if (!strcmp(a, "--stride") && i + 1 < argc) p.stride = atoll(argv[++i]);
        else if (!strcmp(a, "--double")) p.precision = TSK_DOUBLE;
        else if (!strcmp(a, "--repeats") && i + 1 < argc) repeats = atoi(argv[++i]);
        else if (!strcmp(a, "--tol") && i + 1 < argc) tol = atof(argv[++i]);
        else if (!strcmp(a, "--no-check")) check = 0;
        else if (a[0] == '-' || nfiles == 256) {
            fprintf(stderr, "usage: gpu_sketch_bench [--t T] [--dim D] [--canonical] [--window W [--stride S]] "
                            "[--double] [--repeats R] [--tol X] [--no-check] FASTA...\n");
            return 2;
        } else files[nfiles++] = a;
    }
    if (p.window > 0 && p.stride == 0) p.stride = p.window;
    tsk_tables_draw(&p);
    const char *bad = tsk_params_check(&p);
    if (bad || nfiles == 0 || repeats < 1) {
        fprintf(stderr, "gpu_sketch_bench: %s\n", bad ? bad : "need FASTA files and repeats >= 1");
        return 2;
    }
    if (tol < 0) tol = p.precision == TSK_DOUBLE ? 1e-10 : 1e-5;
    char err[256];
    int ndev = tsk_gpu_device_count(err, sizeof err);
    if (ndev == 0) {
        fprintf(stderr, "gpu_sketch_bench: no GPU: %s\n", err);
        return 5;
    }
    int dev = 0;
    tsk_gpu_sketcher *g = tsk_gpu_sketcher_open(&p, &dev, 1, err, sizeof err);
    if (!g) {
        fprintf(stderr, "gpu_sketch_bench: %s\n", err);
        return 5;
    }
    uint8_t lut[256];
    tsk_encode_table(p.alphabet, lut);
    const size_t elt = p.precision == TSK_DOUBLE ? 8 : 4;
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int status = 0;
    printf("# t=%d D=%d canonical=%d window=%lld stride=%lld %s\n", p.t, p.dim, p.canonical, (long long)p.window,
           (long long)p.stride, p.precision == TSK_DOUBLE ? "float64" : "float32");
    printf("%-28s %9s %9s %10s %10s %9s %10s %10s\n", "file", "records", "Mbp", "kern_Gbp/s", "e2e_Gbp/s",
           "cpu_s", "max_relerr", "ref_relerr");
    for (int fi = 0; fi < nfiles; fi++) {
        uint8_t *codes;
        int64_t *offset, nr;
        if (read_fasta(files[fi], lut, &codes, &offset, &nr)) return 1;
        int64_t *row_off = xrealloc(NULL, (nr + 1) * sizeof *row_off);
        row_off[0] = 0;
        for (int64_t i = 0; i < nr; i++) row_off[i + 1] = row_off[i] + tsk_rows_for_length(&p, offset[i + 1] - offset[i]);
        tsk_batch b = {nr, codes, offset, row_off};
        const int64_t rows = row_off[nr], bases = offset[nr];
        char *out = xrealloc(NULL, (size_t)rows * p.dim * elt);
        memset(out, 0xff, (size_t)rows * p.dim * elt);  /* NaN poison: every row must be written */
        if (tsk_gpu_sketch(g, &b, out, err, sizeof err)) {  /* warm-up, and the checked result */
            fprintf(stderr, "gpu_sketch_bench: %s: %s\n", files[fi], err);
            return 1;
        }
        double *kt = xrealloc(NULL, repeats * sizeof *kt), *et = xrealloc(NULL, repeats * sizeof *et);
        for (int r = 0; r < repeats; r++) {
            double k0, k1;
            int64_t b0, b1;
            tsk_gpu_sketch_stats(g, &k0, &b0);
            double t0 = bench_now();
            if (tsk_gpu_sketch(g, &b, out, err, sizeof err)) {
                fprintf(stderr, "gpu_sketch_bench: %s: %s\n", files[fi], err);
                return 1;
            }
            et[r] = bench_now() - t0;
            tsk_gpu_sketch_stats(g, &k1, &b1);
            kt[r] = (k1 - k0) / 1e3;
        }
        const double kernel_s = bench_median(kt, repeats), engine_s = bench_median(et, repeats);
        double maxerr = NAN, referr = NAN, cpu_s = NAN;
        if (check) {
            /* every row against the CPU engine in float64 */
            tsk_params pd = p;
            pd.precision = TSK_DOUBLE;
            double *ref = xrealloc(NULL, (size_t)rows * p.dim * sizeof *ref);
            double t0 = bench_now();
            if (tsk_cpu_sketch(&pd, &b, ref, threads)) {
                fprintf(stderr, "gpu_sketch_bench: CPU engine failed\n");
                return 1;
            }
            cpu_s = bench_now() - t0;
            maxerr = 0;
            for (int64_t r = 0; r < rows; r++) {
                double e = rel_err(out + (size_t)r * p.dim * elt, p.precision == TSK_DOUBLE, ref + (size_t)r * p.dim, p.dim);
                if (!(e <= maxerr)) maxerr = e;  /* NaN sticks */
            }
            /* and a few whole-record rows against the independent scalar DP (short records only) */
            referr = 0;
            double *one = xrealloc(NULL, p.dim * sizeof *one), *two = xrealloc(NULL, p.dim * sizeof *two);
            uint8_t *rc = NULL;
            for (int64_t i = 0, done = 0; i < nr && done < 3 && p.window == 0; i++) {
                int64_t n = offset[i + 1] - offset[i];
                if (n > 2000000) continue;
                tsk_cpu_sketch_reference(&p, codes + offset[i], n, one);
                if (p.canonical) {
                    rc = xrealloc(rc, n);
                    tsk_revcomp_codes(codes + offset[i], n, rc);
                    tsk_cpu_sketch_reference(&p, rc, n, two);
                    for (int l = 0; l < p.dim; l++) one[l] = 0.5 * (one[l] + two[l]);
                }
                double e = rel_err(out + (size_t)row_off[i] * p.dim * elt, p.precision == TSK_DOUBLE, one, p.dim);
                if (!(e <= referr)) referr = e;
                done++;
            }
            free(one), free(two), free(rc), free(ref);
            if (!(maxerr <= tol) || !(referr <= tol)) status = 1;
        }
        const char *base = strrchr(files[fi], '/');
        printf("%-28s %9lld %9.1f %10.3f %10.3f %9.3f %10.2e %10.2e\n", base ? base + 1 : files[fi], (long long)nr,
               bases / 1e6, bases / kernel_s / 1e9, bases / engine_s / 1e9, cpu_s, maxerr, referr);
        fflush(stdout);
        free(kt), free(et), free(out), free(row_off), free(codes), free(offset);
    }
    tsk_gpu_sketcher_close(g);
    if (status) fprintf(stderr, "gpu_sketch_bench: error above tolerance %.1e\n", tol);
    return status;
}
