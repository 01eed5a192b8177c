/* test_genome_sets: genome sketches (core/genome_keys.h) and their CPU engine (cpu/genome_sets.h)
 * against brute force: shared counts against an O(n*m) count and tsk_genome_shared_naive on planted
 * and random sets, with and without per-genome thresholds (a pair compared below the smaller one),
 * top-k and threshold selections against a sort of every admitted pair, the distance and its share
 * floor, the size floor's stride, candidate bound and threshold against their definitions, the
 * anchors against a recomputation, and window keys recovered from engine rows. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sketch.h"
#include "genome_sets.h"
#include "golden.h"

/* ---- helpers ---- */

static uint64_t next_rand(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* |A n B| by comparing every key with every key: shares nothing with the merge it checks */
static int64_t brute_shared(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    int64_t s = 0;
    for (int64_t i = 0; i < na; i++)
        for (int64_t j = 0; j < nb; j++) s += a[i] == b[j];
    return s;
}

/* Genome sketches built item by item; keys sorted and unique per item. */
typedef struct {
    tsk_key_sets set;
    uint64_t *keys;
    int64_t *offset;
    uint64_t *tau;   /* per item, once sets_add_below gave one (then every item has one) */
    int64_t n_keys, cap;
} sets_builder;

static void sets_init(sets_builder *b)
{
    memset(b, 0, sizeof *b);
    b->cap = 1024;
    b->keys = malloc((size_t)b->cap * sizeof *b->keys);
    b->offset = malloc(sizeof *b->offset);
    b->offset[0] = 0;
}

static void sets_add(sets_builder *b, const uint64_t *keys, int64_t n)
{
    while (b->n_keys + n > b->cap) b->keys = realloc(b->keys, (size_t)(b->cap *= 2) * sizeof *b->keys);
    memcpy(b->keys + b->n_keys, keys, (size_t)n * sizeof *keys);
    const int64_t m = tsk_genome_keys_sort_unique(b->keys + b->n_keys, n);
    b->n_keys += m;
    const int64_t i = b->set.n_items++;
    b->offset = realloc(b->offset, (size_t)(i + 2) * sizeof *b->offset);
    b->offset[i + 1] = b->n_keys;
    b->set.keys = b->keys;
    b->set.offset = b->offset;
}

/* An item with its threshold tau: its keys must be at most tau (a sketch keeps only those). */
static void sets_add_below(sets_builder *b, const uint64_t *keys, int64_t n, uint64_t tau)
{
    cr_assert(b->set.n_items == 0 || b->tau, "items without a threshold before");
    sets_add(b, keys, n);
    const int64_t i = b->set.n_items - 1;
    b->tau = realloc(b->tau, (size_t)(i + 1) * sizeof *b->tau);
    b->tau[i] = tau;
    for (int64_t j = b->offset[i]; j < b->offset[i + 1]; j++)
        cr_assert(b->keys[j] <= tau, "item %lld: key %llx above its threshold %llx", (long long)i,
                  (unsigned long long)b->keys[j], (unsigned long long)tau);
    b->set.tau = b->tau;
}

static void sets_free(sets_builder *b)
{
    free(b->keys);
    free(b->offset);
    free(b->tau);
}

static const uint64_t *keys_of(const tsk_key_sets *s, int64_t i) { return s->keys + s->offset[i]; }

static uint64_t tau_of(const tsk_key_sets *s, int64_t i) { return s->tau ? s->tau[i] : UINT64_MAX; }

/* A pair by its definition: both lists cut to the keys at most min(tau_q, tau_r), then counted
 * key by key (no merge, no search). */
typedef struct {
    int64_t shared, n_query, n_ref, n_union;
} pair_counts;

static pair_counts brute_pair(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j)
{
    const uint64_t bound = tau_of(q, i) < tau_of(r, j) ? tau_of(q, i) : tau_of(r, j);
    const uint64_t *a = keys_of(q, i), *b = keys_of(r, j);
    const int64_t na = tsk_key_set_size(q, i), nb = tsk_key_set_size(r, j);
    pair_counts c = {0, 0, 0, 0};
    for (int64_t x = 0; x < na; x++) {
        if (a[x] > bound) continue;
        c.n_query++;
        for (int64_t y = 0; y < nb; y++) c.shared += b[y] <= bound && b[y] == a[x];
    }
    for (int64_t y = 0; y < nb; y++) {
        if (b[y] > bound) continue;
        c.n_ref++;
        int seen = 0;
        for (int64_t x = 0; x < na; x++) seen |= a[x] <= bound && a[x] == b[y];
        c.n_union += !seen;
    }
    c.n_union += c.n_query;
    return c;
}

/* f of genome_keys.h from the counts, written out: mean of both containments, or the query's */
static double brute_share(const pair_counts *c, tsk_genome_mode m)
{
    if (c->n_query == 0) return 0.0;
    const double contained = (double)c->shared / (double)c->n_query;
    if (m == TSK_GENOME_CONTAINMENT) return contained;
    if (c->n_ref == 0) return 0.0;
    return (contained + (double)c->shared / (double)c->n_ref) * 0.5;
}

/* The pool of keys the random sets draw from: the same for every seed, so that two collections
 * of sets drawn with different seeds share keys too. */
static void key_pool(uint64_t *p, int pool)
{
    uint64_t s = 0xF00D;
    for (int i = 0; i < pool; i++) p[i] = next_rand(&s);
}

/* n sets of random sizes 0..max_size drawn from a pool of pool keys (random overlaps; a few sets
 * empty or of one key). The pool holds 0 and UINT64_MAX. */
static void random_sets(sets_builder *b, int n, int max_size, int pool, uint64_t seed)
{
    uint64_t *p = malloc((size_t)pool * sizeof *p), *k = malloc((size_t)(max_size + 1) * sizeof *k);
    uint64_t s = seed;
    key_pool(p, pool);
    p[0] = 0;
    p[pool - 1] = UINT64_MAX;
    sets_init(b);
    for (int i = 0; i < n; i++) {
        int size = (int)(next_rand(&s) % (uint64_t)(max_size + 1));
        if (i % 7 == 3) size = 0;
        if (i % 7 == 5) size = 1;
        /* a window of the pool, so that neighbours overlap more than strangers */
        const int base = (int)(next_rand(&s) % (uint64_t)pool);
        for (int j = 0; j < size; j++) k[j] = p[(base + (int)(next_rand(&s) % (uint64_t)(pool / 3 + 1))) % pool];
        sets_add(b, k, size);
    }
    free(p);
    free(k);
}

static tsk_cpu_genome_sets *open_engine(const tsk_key_sets *q, const tsk_key_sets *r, int threads)
{
    char err[256];
    tsk_cpu_genome_sets *e = tsk_cpu_genome_sets_open(q, r, threads, err, sizeof err);
    cr_assert_not_null(e, "%s", err);
    return e;
}

/* ---- shared counts ---- */

Test(genome_sets, shared_ref_planted)
{
    const uint64_t a[] = {0, 3, 5, 9, 12, UINT64_MAX}, nested[] = {3, 9, UINT64_MAX}, apart[] = {1, 4, 6, 10};
    const uint64_t one[] = {9}, one_out[] = {7};
    struct {
        const uint64_t *b;
        int64_t nb, want;
    } c[] = {{a, 6, 6}, {nested, 3, 3}, {apart, 4, 0}, {one, 1, 1}, {one_out, 1, 0}, {a, 0, 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        cr_expect_eq(tsk_genome_shared_naive(a, 6, c[i].b, c[i].nb), c[i].want, "case %zu", i);
        cr_expect_eq(tsk_genome_shared_naive(c[i].b, c[i].nb, a, 6), c[i].want, "case %zu swapped", i);
        cr_expect_eq(brute_shared(a, 6, c[i].b, c[i].nb), c[i].want, "case %zu (brute)", i);
    }
    cr_expect_eq(tsk_genome_shared_naive(a, 0, a, 0), 0, "empty with empty");
}

Test(genome_sets, sort_unique_removes_duplicates)
{
    uint64_t s = 5, k[500], want[500];
    for (int trial = 0; trial < 20; trial++) {
        const int n = trial * 25;
        for (int i = 0; i < n; i++) k[i] = next_rand(&s) % 40; /* many repeats */
        if (n) k[n - 1] = UINT64_MAX;
        /* expected: every distinct value, ascending, by selection */
        int m = 0;
        uint64_t last = 0;
        for (;;) {
            int found = 0;
            uint64_t best = 0;
            for (int i = 0; i < n; i++)
                if ((m == 0 || k[i] > last) && (!found || k[i] < best)) best = k[i], found = 1;
            if (!found) break;
            want[m++] = last = best;
        }
        const int64_t got = tsk_genome_keys_sort_unique(k, n);
        cr_assert_eq(got, m, "n=%d: %lld unique, want %d", n, (long long)got, m);
        cr_expect_arr_eq(k, want, (size_t)m * sizeof *k, "n=%d", n);
    }
}

/* The block of every pair of q x r, and sub-blocks of it with a wider leading dimension. */
static void check_block(const tsk_key_sets *q, const tsk_key_sets *r, int threads)
{
    tsk_cpu_genome_sets *e = open_engine(q, r, threads);
    const int64_t nq = q->n_items, nr = r->n_items, ld = nr + 3;
    uint32_t *got = malloc((size_t)(nq * ld + 1) * sizeof *got);
    memset(got, 0xAB, (size_t)(nq * ld + 1) * sizeof *got);
    cr_assert_eq(tsk_cpu_genome_sets_block(e, 0, nq, 0, nr, got, ld), 0);
    for (int64_t i = 0; i < nq; i++)
        for (int64_t j = 0; j < nr; j++) {
            const int64_t na = tsk_key_set_size(q, i), nb = tsk_key_set_size(r, j);
            const pair_counts c = brute_pair(q, i, r, j);
            const int64_t want = c.shared;
            cr_assert_eq(got[i * ld + j], (uint32_t)want, "threads %d, pair %lld x %lld", threads, (long long)i,
                         (long long)j);
            /* a shared key is below both thresholds: the whole lists share what the cut ones do */
            cr_assert_eq(brute_shared(keys_of(q, i), na, keys_of(r, j), nb), want);
            cr_assert_eq(tsk_genome_shared_naive(keys_of(q, i), na, keys_of(r, j), nb), want);
            int64_t n_q = -1, n_r = -1;
            tsk_genome_pair_sizes(q, i, r, j, &n_q, &n_r);
            cr_assert(n_q == c.n_query && n_r == c.n_ref, "pair %lld x %lld: sizes %lld, %lld, want %lld, %lld",
                      (long long)i, (long long)j, (long long)n_q, (long long)n_r, (long long)c.n_query,
                      (long long)c.n_ref);
            cr_assert_eq(tsk_genome_total(want, n_q, n_r, TSK_GENOME_SYMMETRIC), c.n_union, "union of %lld x %lld",
                         (long long)i, (long long)j);
            cr_assert_eq(tsk_genome_total(want, n_q, n_r, TSK_GENOME_CONTAINMENT), c.n_query);
            for (int m = 0; m < 2; m++)
                cr_assert_eq(tsk_genome_share(want, n_q, n_r, (tsk_genome_mode)m), brute_share(&c, (tsk_genome_mode)m));
        }
    for (int64_t i = 0; i < nq; i++)
        for (int64_t j = nr; j < ld; j++) cr_assert_eq(got[i * ld + j], 0xABABABABu, "padding written");
    /* a sub-block: rows 2.., columns 1..nr-2 into a buffer of its own */
    if (nq > 3 && nr > 3) {
        uint32_t *sub = malloc((size_t)(nq * ld) * sizeof *sub);
        cr_assert_eq(tsk_cpu_genome_sets_block(e, 2, nq - 2, 1, nr - 2, sub, nr), 0);
        for (int64_t i = 0; i < nq - 2; i++)
            for (int64_t j = 0; j < nr - 2; j++) cr_assert_eq(sub[i * nr + j], got[(i + 2) * ld + j + 1]);
        free(sub);
    }
    /* bad ranges are refused */
    cr_expect_eq(tsk_cpu_genome_sets_block(e, 0, nq + 1, 0, nr, got, ld), -1);
    cr_expect_eq(tsk_cpu_genome_sets_block(e, 0, nq, 1, nr, got, ld), -1);
    cr_expect_eq(tsk_cpu_genome_sets_block(e, 0, nq, 0, nr, got, nr - 1), -1);
    cr_expect_eq(tsk_cpu_genome_sets_block(e, -1, 1, 0, nr, got, ld), -1);
    free(got);
    tsk_cpu_genome_sets_close(e);
}

Test(genome_sets, block_planted)
{
    sets_builder b;
    sets_init(&b);
    uint64_t all[100];
    for (int i = 0; i < 100; i++) all[i] = (uint64_t)i * 1000003u;
    sets_add(&b, all, 100);      /* 0: 100 keys */
    sets_add(&b, all, 100);      /* 1: identical to 0 */
    sets_add(&b, all + 20, 30);  /* 2: nested in 0 */
    uint64_t apart[50];
    for (int i = 0; i < 50; i++) apart[i] = (uint64_t)i * 1000003u + 1;
    sets_add(&b, apart, 50);     /* 3: disjoint from every other */
    sets_add(&b, all, 0);        /* 4: empty */
    sets_add(&b, all + 25, 1);   /* 5: one key, inside 2 */
    uint64_t dup[6] = {7, 7, 7, 1000003u, 1000003u, 7};
    sets_add(&b, dup, 6);        /* 6: duplicates collapse to {7, 1000003} */
    cr_assert_eq(tsk_key_set_size(&b.set, 6), 2);
    const uint32_t want[7][7] = {
        {100, 100, 30, 0, 0, 1, 1}, {100, 100, 30, 0, 0, 1, 1}, {30, 30, 30, 0, 0, 1, 0}, {0, 0, 0, 50, 0, 0, 0},
        {0, 0, 0, 0, 0, 0, 0},     {1, 1, 1, 0, 0, 1, 0},       {1, 1, 0, 0, 0, 0, 2},
    };
    uint32_t got[7 * 7];
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 2);
    cr_assert_eq(tsk_cpu_genome_sets_block(e, 0, 7, 0, 7, got, 7), 0);
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 7; j++) cr_expect_eq(got[i * 7 + j], want[i][j], "pair %d x %d: %u", i, j, got[i * 7 + j]);
    tsk_cpu_genome_sets_close(e);
    check_block(&b.set, &b.set, 1);
    sets_free(&b);
}

