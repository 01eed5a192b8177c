/* genome_sets_bench.c: the GPU genome-sketch engine (gpu/genome_sets.h) on synthetic genome
 * sketches made here, validated against the CPU engine, then timed.
 *
 *   genome_sets_bench run N KEYS [REPS] [CHUNK]   N genomes of ~KEYS keys: validates a run of
 *                                                 queries (top-10, the -d 0.05 floor, counts) against
 *                                                 cpu/genome_sets, then times the index, all-vs-all
 *                                                 top-10, all pairs i<j with d <= 0.05 and a count
 *                                                 block; exit 1 on any mismatch
 *   genome_sets_bench gen N KEYS OUT.tsk          writes the same sketches as a genome .tsk (for
 *                                                 timing `tsketch dist` end to end)
 *
 * The sketches: genomes in species-like clusters (1 to ~200 members, mean ~16) around a centre of
 * K keys (K from 0.6 to 1.4 x KEYS per cluster); a member keeps 30-95 % of the centre (the share f
 * of genomes 94-99.7 % identical over 20-base windows) and adds keys of its own to keep its size;
 * clusters come in genera of 5 whose centres share 2-20 % of their keys; every genome also has ~20
 * of 2,000 keys found all over (conserved genes). Deterministic in (N, KEYS).
 *
 * Thresholds (core/genome_keys.h, "Size floor"), with scaled 500 (= stride), window 20 and a
 * floor of min_keys = KEYS / 2: ~88 % of the clusters are of long genomes (length at least the
 * floor length 5 min_keys scaled / 4), whose keys are at most T and whose threshold is T; ~12 % are
 * of small genomes (plasmids, viruses) of length about 5 min_keys s / 4 for a stride s of 1 to 125 (the
 * members' strides differ by 0-2), whose candidates (their keys at most C_g) are cut to their own
 * threshold tau_g > T by tsk_genome_threshold: pairs of different thresholds take the floor path
 * (sizes below the smaller one). The keys a sketch stores and its length give back its threshold,
 * as a reader computes it (`gen` files read by tsketch have the same thresholds).
 * Times are wall-clock medians of REPS (default 3) runs of the synchronous API calls (uploads,
 * kernels, copies back and host merging included); the index is built by open. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/genome_keys.h"
#include "../../cpu/genome_sets.h"
#include "../../gpu/genome_sets.h"
#include "../../io/tsk_file.h"

/* the genome defaults of `tsketch sketch --genome` (the floor: KEYS / 2, see above) */
#define SCALED 500
#define STRIDE SCALED
#define WINDOW 20
#define ANCHOR_K 16
#define GENOME_T 4
#define GENOME_DIM 16

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static uint64_t h3(uint64_t tag, uint64_t a, uint64_t b) { return mix(mix(mix(tag) ^ a) ^ b); }
static double u01(uint64_t tag, uint64_t a, uint64_t b) { return (double)(h3(tag, a, b) >> 11) / 9007199254740992.0; }

enum { T_CLUSTER = 1, T_GENUS, T_OWN, T_POOL, T_KEEP, T_SIZE, T_GFRAC, T_CSIZE, T_SMALL, T_STRIDE, T_LEN };

/* LSD radix sort of n keys (8-bit digits; digits that every key shares are skipped). */
static void radix_sort(uint64_t *a, uint64_t *tmp, int64_t n)
{
    for (int shift = 0; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < n; i++) count[((a[i] >> shift) & 255) + 1]++;
        int64_t most = 0;
        for (int d = 1; d <= 256; d++) most = count[d] > most ? count[d] : most;
        if (most == n) continue;
        for (int d = 0; d < 256; d++) count[d + 1] += count[d];
        for (int64_t i = 0; i < n; i++) tmp[count[(a[i] >> shift) & 255]++] = a[i];
        memcpy(a, tmp, sizeof *a * (size_t)n);
    }
}

