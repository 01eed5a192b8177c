/* genome_sets_bench.c: the GPU genome-sketch engine (gpu/genome_sets.h) on synthetic genome
 * sketches made here, validated against the CPU engine, then timed.
 *
 *   genome_sets_bench run N KEYS [REPS] [CHUNK]   N genomes of ~KEYS keys: validates a run of
 *                                                 queries (top-10, the -d 0.05 floor, counts) against
 *                                                 cpu/genome_sets, then times the index, all-vs-all
 *                                                 top-10, all pairs i<j with d <= 0.05 and a count
 *                                                 block; exit 1 on any mismatch
 *   genome_sets_bench gen N KEYS OUT.tsk [keys]   writes the same sketches as a genome .tsk (for
 *                                                 timing `tsketch dist` end to end), with segment
 *                                                 and loose anchors (ANI; a quarter of the
 *                                                 members drafts), or with keys alone (`keys`:
 *                                                 the key distance; 10^6 genomes in 74 GB, not
 *                                                 190)
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
#include "../bench_clock.h"
#include "../genome/synthetic_sets.h"

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
    double t0 = bench_now();
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
    printf("validation %.1f s (CPU engine, %d threads)\n", bench_now() - t0, omp_get_max_threads());
    tsk_cpu_genome_sets_close(c);
    free(want), free(got), free(wp), free(gp), free(cc), free(gc);
}

static int run(int64_t n, int64_t keys, int reps, int64_t chunk)
{
    double t0 = bench_now();
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
           (long long)n, (long long)s->offset[n], (double)s->offset[n] / (double)n, bench_now() - t0, (long long)o.min_keys,
           (long long)above, 100.0 * (double)above / (double)n, (long long)cut_pairs);
    check(bad_tau == 0, "thresholds recomputed from the stored keys = the sketches'");
    char err[256];
    double t_open[16];
    tsk_gpu_genome_sets *g = NULL;
    for (int r = 0; r < reps && r < 16; r++) {
        if (g) tsk_gpu_genome_sets_close(g);
        t0 = bench_now();
        g = tsk_gpu_genome_sets_open(s, s, 0, NULL, 0, err, sizeof err);
        t_open[r] = bench_now() - t0;
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
        t0 = bench_now();
        if (tsk_gpu_genome_sets_topk(g, 0, n, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top)) {
            fprintf(stderr, "topk: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = bench_now() - t0;
    }
    int64_t found = 0;
    for (int64_t i = 0; i < n * k; i++) found += top[i].ref >= 0;
    free(top);
    const double t_top = bench_median(t, reps);
    tsk_genome_pair *pp = NULL;
    int64_t np = 0, cap = 0;
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        if (tsk_gpu_genome_sets_within(g, 0, n, floor_share, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &pp, &np, &cap)) {
            fprintf(stderr, "within: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = bench_now() - t0;
    }
    free(pp);
    const double t_within = bench_median(t, reps);
    const int64_t bq = n < 4096 ? n : 4096;
    uint32_t *block = malloc(sizeof(uint32_t) * (size_t)(bq * n));
    for (int r = 0; r < reps; r++) {
        t0 = bench_now();
        if (tsk_gpu_genome_sets_block(g, 0, bq, 0, n, block, n)) {
            fprintf(stderr, "block: %s\n", tsk_gpu_genome_sets_error(g));
            return 2;
        }
        t[r] = bench_now() - t0;
    }
    free(block);
    const double t_block = bench_median(t, reps);
    printf("N=%lld keys=%lld chunk=%lld: index (open) %.3f s | top-10 %.3f s (%.3g pairs/s, %lld neighbours) | "
           "d<=0.05 %.3f s (%.3g pairs/s, %lld pairs) | count block %lldx%lld %.3f s (%.3g pairs/s)\n",
           (long long)n, (long long)keys, (long long)chunk, bench_median(t_open, reps < 16 ? reps : 16), t_top, pairs / t_top,
           (long long)found, t_within, pairs / 2 / t_within, (long long)np, (long long)bq, (long long)n, t_block,
           (double)bq * (double)n / t_block);
    tsk_gpu_genome_sets_close(g);
    free_sets(&o);
    return failures ? 1 : 0;
}

static int gen(int64_t n, int64_t keys, const char *path, int with_anchors)
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
    char err[512] = "";
    tsk_writer *w = tsk_writer_open(path, &p, "genome_sets_bench", "genome_sets_bench gen", err, sizeof err);
    if (!w) {
        fprintf(stderr, "%s\n", err);
        free_sets(&o);
        return 2;
    }
    /* the anchors of GEN_CHUNK genomes at a time on every core (10^6 genomes: minutes on one),
     * then written in order: the same file whatever the threads */
    enum { GEN_CHUNK = 4096 };
    uint16_t **seg = calloc(GEN_CHUNK, sizeof *seg);
    uint32_t **hash = calloc(GEN_CHUNK, sizeof *hash);
    synthetic_shape *shape = calloc(GEN_CHUNK, sizeof *shape);
    int bad = !seg || !hash || !shape;
    for (int64_t c0 = 0; !bad && c0 < n; c0 += GEN_CHUNK) {
        const int64_t nc = n - c0 < GEN_CHUNK ? n - c0 : GEN_CHUNK;
        if (with_anchors) {
#pragma omp parallel for schedule(dynamic, 16) reduction(| : bad)
            for (int64_t j = 0; j < nc; j++) {
                const int64_t i = c0 + j;
                seg[j] = malloc(sizeof **seg * (size_t)(synthetic_segments(&o, i) + 1));
                hash[j] = malloc(sizeof **hash * (size_t)(synthetic_anchor_cap(&o, i) + 1));
                bad |= !seg[j] || !hash[j];
                if (seg[j] && hash[j]) shape[j] = synthetic_anchors(&o, i, seg[j], hash[j]);
            }
        }
        for (int64_t j = 0; !bad && j < nc; j++) {
            const int64_t i = c0 + j;
            char name[32];
            snprintf(name, sizeof name, "g%07lld", (long long)i);
            const int64_t m = tsk_key_set_size(&o.s, i);
            /* the length a reader computes the threshold from */
            tsk_record_info rec = {name, "synthetic", o.length[i], o.length[i], 0, 0, m};
            if (!with_anchors) {
                bad = tsk_writer_add(w, &rec, o.keys + o.offset[i], err, sizeof err) != 0;
                continue;
            }
            /* its segment and loose anchors (synthetic_sets.h), so that ANI is estimated as for
             * sketched genomes */
            const synthetic_shape *sh = &shape[j];
            const tsk_genome_anchors a = {.n_segments = sh->n_segments, .n_anchors = sh->n_anchors,
                                          .rate_log2 = tsk_ani_rate_log2(o.length[i]), .seg_count = seg[j],
                                          .hash = hash[j], .n_loose = sh->n_loose, .n_contigs = sh->n_contigs,
                                          .n50 = sh->n50};
            bad = tsk_writer_add_genome(w, &rec, o.keys + o.offset[i], &a, err, sizeof err) != 0;
        }
        for (int64_t j = 0; j < nc && with_anchors; j++) free(seg[j]), free(hash[j]), seg[j] = NULL, hash[j] = NULL;
    }
    free(seg), free(hash), free(shape);
    if (bad) {
        fprintf(stderr, "%s\n", err[0] ? err : "out of memory");
        tsk_writer_abort(w);
        free_sets(&o);
        return 2;
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
    if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "keys"))) && !strcmp(argv[1], "gen"))
        return gen(atoll(argv[2]), atoll(argv[3]), argv[4], argc == 5);
    fprintf(stderr, "usage: genome_sets_bench run N KEYS [REPS] [CHUNK] | gen N KEYS OUT.tsk [keys]\n");
    return 2;
}