Test(genome_sets, block_random_sets)
{
    sets_builder q, r;
    random_sets(&q, 37, 300, 900, 11);
    random_sets(&r, 23, 200, 900, 12);
    check_block(&q.set, &r.set, 1);
    check_block(&q.set, &r.set, 3);
    check_block(&q.set, &q.set, 3);
    sets_free(&q);
    sets_free(&r);
}

/* ---- top-k ---- */

typedef struct {
    int64_t ref, shared;
    double share;
} cand;

static int cand_order(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->share != y->share) return x->share > y->share ? -1 : 1;
    return (x->ref > y->ref) - (x->ref < y->ref);
}

/* Top-k of every query by sorting all admitted references that share a key. */
static void brute_topk(const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq, int k,
                       tsk_genome_mode m, tsk_pair_filter f, tsk_genome_pair *out)
{
    cand *c = malloc((size_t)(r->n_items + 1) * sizeof *c);
    for (int64_t i = 0; i < nq; i++) {
        const int64_t qi = q0 + i;
        int64_t n = 0;
        for (int64_t j = 0; j < r->n_items; j++) {
            if (!tsk_pair_admitted(f, qi, j)) continue;
            const pair_counts pc = brute_pair(q, qi, r, j);
            if (pc.shared) c[n++] = (cand){j, pc.shared, brute_share(&pc, m)};
        }
        qsort(c, (size_t)n, sizeof *c, cand_order);
        for (int j = 0; j < k; j++)
            out[i * k + j] = j < n ? (tsk_genome_pair){qi, c[j].ref, c[j].shared, c[j].share}
                                   : (tsk_genome_pair){qi, -1, 0, 0.0};
    }
    free(c);
}

static void expect_pairs_equal(const tsk_genome_pair *got, const tsk_genome_pair *want, int64_t n, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        cr_assert(got[i].query == want[i].query && got[i].ref == want[i].ref && got[i].shared == want[i].shared &&
                      got[i].share == want[i].share,
                  "%s, entry %lld: (%lld, %lld, %lld, %.17g), want (%lld, %lld, %lld, %.17g)", what, (long long)i,
                  (long long)got[i].query, (long long)got[i].ref, (long long)got[i].shared, got[i].share,
                  (long long)want[i].query, (long long)want[i].ref, (long long)want[i].shared, want[i].share);
}

static void check_topk(const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq, int k,
                       tsk_genome_mode m, tsk_pair_filter f)
{
    tsk_genome_pair *want = malloc((size_t)(nq * k + 1) * sizeof *want);
    tsk_genome_pair *got = malloc((size_t)(nq * k + 1) * sizeof *got);
    brute_topk(q, r, q0, nq, k, m, f, want);
    char what[128];
    for (int threads = 1; threads <= 3; threads += 2) {
        tsk_cpu_genome_sets *e = open_engine(q, r, threads);
        memset(got, 0x5A, (size_t)(nq * k + 1) * sizeof *got);
        cr_assert_eq(tsk_cpu_genome_sets_topk(e, q0, nq, k, m, f, got), 0);
        snprintf(what, sizeof what, "top-%d of %lld..%lld, mode %d, filter %d, %d threads", k, (long long)q0,
                 (long long)(q0 + nq), (int)m, (int)f, threads);
        expect_pairs_equal(got, want, nq * k, what);
        tsk_cpu_genome_sets_close(e);
    }
    free(want);
    free(got);
}

/* Top-k of q against r, of q against itself (all of it and a range), and, when other is not
 * NULL, of q against other and other against q; every k and mode. */
static void topk_cases(const tsk_key_sets *q, const tsk_key_sets *r, const tsk_key_sets *other)
{
    const int ks[] = {1, 3, 10, 40};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
        for (int m = 0; m < 2; m++) {
            check_topk(q, r, 0, q->n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            check_topk(q, q, 0, q->n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_NOT_SELF);
            check_topk(q, q, 5, 17, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            if (!other) continue;
            check_topk(q, other, 0, q->n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            check_topk(other, q, 0, other->n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
        }
}

Test(genome_sets, topk_random_sets)
{
    sets_builder q, r;
    random_sets(&q, 41, 250, 700, 21);
    random_sets(&r, 29, 250, 700, 22);
    topk_cases(&q.set, &r.set, NULL);
    sets_free(&q);
    sets_free(&r);
}

/* Ties at the k boundary go to the smaller reference; references sharing nothing are no
 * neighbours (padding with ref = -1); the self pair is left out only by NOT_SELF. */
Test(genome_sets, topk_ties_padding_and_self)
{
    sets_builder b;
    sets_init(&b);
    uint64_t k[20];
    for (int i = 0; i < 10; i++) k[i] = (uint64_t)i + 1;
    sets_add(&b, k, 10); /* 0: the query {1..10} */
    /* 1..6: five of the query's keys and five of their own: the same share 0.5 */
    for (int j = 1; j <= 6; j++) {
        for (int i = 0; i < 5; i++) k[i] = (uint64_t)i + 1, k[5 + i] = (uint64_t)(100 * j + i);
        sets_add(&b, k, 10);
    }
    for (int i = 0; i < 10; i++) k[i] = (uint64_t)i + 1000;
    sets_add(&b, k, 10); /* 7: disjoint from the query */
    for (int i = 0; i < 9; i++) k[i] = (uint64_t)i + 1;
    sets_add(&b, k, 9);  /* 8: nested in the query, share 0.95 */
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 3);
    tsk_genome_pair got[12];
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 1, 4, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got), 0);
    const int64_t want_ref[4] = {8, 1, 2, 3};
    for (int j = 0; j < 4; j++) cr_expect_eq(got[j].ref, want_ref[j], "rank %d: ref %lld", j, (long long)got[j].ref);
    cr_expect_eq(got[0].shared, 9);
    cr_expect_eq(got[0].share, (9.0 / 10 + 9.0 / 9) * 0.5);
    cr_expect_eq(got[1].share, 0.5);
    /* ALL: the query itself comes first (share 1) */
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 1, 2, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, got), 0);
    cr_expect(got[0].ref == 0 && got[0].share == 1.0 && got[1].ref == 8);
    /* k beyond the neighbours: 7 (shares nothing) is never listed, the rest pads */
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 1, 12, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got), 0);
    const int64_t all_ref[7] = {8, 1, 2, 3, 4, 5, 6};
    for (int j = 0; j < 7; j++) cr_expect_eq(got[j].ref, all_ref[j], "rank %d", j);
    for (int j = 7; j < 12; j++)
        cr_expect(got[j].ref == -1 && got[j].query == 0 && got[j].shared == 0 && got[j].share == 0.0, "padding %d", j);
    /* the disjoint genome has no neighbour at all; an empty sketch neither */
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 7, 1, 3, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got), 0);
    for (int j = 0; j < 3; j++) cr_expect(got[j].ref == -1 && got[j].query == 7);
    /* containment of 8 (nested) in 0: 1; of 0 in 8: 0.9 */
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 8, 1, 1, TSK_GENOME_CONTAINMENT, TSK_PAIRS_NOT_SELF, got), 0);
    cr_expect(got[0].ref == 0 && got[0].share == 1.0);
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 1, 1, TSK_GENOME_CONTAINMENT, TSK_PAIRS_NOT_SELF, got), 0);
    cr_expect(got[0].ref == 8 && got[0].share == 0.9);
    cr_expect_eq(tsk_cpu_genome_sets_topk(e, 0, 1, 0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, got), -1, "k = 0");
    cr_expect_eq(tsk_cpu_genome_sets_topk(e, 8, 2, 1, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, got), -1, "past the end");
    tsk_cpu_genome_sets_close(e);
    check_topk(&b.set, &b.set, 0, b.set.n_items, 3, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF);
    sets_free(&b);
}