typedef struct {
    tsk_key_sets s;
    uint64_t *keys;
    int64_t *offset;
    uint64_t *tau;     /* per genome: its threshold */
    int64_t *length;   /* per genome: its length (what a reader computes tau from) */
    int64_t min_keys;
} owned_sets;

/* The parameters of the sketches: the genome defaults with a floor of min_keys. */
static tsk_params genome_params(int64_t min_keys)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = GENOME_T;
    p.dim = GENOME_DIM;
    tsk_tables_draw(&p);
    p.canonical = 1;
    p.window = WINDOW;
    p.stride = STRIDE;
    p.anchor_k = ANCHOR_K;
    p.scaled = SCALED;
    p.min_keys = min_keys;
    return p;
}

static void free_sets(owned_sets *o)
{
    free(o->keys);
    free(o->offset);
    free(o->tau);
    free(o->length);
}

static owned_sets make_genomes(int64_t n, int64_t keys)
{
    const int64_t min_keys = keys / 2 > 0 ? keys / 2 : 1;
    const tsk_params p = genome_params(min_keys);
    const int64_t floor_len = tsk_genome_floor_length(&p);
    uint64_t *tau = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    int64_t *length = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int64_t *cluster = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0, c = 0; i < n; c++) {  /* cluster sizes 1 + floor(-15 ln u), at most 200 */
        int64_t size = 1 + (int64_t)(-15.0 * log(1.0 - u01(T_CSIZE, (uint64_t)c, 0)));
        if (size > 200) size = 200;
        for (int64_t j = 0; j < size && i < n; j++) cluster[i++] = c;
    }
    uint64_t **own = malloc(sizeof(uint64_t *) * (size_t)n);
    int64_t *len = malloc(sizeof(int64_t) * (size_t)(n + 1));
    const uint64_t max_key = tsk_genome_max_key(&p); /* T */
