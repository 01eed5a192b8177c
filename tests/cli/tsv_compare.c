/* tsv_compare: compares two sketch TSVs ("name TAB v0 .. v(D-1)" per row) row by row.
 *   tsv_compare EXPECTED GOT TOL [--skip-cols N]
 * Rows must have the same names in the same order; each row passes when
 * ||got - expected|| <= TOL * max(||expected||, 1e-30) (zero rows must be exactly zero).
 * Prints the worst relative error; exits 0 when every row passes, 1 otherwise, 2 on bad files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_row(FILE *f, int skip, char **name, double **v, size_t *n, size_t *cap)
{
    static char *line = NULL;
    static size_t line_cap = 0;
    ssize_t len;
    do {
        if ((len = getline(&line, &line_cap, f)) < 0) return 0;
    } while (len <= 1 || line[0] == '#');
    char *save, *tok = strtok_r(line, "\t\r\n", &save);
    free(*name);
    *name = strdup(tok ? tok : "");
    for (int i = 0; i < skip; i++) tok = strtok_r(NULL, "\t\r\n", &save);
    *n = 0;
    while ((tok = strtok_r(NULL, "\t\r\n", &save))) {
        if (*n == *cap) *v = realloc(*v, (*cap = *cap ? 2 * *cap : 128) * sizeof **v);
        (*v)[(*n)++] = strtod(tok, NULL);
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tsv_compare EXPECTED GOT TOL [--skip-cols N]\n");
        return 2;
    }
    int skip = argc > 5 && !strcmp(argv[4], "--skip-cols") ? atoi(argv[5]) : 0;
    FILE *fe = fopen(argv[1], "r"), *fg = fopen(argv[2], "r");
    if (!fe || !fg) {
        fprintf(stderr, "tsv_compare: cannot open %s\n", fe ? argv[2] : argv[1]);
        return 2;
    }
    double tol = atof(argv[3]), worst = 0;
    char *ne = NULL, *ng = NULL;
    double *ve = NULL, *vg = NULL;
    size_t nve = 0, nvg = 0, ce = 0, cg = 0;
    long rows = 0, bad = 0;
    int rc = 0;
    for (;;) {
        int re = read_row(fe, skip, &ne, &ve, &nve, &ce);
        int rg = read_row(fg, 0, &ng, &vg, &nvg, &cg);
        if (!re && !rg) break;
        if (re != rg) {
            fprintf(stderr, "tsv_compare: %s has %s rows than %s\n", argv[2], rg ? "more" : "fewer", argv[1]);
            rc = 1;
            break;
        }
        rows++;
        if (strcmp(ne, ng) || nve != nvg) {
            fprintf(stderr, "tsv_compare: row %ld: expected '%s' (%zu values), got '%s' (%zu values)\n", rows, ne, nve,
                    ng, nvg);
            rc = 1;
            break;
        }
        double dd = 0, ee = 0;
        for (size_t i = 0; i < nve; i++) {
            dd += (vg[i] - ve[i]) * (vg[i] - ve[i]);
            ee += ve[i] * ve[i];
        }
        double rel = ee > 0 ? sqrt(dd / ee) : (dd > 0 ? INFINITY : 0);
        if (rel > worst) worst = rel;
        if (rel > tol) {
            if (bad++ < 5) fprintf(stderr, "tsv_compare: row %ld '%s': relative error %.3g > %.3g\n", rows, ne, rel, tol);
        }
    }
    if (!rc) printf("%ld rows, worst relative error %.3g (tolerance %.3g)\n", rows, worst, tol);
    free(ne), free(ng), free(ve), free(vg); /* a clean exit under LeakSanitizer (.ci/run) */
    fclose(fe), fclose(fg);
    return rc ? rc : bad ? 1 : 0;
}