/* ---- thresholds ---- */

static void check_within(const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq, double min_share,
                         tsk_genome_mode m, tsk_pair_filter f)
{
    int64_t n_want = 0;
    tsk_genome_pair *want = malloc((size_t)(nq * r->n_items + 1) * sizeof *want);
    for (int64_t i = q0; i < q0 + nq; i++)
        for (int64_t j = 0; j < r->n_items; j++) {
            if (!tsk_pair_admitted(f, i, j)) continue;
            const pair_counts c = brute_pair(q, i, r, j);
            const double share = brute_share(&c, m);
            if (share >= min_share) want[n_want++] = (tsk_genome_pair){i, j, c.shared, share};
        }
    char what[160];
    for (int threads = 1; threads <= 3; threads += 2) {
        tsk_cpu_genome_sets *e = open_engine(q, r, threads);
        tsk_genome_pair *got = NULL;
        int64_t n = -1, cap = 0;
        cr_assert_eq(tsk_cpu_genome_sets_within(e, q0, nq, min_share, m, f, &got, &n, &cap), 0);
        snprintf(what, sizeof what, "within %g of %lld..%lld, mode %d, filter %d, %d threads", min_share,
                 (long long)q0, (long long)(q0 + nq), (int)m, (int)f, threads);
        cr_assert_eq(n, n_want, "%s: %lld pairs, want %lld", what, (long long)n, (long long)n_want);
        expect_pairs_equal(got, want, n, what);
        free(got);
        tsk_cpu_genome_sets_close(e);
    }
    free(want);
}

/* Thresholded pairs of q against r, of q against itself under every filter (all of it and a
 * range), and, when other is not NULL, of q against other and other against q. */