#pragma omp parallel
    {
        uint64_t *buf = malloc(sizeof(uint64_t) * (size_t)(3 * keys + 64)), *tmp = malloc(sizeof(uint64_t) * (size_t)(3 * keys + 64));
#pragma omp for schedule(dynamic, 16)
        for (int64_t i = 0; i < n; i++) {
            const int64_t c = cluster[i], g = c / 5;
            /* a cluster of small genomes: the centre's keys are its candidates at the cluster's
             * stride s_c, a member's at its own s_c + 0..2 (a bound C_g at most the centre's) */
            const int small = u01(T_SMALL, (uint64_t)c, 0) < 0.12;
            const int64_t s_c = 1 + (int64_t)(u01(T_STRIDE, (uint64_t)c, 0) * (SCALED / 4 - 1));
            const int64_t s_i = s_c + (int64_t)(h3(T_STRIDE, (uint64_t)i, 1) % 3);
            /* s_i = floor(4 L / (5 min_keys)): L from ceil(5 min_keys s_i / 4), less than 5 min_keys / 4 more */
            const int64_t step = 5 * min_keys / 4 > 1 ? 5 * min_keys / 4 - 1 : 1;
            const int64_t len_i = small ? (5 * min_keys * s_i + 3) / 4 + (int64_t)(h3(T_LEN, (uint64_t)i, 0) % (uint64_t)step)
                                        : 0; /* long genomes: set from their keys below */
            const uint64_t centre_key = small ? (UINT64_MAX / (uint64_t)s_c | TSK_GENOME_FP_MASK) : max_key;
            const uint64_t bound = small ? tsk_genome_candidate_limit(&p, len_i) : max_key;
            /* small: about the 5/4 min_keys candidates of their stride */
            const int64_t kc = small ? (int64_t)(1.25 * (double)min_keys * (1.0 + 0.3 * u01(T_SIZE, (uint64_t)c, 0)))
                                     : (int64_t)((double)keys * (0.6 + 0.8 * u01(T_SIZE, (uint64_t)c, 0)));
            const double gfrac = small ? 0.0 : 0.02 + 0.18 * u01(T_GFRAC, (uint64_t)c, 0);
            const int first = i == 0 || cluster[i - 1] != c;
            const double keep = first ? 0.95 : 0.3 + 0.65 * u01(T_KEEP, (uint64_t)i, 0);
            int64_t m = 0;
            for (int64_t j = 0; j < kc; j++) {
                if (u01(T_KEEP, (uint64_t)i, (uint64_t)j + 1) >= keep) continue;
                const uint64_t k = (double)j < gfrac * (double)kc ? h3(T_GENUS, (uint64_t)g, (uint64_t)j)
                                                                  : h3(T_CLUSTER, (uint64_t)c, (uint64_t)j);
                const uint64_t key = centre_key == UINT64_MAX ? k : k % (centre_key + 1);
                if (key <= bound) buf[m++] = key;
            }
            for (int64_t j = 0, extra = (int64_t)((double)kc * (1.0 - keep)); j < extra; j++) {
                const uint64_t k = h3(T_OWN, (uint64_t)i, (uint64_t)j);
                buf[m++] = bound == UINT64_MAX ? k : k % (bound + 1);
            }
            for (int t = 0; t < 20; t++)
                buf[m++] = h3(T_POOL, 0, h3(T_POOL, (uint64_t)i, (uint64_t)t) % 2000) % max_key;
            radix_sort(buf, tmp, m);
            int64_t u = m ? 1 : 0;
            for (int64_t j = 1; j < m; j++)
                if (buf[j] != buf[u - 1]) buf[u++] = buf[j];
            /* long genomes: about one window in scaled of at least the floor length */
            length[i] = small ? len_i : (u * SCALED > floor_len ? u * SCALED : floor_len);
            /* the sketch: the candidates at most the genome's threshold */
            tau[i] = tsk_genome_threshold(&p, length[i], buf, u);
            u = tsk_keys_at_most(buf, u, tau[i]);
            own[i] = malloc(sizeof(uint64_t) * (size_t)(u + 1));
            memcpy(own[i], buf, sizeof(uint64_t) * (size_t)u);
            len[i] = u;
        }
        free(buf);
        free(tmp);
    }
    owned_sets o;
    o.tau = tau;
    o.length = length;
    o.min_keys = min_keys;
    o.offset = malloc(sizeof(int64_t) * (size_t)(n + 1));
    o.offset[0] = 0;
    for (int64_t i = 0; i < n; i++) o.offset[i + 1] = o.offset[i] + len[i];
    o.keys = malloc(sizeof(uint64_t) * (size_t)(o.offset[n] + 1));
#pragma omp parallel for schedule(dynamic, 64)
    for (int64_t i = 0; i < n; i++) {
        memcpy(o.keys + o.offset[i], own[i], sizeof(uint64_t) * (size_t)len[i]);
        free(own[i]);
    }
    free(own);
    free(len);
    free(cluster);
    o.s = (tsk_key_sets){n, o.keys, o.offset, o.tau};
    return o;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static int failures;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    failures += !ok;
}

/* A run of queries from the middle of the set, compared with the CPU engine on every reference
 * (one call each, so that the CPU engine uses all its threads). */
