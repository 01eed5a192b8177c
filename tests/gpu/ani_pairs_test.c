/* ani_pairs_test.c: the GPU ANI engine (gpu/ani_pairs.h) against the host's tsk_ani_pair, byte for
 * byte, on synthetic anchors of planted identities (tests/ani_synth.h): even divergence, mosaics,
 * pieces, unrelated genomes, rates 1/64 to 1/256 on either side, loose anchors looked up (a draft
 * whose segments in some stretches are loose anchors, so that the other genome's segments there
 * hit those only) and loose anchors left out (tsk_ani_loose_used), one set against itself and a
 * query set against another; the pairs the device must leave to the host (a segment of 256 anchors
 * or more, a genome of more than TSK_GPU_ANI_MAX_SEGMENTS segments, or of more than
 * TSK_GPU_ANI_MAX_ANCHORS anchors with the loose ones looked up) are flagged and only those.
 * Without a GPU: the clean refusal, and that the set's loose anchors change the host's counts (or
 * the device's would be tested on nothing). */
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

#define N_GENOMES 18
/* the genomes of make_set with a part of their own in the tests */
enum { G_ANC = 0, G_UNRELATED = 11, G_DRAFT, G_REPEAT, G_BIG, G_BIG_REL, G_MANY_ANCHORS, G_MANY_SEGMENTS };
/* the draft's segments that are loose anchors (its last 20 among them: its tail) */
static const int64_t draft_loose[3][2] = {{100, 120}, {400, 430}, {880, 900}};

/* Genomes 0..N_GENOMES-1: an ancestor of skewed composition (loose_skew) with loose anchors looked
 * up (its segments cover 85 % of it), its relatives and pieces at planted identities and rates
 * (their loose anchors its, as their segments'), one unrelated genome whose few loose anchors are
 * left out, a draft of the ancestor (draft_loose), one with a segment of 300 anchors, a genome and
 * its relative whose loose anchors are left out (segments over 90 %) and would not fit
 * TSK_GPU_ANI_MAX_ANCHORS, one whose anchors fit it without its loose ones (looked up) and not with
 * them, one of 4,200 segments. */
static tsk_ani_genome *make_set(loose_synth *keep)
{
    uint64_t rng = 77;
    tsk_ani_genome *g = calloc(N_GENOMES, sizeof *g);
    loose_synth anc = loose_random(&rng, 900, 8, 30);
    loose_skew(&rng, &anc, 20000, 0.05); /* its anchors recur (tsk_ani_repeats), and chance hits are many */
    double ident[1300];
    int t = 0;
    keep[t] = anc;
    g[t] = loose_stored(&keep[t], 6), t++;
    const double even[4] = {0.99, 0.97, 0.95, 0.92};
    for (int v = 0; v < 4; v++) {
        for (int s = 0; s < 900; s++) ident[s] = even[v];
        keep[t] = loose_relative(&rng, &anc, ident);
        g[t] = loose_stored(&keep[t], 6 + v % 3), t++; /* rates 1/64, 1/128, 1/256 */
    }
    for (int v = 0; v < 3; v++) { /* mosaics: blocks at 0.99, 0.93, 0.80, and missing */
        for (int s = 0; s < 900; s++) {
            const int b = (s / 40 + v) % 4;
            ident[s] = b == 0 ? 0.99 : b == 1 ? 0.93 : b == 2 ? 0.80 : -1;
        }
        keep[t] = loose_relative(&rng, &anc, ident);
        g[t] = loose_stored(&keep[t], 6 + v % 2), t++;
    }
    for (int v = 0; v < 3; v++) { /* pieces: 25, 50, 75 % of the ancestor, unchanged */
        for (int s = 0; s < 900; s++) ident[s] = s < 225 * (v + 1) ? 1.0 : -1;
        keep[t] = loose_relative(&rng, &anc, ident);
        g[t] = loose_stored(&keep[t], 6), t++;
    }
    cr_assert_eq(t, G_UNRELATED);
    keep[t] = loose_random(&rng, 700, 1, 30); /* unrelated */
    g[t] = loose_stored(&keep[t], 7), t++;
    /* a draft at 0.98: the ancestor's segments in its loose stretches find their values among its
     * loose anchors only */
    for (int s = 0; s < 900; s++) ident[s] = 0.98;
    keep[t] = loose_relative(&rng, &anc, ident);
    for (int k = 2; k >= 0; k--) loose_loosen(&keep[t], draft_loose[k][0], draft_loose[k][1]);
    g[t] = loose_stored(&keep[t], 7), t++;
    /* a segment of 300 anchors (a repeat): the host's scaled powers */
    for (int s = 0; s < 900; s++) ident[s] = 0.97;
    keep[t] = loose_relative(&rng, &anc, ident);
    {
        synth *x = &keep[t].s;
        int64_t n = x->first[x->n_seg];
        uint64_t *h = realloc(x->h, (size_t)(n + 300) * sizeof *h);
        cr_assert(h);
        x->h = h;
        const int64_t s1 = x->first[1];
        memmove(x->h + s1 + 300, x->h + s1, (size_t)(n - s1) * sizeof *h);
        for (int j = 0; j < 300; j++) x->h[s1 + j] = splitmix64(&rng) >> 6;
        for (int64_t s = 1; s <= x->n_seg; s++) x->first[s] += 300;
    }
    g[t] = loose_stored(&keep[t], 6), t++;
    keep[t] = loose_random(&rng, 1300, 4, 300); /* ~61,100 anchors in segments, ~5,500 loose left out */
    g[t] = loose_stored(&keep[t], 6);
    cr_assert(tsk_ani_loose_used(&g[t]) == 0 && g[t].n_anchors <= TSK_GPU_ANI_MAX_ANCHORS &&
                  g[t].n_anchors + g[t].n_loose > TSK_GPU_ANI_MAX_ANCHORS,
              "%lld anchors, %lld loose", (long long)g[t].n_anchors, (long long)g[t].n_loose);
    for (int s = 0; s < 1300; s++) ident[s] = 0.96;
    keep[t + 1] = loose_relative(&rng, &keep[t], ident);
    t++;
    g[t] = loose_stored(&keep[t], 7);
    cr_assert(tsk_ani_loose_used(&g[t]) == 0 && g[t].n_loose > 0);
    t++;
    keep[t] = loose_random(&rng, 1250, 8, 200); /* ~58,750 anchors in segments, ~10,200 loose looked up */
    g[t] = loose_stored(&keep[t], 6);
    cr_assert(g[t].n_anchors <= TSK_GPU_ANI_MAX_ANCHORS &&
                  g[t].n_anchors + tsk_ani_loose_used(&g[t]) > TSK_GPU_ANI_MAX_ANCHORS,
              "%lld anchors, %lld loose", (long long)g[t].n_anchors, (long long)g[t].n_loose);
    t++;
    keep[t] = loose_none(synth_random(&rng, TSK_GPU_ANI_MAX_SEGMENTS + 104)); /* too many segments for the device */
    g[t] = loose_stored(&keep[t], 8), t++;
    cr_assert_eq(t, N_GENOMES);
    return g;
}