static void within_cases(const tsk_key_sets *q, const tsk_key_sets *r, const tsk_key_sets *other)
{
    const double mins[] = {0.0, 1e-9, 0.05, 0.2, 0.5, 1.0, 1.5};
    for (size_t i = 0; i < sizeof mins / sizeof *mins; i++)
        for (int m = 0; m < 2; m++) {
            check_within(q, r, 0, q->n_items, mins[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            for (int f = 0; f < 4; f++) {
                check_within(q, q, 0, q->n_items, mins[i], (tsk_genome_mode)m, (tsk_pair_filter)f);
                check_within(q, q, 4, 20, mins[i], (tsk_genome_mode)m, (tsk_pair_filter)f);
            }
            if (!other) continue;
            check_within(q, other, 0, q->n_items, mins[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            check_within(other, q, 0, other->n_items, mins[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
        }
}

Test(genome_sets, within_random_sets)
{
    sets_builder q, r;
    random_sets(&q, 33, 250, 600, 31);
    random_sets(&r, 27, 250, 600, 32);
    within_cases(&q.set, &r.set, NULL);
    sets_free(&q);
    sets_free(&r);
}

/* A threshold equal to a pair's share keeps it; the next double above drops it. */
Test(genome_sets, within_threshold_is_inclusive)
{
    sets_builder b;
    sets_init(&b);
    uint64_t k[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    sets_add(&b, k, 8);
    sets_add(&b, k + 2, 6); /* shares 6: share (6/8 + 6/6) / 2 = 0.875 */
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 1);
    tsk_genome_pair *got = NULL;
    int64_t n = 0, cap = 0;
    const double s = tsk_genome_share(6, 8, 6, TSK_GENOME_SYMMETRIC);
    cr_assert_eq(s, 0.875);
    cr_assert_eq(tsk_cpu_genome_sets_within(e, 0, 2, s, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &got, &n, &cap), 0);
    cr_expect(n == 1 && got[0].query == 0 && got[0].ref == 1 && got[0].shared == 6 && got[0].share == s);
    cr_assert_eq(tsk_cpu_genome_sets_within(e, 0, 2, nextafter(s, 2.0), TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &got,
                                            &n, &cap),
                 0);
    cr_expect_eq(n, 0);
    cr_assert_eq(tsk_cpu_genome_sets_within(e, 0, 2, 0.0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER_SELF, &got, &n, &cap),
                 0);
    cr_expect(n == 3 && got[0].ref == 0 && got[1].ref == 1 && got[2].query == 1 && got[2].ref == 1, "with self");
    free(got);
    tsk_cpu_genome_sets_close(e);
    sets_free(&b);
}

/* ---- per-genome thresholds (the size floor) ---- */

/* The scaled threshold of the random thresholded sets below: keys at most it are a quarter. */
#define TAU_T (UINT64_MAX / 4 | TSK_GENOME_FP_MASK)

/* n sets like random_sets, each with a threshold and only its keys at most it: most at TAU_T
 * (equal thresholds), some UINT64_MAX, some their own larger one (small genomes), some a key of
 * the pool (a key exactly at a partner's bound), a few below TAU_T. */
static void random_tau_sets(sets_builder *b, int n, int max_size, int pool, uint64_t seed)
{
    uint64_t *p = malloc((size_t)pool * sizeof *p), *k = malloc((size_t)(max_size + 1) * sizeof *k);
    uint64_t s = seed;
    key_pool(p, pool);
    p[0] = 0;
    p[pool - 1] = UINT64_MAX;
    p[1] = TAU_T; /* a key at the common threshold */
    sets_init(b);
    for (int i = 0; i < n; i++) {
        uint64_t tau = TAU_T;
        switch (i % 8) {
        case 2: tau = UINT64_MAX; break;
        case 3: tau = TAU_T + next_rand(&s) % (UINT64_MAX - TAU_T); break;
        case 5: tau = p[next_rand(&s) % (uint64_t)pool]; break;
        case 6: tau = next_rand(&s) % TAU_T; break;
        default: break;
        }
        int size = (int)(next_rand(&s) % (uint64_t)(max_size + 1));
        if (i % 11 == 4) size = 0;
        if (i % 11 == 7) size = 1;
        const int base = (int)(next_rand(&s) % (uint64_t)pool);
        int m = 0;
        for (int j = 0; j < 4 * size && m < size; j++) {
            const uint64_t key = p[(base + (int)(next_rand(&s) % (uint64_t)(pool / 3 + 1))) % pool];
            if (key <= tau) k[m++] = key;
        }
        if (i % 8 == 5 && m < max_size) k[m++] = tau; /* its own threshold is a key of it */
        sets_add_below(b, k, m, tau);
    }
    free(p);
    free(k);
}

/* The same sets without thresholds: what a reader that ignored them would compare. */
static void without_tau(const sets_builder *b, tsk_key_sets *out)
{
    *out = b->set;
    out->tau = NULL;
}

/* How many pairs the thresholds change (a cut list), so that the tests below test something. */
static int64_t pairs_cut(const tsk_key_sets *q, const tsk_key_sets *r)
{
    int64_t cut = 0;
    for (int64_t i = 0; i < q->n_items; i++)
        for (int64_t j = 0; j < r->n_items; j++) {
            const pair_counts c = brute_pair(q, i, r, j);
            cut += c.shared > 0 && (c.n_query < tsk_key_set_size(q, i) || c.n_ref < tsk_key_set_size(r, j));
        }
    return cut;
}

/* Hand-counted pairs: A = {2,4,6,8,10} below 10; B = {1,2,3,4,5,10,11,12} below 12; C = {2, 4,
 * 100, MAX} below MAX; D = {2,4,6,8,10} below 10 (A's equal). A x B compares below 10: B' =
 * {1,2,3,4,5,10}, shared {2,4,10}; A x C: C' = {2,4}; B x C below 12: C' = {2,4}, B whole. */
Test(genome_sets, thresholds_planted)
{
    sets_builder b;
    sets_init(&b);
    const uint64_t A[] = {2, 4, 6, 8, 10}, B[] = {1, 2, 3, 4, 5, 10, 11, 12}, C[] = {2, 4, 100, UINT64_MAX};
    sets_add_below(&b, A, 5, 10);
    sets_add_below(&b, B, 8, 12);
    sets_add_below(&b, C, 4, UINT64_MAX);
    sets_add_below(&b, A, 5, 10);
    const struct {
        int q, r;
        int64_t shared, n_q, n_r, uni;
        double symmetric, containment;
    } want[] = {
        {0, 1, 3, 5, 6, 8, (3.0 / 5 + 3.0 / 6) / 2, 3.0 / 5}, {1, 0, 3, 6, 5, 8, (3.0 / 6 + 3.0 / 5) / 2, 3.0 / 6},
        {0, 2, 2, 5, 2, 5, (2.0 / 5 + 1.0) / 2, 2.0 / 5},     {2, 0, 2, 2, 5, 5, (1.0 + 2.0 / 5) / 2, 1.0},
        {1, 2, 2, 8, 2, 8, (2.0 / 8 + 1.0) / 2, 2.0 / 8},     {2, 1, 2, 2, 8, 8, (1.0 + 2.0 / 8) / 2, 1.0},
        {0, 3, 5, 5, 5, 5, 1.0, 1.0},                         {2, 2, 4, 4, 4, 4, 1.0, 1.0},
    };
    for (size_t c = 0; c < sizeof want / sizeof *want; c++) {
        int64_t n_q, n_r;
        tsk_genome_pair_sizes(&b.set, want[c].q, &b.set, want[c].r, &n_q, &n_r);
        const pair_counts bc = brute_pair(&b.set, want[c].q, &b.set, want[c].r);
        cr_expect(n_q == want[c].n_q && n_r == want[c].n_r, "case %zu: sizes %lld, %lld", c, (long long)n_q,
                  (long long)n_r);
        cr_expect(bc.shared == want[c].shared && bc.n_query == want[c].n_q && bc.n_ref == want[c].n_r &&
                      bc.n_union == want[c].uni,
                  "case %zu: brute force (%lld, %lld, %lld, %lld)", c, (long long)bc.shared, (long long)bc.n_query,
                  (long long)bc.n_ref, (long long)bc.n_union);
        cr_expect_eq(tsk_genome_total(want[c].shared, n_q, n_r, TSK_GENOME_SYMMETRIC), want[c].uni, "case %zu", c);
        cr_expect_eq(tsk_genome_total(want[c].shared, n_q, n_r, TSK_GENOME_CONTAINMENT), want[c].n_q, "case %zu", c);
        cr_expect_eq(tsk_genome_share(want[c].shared, n_q, n_r, TSK_GENOME_SYMMETRIC), want[c].symmetric, "case %zu", c);
        cr_expect_eq(tsk_genome_share(want[c].shared, n_q, n_r, TSK_GENOME_CONTAINMENT), want[c].containment,
                     "case %zu", c);
        /* the one way from a count to a distance, and the count cluster takes without an engine */
        cr_expect_eq(tsk_cpu_genome_shared(&b.set, want[c].q, &b.set, want[c].r), want[c].shared, "case %zu", c);
        int64_t total = -1;
        cr_expect_eq(tsk_genome_pair_distance(&b.set, want[c].q, &b.set, want[c].r, want[c].shared,
                                              TSK_GENOME_SYMMETRIC, 16, &total),
                     tsk_genome_key_distance(want[c].symmetric, 16), "case %zu", c);
        cr_expect_eq(total, want[c].uni, "case %zu", c);
        cr_expect_eq(tsk_genome_pair_distance(&b.set, want[c].q, &b.set, want[c].r, want[c].shared,
                                              TSK_GENOME_CONTAINMENT, 32, &total),
                     tsk_genome_key_distance(want[c].containment, 32), "case %zu", c);
        cr_expect_eq(total, want[c].n_q, "case %zu", c);
    }
    /* the engine: the block counts, and top-k / within rank by the cut sizes */
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 2);
    uint32_t got[16];
    cr_assert_eq(tsk_cpu_genome_sets_block(e, 0, 4, 0, 4, got, 4), 0);
    const uint32_t shared[4][4] = {{5, 3, 2, 5}, {3, 8, 2, 3}, {2, 2, 4, 2}, {5, 3, 2, 5}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) cr_expect_eq(got[i * 4 + j], shared[i][j], "block %d x %d", i, j);
    /* C's nearest: A and D (0.7 each, A first), then B (0.625); uncut, B would be (2/4 + 2/8) / 2 */
    tsk_genome_pair top[3];
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 2, 1, 3, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top), 0);
    cr_expect(top[0].ref == 0 && top[0].share == 0.7 && top[1].ref == 3 && top[1].share == 0.7 && top[2].ref == 1 &&
                  top[2].share == 0.625 && top[2].shared == 2,
              "C's top 3: %lld %g, %lld %g, %lld %g", (long long)top[0].ref, top[0].share, (long long)top[1].ref,
              top[1].share, (long long)top[2].ref, top[2].share);
    /* C in the others: contained whole in each (its keys below their bounds are 2 and 4) */
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 2, 1, 3, TSK_GENOME_CONTAINMENT, TSK_PAIRS_NOT_SELF, top), 0);
    cr_expect(top[0].ref == 0 && top[1].ref == 1 && top[2].ref == 3 && top[0].share == 1.0 && top[1].share == 1.0 &&
              top[2].share == 1.0);
    tsk_genome_pair *pairs = NULL;
    int64_t n = 0, cap = 0;
    cr_assert_eq(tsk_cpu_genome_sets_within(e, 0, 4, 0.55, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, &pairs, &n, &cap), 0);
    /* (0,1) 0.55, (0,2) 0.7, (0,3) 1, (1,2) 0.625, (1,3) 0.55, (2,3) 0.7 */
    cr_expect_eq(n, 6);
    cr_assert_eq(tsk_cpu_genome_sets_within(e, 0, 4, nextafter(0.55, 1.0), TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER,
                                            &pairs, &n, &cap),
                 0);
    cr_expect(n == 4 && pairs[0].ref == 2 && pairs[1].ref == 3 && pairs[2].query == 1 && pairs[2].ref == 2, "%lld",
              (long long)n);
    free(pairs);
    tsk_cpu_genome_sets_close(e);
    check_block(&b.set, &b.set, 2);
    for (int m = 0; m < 2; m++) {
        check_topk(&b.set, &b.set, 0, 4, 2, (tsk_genome_mode)m, TSK_PAIRS_NOT_SELF);
        check_within(&b.set, &b.set, 0, 4, 0.5, (tsk_genome_mode)m, TSK_PAIRS_ALL);
    }
    sets_free(&b);
}

/* Ties at the k boundary that only the cut makes: references with the query's keys {2..10 even}
 * and keys of their own above the query's threshold (different numbers of them, so different
 * shares uncut) all share 5 of 5 below it; the tie goes to the smaller index. */
Test(genome_sets, thresholds_make_ties_at_the_top_k_boundary)
{
    sets_builder b;
    sets_init(&b);
    uint64_t k[40];
    for (int i = 0; i < 10; i++) k[i] = 2 * (uint64_t)(i + 1); /* 2..20 */
    sets_add_below(&b, k, 10, 20);                            /* 0: the query */
    for (int j = 1; j <= 5; j++) {
        int m = 0;
        for (int i = 0; i < 5; i++) k[m++] = 2 * (uint64_t)(i + 1);
        for (int i = 0; i < 6 - j; i++) k[m++] = 1000 + 10 * (uint64_t)j + (uint64_t)i; /* 5, 4, ... 1 own */
        sets_add_below(&b, k, m, j == 3 ? UINT64_MAX : 5000);
    }
    for (int i = 0; i < 5; i++) k[i] = 2 * (uint64_t)(i + 1);
    k[5] = 3;
    sets_add_below(&b, k, 6, 5000); /* 6: one more key below 20: share (5/10 + 5/6) / 2, just below */
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 3);
    tsk_genome_pair got[7];
    for (int k_top = 1; k_top <= 7; k_top++) {
        cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 1, k_top, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got), 0);
        for (int j = 0; j < k_top; j++) {
            const int64_t want_ref = j < 5 ? j + 1 : j == 5 ? 6 : -1;
            const double want_share = j < 5 ? 0.75 : j == 5 ? (5.0 / 10 + 5.0 / 6) / 2 : 0.0;
            cr_expect(got[j].ref == want_ref && got[j].share == want_share, "top-%d rank %d: ref %lld share %.17g", k_top,
                      j, (long long)got[j].ref, got[j].share);
        }
    }
    tsk_cpu_genome_sets_close(e);
    for (int k_top = 1; k_top <= 7; k_top++)
        for (int m = 0; m < 2; m++) check_topk(&b.set, &b.set, 0, 7, k_top, (tsk_genome_mode)m, TSK_PAIRS_NOT_SELF);
    sets_free(&b);
}

Test(genome_sets, thresholds_block_random_sets)
{
    sets_builder q, r, plain;
    random_tau_sets(&q, 45, 300, 900, 41);
    random_tau_sets(&r, 31, 200, 900, 42);
    random_sets(&plain, 23, 200, 900, 42);
    const int64_t cut = pairs_cut(&q.set, &r.set);
    cr_assert_gt(cut, 100, "the thresholds cut %lld pairs", (long long)cut);
    check_block(&q.set, &r.set, 1);
    check_block(&q.set, &r.set, 3);
    check_block(&q.set, &q.set, 3);
    /* one side without thresholds (every one UINT64_MAX): the other's cut it */
    cr_assert_gt(pairs_cut(&q.set, &plain.set), 100);
    check_block(&q.set, &plain.set, 3);
    check_block(&plain.set, &q.set, 3);
    /* the sizes do change: the cut pairs' shares differ from the uncut */
    tsk_key_sets uncut;
    without_tau(&q, &uncut);
    int64_t differ = 0;
    for (int64_t i = 0; i < q.set.n_items; i++)
        for (int64_t j = 0; j < q.set.n_items; j++) {
            const pair_counts a = brute_pair(&q.set, i, &q.set, j), c = brute_pair(&uncut, i, &uncut, j);
            cr_assert_eq(a.shared, c.shared);
            differ += brute_share(&a, TSK_GENOME_SYMMETRIC) != brute_share(&c, TSK_GENOME_SYMMETRIC);
        }
    cr_expect_gt(differ, 100);
    sets_free(&q);
    sets_free(&r);
    sets_free(&plain);
}

/* The random thresholded sets through every top-k and threshold query; one side without
 * thresholds too. */
Test(genome_sets, thresholds_topk_and_within_random_sets)
{
    sets_builder q, r, plain;
    random_tau_sets(&q, 37, 250, 650, 51);
    random_tau_sets(&r, 29, 250, 650, 52);
    random_sets(&plain, 27, 250, 650, 53);
    topk_cases(&q.set, &r.set, &plain.set);
    within_cases(&q.set, &r.set, &plain.set);
    sets_free(&q);
    sets_free(&r);
    sets_free(&plain);
}

/* ---- what both engines share (core/) ---- */