static void validate(tsk_gpu_genome_sets *g, const tsk_key_sets *s, double floor_share)
{
    char err[256];
    tsk_cpu_genome_sets *c = tsk_cpu_genome_sets_open(s, s, omp_get_max_threads(), err, sizeof err);
    const int64_t n = s->n_items;
    int64_t sample = 640000 / n;
    sample = sample < 16 ? 16 : sample > n ? n : sample;
    const int64_t q0 = (n - sample) / 2;
    const int k = 10;
    tsk_genome_pair *want = malloc(sizeof *want * (size_t)(k * sample)), *got = malloc(sizeof *got * (size_t)(k * sample));
    tsk_genome_pair *wp = NULL, *gp = NULL;
    int64_t nw = 0, ng = 0, cw = 0, cg = 0;
    uint32_t *cc = malloc(sizeof(uint32_t) * (size_t)(n * sample)), *gc = malloc(sizeof(uint32_t) * (size_t)(n * sample));
    double t0 = now();
    char what[160];
    tsk_cpu_genome_sets_topk(c, q0, sample, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, want);
    int ok = !tsk_gpu_genome_sets_topk(g, q0, sample, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got);
    snprintf(what, sizeof what, "top-10 of queries %lld..%lld = CPU engine", (long long)q0, (long long)(q0 + sample - 1));
    check(ok && memcmp(want, got, sizeof *got * (size_t)(k * sample)) == 0, what);
    printf("query %lld: top-10 shares", (long long)q0);
    for (int j = 0; j < k; j++) printf(" %.3f", got[j].share);
    printf("\n");
    tsk_cpu_genome_sets_within(c, q0, sample, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &wp, &nw, &cw);
    ok = !tsk_gpu_genome_sets_within(g, q0, sample, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &gp, &ng, &cg);
    snprintf(what, sizeof what, "share >= %.4f (%lld pairs) = CPU engine", floor_share, (long long)nw);
    check(ok && nw == ng && (nw == 0 || memcmp(wp, gp, sizeof *gp * (size_t)nw) == 0), what);
    tsk_cpu_genome_sets_block(c, q0, sample, 0, n, cc, n);
    ok = !tsk_gpu_genome_sets_block(g, q0, sample, 0, n, gc, n);
    check(ok && memcmp(cc, gc, sizeof *gc * (size_t)(n * sample)) == 0, "count rows = CPU engine");
    printf("validation %.1f s (CPU engine, %d threads)\n", now() - t0, omp_get_max_threads());
    tsk_cpu_genome_sets_close(c);
    free(want), free(got), free(wp), free(gp), free(cc), free(gc);
}

