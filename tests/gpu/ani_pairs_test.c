/* ani_pairs_test.c: the GPU ANI engine (gpu/ani_pairs.h) against the host's tsk_ani_pair, byte for
 * byte, on synthetic anchors of planted identities (tests/ani_synth.h): even divergence, mosaics,
 * pieces, unrelated genomes, rates 1/64 to 1/256 on either side, one set against itself and a query
 * set against another; the pairs the device must leave to the host (a segment of 256 anchors or
 * more, a genome of more than TSK_GPU_ANI_MAX_SEGMENTS segments) are flagged and only those. Without
 * a GPU: the clean refusal. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../gpu/ani_pairs.h"
#include "../../gpu/device.h"
#include "../ani_synth.h"

static int have_gpu(void)
{
    char why[128] = "";
    return tsk_gpu_device_count(why, sizeof why) > 0;
}

#define N_GENOMES 14

/* Genomes 0..N_GENOMES-1: an ancestor of skewed composition (synth_skew), its relatives and pieces
 * at planted identities and rates, one unrelated genome, one with a segment of 300 anchors, one of
 * 4,200 segments. */
static tsk_ani_genome *make_set(synth *keep)
{
    uint64_t rng = 77;
    tsk_ani_genome *g = calloc(N_GENOMES, sizeof *g);
    synth anc = synth_random(&rng, 900);
    synth_skew(&rng, &anc, 20000, 0.05); /* its anchors recur (tsk_ani_repeats), and chance hits are many */
    double ident[900];
    int t = 0;
    keep[t] = anc;
    g[t] = stored(&keep[t], 6), t++;
    const double even[4] = {0.99, 0.97, 0.95, 0.92};
    for (int v = 0; v < 4; v++) {
        for (int s = 0; s < 900; s++) ident[s] = even[v];
        keep[t] = synth_relative(&rng, &anc, ident);
        g[t] = stored(&keep[t], 6 + v % 3), t++; /* rates 1/64, 1/128, 1/256 */
    }
    for (int v = 0; v < 3; v++) { /* mosaics: blocks at 0.99, 0.93, 0.80, and missing */
        for (int s = 0; s < 900; s++) {
            const int b = (s / 40 + v) % 4;
            ident[s] = b == 0 ? 0.99 : b == 1 ? 0.93 : b == 2 ? 0.80 : -1;
        }
        keep[t] = synth_relative(&rng, &anc, ident);
        g[t] = stored(&keep[t], 6 + v % 2), t++;
    }
    for (int v = 0; v < 3; v++) { /* pieces: 25, 50, 75 % of the ancestor, unchanged */
        for (int s = 0; s < 900; s++) ident[s] = s < 225 * (v + 1) ? 1.0 : -1;
        keep[t] = synth_relative(&rng, &anc, ident);
        g[t] = stored(&keep[t], 6), t++;
    }
    keep[t] = synth_random(&rng, 700); /* unrelated */
    g[t] = stored(&keep[t], 7), t++;
    /* a segment of 300 anchors (a repeat): the host's scaled powers */
    for (int s = 0; s < 900; s++) ident[s] = 0.97;
    keep[t] = synth_relative(&rng, &anc, ident);
    {
        synth *x = &keep[t];
        int64_t n = x->first[x->n_seg];
        uint64_t *h = realloc(x->h, (size_t)(n + 300) * sizeof *h);
        cr_assert(h);
        x->h = h;
        const int64_t s1 = x->first[1];
        memmove(x->h + s1 + 300, x->h + s1, (size_t)(n - s1) * sizeof *h);
        for (int j = 0; j < 300; j++) x->h[s1 + j] = splitmix64(&rng) >> 6;
        for (int64_t s = 1; s <= x->n_seg; s++) x->first[s] += 300;
    }
    g[t] = stored(&keep[t], 6), t++;
    keep[t] = synth_random(&rng, TSK_GPU_ANI_MAX_SEGMENTS + 104); /* too many segments for the device */
    g[t] = stored(&keep[t], 8), t++;
    cr_assert_eq(t, N_GENOMES);
    return g;
}