Test(genome_sets, pair_filter_order_and_span)
{
    /* (q, r) = (3, 2), (3, 3), (3, 4) under each filter */
    const int want[4][3] = {{1, 1, 1}, {0, 0, 1}, {0, 1, 1}, {1, 0, 1}};
    const tsk_pair_filter f[4] = {TSK_PAIRS_ALL, TSK_PAIRS_UPPER, TSK_PAIRS_UPPER_SELF, TSK_PAIRS_NOT_SELF};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++)
            cr_expect_eq(tsk_pair_admitted(f[i], 3, 2 + j), want[i][j], "filter %d, r %d", (int)f[i], 2 + j);
    const tsk_genome_pair a = {0, 5, 3, 0.5}, b = {0, 2, 3, 0.5}, c = {0, 1, 1, 0.25};
    cr_expect(tsk_genome_ranks_before(&b, &a) && !tsk_genome_ranks_before(&a, &b), "a tie: the smaller reference");
    cr_expect(tsk_genome_ranks_before(&a, &c) && !tsk_genome_ranks_before(&c, &a), "the larger share");
    cr_expect(!tsk_genome_ranks_before(&a, &a));
    const tsk_key_sets s = {.n_items = 4};
    cr_expect(tsk_key_sets_holds(&s, 0, 4) && tsk_key_sets_holds(&s, 4, 0) && tsk_key_sets_holds(&s, 1, 3));
    cr_expect(!tsk_key_sets_holds(&s, 1, 4) && !tsk_key_sets_holds(&s, -1, 1) && !tsk_key_sets_holds(&s, 0, -1) &&
              !tsk_key_sets_holds(&s, 5, 0));
}

Test(genome_sets, errors_say_why)
{
    sets_builder b;
    sets_init(&b);
    const uint64_t A[] = {1, 2, 3};
    sets_add(&b, A, 3);
    sets_add(&b, A, 2);
    tsk_cpu_genome_sets *e = open_engine(&b.set, &b.set, 1);
    tsk_genome_pair out[4];
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 1, 2, 2, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, out), -1);
    cr_expect_str_eq(tsk_cpu_genome_sets_error(e), "queries [1, 3) are not in a set of 2 genomes");
    cr_assert_eq(tsk_cpu_genome_sets_topk(e, 0, 2, 0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, out), -1);
    cr_expect_str_eq(tsk_cpu_genome_sets_error(e), "top-k needs k of at least 1");
    uint32_t shared[4];
    cr_assert_eq(tsk_cpu_genome_sets_block(e, 0, 2, 1, 2, shared, 2), -1);
    cr_expect_str_eq(tsk_cpu_genome_sets_error(e), "a block of references beyond the set (or shard) or its rows");
    cr_expect_eq(tsk_cpu_genome_sets_block(e, 0, 2, 0, 2, shared, 2), 0);
    cr_expect(shared[0] == 3 && shared[1] == 2 && shared[2] == 2 && shared[3] == 2);
    tsk_cpu_genome_sets_close(e);
    sets_free(&b);
}

/* ---- distance and its share floor ---- */

/* A shard (references [lo, hi) only) answers as the whole engine does with the other references
 * left out: its within pairs are the whole's within [lo, hi), its top-k the best k of those (the
 * whole's lists at k = every reference, cut), its blocks the whole's columns; blocks past it and
 * ranges past the set are refused. */
Test(genome_sets, shard_is_the_whole_cut_to_its_references)
{
    sets_builder q, r;
    random_sets(&q, 31, 250, 600, 61);
    random_sets(&r, 29, 250, 600, 62);
    char err[160];
    const int64_t nr = r.set.n_items, lo = 7, hi = 19;
    cr_assert_null(tsk_cpu_genome_sets_open_shard(&q.set, &r.set, 3, nr + 1, 1, err, sizeof err));
    cr_expect(strstr(err, "not in a set") != NULL, "%s", err);
    tsk_cpu_genome_sets *whole = open_engine(&q.set, &r.set, 2);
    tsk_cpu_genome_sets *shard = tsk_cpu_genome_sets_open_shard(&q.set, &r.set, lo, hi, 2, err, sizeof err);
    cr_assert_not_null(shard, "%s", err);
    const int64_t nq = q.set.n_items;
    for (int m = 0; m < 2; m++) {
        tsk_genome_pair *a = NULL, *b = NULL;
        int64_t na = 0, nb = 0, ca = 0, cb = 0;
        cr_assert_eq(tsk_cpu_genome_sets_within(whole, 0, nq, 0.0, (tsk_genome_mode)m, TSK_PAIRS_ALL, &a, &na, &ca), 0);
        cr_assert_eq(tsk_cpu_genome_sets_within(shard, 0, nq, 0.0, (tsk_genome_mode)m, TSK_PAIRS_ALL, &b, &nb, &cb), 0);
        int64_t kept = 0;
        for (int64_t i = 0; i < na; i++)
            if (a[i].ref >= lo && a[i].ref < hi) a[kept++] = a[i];
        cr_assert_eq(nb, kept, "mode %d: %lld pairs, the whole's within the shard %lld", m, (long long)nb, (long long)kept);
        cr_assert(nb == 0 || memcmp(a, b, (size_t)nb * sizeof *b) == 0, "mode %d: within pairs differ", m);
        const int k = 5;
        tsk_genome_pair *all = malloc(sizeof *all * (size_t)(nq * nr)), *top = malloc(sizeof *top * (size_t)(nq * k));
        cr_assert_eq(tsk_cpu_genome_sets_topk(whole, 0, nq, (int)nr, (tsk_genome_mode)m, TSK_PAIRS_ALL, all), 0);
        cr_assert_eq(tsk_cpu_genome_sets_topk(shard, 0, nq, k, (tsk_genome_mode)m, TSK_PAIRS_ALL, top), 0);
        for (int64_t i = 0; i < nq; i++) {
            int got = 0;
            for (int64_t j = 0; j < nr && got < k; j++) {
                const tsk_genome_pair *p = &all[i * nr + j];
                if (p->ref < lo || p->ref >= hi) continue;
                cr_assert(memcmp(p, &top[i * k + got], sizeof *p) == 0, "mode %d: query %lld rank %d", m, (long long)i, got);
                got++;
            }
            for (; got < k; got++) cr_assert_eq(top[i * k + got].ref, -1, "padding");
        }
        free(a), free(b), free(all), free(top);
    }
    uint32_t cells[2 * 12], want[2 * 12];
    cr_assert_eq(tsk_cpu_genome_sets_block(shard, 3, 2, lo, hi - lo, cells, hi - lo), 0);
    cr_assert_eq(tsk_cpu_genome_sets_block(whole, 3, 2, lo, hi - lo, want, hi - lo), 0);
    cr_assert(memcmp(cells, want, sizeof cells) == 0, "the shard's block is the whole's");
    cr_assert_eq(tsk_cpu_genome_sets_block(shard, 3, 2, lo - 1, 2, cells, 2), -1, "a block past the shard");
    tsk_cpu_genome_sets_close(shard);
    tsk_cpu_genome_sets_close(whole);
    sets_free(&q);
    sets_free(&r);
}

Test(genome_sets, share_and_total)
{
    cr_expect_eq(tsk_genome_share(3, 4, 6, TSK_GENOME_SYMMETRIC), (0.75 + 0.5) * 0.5);
    cr_expect_eq(tsk_genome_share(3, 4, 6, TSK_GENOME_CONTAINMENT), 0.75);
    cr_expect_eq(tsk_genome_share(0, 0, 6, TSK_GENOME_CONTAINMENT), 0.0, "empty query");
    cr_expect_eq(tsk_genome_share(0, 4, 0, TSK_GENOME_SYMMETRIC), 0.0, "empty reference");
    cr_expect_eq(tsk_genome_share(0, 4, 0, TSK_GENOME_CONTAINMENT), 0.0);
    cr_expect_eq(tsk_genome_total(3, 4, 6, TSK_GENOME_SYMMETRIC), 7, "union");
    cr_expect_eq(tsk_genome_total(3, 4, 6, TSK_GENOME_CONTAINMENT), 4, "the query");
}

Test(genome_sets, key_distance_values)
{
    const int64_t ws[] = {1, 16, 20, 64};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        const int64_t w = ws[i];
        cr_expect_eq(tsk_genome_key_distance(0.0, w), 1.0f, "f = 0 -> 1");
        cr_expect_eq(tsk_genome_key_distance(-0.5, w), 1.0f);
        cr_expect_eq(tsk_genome_key_distance(1.0, w), 0.0f, "f = 1 -> 0");
        cr_expect_eq(tsk_genome_key_distance(1.5, w), 0.0f);
        cr_expect_eq(tsk_genome_key_distance(0.5, w), (float)(1.0 - pow(0.5, 1.0 / (double)w)));
        /* a survival of (1 - d)^W per window gives d back */
        cr_expect(fabs(tsk_genome_key_distance(pow(1.0 - 0.03, (double)w), w) - 0.03) < 1e-6, "W %lld", (long long)w);
        float last = 1.0f;
        for (int j = 1; j <= 1000; j++) {
            const float d = tsk_genome_key_distance(j / 1000.0, w);
            cr_assert(d <= last && d >= 0.0f, "not monotone at f = %g, W %lld", j / 1000.0, (long long)w);
            last = d;
        }
        cr_expect_eq(last, 0.0f);
    }
}

/* The floor never drops a pair whose printed distance is within max: for shares on a fine grid
 * around the boundary, distance <= max implies share >= floor (the printed distance is a float: a
 * share a little below (1 - max)^W can still print as max); and the floor sits just below the
 * exact boundary (at most 1e-6 of distance away). */
Test(genome_sets, share_floor_below_boundary)
{
    const double maxes[] = {0.0, 0.001, 0.01, 0.05, 0.1, 0.3, 0.9, 0.999};
    const int64_t ws[] = {16, 20, 64};
    for (size_t i = 0; i < sizeof maxes / sizeof *maxes; i++)
        for (size_t j = 0; j < sizeof ws / sizeof *ws; j++) {
            const double m = maxes[i], fl = tsk_genome_share_floor(m, ws[j]), exact = pow(1.0 - m, (double)ws[j]);
            cr_expect(fl <= exact && fl >= pow(1.0 - m - 1e-6, (double)ws[j]), "max %g W %lld: floor %.17g, boundary %.17g", m,
                      (long long)ws[j], fl, exact);
            for (int k = 0; k <= 20000; k++) {
                const double f = exact * (1.0 + (k - 10000) * 1e-7);
                if (f > 1.0 || f < 0.0) continue;
                if ((double)tsk_genome_key_distance(f, ws[j]) <= m)
                    cr_assert(f >= fl, "max %g W %lld: share %.17g within but below floor %.17g", m, (long long)ws[j],
                              f, fl);
            }
        }
    cr_expect_eq(tsk_genome_share_floor(1.0, 20), 0.0, "-d 1 keeps every pair");
    cr_expect_eq(tsk_genome_share_floor(INFINITY, 20), 0.0);
    cr_expect(tsk_genome_share_floor(-1.0, 20) <= 1.0 && tsk_genome_share_floor(-1.0, 20) > 0.99, "negative max");
}

