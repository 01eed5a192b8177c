/* genome_gen: synthetic genome collections for the genome-sketch benchmarks (bench/genome_speed.sh),
 * made on the machine that runs them (gigabases do not travel).
 *
 *   genome_gen [options] OUT
 *     -n N          genomes (1000)
 *     -L MIN-MAX    genome length range in bases (2000000-6000000), uniform per family
 *     -f F          families (N / 10): genome i descends from ancestor i % F
 *     -d D          per-base substitution rate of a genome against its ancestor (0.02), so that
 *                   genomes of a family are about 1 - 2D identical to each other, and families
 *                   unrelated
 *     -c C          contigs per genome, at most (20): a genome is cut at C - 1 random places
 *     -s SEED       (1)
 *     -p T          threads (all)
 *     --one-file    OUT is one uncompressed FASTA file, one record per genome (no contigs);
 *                   otherwise OUT is a directory of gzipped files g000000.fa.gz ... (level 1) and
 *                   OUT/list.tsv ('name<TAB>path' lines for tsketch -l).
 *
 * Output depends only on the options, never on -p. */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static uint64_t mix(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

typedef struct {
    long n, families, contigs, lmin, lmax;
    double div;
    uint64_t seed;
    int one_file;
} opts;

/* Genome i as FASTA text (contigs of 80-column lines) into *buf; returns its length in bytes. */
static size_t make_genome(const opts *o, long i, char **buf, size_t *cap)
{
    static const char acgt[4] = {'A', 'C', 'G', 'T'};
    const long fam = i % o->families;
    const uint64_t fseed = mix(o->seed * 1000003 + (uint64_t)fam);
    const long len = o->lmin + (long)(mix(fseed) % (uint64_t)(o->lmax - o->lmin + 1));
    const long contigs = o->one_file ? 1 : 1 + (long)(mix(fseed ^ (uint64_t)i * 7919) % (uint64_t)o->contigs);
    const size_t need = (size_t)len + (size_t)len / 80 + 64 * (size_t)(contigs + 1);
    if (need > *cap) {
        free(*buf);
        *cap = need;
        *buf = malloc(need);
        if (!*buf) {
            fprintf(stderr, "genome_gen: out of memory\n");
            exit(1);
        }
    }
    char *p = *buf;
    uint64_t anc = fseed, own = mix(o->seed ^ ((uint64_t)i << 20) ^ 0xABCDEF);
    const uint64_t cut_every = (uint64_t)(len / contigs) + 1;
    const uint32_t threshold = (uint32_t)(o->div * 4294967296.0);
    long contig = 0, col = 0;
    for (long b = 0; b < len; b++) {
        if (b == 0 || (contigs > 1 && (uint64_t)b % cut_every == 0)) {
            if (col) *p++ = '\n';
            p += sprintf(p, ">g%06ld_c%ld len=%ld family=%ld\n", i, ++contig, len, fam);
            col = 0;
        }
        anc = mix(anc);
        int base = (int)(anc & 3);
        own = mix(own);
        if ((uint32_t)own < threshold) base = (base + 1 + (int)((own >> 32) % 3)) & 3;
        *p++ = acgt[base];
        if (++col == 80) {
            *p++ = '\n';
            col = 0;
        }
    }
    if (col) *p++ = '\n';
    return (size_t)(p - *buf);
}

static int parse_range(const char *s, long *a, long *b)
{
    return sscanf(s, "%ld-%ld", a, b) == 2 && *a > 0 && *b >= *a ? 0 : -1;
}

int main(int argc, char **argv)
{
    opts o = {1000, -1, 20, 2000000, 6000000, 0.02, 1, 0};
    int threads = omp_get_max_threads();
    const char *out = NULL;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(argv[a], "-n") && v) o.n = atol(argv[++a]);
        else if (!strcmp(argv[a], "-L") && v && !parse_range(v, &o.lmin, &o.lmax)) a++;
        else if (!strcmp(argv[a], "-f") && v) o.families = atol(argv[++a]);
        else if (!strcmp(argv[a], "-d") && v) o.div = atof(argv[++a]);
        else if (!strcmp(argv[a], "-c") && v) o.contigs = atol(argv[++a]);
        else if (!strcmp(argv[a], "-s") && v) o.seed = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "-p") && v) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--one-file")) o.one_file = 1;
        else if (argv[a][0] != '-' && !out) out = argv[a];
        else {
            fprintf(stderr, "usage: genome_gen [-n N] [-L MIN-MAX] [-f F] [-d D] [-c C] [-s SEED] [-p T] [--one-file] OUT\n");
            return 2;
        }
    }
    if (!out || o.n < 1 || o.contigs < 1 || o.div < 0 || o.div > 1) {
        fprintf(stderr, "genome_gen: bad arguments (see the header of bench/genome/genome_gen.c)\n");
        return 2;
    }
    if (o.families < 1) o.families = o.n / 10 > 0 ? o.n / 10 : 1;
    if (o.one_file) {
        FILE *f = fopen(out, "w");
        if (!f) {
            fprintf(stderr, "genome_gen: %s: %s\n", out, strerror(errno));
            return 1;
        }
        /* blocks of genomes made in parallel, written in order */
        const long block = 4L * threads;
        char **bufs = calloc((size_t)block, sizeof *bufs);
        size_t *caps = calloc((size_t)block, sizeof *caps), *lens = calloc((size_t)block, sizeof *lens);
        if (!bufs || !caps || !lens) {
            fprintf(stderr, "genome_gen: out of memory\n");
            return 1;
        }
        for (long first = 0; first < o.n; first += block) {
            const long m = o.n - first < block ? o.n - first : block;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
            for (long j = 0; j < m; j++) lens[j] = make_genome(&o, first + j, &bufs[j], &caps[j]);
            for (long j = 0; j < m; j++)
                if (fwrite(bufs[j], 1, lens[j], f) != lens[j]) {
                    fprintf(stderr, "genome_gen: %s: write failed\n", out);
                    return 1;
                }
        }
        for (long j = 0; j < block; j++) free(bufs[j]);
        free(bufs);
        free(caps);
        free(lens);
        if (fclose(f)) {
            fprintf(stderr, "genome_gen: %s: write failed\n", out);
            return 1;
        }
        return 0;
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "genome_gen: %s: %s\n", out, strerror(errno));
        return 1;
    }
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        char *buf = NULL;
        size_t cap = 0;
        char path[4096];
#pragma omp for schedule(dynamic, 1)
        for (long i = 0; i < o.n; i++) {
            const size_t len = make_genome(&o, i, &buf, &cap);
            snprintf(path, sizeof path, "%s/g%06ld.fa.gz", out, i);
            gzFile g = gzopen(path, "wb1");
            if (!g || gzwrite(g, buf, (unsigned)len) != (int)len || gzclose(g) != Z_OK) failed = 1;
        }
        free(buf);
    }
    if (failed) {
        fprintf(stderr, "genome_gen: writing %s failed\n", out);
        return 1;
    }
    char list[4096];
    snprintf(list, sizeof list, "%s/list.tsv", out);
    FILE *l = fopen(list, "w");
    if (!l) return 1;
    for (long i = 0; i < o.n; i++) fprintf(l, "g%06ld\t%s/g%06ld.fa.gz\n", i, out, i);
    return fclose(l) ? 1 : 0;
}