/* The pairs the device leaves to the host: the genome of too many segments, and the one with a
 * segment of 300 anchors against a partner of its rate 1/64 (at a sparser partner's rate its
 * segment keeps under 256). */
static int expect_on_host(const tsk_ani_genome *g, int i, int j)
{
    if (i == N_GENOMES - 1 || j == N_GENOMES - 1) return 1;
    if (i == N_GENOMES - 2) return g[j].rate_log2 == 6;
    if (j == N_GENOMES - 2) return g[i].rate_log2 == 6;
    return 0;
}

Test(gpu_ani, refuses_cleanly_without_gpu)
{
    if (have_gpu()) cr_skip("a GPU is present");
    tsk_ani_genome g = {0};
    tsk_ani_set set = {1, &g};
    char err[256] = "";
    cr_assert_null(tsk_gpu_ani_open(&set, &set, K, 20, 0, NULL, 0, err, sizeof err));
    cr_assert(strlen(err) > 0);
}

/* g's anchors and counts moved into one buffer each, genome after genome as a file holds them
 * (the engine copies such runs whole), with a gap of 5 after genome `gap_after` (a second run). */
static void make_contiguous(tsk_ani_genome *g, int n, int gap_after, uint32_t **hashes, uint16_t **counts)
{
    int64_t na = 5, ns = 5;
    for (int i = 0; i < n; i++) na += g[i].n_anchors, ns += g[i].n_segments;
    *hashes = calloc((size_t)na, sizeof **hashes), *counts = calloc((size_t)ns, sizeof **counts);
    cr_assert(*hashes && *counts);
    int64_t a = 0, s = 0;
    for (int i = 0; i < n; i++) {
        memcpy(*hashes + a, g[i].hash, (size_t)g[i].n_anchors * sizeof **hashes);
        memcpy(*counts + s, g[i].seg_count, (size_t)g[i].n_segments * sizeof **counts);
        stored_free(&g[i]);
        g[i].hash = *hashes + a, g[i].seg_count = *counts + s;
        a += g[i].n_anchors + (i == gap_after ? 5 : 0), s += g[i].n_segments + (i == gap_after ? 5 : 0);
    }
}

/* Every ordered pair of g[0..N_GENOMES) on e: the host's bytes (with the windows' means m_q, m_r of
 * W = 20), the on-host flags where expected. */
static void check_all_pairs(tsk_gpu_ani *e, const tsk_ani_genome *g)
{
    int64_t qi[N_GENOMES * N_GENOMES], ri[N_GENOMES * N_GENOMES];
    int64_t n = 0;
    for (int i = 0; i < N_GENOMES; i++)
        for (int j = 0; j < N_GENOMES; j++)
            if (i != j) qi[n] = i, ri[n] = j, n++;
    tsk_ani_result *got = calloc((size_t)n, sizeof *got);
    uint8_t *host = calloc((size_t)n, 1);
    cr_assert_eq(tsk_gpu_ani_pairs(e, qi, ri, n, got, host), 0, "%s", tsk_gpu_ani_error(e));
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert_eq(tsk_ani_work_set_window(w, 20), 0);
    int related = 0, with_m = 0;
    for (int64_t k = 0; k < n; k++) {
        const int want_host = expect_on_host(g, (int)qi[k], (int)ri[k]);
        cr_expect_eq(host[k], want_host, "pair %lld %lld: on host %d", (long long)qi[k], (long long)ri[k], host[k]);
        if (host[k]) continue;
        tsk_ani_result want;
        cr_assert_eq(tsk_ani_pair(w, &g[qi[k]], &g[ri[k]], K, &want), 0);
        related += want.ani > 0.8;
        with_m += want.ani > 0.8 && want.m_q > 0 && want.m_q < 1 && want.m_r > 0 && want.m_r < 1;
        cr_expect(memcmp(&want, &got[k], sizeof want) == 0,
                  "pair %lld %lld: host ani %.17g af %.17g (q %.17g/%.17g r %.17g/%.17g, m %.17g %.17g), gpu ani %.17g "
                  "af %.17g (q %.17g/%.17g r %.17g/%.17g, m %.17g %.17g)",
                  (long long)qi[k], (long long)ri[k], want.ani, want.af, want.ani_q, want.af_q, want.ani_r, want.af_r,
                  want.m_q, want.m_r, got[k].ani, got[k].af, got[k].ani_q, got[k].af_q, got[k].ani_r, got[k].af_r,
                  got[k].m_q, got[k].m_r);
    }
    cr_expect(related > 40, "%d related pairs", related); /* the planted set is mostly related */
    cr_expect(with_m > 20, "%d related pairs with 0 < m < 1", with_m);
    tsk_ani_work_free(w);
    free(got), free(host);
}