/* ---- the size floor's definitions (genome_keys.h, "Size floor") ---- */

/* 128-bit arithmetic for the definitions below, so that they share no shortcut with the code */
__extension__ typedef unsigned __int128 u128;
#define U64_ALL ((u128)UINT64_MAX)

/* s_g = clamp(floor(4 L / (5 min_keys)), 1, scaled): the largest s in [1, scaled] with
 * 5 min_keys s <= 4 L (1 when none), by bisection; scaled without a floor. */
static int64_t def_stride(int64_t scaled, int64_t min_keys, int64_t length)
{
    if (min_keys == 0) return scaled;
    int64_t lo = 1, hi = scaled; /* the answer is in [lo, hi] */
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo + 1) / 2;
        if ((u128)5 * (u128)min_keys * (u128)mid <= (u128)4 * (u128)length) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* floor((2^64 - 1) / s) | FP_MASK: the largest c with c s <= 2^64 - 1, by bisection */
static uint64_t def_limit(int64_t s)
{
    u128 lo = 0, hi = U64_ALL;
    while (lo < hi) {
        const u128 mid = lo + (hi - lo + 1) / 2;
        if (mid * (u128)s <= U64_ALL) lo = mid;
        else hi = mid - 1;
    }
    return (uint64_t)lo | TSK_GENOME_FP_MASK;
}

/* ceil(5 min_keys scaled / 4), the least length whose s_g is scaled; INT64_MAX when 5 min_keys
 * scaled does not fit (as tsk_genome_floor_length saturates: "hold the whole file") */
static int64_t def_floor_length(int64_t scaled, int64_t min_keys)
{
    const u128 m = (u128)5 * (u128)min_keys * (u128)scaled;
    if (m + 3 > (u128)INT64_MAX) return INT64_MAX;
    /* the least L with 4 L >= m */
    u128 lo = 0, hi = (u128)INT64_MAX;
    while (lo < hi) {
        const u128 mid = lo + (hi - lo) / 2;
        if ((u128)4 * mid >= m) hi = mid;
        else lo = mid + 1;
    }
    return (int64_t)lo;
}

/* tsk_genome_anchor_stride takes lengths beyond INT64_MAX / 4 (2.3e18 bases, no genome) as long
 * enough for the stride scaled; the definition is checked up to there */
#define LONGEST_EXACT (INT64_MAX / 4)

/* tau_g over keys[0..n) (ascending) */
static uint64_t def_threshold(int64_t scaled, int64_t min_keys, int64_t length, const uint64_t *keys, int64_t n)
{
    const uint64_t t = def_limit(scaled);
    if (min_keys == 0) return t;
    if (n < min_keys) return def_limit(def_stride(scaled, min_keys, length));
    const uint64_t kth = keys[min_keys - 1] | TSK_GENOME_FP_MASK;
    return kth > t ? kth : t;
}

static void floor_params(tsk_params *p, int64_t scaled, int64_t min_keys)
{
    tsk_params_default(p);
    p->t = 4, p->dim = 16, p->canonical = 1, p->window = 20, p->anchor_k = 12;
    p->scaled = p->stride = scaled;
    p->min_keys = min_keys;
}

/* Hand values, then every scaled x min_keys x length of a grid of boundaries against the
 * definitions. */
Test(genome_floor, stride_limit_and_floor_length)
{
    tsk_params p;
    floor_params(&p, 500, 12000);
    /* s_g = clamp(floor(4 L / 60000), 1, 500) */
    const struct {
        int64_t length, stride;
    } hand[] = {{0, 1},        {1, 1},          {14999, 1},      {15000, 1},       {29999, 1},
                {30000, 2},    {44999, 2},      {45000, 3},      {7499999, 499},   {7500000, 500},
                {7500001, 500}, {INT64_MAX, 500}};
    for (size_t i = 0; i < sizeof hand / sizeof *hand; i++)
        cr_expect_eq(tsk_genome_anchor_stride(&p, hand[i].length), hand[i].stride, "length %lld",
                     (long long)hand[i].length);
    cr_expect_eq(tsk_genome_floor_length(&p), 7500000);
    cr_expect_eq(tsk_genome_candidate_limit(&p, 0), UINT64_MAX, "stride 1: every window a candidate");
    cr_expect_eq(tsk_genome_candidate_limit(&p, 30000), UINT64_C(0x7fffffffffffffff));
    cr_expect_eq(tsk_genome_candidate_limit(&p, 45000), UINT64_C(0x5555555555ffffff));
    cr_expect_eq(tsk_genome_candidate_limit(&p, 7500000), UINT64_C(0x83126e97ffffff));
    cr_expect_eq(tsk_genome_max_key(&p), UINT64_C(0x83126e97ffffff), "T of scaled 500");
    p.min_keys = 0;
    cr_expect_eq(tsk_genome_anchor_stride(&p, 0), 500, "no floor: stride scaled at any length");
    cr_expect_eq(tsk_genome_anchor_stride(&p, 1000), 500);
    cr_expect_eq(tsk_genome_candidate_limit(&p, 5), UINT64_C(0x83126e97ffffff));
    cr_expect_eq(tsk_genome_floor_length(&p), 0);
    floor_params(&p, 1000, 1);
    cr_expect_eq(tsk_genome_max_key(&p), UINT64_C(0x4189374bffffff));

    const int64_t scaleds[] = {1, 2, 3, 7, 500, 1000, 1000000007, INT64_C(4611686018), INT64_C(4611686019),
                               INT64_MAX / 3, INT64_MAX};
    const int64_t min_keys[] = {0, 1, 2, 3, 12000, 999999, TSK_GENOME_MAX_MIN_KEYS};
    for (size_t a = 0; a < sizeof scaleds / sizeof *scaleds; a++)
        for (size_t b = 0; b < sizeof min_keys / sizeof *min_keys; b++) {
            const int64_t sc = scaleds[a], mk = min_keys[b];
            floor_params(&p, sc, mk);
            const int64_t fl = def_floor_length(sc, mk);
            cr_assert_eq(tsk_genome_floor_length(&p), fl, "scaled %lld min keys %lld: floor length %lld, want %lld",
                         (long long)sc, (long long)mk, (long long)tsk_genome_floor_length(&p), (long long)fl);
            cr_assert_eq(tsk_genome_max_key(&p), def_limit(sc), "T of scaled %lld", (long long)sc);
            /* around the stride steps (5 min_keys s / 4) and the floor length */
            const int64_t lengths[] = {0, 1, 5 * mk / 4 - 1, (5 * mk + 3) / 4, 5 * mk / 2 - 1, 5 * mk / 2,
                                       15 * mk / 4, 15 * mk / 4 + 1, 6 * mk + 5, fl > 0 ? fl - 1 : 0, fl,
                                       fl < INT64_MAX ? fl + 1 : fl, LONGEST_EXACT - 1, LONGEST_EXACT,
                                       LONGEST_EXACT + 1, INT64_MAX / 2, INT64_MAX - 1, INT64_MAX};
            for (size_t c = 0; c < sizeof lengths / sizeof *lengths; c++) {
                const int64_t len = lengths[c] < 0 ? 0 : lengths[c];
                const int64_t s = tsk_genome_anchor_stride(&p, len);
                const int64_t want = len > LONGEST_EXACT && mk > 0 ? sc : def_stride(sc, mk, len);
                cr_assert_eq(s, want, "scaled %lld min keys %lld length %lld: stride %lld, want %lld", (long long)sc,
                             (long long)mk, (long long)len, (long long)s, (long long)want);
                cr_assert_eq(tsk_genome_candidate_limit(&p, len), def_limit(want), "scaled %lld min keys %lld length %lld",
                             (long long)sc, (long long)mk, (long long)len);
                cr_assert(tsk_genome_candidate_limit(&p, len) >= tsk_genome_max_key(&p), "C_g below T");
                /* the floor length: from there on the stride is scaled */
                if (mk > 0 && fl < INT64_MAX && len <= LONGEST_EXACT)
                    cr_assert_eq(s == sc, len >= fl || sc == 1, "length %lld vs floor %lld", (long long)len,
                                 (long long)fl);
            }
        }
}

Test(genome_floor, threshold_hand_values)
{
    tsk_params p;
    floor_params(&p, 4, 3);
    const uint64_t T = UINT64_MAX / 4 | TSK_GENOME_FP_MASK, F = TSK_GENOME_FP_MASK;
    const uint64_t few[] = {5, UINT64_C(1) << 40};
    /* fewer than min_keys candidates: C_g of the length (stride clamp(4 L / 15, 1, 4)) */
    cr_expect_eq(tsk_genome_threshold(&p, 0, few, 2), UINT64_MAX);
    cr_expect_eq(tsk_genome_threshold(&p, 7, few, 2), UINT64_MAX);
    cr_expect_eq(tsk_genome_threshold(&p, 8, few, 2), UINT64_MAX / 2 | F);
    cr_expect_eq(tsk_genome_threshold(&p, 12, few, 2), UINT64_MAX / 3 | F);
    cr_expect_eq(tsk_genome_threshold(&p, 15, few, 2), T);
    cr_expect_eq(tsk_genome_threshold(&p, 1000, few, 2), T);
    cr_expect_eq(tsk_genome_threshold(&p, 1000, few, 0), T, "no candidate at all");
    /* the third key below T: T; above: it with its low bits set */
    const uint64_t low[] = {1, 2, 3, UINT64_MAX - 1};
    cr_expect_eq(tsk_genome_threshold(&p, 5, low, 4), T);
    const uint64_t high[] = {1, T, T + 1, T + (UINT64_C(1) << 30), UINT64_MAX};
    cr_expect_eq(tsk_genome_threshold(&p, 5, high, 5), (T + 1) | F);
    cr_expect_eq(tsk_genome_threshold(&p, 5, high, 3), (T + 1) | F, "exactly min_keys");
    const uint64_t top[] = {0, UINT64_MAX - 5, UINT64_MAX};
    cr_expect_eq(tsk_genome_threshold(&p, 5, top, 3), UINT64_MAX);
    /* min_keys 0: always T; min_keys 1: the smallest key */
    p.min_keys = 0;
    cr_expect_eq(tsk_genome_threshold(&p, 5, high, 5), T);
    cr_expect_eq(tsk_genome_threshold(&p, 5, few, 0), T);
    p.min_keys = 1;
    cr_expect_eq(tsk_genome_threshold(&p, 5, top + 1, 2), UINT64_MAX);
    cr_expect_eq(tsk_genome_threshold(&p, 5, low, 4), T);
    cr_expect_eq(tsk_genome_threshold(&p, 1, few, 0), UINT64_MAX, "empty: C_g of stride 1");
    cr_expect_eq(tsk_genome_threshold(&p, 3, few, 0), UINT64_MAX / 2 | F, "empty: C_g of stride 4 x 3 / 5");
}

