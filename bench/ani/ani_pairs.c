/* ani_pairs.c: the C estimator of core/genome_ani.h on FASTA files, for bench/ani/eval.py (#38).
 *
 *   ani_pairs [-r RATE_LOG2] [-e EM_STEPS] [-g GRID_DIV] [-u START_UNIFORM] [-l 0|1] [-t REPEATS] GENOMES_TXT > est_NAME.tsv
 *
 * Extracts each genome's segment anchors as genome_ani.h defines them, with the sketcher's own
 * anchor loop (tsk_anchor_windows_below, k 16, seed 0x5EED, a window of k so that only the k-mer
 * must fit): each contig (a FASTA record; letters other than ACGT are dropped, which the generated
 * sets never hold) cut into 3 kb segments, the tail dropped, the anchors of each segment those
 * wholly inside it with hash below 2^(64 - rate), and the contig's other anchor k-mers as loose
 * anchors (-l 0: none, as genome sketches before format version 5). The rate: -r, else
 * tsk_ani_rate_log2 of the genome's length. Writes eval.py's est format (query, reference, ani in %, af) for every pair,
 * and each direction's (ani_q, ani_r, af_q, af_r: the query's segments against the reference's);
 * with -t, times REPEATS rounds of all ordered pairs, each query prepared once
 * (tsk_ani_work_query, then tsk_ani_pair_query) and prints the CPU time a pair to stderr. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "genome_ani.h"
#include "tsk_def.h"

typedef struct {
    char name[256];
    tsk_ani_genome g;
    uint16_t *count;
    uint32_t *hash;
    uint32_t *loose;  /* the loose anchors, appended to hash once every contig is read */
    int64_t n_loose, cap_loose;
    int64_t repeats; /* g.repeats' cell: counted once, as the tool's loader keeps it */
} genome;

static int with_loose = 1; /* -l 0: no loose anchors (the genomes as format version 4 held them) */

static int append_contig(const tsk_params *p, uint64_t max_hash, int rate, const uint8_t *codes, int64_t n,
                         genome *out, int64_t *cap_seg, int64_t *cap_hash)
{
    int64_t starts[TSK_ANI_SEGMENT];
    uint64_t hashes[TSK_ANI_SEGMENT];
    for (int64_t s = 0; s + TSK_ANI_SEGMENT <= n; s += TSK_ANI_SEGMENT) {
        const int64_t got = tsk_anchor_windows_below(p, codes + s, TSK_ANI_SEGMENT, max_hash, starts, hashes,
                                                     TSK_ANI_SEGMENT);
        if (out->g.n_segments + 1 > *cap_seg) {
            *cap_seg = 2 * *cap_seg + 64;
            out->count = realloc(out->count, (size_t)*cap_seg * sizeof *out->count);
        }
        if (out->g.n_anchors + got > *cap_hash) {
            *cap_hash = 2 * (*cap_hash + got);
            out->hash = realloc(out->hash, (size_t)*cap_hash * sizeof *out->hash);
        }
        if (!out->count || !out->hash) return -1;
        out->count[out->g.n_segments++] = (uint16_t)got;
        for (int64_t j = 0; j < got; j++) out->hash[out->g.n_anchors++] = (uint32_t)(hashes[j] >> (32 - rate));
    }
    if (!with_loose || n < p->anchor_k) return 0;
    /* the loose anchors: every anchor k-mer of the contig not wholly inside one of its segments */
    int64_t *all_starts = malloc((size_t)n * sizeof *all_starts);
    uint64_t *all_hashes = malloc((size_t)n * sizeof *all_hashes);
    if (!all_starts || !all_hashes) return -1;
    const int64_t got = tsk_anchor_windows_below(p, codes, n, max_hash, all_starts, all_hashes, n);
    const int64_t seg_end = n / TSK_ANI_SEGMENT * TSK_ANI_SEGMENT;
    for (int64_t j = 0; j < got; j++) {
        const int64_t x = all_starts[j];
        if (x + p->anchor_k <= seg_end && x / TSK_ANI_SEGMENT == (x + p->anchor_k - 1) / TSK_ANI_SEGMENT) continue;
        if (out->n_loose == out->cap_loose) {
            out->cap_loose = 2 * out->cap_loose + 64;
            out->loose = realloc(out->loose, (size_t)out->cap_loose * sizeof *out->loose);
            if (!out->loose) return -1;
        }
        out->loose[out->n_loose++] = (uint32_t)(all_hashes[j] >> (32 - rate));
    }
    free(all_starts);
    free(all_hashes);
    return 0;
}

