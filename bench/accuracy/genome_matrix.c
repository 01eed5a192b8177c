/* genome_matrix.c: all-pairs genome distances with cpu/genome_dist.c, for the accuracy bench.
 *
 *   genome_matrix [-p THREADS] [-c] [-u RADIUS | -a] ROWS_PREFIX DIM > pairs.tsv
 *
 * ROWS_PREFIX.f32 / ROWS_PREFIX.idx as tss_rows writes them (rows_tsv2f32.py converts a
 * `tsketch export --format tsv` file). -c: nearest point on chords between consecutive rows; -u: unmatched fraction
 * within RADIUS instead of the mean nearest distance; -a: the anchored distance of `dist --genome`. Prints name_i TAB name_j TAB distance for
 * i < j. */
#include "genome_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    tsk_genome_opts o;
    tsk_genome_opts_default(&o);
    int ai = 1;
    for (; ai < argc && argv[ai][0] == '-'; ai++) {
        if (!strcmp(argv[ai], "-c")) o.chord = 1;
        else if (!strcmp(argv[ai], "-a")) o.summary = TSK_GENOME_ANCHORED;
        else if (!strcmp(argv[ai], "-p") && ai + 1 < argc) o.threads = atoi(argv[++ai]);
        else if (!strcmp(argv[ai], "-u") && ai + 1 < argc) {
            o.summary = TSK_GENOME_UNMATCHED;
            o.match_radius = atof(argv[++ai]);
        } else {
            fprintf(stderr, "genome_matrix: unknown option %s\n", argv[ai]);
            return 2;
        }
    }
    if (argc - ai != 2) {
        fprintf(stderr, "usage: genome_matrix [-p THREADS] [-c] [-u RADIUS | -a] ROWS_PREFIX DIM\n");
        return 2;
    }
    int dim = atoi(argv[ai + 1]);
    char path[4096];
    snprintf(path, sizeof path, "%s.idx", argv[ai]);
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 3; }
    int64_t n = 0, cap = 16, total = 0;
    char **names = malloc(sizeof *names * cap);
    int64_t *nrows = malloc(sizeof *nrows * cap), *first = malloc(sizeof *first * cap);
    char name[4096];
    long long r, len;
    while (fscanf(f, "%4095s %lld %lld", name, &r, &len) == 3) {
        if (n == cap) {
            cap *= 2;
            names = realloc(names, sizeof *names * cap);
            nrows = realloc(nrows, sizeof *nrows * cap);
            first = realloc(first, sizeof *first * cap);
        }
        names[n] = strdup(name);
        nrows[n] = r;
        first[n] = total;
        total += r;
        n++;
    }
    fclose(f);
    snprintf(path, sizeof path, "%s.f32", argv[ai]);
    f = fopen(path, "rb");
    float *rows = malloc(sizeof *rows * (size_t)(total * dim) + 1);
    if (!f || fread(rows, sizeof *rows * dim, (size_t)total, f) != (size_t)total) {
        fprintf(stderr, "genome_matrix: %s: short or missing\n", path);
        return 3;
    }
    fclose(f);
    tsk_sketch_set s = {n, dim, rows, first, nrows};
    double *m = malloc(sizeof *m * (size_t)(n * n));
    if (tsk_genome_distance_matrix(&s, &o, m)) {
        fprintf(stderr, "genome_matrix: out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) printf("%s\t%s\t%.9g\n", names[i], names[j], m[i * n + j]);
    return 0;
}