static int run(int64_t n, int64_t keys, int reps, int64_t chunk)
{
    double t0 = now();
    owned_sets o = make_genomes(n, keys);
    const tsk_key_sets *s = &o.s;
    const tsk_params p = genome_params(o.min_keys);
    int64_t above = 0, cut_pairs = 0, bad_tau = 0;
    for (int64_t i = 0; i < n; i++) {
        above += o.tau[i] > tsk_genome_max_key(&p);
        /* what a reader computes from the stored keys and the length: the same threshold */
        bad_tau += tsk_genome_threshold(&p, o.length[i], o.keys + o.offset[i], tsk_key_set_size(s, i)) != o.tau[i];
    }
    for (int64_t i = 1; i < n; i++) cut_pairs += o.tau[i] != o.tau[i - 1];
    printf("made %lld genomes, %lld keys (%.0f per genome) in %.1f s; floor %lld keys: %lld genomes (%.1f %%) above "
           "T, %lld neighbours of different thresholds\n",
           (long long)n, (long long)s->offset[n], (double)s->offset[n] / (double)n, now() - t0, (long long)o.min_keys,
           (long long)above, 100.0 * (double)above / (double)n, (long long)cut_pairs);
    check(bad_tau == 0, "thresholds recomputed from the stored keys = the sketches'");
    char err[256];
    double t_open[16];
    tsk_gpu_genome_sets *g = NULL;
    for (int r = 0; r < reps && r < 16; r++) {
        if (g) tsk_gpu_genome_sets_close(g);
        t0 = now();
        g = tsk_gpu_genome_sets_open(s, s, 0, err, sizeof err);
        t_open[r] = now() - t0;
        if (!g) {
            fprintf(stderr, "open: %s\n", err);
            free_sets(&o);
            return 2;
        }
    }
    if (chunk > 0) tsk_gpu_genome_sets_set_limits(g, 0, chunk);
    const double floor_share = tsk_genome_share_floor(0.05, WINDOW);
    validate(g, s, floor_share);
    const double pairs = (double)n * (double)(n - 1);
    double t[16];
    const int k = 10;
    tsk_genome_pair *top = malloc(sizeof *top * (size_t)(n * k));
    for (int r = 0; r < reps; r++) {
        t0 = now();
        if (tsk_gpu_genome_sets_topk(g, 0, n, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top)) {
            fprintf(stderr, "topk: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = now() - t0;
    }
    int64_t found = 0;
    for (int64_t i = 0; i < n * k; i++) found += top[i].ref >= 0;
    free(top);
    const double t_top = median(t, reps);
    tsk_genome_pair *pp = NULL;
    int64_t np = 0, cap = 0;
    for (int r = 0; r < reps; r++) {
        t0 = now();
        if (tsk_gpu_genome_sets_within(g, 0, n, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &pp, &np, &cap)) {
            fprintf(stderr, "within: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = now() - t0;
    }
    free(pp);
    const double t_within = median(t, reps);
    const int64_t bq = n < 4096 ? n : 4096;
    uint32_t *block = malloc(sizeof(uint32_t) * (size_t)(bq * n));
    for (int r = 0; r < reps; r++) {
        t0 = now();
        if (tsk_gpu_genome_sets_block(g, 0, bq, 0, n, block, n)) {
            fprintf(stderr, "block: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = now() - t0;
    }
    free(block);
    const double t_block = median(t, reps);
    printf("N=%lld keys=%lld chunk=%lld: index (open) %.3f s | top-10 %.3f s (%.3g pairs/s, %lld neighbours) | "
           "d<=0.05 %.3f s (%.3g pairs/s, %lld pairs) | count block %lldx%lld %.3f s (%.3g pairs/s)\n",
           (long long)n, (long long)keys, (long long)chunk, median(t_open, reps < 16 ? reps : 16), t_top, pairs / t_top,
           (long long)found, t_within, pairs / 2 / t_within, (long long)np, (long long)bq, (long long)n, t_block,
           (double)bq * (double)n / t_block);
    tsk_gpu_genome_sets_close(g);
    free_sets(&o);
    return failures ? 1 : 0;
}

static int gen(int64_t n, int64_t keys, const char *path)
{
    owned_sets o = make_genomes(n, keys);
    const tsk_params p = genome_params(o.min_keys);
    const char *why = tsk_params_check(&p);
    if (!why) why = tsk_genome_params_check(&p);
    if (why) {
        fprintf(stderr, "parameters: %s\n", why);
        free_sets(&o);
        return 2;
    }
    char err[512];
    tsk_writer *w = tsk_writer_open(path, &p, "genome_sets_bench", "genome_sets_bench gen", err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        free_sets(&o);
        return 2;
    }
    for (int64_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "g%07lld", (long long)i);
        const int64_t m = tsk_key_set_size(&o.s, i);
        /* the length a reader computes the threshold from */
        tsk_record_info rec = {name, "synthetic", o.length[i], o.length[i], 0, 0, m};
        if (tsk_writer_add(w, &rec, o.keys + o.offset[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            tsk_writer_abort(w);
            free_sets(&o);
            return 2;
        }
    }
    if (tsk_writer_finish(w, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        free_sets(&o);
        return 2;
    }
    printf("wrote %s: %lld genomes, %lld keys, floor %lld keys\n", path, (long long)n, (long long)o.offset[n],
           (long long)o.min_keys);
    free_sets(&o);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "run"))
        return run(atoll(argv[2]), atoll(argv[3]), argc > 4 ? atoi(argv[4]) : 3, argc > 5 ? atoll(argv[5]) : 0);
    if (argc == 5 && !strcmp(argv[1], "gen")) return gen(atoll(argv[2]), atoll(argv[3]), argv[4]);
    fprintf(stderr, "usage: genome_sets_bench run N KEYS [REPS] [CHUNK] | gen N KEYS OUT.tsk\n");
    return 2;
}