static void free_set(tsk_ani_genome *g, loose_synth *keep, int stored_too)
{
    for (int i = 0; i < N_GENOMES; i++) {
        if (stored_too) stored_free(&g[i]);
        loose_free(&keep[i]);
    }
    free(g);
}

/* The pairs the device leaves to the host: the genomes of too many segments or anchors, and the
 * one with a segment of 300 anchors against a partner of its rate 1/64 (at a sparser partner's rate
 * its segment keeps under 256). */
static int expect_on_host(const tsk_ani_genome *g, int i, int j)
{
    if (i == G_MANY_SEGMENTS || j == G_MANY_SEGMENTS || i == G_MANY_ANCHORS || j == G_MANY_ANCHORS) return 1;
    if (i == G_REPEAT) return g[j].rate_log2 == 6;
    if (j == G_REPEAT) return g[i].rate_log2 == 6;
    return 0;
}

/* What the set's loose anchors do on the host, so that the device's equal bytes test them: the
 * ancestor's segments in the draft's loose stretches hit there (and not without the draft's loose
 * anchors), the ancestor's repeats count its values that recur among its loose anchors only, and
 * the pair's estimate moves. With or without a GPU. */
Test(gpu_ani, set_loose_anchors_count)
{
    loose_synth keep[N_GENOMES];
    tsk_ani_genome *g = make_set(keep);
    const tsk_ani_genome *anc = &g[G_ANC], *draft = &g[G_DRAFT];
    tsk_ani_genome anc_seg = *anc, draft_seg = *draft; /* their segments' anchors alone */
    anc_seg.n_loose = draft_seg.n_loose = 0;
    cr_assert(anc->n_loose > 0 && tsk_ani_loose_used(anc) == anc->n_loose && tsk_ani_loose_used(draft) == draft->n_loose);
    for (int i = 1; i <= G_DRAFT; i++) /* the ancestor's kin look theirs up; the unrelated genome does not */
        cr_assert_eq(tsk_ani_loose_used(&g[i]), i == G_UNRELATED ? 0 : g[i].n_loose, "genome %d", i);
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert_not_null(w);
    uint32_t *n_q = calloc((size_t)anc->n_segments, sizeof *n_q), *a_q = calloc((size_t)anc->n_segments, sizeof *a_q);
    uint32_t *n_r = calloc((size_t)draft->n_segments, sizeof *n_r);
    uint32_t *a_r = calloc((size_t)draft->n_segments, sizeof *a_r);
    cr_assert(n_q && a_q && n_r && a_r);
    int64_t hits[2] = {0, 0}, kept = 0; /* the stretches' hits with and without the draft's loose anchors */
    for (int with = 1; with >= 0; with--) {
        cr_assert_eq(tsk_ani_segment_hits(w, anc, with ? draft : &draft_seg, n_q, a_q, n_r, a_r), 0);
        for (int k = 0; k < 3; k++)
            for (int64_t s = draft_loose[k][0]; s < draft_loose[k][1]; s++)
                hits[with] += a_q[s], kept += with ? n_q[s] : 0;
    }
    cr_expect(hits[1] > kept / 2 && hits[0] < kept / 20, "the stretches' %lld anchors: %lld hits, %lld without loose",
              (long long)kept, (long long)hits[1], (long long)hits[0]);
    const int64_t rep = tsk_ani_repeats(w, anc), rep_seg = tsk_ani_repeats(w, &anc_seg);
    cr_expect(rep > rep_seg, "repeats %lld, %lld without loose", (long long)rep, (long long)rep_seg);
    tsk_ani_result with, without;
    cr_assert_eq(tsk_ani_pair(w, anc, draft, K, &with), 0);
    cr_assert_eq(tsk_ani_pair(w, anc, &draft_seg, K, &without), 0);
    cr_expect(with.defined && with.af_q > without.af_q, "AF of the ancestor %.4f, %.4f without loose",
              with.af_q, without.af_q);
    free(n_q), free(a_q), free(n_r), free(a_r);
    tsk_ani_work_free(w);
    free_set(g, keep, 1);
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

/* g's anchors (each genome's loose ones after its segments') and counts moved into one buffer
 * each, genome after genome as a file holds them (the engine copies such runs whole), with a gap
 * of 5 after genome `gap_after` (a second run). */
static void make_contiguous(tsk_ani_genome *g, int n, int gap_after, uint32_t **hashes, uint16_t **counts)
{
    int64_t na = 5, ns = 5;
    for (int i = 0; i < n; i++) na += g[i].n_anchors + g[i].n_loose, ns += g[i].n_segments;
    *hashes = calloc((size_t)na, sizeof **hashes), *counts = calloc((size_t)ns, sizeof **counts);
    cr_assert(*hashes && *counts);
    int64_t a = 0, s = 0;
    for (int i = 0; i < n; i++) {
        const int64_t all = g[i].n_anchors + g[i].n_loose;
        memcpy(*hashes + a, g[i].hash, (size_t)all * sizeof **hashes);
        memcpy(*counts + s, g[i].seg_count, (size_t)g[i].n_segments * sizeof **counts);
        stored_free(&g[i]);
        g[i].hash = *hashes + a, g[i].seg_count = *counts + s;
        a += all + (i == gap_after ? 5 : 0), s += g[i].n_segments + (i == gap_after ? 5 : 0);
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
    loose_synth keep[N_GENOMES];
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
    free_set(g, keep, !contiguous);
    free(hashes), free(counts);
}

Test(gpu_ani, one_set_same_bytes_as_host, .timeout = 600) { one_set_same_bytes(0, 0, 1, -1); }

/* The sort in chunks, as a set past 2^30 anchors has it: chunks of about one genome each. */
Test(gpu_ani, one_set_sorted_in_chunks, .timeout = 600) { one_set_same_bytes(70000, 0, 1, -1); }

/* The anchors of a file's genomes lie one after the other: copied as runs. */
Test(gpu_ani, one_set_stored_contiguously, .timeout = 600) { one_set_same_bytes(0, 1, 1, -1); }

/* Peers (several GPUs' lanes): each fills a share and copies the others', the same bytes on each;
 * shares cut runs and chunks. */
Test(gpu_ani, peers_same_bytes_as_host, .timeout = 600)
{
    one_set_same_bytes(0, 1, 2, -1);
    one_set_same_bytes(70000, 0, 3, -1);
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
    loose_synth keep[N_GENOMES];
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
    free_set(g, keep, 1);
}

/* Queries of one set against references of another (the mosaics, the pieces, the unrelated genome
 * and the draft), each pair several times in one call. */
Test(gpu_ani, query_set_against_reference_set, .timeout = 600)
{
    if (!have_gpu()) cr_skip("no GPU");
    loose_synth keep[N_GENOMES];
    tsk_ani_genome *g = make_set(keep);
    enum { REF0 = 5, N_REF = G_DRAFT + 1 - REF0 };
    const tsk_ani_set q = {REF0, g}, r = {N_REF, g + REF0};
    char err[512] = "";
    tsk_gpu_ani *e = tsk_gpu_ani_open(&q, &r, K, 0, 0, NULL, 0, err, sizeof err); /* no window: m_q = m_r = 0, as the host's */
    cr_assert_not_null(e, "%s", err);
    enum { M = 3 * REF0 * N_REF };
    int64_t qi[M], ri[M];
    int64_t n = 0;
    for (int rep = 0; rep < 3; rep++)
        for (int j = 0; j < N_REF; j++)
            for (int i = 0; i < REF0; i++) qi[n] = i, ri[n] = j, n++;
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
    free_set(g, keep, 1);
}
