/* genome_sets_test.c: the GPU genome-sketch engine (gpu/genome_sets.h) against the CPU engine
 * (cpu/genome_sets.h) and a brute-force set intersection (tsk_genome_shared_naive): count blocks equal
 * the brute force, top-k lists and thresholded pairs equal the CPU engine's byte for byte. Planted
 * sets: identical, disjoint, nested, empty, one key, the smallest and largest keys, ties at the
 * top-k boundary, clusters, keys in every genome; one set against itself and two sets; every
 * filter and mode; sub-blocks; references in several chunks and the index in several parts; the
 * same sets with per-genome thresholds (a size floor: pairs compared below the smaller one).
 * Without a usable GPU (CI) it checks that the engine says so cleanly. */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cpu/genome_sets.h"
#include "../../gpu/device.h"
#include "../../gpu/genome_sets.h"
#include "../../gpu/gpu_dist.h"

static int have_gpu(void)
{
    char why[128] = "";
    return tsk_gpu_device_count(why, sizeof why) > 0;
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

typedef struct {
    tsk_key_sets s;
    uint64_t *keys;
    int64_t *offset;
    uint64_t *tau;  /* per set, when the sets have thresholds (a size floor) */
    int thresholds; /* make_sets' */
} owned_sets;

/* The common threshold of thresholded sets (T of scaled 4) */
#define TAU_T (UINT64_MAX / 4 | TSK_GENOME_FP_MASK)

/* Set i's threshold, as sketches with a size floor have them: most at T, small genomes their own
 * larger one (some 2^64 - 1: every window kept), a few pairs of equal larger ones. */
static uint64_t threshold_of(int64_t i)
{
    switch (i % 6) {
    case 1: return UINT64_MAX;
    case 3: return TAU_T + (UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(i + 1)) % (UINT64_MAX - TAU_T);
    case 5: return UINT64_MAX / 2 | TSK_GENOME_FP_MASK;
    default: return TAU_T;
    }
}

/* Adds one set (sorted, made unique here) to o; with thresholds, only its keys at most its own. */
static void add_set(owned_sets *o, uint64_t *k, int64_t n)
{
    if (o->thresholds) {
        const uint64_t tau = o->thresholds == 2 ? TAU_T : threshold_of(o->s.n_items);
        int64_t m = 0;
        for (int64_t j = 0; j < n; j++)
            if (k[j] <= tau) k[m++] = k[j];
        n = m;
        o->tau = realloc(o->tau, sizeof(uint64_t) * (size_t)(o->s.n_items + 1));
        o->tau[o->s.n_items] = tau;
        o->s.tau = o->tau;
    }
    n = tsk_genome_keys_sort_unique(k, n);
    const int64_t i = o->s.n_items, at = o->offset[i];
    o->keys = realloc(o->keys, sizeof(uint64_t) * (size_t)(at + n + 1));
    o->offset = realloc(o->offset, sizeof(int64_t) * (size_t)(i + 2));
    memcpy(o->keys + at, k, sizeof(uint64_t) * (size_t)n);
    o->offset[i + 1] = at + n;
    o->s.n_items = i + 1;
    o->s.keys = o->keys;
    o->s.offset = o->offset;
}

/* The planted sets; `salt` changes the random parts (two different sets share the planted ones);
 * thresholds 1: each set with its threshold_of (and its keys cut to it); 2: all at TAU_T. */
static owned_sets make_sets(int salt, int clusters, int thresholds)
{
    owned_sets o = {{0, NULL, NULL, NULL}, NULL, calloc(1, sizeof(int64_t)), NULL, thresholds};
    uint64_t base[300], pool[40], buf[1200];
    rng = 0x9E3779B97F4A7C15ULL * 7;  /* the same planted keys in every set */
    for (int i = 0; i < 300; i++) base[i] = next();
    for (int i = 0; i < 40; i++) pool[i] = next();
    rng ^= 0xABCDEF12345ULL * (uint64_t)(salt + 1);
    int64_t n = 0;
    add_set(&o, buf, 0);                                   /* empty */
    buf[0] = base[0], add_set(&o, buf, 1);                 /* one key */
    buf[0] = 0, buf[1] = UINT64_MAX, buf[2] = base[1], add_set(&o, buf, 3);  /* extreme keys */
    memcpy(buf, base, sizeof base), add_set(&o, buf, 300); /* the base ... */
    memcpy(buf, base, sizeof base), add_set(&o, buf, 300); /* ... twice (identical) */
    memcpy(buf, base, 100 * sizeof *base), add_set(&o, buf, 100);  /* nested in the base */
    for (int i = 0; i < 150; i++) buf[i] = next();         /* disjoint from all */
    add_set(&o, buf, 150);
    for (int t = 0; t < 6; t++) {                          /* ties: 60 base keys + 60 own each */
        for (n = 0; n < 60; n++) buf[n] = base[100 + n];
        for (; n < 120; n++) buf[n] = next();
        add_set(&o, buf, n);
    }
    for (int c = 0; c < clusters; c++) {                   /* clusters around a centre */
        uint64_t centre[400];
        for (int i = 0; i < 400; i++) centre[i] = next();
        const int members = 2 + (int)(next() % 6);
        for (int m = 0; m < members; m++) {
            const unsigned keep = 40 + (unsigned)(next() % 60);  /* percent of the centre kept */
            n = 0;
            for (int i = 0; i < 400; i++)
                if (next() % 100 < keep) buf[n++] = centre[i];
            for (int i = (int)(next() % 80); i > 0; i--) buf[n++] = next();
            for (int i = 0; i < 40; i++)                   /* keys found in many genomes */
                if (next() % 4 == 0) buf[n++] = pool[i];
            if (m == 0) buf[n++] = base[2];
            add_set(&o, buf, n);
        }
    }
    return o;
}

static void drop(owned_sets *o)
{
    free(o->keys);
    free(o->offset);
    free(o->tau);
}

static void check_block(tsk_gpu_genome_sets *g, const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq,
                        int64_t r0, int64_t nr, const char *what)
{
    const int64_t ld = nr + 3;
    uint32_t *got = malloc(sizeof(uint32_t) * (size_t)(nq * ld + 1));
    for (int64_t i = 0; i < nq * ld; i++) got[i] = 0xDEADBEEFu;
    cr_assert_eq(tsk_gpu_genome_sets_block(g, q0, nq, r0, nr, got, ld), 0, "%s: %s", what, tsk_gpu_genome_sets_error(g));
    for (int64_t i = 0; i < nq; i++) {
        for (int64_t j = 0; j < nr; j++) {
            const int64_t a = q0 + i, b = r0 + j;
            const int64_t want = tsk_genome_shared_naive(q->keys + q->offset[a], tsk_key_set_size(q, a),
                                                       r->keys + r->offset[b], tsk_key_set_size(r, b));
            cr_assert_eq(got[i * ld + j], (uint32_t)want, "%s: block (%lld, %lld): gpu %u, brute force %lld", what,
                         (long long)a, (long long)b, got[i * ld + j], (long long)want);
        }
        for (int64_t j = nr; j < ld; j++) cr_assert_eq(got[i * ld + j], 0xDEADBEEFu, "%s: wrote past nr", what);
    }
    free(got);
}

static void check_topk(tsk_gpu_genome_sets *g, tsk_cpu_genome_sets *c, int64_t q0, int64_t nq, int k,
                       tsk_genome_mode m, tsk_pair_filter f, const char *what)
{
    tsk_genome_pair *want = malloc(sizeof *want * (size_t)(nq * k + 1)), *got = malloc(sizeof *got * (size_t)(nq * k + 1));
    cr_assert_eq(tsk_cpu_genome_sets_topk(c, q0, nq, k, m, f, want), 0);
    cr_assert_eq(tsk_gpu_genome_sets_topk(g, q0, nq, k, m, f, got), 0, "%s: %s", what, tsk_gpu_genome_sets_error(g));
    for (int64_t i = 0; i < nq * k; i++)
        cr_assert(memcmp(&want[i], &got[i], sizeof *got) == 0,
                  "%s: top-%d mode %d filter %d, query %lld rank %lld: cpu (ref %lld, %lld shared, %.17g), gpu (ref %lld, "
                  "%lld shared, %.17g)", what, k, (int)m, (int)f, (long long)want[i].query, (long long)(i % k),
                  (long long)want[i].ref, (long long)want[i].shared, want[i].share, (long long)got[i].ref,
                  (long long)got[i].shared, got[i].share);
    free(want);
    free(got);
}

static void check_within(tsk_gpu_genome_sets *g, tsk_cpu_genome_sets *c, int64_t q0, int64_t nq, double min_share,
                         tsk_genome_mode m, tsk_pair_filter f, const char *what)
{
    tsk_genome_pair *want = NULL, *got = NULL;
    int64_t n_want = 0, n_got = 0, cap_want = 0, cap_got = 0;
    cr_assert_eq(tsk_cpu_genome_sets_within(c, q0, nq, min_share, m, f, &want, &n_want, &cap_want), 0);
    cr_assert_eq(tsk_gpu_genome_sets_within(g, q0, nq, min_share, m, f, &got, &n_got, &cap_got), 0, "%s: %s", what,
                 tsk_gpu_genome_sets_error(g));
    cr_assert_eq(n_got, n_want, "%s: within %g mode %d filter %d: %lld pairs, cpu %lld", what, min_share, (int)m, (int)f,
                 (long long)n_got, (long long)n_want);
    for (int64_t i = 0; i < n_want; i++)
        cr_assert(memcmp(&want[i], &got[i], sizeof *got) == 0, "%s: within %g pair %lld: cpu (%lld, %lld), gpu (%lld, %lld)",
                  what, min_share, (long long)i, (long long)want[i].query, (long long)want[i].ref,
                  (long long)got[i].query, (long long)got[i].ref);
    free(want);
    free(got);
}

static void check_engine(tsk_gpu_genome_sets *g, const tsk_key_sets *q, const tsk_key_sets *r, const char *what);

/* Everything on q x r under one set of engine limits. */
static void check_all(const tsk_key_sets *q, const tsk_key_sets *r, int64_t part_keys, int64_t chunk_refs,
                      const char *what)
{
    char err[256] = "";
    tsk_gpu_genome_sets *g = tsk_gpu_genome_sets_open(q, r, 0, NULL, 0, err, sizeof err);
    cr_assert_not_null(g, "%s: open: %s", what, err);
    tsk_gpu_genome_sets_set_limits(g, part_keys, chunk_refs);
    check_engine(g, q, r, what);
    tsk_gpu_genome_sets_close(g);
}

/* Everything on q x r on the open engine g. */
static void check_engine(tsk_gpu_genome_sets *g, const tsk_key_sets *q, const tsk_key_sets *r, const char *what)
{
    char err[256] = "";
    tsk_cpu_genome_sets *c = tsk_cpu_genome_sets_open(q, r, 2, err, sizeof err);
    cr_assert_not_null(c);
    const int64_t nq = q->n_items, nr = r->n_items;
    check_block(g, q, r, 0, nq, 0, nr, what);
    check_block(g, q, r, 3, nq - 5, 5, nr - 9, what);
    check_block(g, q, r, 1, 1, nr - 1, 1, what);
    /* 40: the candidates of a top-10 with ANI; past 64, every sharing pair ranked on the host */
    const int ks[] = {1, 3, 8, 40, 70, 200};
    const tsk_pair_filter filters[] = {TSK_PAIRS_ALL, TSK_PAIRS_NOT_SELF, TSK_PAIRS_UPPER, TSK_PAIRS_UPPER_SELF};
    const double floors[] = {-1.0, 0.0, 1e-9, 0.25, 0.5, 0.75, 1.0, 1.5};
    for (int m = 0; m < 2; m++)
        for (int fi = 0; fi < 4; fi++) {
            for (int ki = 0; ki < 6; ki++) {
                check_topk(g, c, 0, nq, ks[ki], (tsk_genome_mode)m, filters[fi], what);
                check_topk(g, c, 2, nq - 4, ks[ki], (tsk_genome_mode)m, filters[fi], what);
            }
            for (int di = 0; di < 8; di++) {
                check_within(g, c, 0, nq, floors[di], (tsk_genome_mode)m, filters[fi], what);
                check_within(g, c, 4, nq - 7, floors[di], (tsk_genome_mode)m, filters[fi], what);
            }
        }
    /* share exactly at a planted value: the tie group shares 60 of its 120 keys with the base */
    check_within(g, c, 0, nq, tsk_genome_share(60, 300, 120, TSK_GENOME_SYMMETRIC), TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, what);
    tsk_cpu_genome_sets_close(c);
}

/* Engines opened at once among peers, each on a thread of its own (a member's open waits for the
 * others' shares). */
typedef struct {
    const tsk_key_sets *q, *r;
    int device, member;
    tsk_gpu_genome_sets_peers *peers;
    tsk_gpu_genome_sets *g;
    char err[256];
} peer_open;

static void *open_member(void *arg)
{
    peer_open *o = arg;
    o->g = tsk_gpu_genome_sets_open(o->q, o->r, o->device, o->peers, o->member, o->err, sizeof o->err);
    return NULL;
}

/* n engines of q x r opened among peers on the GPUs round-robin (two on one GPU on a machine of
 * one), member `absent` (-1: none) never opening: each gives the lone engine's answers. */
static void check_peers(const tsk_key_sets *q, const tsk_key_sets *r, int n, int absent, const char *what)
{
    char err[256] = "";
    const int n_dev = tsk_gpu_device_count(err, sizeof err);
    tsk_gpu_genome_sets_peers *peers = tsk_gpu_genome_sets_peers_new(r, n);
    cr_assert_not_null(peers);
    peer_open o[4];
    pthread_t t[4];
    cr_assert(n <= 4);
    for (int m = 0; m < n; m++) {
        o[m] = (peer_open){q, r, m % n_dev, m, peers, NULL, ""};
        if (m == absent) tsk_gpu_genome_sets_peers_leave(peers, m);
        else cr_assert_eq(pthread_create(&t[m], NULL, open_member, &o[m]), 0);
    }
    for (int m = 0; m < n; m++) {
        if (m == absent) continue;
        pthread_join(t[m], NULL);
        cr_assert_not_null(o[m].g, "%s: member %d: %s", what, m, o[m].err);
    }
    for (int m = 0; m < n; m++) {
        if (m == absent) continue;
        char which[96];
        snprintf(which, sizeof which, "%s, member %d of %d", what, m, n);
        check_engine(o[m].g, q, r, which);
    }
    for (int m = 0; m < n; m++) tsk_gpu_genome_sets_close(o[m].g);
    tsk_gpu_genome_sets_peers_free(peers);
}

Test(gpu_genome_sets, same_as_cpu_and_brute_force, .timeout = 600)
{
    owned_sets a = make_sets(0, 12, 0), b = make_sets(1, 5, 0);
    if (!have_gpu()) {
        char err[256] = "";
        cr_assert_null(tsk_gpu_genome_sets_open(&a.s, &a.s, 0, NULL, 0, err, sizeof err));
        cr_assert(strlen(err) > 0, "a refusal comes with a reason");
        drop(&a);
        drop(&b);
        return;
    }
    cr_assert_gt(a.s.n_items, 40);
    /* default limits; references in chunks of 7 and 16; the index in parts of ~1000 keys too */
    const int64_t limits[][2] = {{0, 0}, {1000, 5}, {0, 7}, {0, 16}, {1000, 0}, {600, 3}};
    /* TSKETCH_TEST_QUICK (under memcheck, bench/gpu.sh): the second alone, which has every path */
    const int quick = getenv("TSKETCH_TEST_QUICK") != NULL;
    for (int l = quick; l < (quick ? 2 : 6); l++) {
        char what[64];
        snprintf(what, sizeof what, "one set, parts %lld chunks %lld", (long long)limits[l][0], (long long)limits[l][1]);
        check_all(&a.s, &a.s, limits[l][0], limits[l][1], what);
        snprintf(what, sizeof what, "two sets, parts %lld chunks %lld", (long long)limits[l][0], (long long)limits[l][1]);
        check_all(&b.s, &a.s, limits[l][0], limits[l][1], what);
        check_all(&a.s, &b.s, limits[l][0], limits[l][1], what);
    }
    drop(&a);
    drop(&b);
}

/* Sets with per-genome thresholds (a size floor): pairs compared below the smaller threshold, the
 * GPU's sizes by its searches on the device = the CPU's tsk_genome_pair_sizes; one side without
 * thresholds; all thresholds equal (no searches). Same limits as above. */
Test(gpu_genome_sets, thresholds_same_as_cpu, .timeout = 600)
{
    owned_sets a = make_sets(0, 12, 1), b = make_sets(1, 5, 1), plain = make_sets(3, 4, 0);
    /* the thresholds do cut lists: some pair of a differs in size from the uncut */
    int64_t cut = 0;
    for (int64_t i = 0; i < a.s.n_items; i++)
        for (int64_t j = 0; j < a.s.n_items; j++) {
            int64_t n_q, n_r;
            tsk_genome_pair_sizes(&a.s, i, &a.s, j, &n_q, &n_r);
            cut += n_q < tsk_key_set_size(&a.s, i) || n_r < tsk_key_set_size(&a.s, j);
        }
    cr_assert_gt(cut, 100, "the thresholds cut %lld pairs", (long long)cut);
    if (!have_gpu()) {
        char err[256] = "";
        cr_assert_null(tsk_gpu_genome_sets_open(&a.s, &b.s, 0, NULL, 0, err, sizeof err));
        drop(&a), drop(&b), drop(&plain);
        return;
    }
    const int64_t limits[][2] = {{0, 0}, {1000, 5}, {0, 7}, {600, 3}};
    const int quick = getenv("TSKETCH_TEST_QUICK") != NULL;
    for (int l = quick; l < (quick ? 2 : 4); l++) {
        char what[80];
        snprintf(what, sizeof what, "thresholds, one set, parts %lld chunks %lld", (long long)limits[l][0],
                 (long long)limits[l][1]);
        check_all(&a.s, &a.s, limits[l][0], limits[l][1], what);
        snprintf(what, sizeof what, "thresholds, two sets, parts %lld chunks %lld", (long long)limits[l][0],
                 (long long)limits[l][1]);
        check_all(&b.s, &a.s, limits[l][0], limits[l][1], what);
        check_all(&a.s, &b.s, limits[l][0], limits[l][1], what);
        snprintf(what, sizeof what, "thresholds on one side, parts %lld chunks %lld", (long long)limits[l][0],
                 (long long)limits[l][1]);
        check_all(&a.s, &plain.s, limits[l][0], limits[l][1], what);
        check_all(&plain.s, &a.s, limits[l][0], limits[l][1], what);
    }
    /* every threshold T: keys cut, no pair needs a search */
    owned_sets equal = make_sets(4, 6, 2);
    check_all(&equal.s, &equal.s, 1000, 5, "thresholds all equal");
    check_all(&equal.s, &a.s, 0, 0, "thresholds all equal against different ones");
    drop(&a), drop(&b), drop(&plain), drop(&equal);
}

/* Engines among peers (several GPUs' lanes): the keys uploaded in shares, each engine the lone
 * one's answers; a member that never opens; sets with thresholds (their keys as stored copied too). */
Test(gpu_genome_sets, peers_same_as_cpu, .timeout = 600)
{
    if (!have_gpu()) return;
    owned_sets a = make_sets(0, 12, 0), b = make_sets(1, 5, 0), th = make_sets(0, 12, 1);
    /* TSKETCH_TEST_QUICK (under memcheck): two members, one set and two sets */
    const int quick = getenv("TSKETCH_TEST_QUICK") != NULL;
    check_peers(&a.s, &a.s, 2, -1, "peers, one set");
    check_peers(&b.s, &a.s, quick ? 2 : 3, -1, "peers, two sets");
    if (!quick) {
        check_peers(&a.s, &a.s, 3, 1, "peers, one absent");
        check_peers(&th.s, &th.s, 2, 0, "peers, thresholds, the first absent");
    }
    drop(&a), drop(&b), drop(&th);
}

/* Shards (a distance run's references over several GPUs): an engine of references [lo, hi) only
 * gives the CPU shard's answers (cpu/genome_sets.h, itself checked against the whole engine by the
 * merge of shards in tests/cli/test_lanes.sh); its blocks are the brute force's and must lie in
 * the shard. Shards round-robin over the GPUs; the index in parts within a shard too. */
static void check_shards(const tsk_key_sets *q, const tsk_key_sets *r, const int64_t *bound, int n, int64_t part_keys,
                         const char *what)
{
    char err[256] = "";
    const int n_dev = tsk_gpu_device_count(err, sizeof err);
    for (int s = 0; s < n; s++) {
        char which[128];
        snprintf(which, sizeof which, "%s, shard [%lld, %lld)", what, (long long)bound[s], (long long)bound[s + 1]);
        tsk_gpu_genome_sets *g = tsk_gpu_genome_sets_open_shard(q, r, bound[s], bound[s + 1], s % n_dev, err, sizeof err);
        cr_assert_not_null(g, "%s: open: %s", which, err);
        if (part_keys) tsk_gpu_genome_sets_set_limits(g, part_keys, 0);
        tsk_cpu_genome_sets *c = tsk_cpu_genome_sets_open_shard(q, r, bound[s], bound[s + 1], 2, err, sizeof err);
        cr_assert_not_null(c, "%s: %s", which, err);
        const int64_t nq = q->n_items, width = bound[s + 1] - bound[s];
        if (width > 0) check_block(g, q, r, 0, nq, bound[s], width, which);
        if (width > 2) check_block(g, q, r, 2, nq - 3, bound[s] + 1, width - 2, which);
        uint32_t cell = 0;
        if (bound[s] > 0) /* a block past the shard is refused */
            cr_assert_eq(tsk_gpu_genome_sets_block(g, 0, 1, bound[s] - 1, 1, &cell, 1), -1, "%s: block before it", which);
        const int ks[] = {1, 8, 70};
        const tsk_pair_filter filters[] = {TSK_PAIRS_ALL, TSK_PAIRS_NOT_SELF, TSK_PAIRS_UPPER, TSK_PAIRS_UPPER_SELF};
        const double floors[] = {0.0, 1e-9, 0.25, 0.75};
        for (int m = 0; m < 2; m++)
            for (int fi = 0; fi < 4; fi++) {
                for (int ki = 0; ki < 3; ki++) check_topk(g, c, 1, nq - 2, ks[ki], (tsk_genome_mode)m, filters[fi], which);
                for (int di = 0; di < 4; di++) check_within(g, c, 0, nq, floors[di], (tsk_genome_mode)m, filters[fi], which);
            }
        tsk_cpu_genome_sets_close(c);
        tsk_gpu_genome_sets_close(g);
    }
}

Test(gpu_genome_sets, shards_same_as_cpu, .timeout = 600)
{
    owned_sets a = make_sets(0, 12, 0), b = make_sets(1, 5, 0), th = make_sets(0, 12, 1);
    const int64_t na = a.s.n_items;
    char err[256] = "";
    if (!have_gpu()) {
        cr_assert_null(tsk_gpu_genome_sets_open_shard(&a.s, &a.s, 0, na, 0, err, sizeof err));
        drop(&a), drop(&b), drop(&th);
        return;
    }
    cr_assert_null(tsk_gpu_genome_sets_open_shard(&a.s, &a.s, 3, na + 1, 0, err, sizeof err), "past the set");
    cr_assert(strstr(err, "not in a set") != NULL, "%s", err);
    const int64_t three[] = {0, 7, na / 2, na}, empty[] = {0, 0, na, na};
    check_shards(&a.s, &a.s, three, 3, 0, "one set, 3 shards");
    check_shards(&a.s, &a.s, empty, 3, 0, "one set, empty shards");
    check_shards(&b.s, &a.s, three, 3, 0, "two sets, 3 shards");
    if (!getenv("TSKETCH_TEST_QUICK")) {
        check_shards(&a.s, &a.s, three, 3, 1000, "one set, 3 shards in parts");
        const int64_t th_bound[] = {0, th.s.n_items / 3, th.s.n_items};
        check_shards(&th.s, &th.s, th_bound, 2, 0, "thresholds, 2 shards");
    }
    drop(&a), drop(&b), drop(&th);
}

Test(gpu_genome_sets, empty_sets_and_bad_arguments)
{
    if (!have_gpu()) return;
    owned_sets none = {{0, NULL, NULL, NULL}, NULL, calloc(1, sizeof(int64_t)), NULL, 0}, a = make_sets(2, 1, 0);
    none.s.offset = none.offset;
    char err[256] = "";
    tsk_gpu_genome_sets *g = tsk_gpu_genome_sets_open(&a.s, &none.s, 0, NULL, 0, err, sizeof err);
    cr_assert_not_null(g, "%s", err);
    tsk_genome_pair out[3 * 2];
    cr_assert_eq(tsk_gpu_genome_sets_topk(g, 0, 3, 2, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, out), 0);
    for (int i = 0; i < 6; i++) cr_assert(out[i].ref == -1 && out[i].query == i / 2 && out[i].shared == 0);
    tsk_genome_pair *pairs = NULL;
    int64_t n = 5, cap = 0;
    cr_assert_eq(tsk_gpu_genome_sets_within(g, 0, 3, 0.0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, &pairs, &n, &cap), 0);
    cr_assert_eq(n, 0);
    uint32_t cell = 7;
    cr_assert_eq(tsk_gpu_genome_sets_block(g, 0, 1, 0, 0, &cell, 0), 0);
    cr_assert_eq(tsk_gpu_genome_sets_block(g, 0, 1, 0, 1, &cell, 1), -1, "a reference past the end");
    cr_assert(strlen(tsk_gpu_genome_sets_error(g)) > 0);
    cr_assert_eq(tsk_gpu_genome_sets_topk(g, 0, 1, 0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, out), -1, "k = 0");
    cr_assert_eq(tsk_gpu_genome_sets_topk(g, a.s.n_items, 1, 1, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, out), -1);
    tsk_gpu_genome_sets_close(g);
    free(pairs);
    drop(&none);
    drop(&a);
}