static int load(const char *path, int force_rate, genome *out)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ani_pairs: %s: cannot open\n", path);
        return -1;
    }
    /* all contigs' codes, with their starts */
    int64_t cap = 1 << 20, n = 0, n_contig = 0, cap_contig = 64;
    uint8_t *codes = malloc((size_t)cap);
    int64_t *contig = malloc((size_t)cap_contig * sizeof *contig);
    char line[1 << 16];
    while (gzgets(f, line, sizeof line)) {
        if (line[0] == '>') {
            if (n_contig + 2 > cap_contig) contig = realloc(contig, (size_t)(cap_contig *= 2) * sizeof *contig);
            contig[n_contig++] = n;
            continue;
        }
        for (char *c = line; *c; c++) {
            int code;
            switch (*c | 32) {
            case 'a': code = 0; break;
            case 'c': code = 1; break;
            case 'g': code = 2; break;
            case 't': code = 3; break;
            default: code = -1;
            }
            if (code < 0) continue;
            if (n == cap) codes = realloc(codes, (size_t)(cap *= 2));
            codes[n++] = (uint8_t)code;
        }
    }
    gzclose(f);
    contig[n_contig] = n;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    snprintf(out->name, sizeof out->name, "%s", base);
    for (const char *ext[] = {".gz", ".fa", ".fna", ".fasta"}, **e = ext; e < ext + 4; e++) {
        const size_t l = strlen(out->name), m = strlen(*e);
        if (l > m && strcmp(out->name + l - m, *e) == 0) out->name[l - m] = 0;
    }
    tsk_params p;
    tsk_params_default(&p);
    p.anchor_k = 16;
    p.window = 16;
    const int rate = force_rate ? force_rate : tsk_ani_rate_log2(n);
    const uint64_t max_hash = (UINT64_C(1) << (64 - rate)) - 1;
    int64_t cap_seg = 0, cap_hash = 0;
    out->g = (tsk_ani_genome){.rate_log2 = rate, .length = n};
    for (int64_t c = 0; c < n_contig; c++)
        if (append_contig(&p, max_hash, rate, codes + contig[c], contig[c + 1] - contig[c], out, &cap_seg, &cap_hash))
            return -1;
    if (out->n_loose) {
        out->hash = realloc(out->hash, (size_t)(out->g.n_anchors + out->n_loose) * sizeof *out->hash);
        if (!out->hash) return -1;
        memcpy(out->hash + out->g.n_anchors, out->loose, (size_t)out->n_loose * sizeof *out->loose);
        out->g.n_loose = out->n_loose;
    }
    free(out->loose);
    out->g.seg_count = out->count;
    out->g.hash = out->hash;
    out->repeats = -1; /* g.repeats points at it once every genome is loaded (gs moves while growing) */
    free(codes);
    free(contig);
    return 0;
}

int main(int argc, char **argv)
{
    int rate = 0, em_steps = TSK_ANI_EM_STEPS, grid_div = TSK_ANI_GRID_DIV, repeats = 0, opt = 1;
    double start_uniform = TSK_ANI_START_UNIFORM;
    for (; opt + 1 < argc && argv[opt][0] == '-'; opt += 2) {
        const int v = atoi(argv[opt + 1]);
        switch (argv[opt][1]) {
        case 'r': rate = v; break;
        case 'e': em_steps = v; break;
        case 'g': grid_div = v; break;
        case 't': repeats = v; break;
        case 'u': start_uniform = atof(argv[opt + 1]); break;
        case 'l': with_loose = v; break;
        default: fprintf(stderr, "ani_pairs: unknown option %s\n", argv[opt]); return 2;
        }
    }
    if (opt + 1 != argc) {
        fprintf(stderr, "usage: ani_pairs [-r RATE_LOG2] [-e EM_STEPS] [-g GRID_DIV] [-u START_UNIFORM] [-l 0|1] "
                        "[-t REPEATS] GENOMES_TXT\n");
        return 2;
    }
    FILE *list = fopen(argv[opt], "r");
    if (!list) {
        fprintf(stderr, "ani_pairs: %s: cannot open\n", argv[opt]);
        return 1;
    }
    genome *gs = NULL;
    int n = 0;
    char path[4096];
    while (fscanf(list, "%4095s", path) == 1) {
        gs = realloc(gs, (size_t)(n + 1) * sizeof *gs);
        memset(&gs[n], 0, sizeof gs[n]);
        if (load(path, rate, &gs[n])) return 1;
        n++;
    }
    fclose(list);
    for (int i = 0; i < n; i++) gs[i].g.repeats = &gs[i].repeats;
    tsk_ani_work *w = tsk_ani_work_new();
    if (!w || tsk_ani_work_set_em(w, em_steps, grid_div, start_uniform)) {
        fprintf(stderr, "ani_pairs: bad -e, -g or -u\n");
        return 2;
    }
    printf("query\treference\tani\taf\tani_q\tani_r\taf_q\taf_r\n");
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            tsk_ani_result r;
            if (tsk_ani_pair(w, &gs[i].g, &gs[j].g, 16, &r)) return 1;
            printf("%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\n", gs[i].name, gs[j].name, 100.0 * r.ani, r.af,
                   100.0 * r.ani_q, 100.0 * r.ani_r, r.af_q, r.af_r);
        }
    if (repeats > 0) {
        /* as tsketch would: each query prepared once, then its pairs look the references' anchors up */
        struct timespec t0, t1;
        long pairs = 0;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        for (int k = 0; k < repeats; k++)
            for (int i = 0; i < n; i++) {
                if (tsk_ani_work_query(w, &gs[i].g)) return 1;
                for (int j = 0; j < n; j++) {
                    if (i == j) continue;
                    tsk_ani_result r;
                    if (tsk_ani_pair_query(w, &gs[j].g, 16, &r)) return 1;
                    pairs++;
                }
            }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
        const double ms = 1e3 * (double)(t1.tv_sec - t0.tv_sec) + 1e-6 * (double)(t1.tv_nsec - t0.tv_nsec);
        int64_t anchors = 0;
        for (int i = 0; i < n; i++) anchors += gs[i].g.n_anchors;
        fprintf(stderr, "ani_pairs: %ld pairs, %.4f ms (CPU time) a pair, %.0f anchors a genome\n", pairs,
                ms / (double)pairs, (double)anchors / n);
    }
    for (int i = 0; i < n; i++) {
        free(gs[i].count);
        free(gs[i].hash);
    }
    free(gs);
    tsk_ani_work_free(w);
    return 0;
}