#define MAX_MEMBERS 4

/* One set on n_members engines opened as peers (alone: 1), on the GPUs round-robin (two members
 * share a GPU on a machine of one), each checked on every pair; member `absent` (-1: none) never
 * opens, and the others fill its share themselves. The anchors sorted in chunks of at most
 * sort_chunk anchors (0: the default, one chunk a share here); contiguous: the genomes' anchors in
 * one buffer (make_contiguous). */
static void one_set_same_bytes(int64_t sort_chunk, int contiguous, int n_members, int absent)
{
    if (!have_gpu()) cr_skip("no GPU");
    char err[512] = "";
    const int n_dev = tsk_gpu_device_count(err, sizeof err);
    tsk_gpu_ani_set_sort_chunk(sort_chunk);
    synth keep[N_GENOMES];
    tsk_ani_genome *g = make_set(keep);
    uint32_t *hashes = NULL;
    uint16_t *counts = NULL;
    if (contiguous) make_contiguous(g, N_GENOMES, 6, &hashes, &counts);
    const tsk_ani_set set = {N_GENOMES, g};
    tsk_gpu_ani_peers *peers = n_members > 1 ? tsk_gpu_ani_peers_new(&set, &set, n_members) : NULL;
    cr_assert(n_members == 1 || peers);
    tsk_gpu_ani *e[MAX_MEMBERS] = {NULL};
    for (int m = 0; m < n_members; m++) {
        if (m == absent) {
            tsk_gpu_ani_peers_leave(peers, m);
            continue;
        }
        e[m] = tsk_gpu_ani_open(&set, &set, K, 20, m % n_dev, peers, m, err, sizeof err);
        cr_assert_not_null(e[m], "%s", err);
    }
    tsk_gpu_ani_set_sort_chunk(0);
    for (int m = 0; m < n_members; m++) {
        if (!e[m]) continue;
        check_all_pairs(e[m], g);
        tsk_gpu_ani_times t;
        tsk_gpu_ani_timing(e[m], &t);
        cr_expect_eq(t.members, n_members);
    }
    for (int m = 0; m < n_members; m++) tsk_gpu_ani_close(e[m]);
    tsk_gpu_ani_peers_free(peers);
    for (int i = 0; i < N_GENOMES; i++) {
        if (!contiguous) stored_free(&g[i]);
        synth_free(&keep[i]);
    }
    free(hashes), free(counts);
    free(g);
}

Test(gpu_ani, one_set_same_bytes_as_host, .timeout = 600) { one_set_same_bytes(0, 0, 1, -1); }

/* The sort in chunks, as a set past 2^30 anchors has it: chunks of about one genome each. */
Test(gpu_ani, one_set_sorted_in_chunks, .timeout = 600) { one_set_same_bytes(50000, 0, 1, -1); }

/* The anchors of a file's genomes lie one after the other: copied as runs. */
Test(gpu_ani, one_set_stored_contiguously, .timeout = 600) { one_set_same_bytes(0, 1, 1, -1); }

/* Peers (several GPUs' lanes): each fills a share and copies the others', the same bytes on each;
 * shares cut runs and chunks. */
