/* test_genome_sets: genome sketches (core/genome_keys.h) and their CPU engine (cpu/genome_sets.h)
 * against brute force: shared counts against an O(n*m) count and tsk_genome_shared_ref on planted
 * and random sets, top-k and threshold selections against a sort of every admitted pair, the
 * distance and its share floor, and window keys recovered from engine rows. */
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

static void sets_free(sets_builder *b)
{
    free(b->keys);
    free(b->offset);
}

static const uint64_t *keys_of(const tsk_key_sets *s, int64_t i) { return s->keys + s->offset[i]; }

/* n sets of random sizes 0..max_size drawn from a pool of pool keys (random overlaps; a few sets
 * empty or of one key). The pool holds 0 and UINT64_MAX. */
static void random_sets(sets_builder *b, int n, int max_size, int pool, uint64_t seed)
{
    uint64_t *p = malloc((size_t)pool * sizeof *p), *k = malloc((size_t)(max_size + 1) * sizeof *k);
    uint64_t s = seed;
    for (int i = 0; i < pool; i++) p[i] = next_rand(&s);
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
        cr_expect_eq(tsk_genome_shared_ref(a, 6, c[i].b, c[i].nb), c[i].want, "case %zu", i);
        cr_expect_eq(tsk_genome_shared_ref(c[i].b, c[i].nb, a, 6), c[i].want, "case %zu swapped", i);
        cr_expect_eq(brute_shared(a, 6, c[i].b, c[i].nb), c[i].want, "case %zu (brute)", i);
    }
    cr_expect_eq(tsk_genome_shared_ref(a, 0, a, 0), 0, "empty with empty");
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
            const int64_t want = brute_shared(keys_of(q, i), na, keys_of(r, j), nb);
            cr_assert_eq(got[i * ld + j], (uint32_t)want, "threads %d, pair %lld x %lld", threads, (long long)i,
                         (long long)j);
            cr_assert_eq(tsk_genome_shared_ref(keys_of(q, i), na, keys_of(r, j), nb), want);
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
        const int64_t qi = q0 + i, na = tsk_key_set_size(q, qi);
        int64_t n = 0;
        for (int64_t j = 0; j < r->n_items; j++) {
            if (!tsk_pair_admitted(f, qi, j)) continue;
            const int64_t nb = tsk_key_set_size(r, j), s = brute_shared(keys_of(q, qi), na, keys_of(r, j), nb);
            if (s) c[n++] = (cand){j, s, tsk_genome_share(s, na, nb, m)};
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

Test(genome_sets, topk_random_sets)
{
    sets_builder q, r;
    random_sets(&q, 41, 250, 700, 21);
    random_sets(&r, 29, 250, 700, 22);
    const int ks[] = {1, 3, 10, 40};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++)
        for (int m = 0; m < 2; m++) {
            check_topk(&q.set, &r.set, 0, q.set.n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            check_topk(&q.set, &q.set, 0, q.set.n_items, ks[i], (tsk_genome_mode)m, TSK_PAIRS_NOT_SELF);
            check_topk(&q.set, &q.set, 5, 17, ks[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
        }
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
            const int64_t na = tsk_key_set_size(q, i), nb = tsk_key_set_size(r, j);
            const int64_t s = brute_shared(keys_of(q, i), na, keys_of(r, j), nb);
            const double share = tsk_genome_share(s, na, nb, m);
            if (share >= min_share) want[n_want++] = (tsk_genome_pair){i, j, s, share};
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

Test(genome_sets, within_random_sets)
{
    sets_builder q, r;
    random_sets(&q, 33, 250, 600, 31);
    random_sets(&r, 27, 250, 600, 32);
    const double mins[] = {0.0, 1e-9, 0.05, 0.2, 0.5, 1.0, 1.5};
    for (size_t i = 0; i < sizeof mins / sizeof *mins; i++)
        for (int m = 0; m < 2; m++) {
            check_within(&q.set, &r.set, 0, q.set.n_items, mins[i], (tsk_genome_mode)m, TSK_PAIRS_ALL);
            for (int f = 0; f < 4; f++) {
                check_within(&q.set, &q.set, 0, q.set.n_items, mins[i], (tsk_genome_mode)m, (tsk_pair_filter)f);
                check_within(&q.set, &q.set, 4, 20, mins[i], (tsk_genome_mode)m, (tsk_pair_filter)f);
            }
        }
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

/* ---- distance and its share floor ---- */

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
        p.t = c[i].t, p.dim = 16, p.canonical = 1, p.window = c[i].w, p.stride = 20, p.anchor_k = 8, p.scaled = 40;
        const char *why = tsk_genome_params_check(&p);
        cr_expect((why == NULL) == c[i].ok, "t %d W %lld: %s", c[i].t, (long long)c[i].w, why ? why : "accepted");
    }
}

static void genome_params(tsk_params *p, int t, int dim, int64_t window, int canonical)
{
    tsk_params_default(p);
    p->t = t, p->dim = dim, p->window = window, p->stride = 20, p->anchor_k = 12, p->canonical = canonical;
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

/* Signed tuple counts of a window by enumerating every index tuple (the closed form of SKETCH.md
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
        g.window = w, g.stride = 20, g.anchor_k = 12, g.scaled = 40;
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