/* Random candidate sets (keys of anchors below C_g, several windows per anchor so that keys share
 * their high bits): tau from the candidates = the definition = tau from the kept keys (those at
 * most it), which hold at least min(min_keys, candidates) keys; every branch is taken. */
Test(genome_floor, threshold_of_candidates_is_threshold_of_kept_keys)
{
    uint64_t s = 1234;
    const int64_t scaleds[] = {1, 2, 5, 10, 100, 500};
    const int64_t min_keys[] = {0, 1, 2, 7, 50, 300};
    int64_t few = 0, at_t = 0, above_t = 0;
    uint64_t *cand = malloc(4000 * sizeof *cand);
    for (int trial = 0; trial < 3000; trial++) {
        tsk_params p;
        const int64_t sc = scaleds[next_rand(&s) % 6], mk = min_keys[next_rand(&s) % 6];
        floor_params(&p, sc, mk);
        const int64_t fl = def_floor_length(sc, mk);
        const int64_t len = (int64_t)(next_rand(&s) % (uint64_t)(2 * (fl > 0 ? fl : 1000) + 2));
        const uint64_t c_g = tsk_genome_candidate_limit(&p, len);
        cr_assert_eq(c_g, def_limit(def_stride(sc, mk, len)));
        const int64_t n_anchors = (int64_t)(next_rand(&s) % (uint64_t)(3 * mk + 20));
        int64_t n = 0;
        for (int64_t a = 0; a < n_anchors; a++) {
            const uint64_t h = c_g == UINT64_MAX ? next_rand(&s) : next_rand(&s) % (c_g + 1);
            const int windows = 1 + (int)(next_rand(&s) % 3);
            for (int w = 0; w < windows; w++) cand[n++] = tsk_genome_key_join(h, next_rand(&s));
        }
        for (int64_t i = 0; i < n; i++) cr_assert(cand[i] <= c_g);
        n = tsk_genome_keys_sort_unique(cand, n);
        const uint64_t tau = tsk_genome_threshold(&p, len, cand, n);
        cr_assert_eq(tau, def_threshold(sc, mk, len, cand, n), "trial %d", trial);
        cr_assert_eq(tau & TSK_GENOME_FP_MASK, TSK_GENOME_FP_MASK, "tau's low bits set");
        cr_assert_geq(tau, tsk_genome_max_key(&p), "tau below T");
        const int64_t kept = tsk_keys_at_most(cand, n, tau);
        int64_t brute_kept = 0;
        for (int64_t i = 0; i < n; i++) brute_kept += cand[i] <= tau;
        cr_assert_eq(kept, brute_kept);
        cr_assert_geq(kept, n < mk ? n : mk, "trial %d: %lld kept of %lld, min keys %lld", trial, (long long)kept,
                      (long long)n, (long long)mk);
        const uint64_t again = tsk_genome_threshold(&p, len, cand, kept);
        cr_assert_eq(again, tau, "trial %d (scaled %lld, min keys %lld, length %lld, %lld candidates, %lld kept): "
                     "tau %llx from the candidates, %llx from the kept keys", trial, (long long)sc, (long long)mk,
                     (long long)len, (long long)n, (long long)kept, (unsigned long long)tau,
                     (unsigned long long)again);
        if (mk > 0 && n < mk) few++;
        else if (mk > 0 && tau == tsk_genome_max_key(&p)) at_t++;
        else if (mk > 0) above_t++;
    }
    free(cand);
    cr_expect(few > 100 && at_t > 100 && above_t > 100, "branches: %lld few, %lld at T, %lld above", (long long)few,
              (long long)at_t, (long long)above_t);
}

/* ---- anchors ---- */

static uint64_t splitmix_output(uint64_t z)
{
    z += UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Every k-mer by itself: its packed forward and reverse-complement codes, the hash of the smaller
 * XOR seed, the window centred on it when it fits. */
static int64_t brute_anchors(const tsk_params *p, const uint8_t *x, int64_t n, uint64_t max_hash, int64_t *starts,
                             uint64_t *hashes)
{
    const int k = p->anchor_k;
    const int64_t w = p->window;
    int64_t m = 0;
    for (int64_t at = 0; at + k <= n; at++) {
        uint64_t fw = 0, rc = 0;
        for (int j = 0; j < k; j++) fw = fw * 4 + x[at + j];
        for (int j = k - 1; j >= 0; j--) rc = rc * 4 + (uint64_t)(3 - x[at + j]);
        const int64_t first = at + k / 2 - w / 2;
        if (first < 0 || first + w > n) continue;
        const uint64_t h = splitmix_output((fw < rc ? fw : rc) ^ p->seed);
        if (h > max_hash) continue;
        starts[m] = first;
        hashes[m] = h;
        m++;
    }
    return m;
}

Test(genome_floor, anchor_windows_below_against_brute_force)
{
    const struct {
        int k;
        int64_t w;
    } c[] = {{2, 20}, {8, 20}, {12, 20}, {16, 16}, {16, 40}, {32, 20}, {32, 64}, {12, 8}};
    const int64_t lengths[] = {0, 1, 7, 19, 20, 21, 33, 64, 65, 500, 3000};
    uint64_t s = 99;
    int64_t *want_s = malloc(3100 * sizeof *want_s), *got_s = malloc(3100 * sizeof *got_s);
    uint64_t *want_h = malloc(3100 * sizeof *want_h), *got_h = malloc(3100 * sizeof *got_h);
    int64_t total = 0;
    for (size_t ci = 0; ci < sizeof c / sizeof *c; ci++)
        for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
            const int64_t n = lengths[li];
            uint8_t *x = test_random_codes(n ? n : 1, 4, (unsigned)(ci * 100 + li));
            /* a low-complexity stretch: repeated k-mers and a k-mer that is its own reverse complement */
            for (int64_t i = n / 3; i < n / 2; i++) x[i] = (uint8_t)(i % 2 ? 0 : 3);
            tsk_params p;
            tsk_params_default(&p);
            p.anchor_k = c[ci].k, p.window = c[ci].w, p.stride = 10, p.canonical = 1;
            p.seed = next_rand(&s);
            /* the last bound is the hash of an anchor: it is at most itself */
            const int64_t all = brute_anchors(&p, x, n, UINT64_MAX, want_s, want_h);
            const uint64_t bounds[] = {0, UINT64_MAX / 10, UINT64_MAX / 2, next_rand(&s), UINT64_MAX,
                                       all ? want_h[all / 2] : 0};
            for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++) {
                const int64_t m = brute_anchors(&p, x, n, bounds[b], want_s, want_h);
                memset(got_s, 0xFF, 3100 * sizeof *got_s);
                const int64_t got = tsk_anchor_windows_below(&p, x, n, bounds[b], got_s, got_h, 3100);
                cr_assert_eq(got, m, "k %d W %lld n %lld bound %zu: %lld anchors, want %lld", c[ci].k,
                             (long long)c[ci].w, (long long)n, b, (long long)got, (long long)m);
                cr_assert_arr_eq(got_s, want_s, (size_t)m * sizeof *got_s, "starts, k %d n %lld", c[ci].k, (long long)n);
                cr_assert_arr_eq(got_h, want_h, (size_t)m * sizeof *got_h, "hashes, k %d n %lld", c[ci].k, (long long)n);
                total += m;
                /* counting only (cap 0, no arrays), a short cap, no hashes */
                cr_assert_eq(tsk_anchor_windows_below(&p, x, n, bounds[b], NULL, NULL, 0), m);
                if (m > 2) {
                    memset(got_s, 0xFF, 3100 * sizeof *got_s);
                    cr_assert_eq(tsk_anchor_windows_below(&p, x, n, bounds[b], got_s, NULL, 2), m);
                    cr_assert(got_s[0] == want_s[0] && got_s[1] == want_s[1] && got_s[2] == -1, "cap 2");
                }
            }
            /* tsk_anchor_windows: below floor((2^64 - 1) / stride), exclusive */
            const int64_t strides[] = {1, 2, 10, 500};
            for (size_t si = 0; si < 4; si++) {
                p.stride = strides[si];
                const int64_t m = brute_anchors(&p, x, n, UINT64_MAX / (uint64_t)strides[si] - 1, want_s, want_h);
                cr_assert_eq(tsk_anchor_windows(&p, x, n, got_s, 3100), m, "stride %lld", (long long)strides[si]);
                cr_assert_arr_eq(got_s, want_s, (size_t)m * sizeof *got_s);
                cr_assert_eq(tsk_anchor_windows_below(&p, x, n, UINT64_MAX / (uint64_t)strides[si] - 1, NULL, NULL, 0),
                             m);
            }
            free(x);
        }
    cr_expect_gt(total, 10000, "few anchors tested");
    free(want_s);
    free(got_s);
    free(want_h);
    free(got_h);
}

/* ---- window keys ---- */

/* Windows up to 64 bases, and no more t-tuples than float32 rows carry exactly (2 C(W, t) at most
 * 1.6e6: t = 4 up to W = 64, t = 5 up to W = 40). */