Test(gpu_ani, peers_same_bytes_as_host, .timeout = 600)
{
    one_set_same_bytes(0, 1, 2, -1);
    one_set_same_bytes(50000, 0, 3, -1);
}

/* A peer that never opens: the others fill its share from the host. */
Test(gpu_ani, peers_one_absent, .timeout = 600)
{
    one_set_same_bytes(0, 1, 3, 1);
    one_set_same_bytes(0, 0, 2, 0);
}

/* Closed at once, while its fill may still run (alone, and the first of two peers closed while
 * the second may still copy from it): no pairs, nothing left behind (memcheck). */
Test(gpu_ani, closed_while_filling, .timeout = 600)
{
    if (!have_gpu()) cr_skip("no GPU");
    synth keep[N_GENOMES];
    tsk_ani_genome *g = make_set(keep);
    const tsk_ani_set set = {N_GENOMES, g};
    char err[512] = "";
    tsk_gpu_ani *e = tsk_gpu_ani_open(&set, &set, K, 20, 0, NULL, 0, err, sizeof err);
    cr_assert_not_null(e, "%s", err);
    tsk_gpu_ani_close(e);
    const int n_dev = tsk_gpu_device_count(err, sizeof err);
    tsk_gpu_ani_peers *peers = tsk_gpu_ani_peers_new(&set, &set, 2);
    cr_assert_not_null(peers);
    tsk_gpu_ani *p0 = tsk_gpu_ani_open(&set, &set, K, 20, 0, peers, 0, err, sizeof err);
    tsk_gpu_ani *p1 = tsk_gpu_ani_open(&set, &set, K, 20, 1 % n_dev, peers, 1, err, sizeof err);
    cr_assert(p0 && p1, "%s", err);
    tsk_gpu_ani_close(p0);
    tsk_gpu_ani_close(p1);
    tsk_gpu_ani_peers_free(peers);
    for (int i = 0; i < N_GENOMES; i++) stored_free(&g[i]), synth_free(&keep[i]);
    free(g);
}

/* Queries of one set against references of another, each pair several times in one call. */
Test(gpu_ani, query_set_against_reference_set, .timeout = 600)
{
    if (!have_gpu()) cr_skip("no GPU");
    synth keep[N_GENOMES];
    tsk_ani_genome *g = make_set(keep);
    const tsk_ani_set q = {5, g}, r = {N_GENOMES - 7, g + 5};
    char err[512] = "";
    tsk_gpu_ani *e = tsk_gpu_ani_open(&q, &r, K, 0, 0, NULL, 0, err, sizeof err); /* no window: m_q = m_r = 0, as the host's */
    cr_assert_not_null(e, "%s", err);
    enum { M = 3 * 5 * (N_GENOMES - 7) };
    int64_t qi[M], ri[M];
    int64_t n = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int j = 0; j < N_GENOMES - 7; j++)
            for (int i = 0; i < 5; i++) qi[n] = i, ri[n] = j, n++;
    tsk_ani_result got[M];
    uint8_t host[M];
    cr_assert_eq(tsk_gpu_ani_pairs(e, qi, ri, n, got, host), 0, "%s", tsk_gpu_ani_error(e));
    tsk_ani_work *w = tsk_ani_work_new();
    for (int64_t k = 0; k < n; k++) {
        cr_expect_eq(host[k], 0);
        tsk_ani_result want;
        cr_assert_eq(tsk_ani_pair(w, &q.genome[qi[k]], &r.genome[ri[k]], K, &want), 0);
        cr_expect(memcmp(&want, &got[k], sizeof want) == 0, "pair %lld %lld: host %.17g gpu %.17g", (long long)qi[k],
                  (long long)ri[k], want.ani, got[k].ani);
    }
    tsk_ani_work_free(w);
    tsk_gpu_ani_close(e);
    for (int i = 0; i < N_GENOMES; i++) stored_free(&g[i]), synth_free(&keep[i]);
    free(g);
}