Test(genome_sets, params_check_bounds)
{
    const struct {
        int t;
        int64_t w;
        int ok;
    } c[] = {{4, 20, 1}, {4, 64, 1}, {4, 66, 0}, {4, 21, 0}, {5, 40, 1}, {5, 42, 0}, {5, 48, 0}, {5, 64, 0},
             {6, 28, 1}, {6, 40, 0}, {8, 20, 1}, {10, 8, 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tsk_params p;
        tsk_params_default(&p);
        p.t = c[i].t, p.dim = 16, p.canonical = 1, p.window = c[i].w, p.stride = 40, p.anchor_k = 8, p.scaled = 40;
        const char *why = tsk_genome_params_check(&p);
        cr_expect((why == NULL) == c[i].ok, "t %d W %lld: %s", c[i].t, (long long)c[i].w, why ? why : "accepted");
    }
    /* the anchors are placed by scaled (stride = scaled), and the floor is 0..1e9 */
    tsk_params p;
    tsk_params_default(&p);
    p.t = 4, p.dim = 16, p.canonical = 1, p.window = 20, p.stride = 40, p.anchor_k = 8, p.scaled = 40;
    const int64_t floors[] = {0, 1, 12000, TSK_GENOME_MAX_MIN_KEYS, -1, TSK_GENOME_MAX_MIN_KEYS + 1};
    for (int i = 0; i < 6; i++) {
        p.min_keys = floors[i];
        cr_expect_eq(tsk_genome_params_check(&p) == NULL, i < 4, "min keys %lld", (long long)floors[i]);
    }
    p.min_keys = 12000;
    p.stride = 20;
    cr_expect_str_eq(tsk_genome_params_check(&p), "genome sketches place anchors by scaled: the stride must equal scaled");
}

static void genome_params(tsk_params *p, int t, int dim, int64_t window, int canonical)
{
    tsk_params_default(p);
    p->t = t, p->dim = dim, p->window = window, p->stride = 40, p->anchor_k = 12, p->canonical = canonical;
    p->scaled = 40;
    tsk_tables_draw(p);
}

/* Planted integer sketches with |S_r| up to the scale come back exactly from float32 and float64
 * rows; a value off an integer by 0.3 after scaling is refused. */
Test(genome_sets, key_of_row_recovers_integer_sketches)
{
    const struct {
        int t, dim;
        int64_t w;
        int canon;
    } c[] = {{4, 16, 20, 1}, {4, 16, 20, 0}, {3, 12, 24, 1}, {4, 64, 64, 1}, {5, 16, 40, 1}, {1, 4, 2, 1}};
    uint64_t s = 77;
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        tsk_params p;
        genome_params(&p, c[i].t, c[i].dim, c[i].w, c[i].canon);
        const double scale = tsk_genome_row_scale(&p);
        double binom = 1;
        for (int j = 0; j < c[i].t; j++) binom = binom * (double)(c[i].w - j) / (j + 1);
        cr_assert_eq(scale, c[i].canon ? 2 * binom : binom, "scale of case %zu", i);
        int32_t S[64];
        float rf[64];
        double rd[64];
        for (int trial = 0; trial < 200; trial++) {
            const int64_t lim = (int64_t)scale;
            for (int r = 0; r < c[i].dim; r++) {
                S[r] = (int32_t)((int64_t)(next_rand(&s) % (uint64_t)(2 * lim + 1)) - lim);
                if (trial == 0) S[r] = r % 2 ? (int32_t)lim : -(int32_t)lim; /* the extremes */
                rd[r] = S[r] / scale;
                rf[r] = (float)rd[r];
            }
            const uint64_t anchor = next_rand(&s);
            const uint64_t want = tsk_genome_key_join(anchor, tsk_genome_key_of_sketch(S, c[i].dim, p.seed));
            cr_assert_eq(want >> TSK_GENOME_FP_BITS, anchor >> TSK_GENOME_FP_BITS, "the anchor's bits lead");
            uint64_t kf = 0, kd = 0;
            cr_assert_eq(tsk_genome_key_of_row(&p, rf, 4, anchor, &kf), 0, "case %zu trial %d: float32 row refused", i, trial);
            cr_assert_eq(tsk_genome_key_of_row(&p, rd, 8, anchor, &kd), 0, "case %zu trial %d: float64 row refused", i, trial);
            cr_assert(kf == want && kd == want, "case %zu trial %d: keys differ", i, trial);
        }
        rd[1] += 0.3 / scale;
        rf[1] = (float)rd[1];
        uint64_t k = 0;
        cr_expect_eq(tsk_genome_key_of_row(&p, rd, 8, 0, &k), -1, "case %zu: non-integer float64 row accepted", i);
        cr_expect_eq(tsk_genome_key_of_row(&p, rf, 4, 0, &k), -1, "case %zu: non-integer float32 row accepted", i);
        rd[1] = NAN;
        cr_expect_eq(tsk_genome_key_of_row(&p, rd, 8, 0, &k), -1, "case %zu: NaN accepted", i);
    }
}

/* tsk_genome_keys_of_rows (four chains at a time) = tsk_genome_key_of_row row by row, for every
 * count around the four-row groups, float32 and float64; a refused row anywhere is the one
 * named. */
Test(genome_sets, keys_of_rows_batch)
{
    tsk_params p;
    genome_params(&p, 4, 16, 20, 1);
    const double scale = tsk_genome_row_scale(&p);
    enum { N = 23 };
    uint64_t s = 99, anchors[N], want[N], got[N];
    float rf[N * 16];
    double rd[N * 16];
    for (int i = 0; i < N * 16; i++) {
        rd[i] = (double)((int64_t)(next_rand(&s) % 2001) - 1000) / scale;
        rf[i] = (float)rd[i];
    }
    for (int i = 0; i < N; i++) {
        anchors[i] = next_rand(&s);
        cr_assert_eq(tsk_genome_key_of_row(&p, rd + i * 16, 8, anchors[i], &want[i]), 0);
    }
    for (int n = 0; n <= N; n++) {
        memset(got, 0, sizeof got);
        cr_assert_eq(tsk_genome_keys_of_rows(&p, rd, 8, n, anchors, got), -1, "n %d", n);
        cr_assert_eq(memcmp(got, want, (size_t)n * sizeof *got), 0, "float64, n %d: keys differ", n);
        memset(got, 0, sizeof got);
        cr_assert_eq(tsk_genome_keys_of_rows(&p, rf, 4, n, anchors, got), -1, "n %d", n);
        cr_assert_eq(memcmp(got, want, (size_t)n * sizeof *got), 0, "float32, n %d: keys differ", n);
    }
    for (int bad = 0; bad < N; bad += 5) {
        double saved = rd[bad * 16 + 7];
        rd[bad * 16 + 7] = bad % 2 ? NAN : 1e300; /* not an integer sketch, and far outside int32 */
        cr_assert_eq(tsk_genome_keys_of_rows(&p, rd, 8, N, anchors, got), bad, "the refused row is %d", bad);
        rd[bad * 16 + 7] = saved;
    }
}

/* The key chain of genome_keys.h: the value genome_keys_ref.py computes, and every value and
 * place and the seed count. */
Test(genome_sets, key_of_sketch_chain)
{
    const int32_t S[4] = {3, -1, 0, 2};
    /* python3: h=seed; for r, v in enumerate(S): h = mix64(h ^ (r << 32 | v & 0xffffffff)) */
    cr_expect_eq(tsk_genome_key_of_sketch(S, 4, 0x5EED), UINT64_C(0xabcb60a1bf49d3c7));
    const int32_t swapped[4] = {-1, 3, 0, 2}, other[4] = {3, -1, 0, 1};
    const uint64_t k = tsk_genome_key_of_sketch(S, 4, 0x5EED);
    cr_expect_neq(tsk_genome_key_of_sketch(swapped, 4, 0x5EED), k);
    cr_expect_neq(tsk_genome_key_of_sketch(other, 4, 0x5EED), k);
    cr_expect_neq(tsk_genome_key_of_sketch(S, 4, 7), k);
    cr_expect_neq(tsk_genome_key_of_sketch(S, 3, 0x5EED), k);
}

/* Signed tuple counts of a window by enumerating every index tuple (the closed form of docs/spec.md
 * before the division): the integer sketch the key is defined on. */
static void brute_counts(const tsk_params *p, const uint8_t *x, int n, int32_t *S)
{
    int idx[TSK_MAX_T];
    const int t = p->t;
    for (int j = 0; j < t; j++) idx[j] = j;
    for (;;) {
        int sign = 1, bin = 0;
        for (int j = 0; j < t; j++) sign *= p->sign[j][x[idx[j]]], bin += p->hash[j][x[idx[j]]];
        S[bin % p->dim] += sign;
        int j = t - 1;
        while (j >= 0 && idx[j] == n - t + j) j--;
        if (j < 0) break;
        idx[j]++;
        for (int l = j + 1; l < t; l++) idx[l] = idx[l - 1] + 1;
    }
}

/* The CPU sketch engine's rows of random windows (float32 and float64, canonical) give the key of
 * the brute-force integer sketch of window + reverse complement. */
Test(genome_sets, engine_rows_give_exact_keys)
{
    for (int prec = 0; prec < 2; prec++) {
        tsk_params p;
        genome_params(&p, 4, 16, 20, 1);
        p.precision = prec ? TSK_DOUBLE : TSK_SINGLE;
        p.window = 0, p.stride = 0, p.anchor_k = 0, p.scaled = 0; /* whole-record rows of each window */
        const int n_win = 40, w = 20;
        uint8_t *x = test_random_codes((int64_t)n_win * w, 4, 91 + (unsigned)prec);
        int64_t offset[41], row_offset[41];
        for (int i = 0; i <= n_win; i++) offset[i] = (int64_t)i * w, row_offset[i] = i;
        const tsk_batch b = {n_win, x, offset, row_offset};
        const size_t es = prec ? 8 : 4;
        char *rows = malloc((size_t)n_win * 16 * es);
        cr_assert_eq(tsk_cpu_sketch(&p, &b, rows, 1), 0);
        tsk_params g = p;
        g.window = w, g.stride = 40, g.anchor_k = 12, g.scaled = 40;
        for (int i = 0; i < n_win; i++) {
            int32_t S[16] = {0};
            uint8_t rc[20];
            brute_counts(&p, x + i * w, w, S);
            tsk_revcomp_codes(x + i * w, (size_t)w, rc);
            brute_counts(&p, rc, w, S);
            uint64_t key = 0;
            const uint64_t anchor = UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(i + 1);
            cr_assert_eq(tsk_genome_key_of_row(&g, rows + (size_t)i * 16 * es, es, anchor, &key), 0, "window %d refused", i);
            cr_expect_eq(key, tsk_genome_key_join(anchor, tsk_genome_key_of_sketch(S, 16, p.seed)), "window %d, precision %d",
                         i, prec);
        }
        free(rows);
        free(x);
    }
}
