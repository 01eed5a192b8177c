/* test_genome_index: the inverted-index engine (cpu/genome_index.h) against the merge engine
 * (cpu/genome_sets.h), bit for bit: top-k (k 1, 3, 10, 100) and threshold lists (min_share 0, the
 * smallest positive double, shares met exactly, 1 and beyond) under every pair filter, both modes,
 * whole query ranges and parts of them, at 1, 2 and 16 threads, on planted sets (no shared key,
 * one shared key, identical genomes, thresholds of the size floor, empty sketches, ties at the
 * k-th place, one reference, a different reference set) and random ones, including a set large
 * enough to be indexed in rounds. The merge engine is itself checked against brute force by
 * test_genome_sets; the walk against its count block. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "genome_index.h"
#include "genome_sets.h"

static uint64_t next_rand(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Genome sketches built item by item: keys sorted and unique per item, thresholds optional. */
typedef struct {
    tsk_key_sets set;
    uint64_t *keys, *tau;
    int64_t *offset;
    int64_t n_keys, cap;
} sets_builder;

static void sets_init(sets_builder *b)
{
    memset(b, 0, sizeof *b);
    b->cap = 1024;
    b->keys = malloc((size_t)b->cap * sizeof *b->keys);
    b->offset = calloc(1, sizeof *b->offset);
    b->set.keys = b->keys;
    b->set.offset = b->offset;
}

/* Adds an item of keys[0..n) (any order, repeats allowed); tau: its threshold, keys above it
 * dropped (UINT64_MAX and no thresholds before: the set has none). */
static void sets_add_below(sets_builder *b, const uint64_t *keys, int64_t n, uint64_t tau)
{
    while (b->n_keys + n > b->cap) b->keys = realloc(b->keys, (size_t)(b->cap *= 2) * sizeof *b->keys);
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++)
        if (keys[j] <= tau) b->keys[b->n_keys + m++] = keys[j];
    b->n_keys += tsk_genome_keys_sort_unique(b->keys + b->n_keys, m);
    const int64_t i = b->set.n_items++;
    b->offset = realloc(b->offset, (size_t)(i + 2) * sizeof *b->offset);
    b->offset[i + 1] = b->n_keys;
    if (tau != UINT64_MAX || b->tau) {
        if (!b->tau) {
            b->tau = malloc((size_t)(i + 1) * sizeof *b->tau);
            for (int64_t j = 0; j < i; j++) b->tau[j] = UINT64_MAX;
        } else {
            b->tau = realloc(b->tau, (size_t)(i + 1) * sizeof *b->tau);
        }
        b->tau[i] = tau;
    }
    b->set.keys = b->keys;
    b->set.offset = b->offset;
    b->set.tau = b->tau;
}

static void sets_add(sets_builder *b, const uint64_t *keys, int64_t n) { sets_add_below(b, keys, n, UINT64_MAX); }

static void sets_free(sets_builder *b)
{
    free(b->keys);
    free(b->offset);
    free(b->tau);
}

/* n random sets of sizes 0..max_size from a pool of pool keys (windows of it, so that neighbours
 * overlap); with_tau: thresholds from a few levels, keys above them dropped. */
static void random_sets(sets_builder *b, int n, int max_size, int pool, uint64_t seed, int with_tau)
{
    uint64_t *p = malloc((size_t)pool * sizeof *p), *k = malloc((size_t)(max_size + 1) * sizeof *k);
    uint64_t s = 0xF00D;
    for (int i = 0; i < pool; i++) p[i] = next_rand(&s);
    p[0] = 0, p[pool - 1] = UINT64_MAX;
    s = seed;
    sets_init(b);
    const uint64_t levels[4] = {UINT64_MAX, UINT64_MAX / 2, UINT64_MAX / 4 * 3, UINT64_MAX / 8};
    for (int i = 0; i < n; i++) {
        int size = (int)(next_rand(&s) % (uint64_t)(max_size + 1));
        if (i % 7 == 3) size = 0;
        if (i % 7 == 5) size = 1;
        const int base = (int)(next_rand(&s) % (uint64_t)pool);
        for (int j = 0; j < size; j++) k[j] = p[(base + (int)(next_rand(&s) % (uint64_t)(pool / 3 + 1))) % pool];
        sets_add_below(b, k, size, with_tau ? levels[next_rand(&s) % 4] : UINT64_MAX);
    }
    free(p);
    free(k);
}

/* ---- the comparison ---- */

static const int thread_counts[] = {1, 2, 16};

static void expect_same_topk(const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq, int k,
                             tsk_genome_mode m, tsk_pair_filter f, const char *name)
{
    char err[256];
    tsk_cpu_genome_sets *merge = tsk_cpu_genome_sets_open(q, r, 2, err, sizeof err);
    cr_assert_not_null(merge, "%s", err);
    const size_t bytes = sizeof(tsk_genome_pair) * (size_t)(nq * k + 1);
    tsk_genome_pair *want = malloc(bytes), *got = malloc(bytes);
    cr_assert_eq(tsk_cpu_genome_sets_topk(merge, q0, nq, k, m, f, want), 0);
    tsk_cpu_genome_sets_close(merge);
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(q, r, thread_counts[t], err, sizeof err);
        cr_assert_not_null(e, "%s", err);
        memset(got, 0xA5, bytes);
        cr_assert_eq(tsk_cpu_genome_index_topk(e, q0, nq, k, m, f, got), 0, "%s", tsk_cpu_genome_index_error(e));
        for (int64_t i = 0; i < nq * k; i++)
            cr_assert(memcmp(&got[i], &want[i], sizeof *got) == 0,
                      "%s: top-%d of %lld+%lld, mode %d, filter %d, %d threads: entry %lld is (%lld, %lld, %lld, %.17g), "
                      "the merge's (%lld, %lld, %lld, %.17g)",
                      name, k, (long long)q0, (long long)nq, (int)m, (int)f, thread_counts[t], (long long)i,
                      (long long)got[i].query, (long long)got[i].ref, (long long)got[i].shared, got[i].share,
                      (long long)want[i].query, (long long)want[i].ref, (long long)want[i].shared, want[i].share);
        tsk_cpu_genome_index_close(e);
    }
    free(want);
    free(got);
}

static void expect_same_within(const tsk_key_sets *q, const tsk_key_sets *r, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode m, tsk_pair_filter f, const char *name)
{
    char err[256];
    tsk_cpu_genome_sets *merge = tsk_cpu_genome_sets_open(q, r, 2, err, sizeof err);
    cr_assert_not_null(merge, "%s", err);
    tsk_genome_pair *want = NULL;
    int64_t n_want = 0, cap_want = 0;
    cr_assert_eq(tsk_cpu_genome_sets_within(merge, q0, nq, min_share, m, f, &want, &n_want, &cap_want), 0);
    tsk_cpu_genome_sets_close(merge);
    for (size_t t = 0; t < sizeof thread_counts / sizeof *thread_counts; t++) {
        tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(q, r, thread_counts[t], err, sizeof err);
        cr_assert_not_null(e, "%s", err);
        /* a caller's buffer already holding something, as the runner reuses one */
        int64_t n = -1, cap = 3;
        tsk_genome_pair *got = calloc(3, sizeof *got);
        cr_assert_eq(tsk_cpu_genome_index_within(e, q0, nq, min_share, m, f, &got, &n, &cap), 0, "%s",
                     tsk_cpu_genome_index_error(e));
        cr_assert_eq(n, n_want, "%s: within %.17g of %lld+%lld, mode %d, filter %d, %d threads: %lld pairs, want %lld",
                     name, min_share, (long long)q0, (long long)nq, (int)m, (int)f, thread_counts[t], (long long)n,
                     (long long)n_want);
        for (int64_t i = 0; i < n; i++)
            cr_assert(memcmp(&got[i], &want[i], sizeof *got) == 0,
                      "%s: within %.17g, mode %d, filter %d, %d threads: pair %lld is (%lld, %lld, %lld, %.17g), the "
                      "merge's (%lld, %lld, %lld, %.17g)",
                      name, min_share, (int)m, (int)f, thread_counts[t], (long long)i, (long long)got[i].query,
                      (long long)got[i].ref, (long long)got[i].shared, got[i].share, (long long)want[i].query,
                      (long long)want[i].ref, (long long)want[i].shared, want[i].share);
        free(got);
        tsk_cpu_genome_index_close(e);
    }
    free(want);
}

/* Every k, threshold, mode and filter of q against r (filters other than ALL only when q == r,
 * as the runner asks them), whole and a middle part of the queries. Thresholds: 0 (every admitted
 * pair), the smallest positive double (every sharing pair), some shares met exactly (and the next
 * double above), 1 and beyond. */
static void expect_same(const tsk_key_sets *q, const tsk_key_sets *r, const char *name)
{
    const int ks[] = {1, 3, 10, 100};
    const int n_filters = q == r ? 4 : 1;
    const int64_t parts[2][2] = {{0, q->n_items}, {q->n_items / 3, q->n_items / 2}};
    for (int m = 0; m < 2; m++)
        for (int f = 0; f < n_filters; f++)
            for (int p = 0; p < 2; p++) {
                const int64_t q0 = parts[p][0], nq = parts[p][1];
                for (size_t k = 0; k < sizeof ks / sizeof *ks; k++)
                    expect_same_topk(q, r, q0, nq, ks[k], (tsk_genome_mode)m, (tsk_pair_filter)f, name);
                double mins[8] = {0.0, 4.9406564584124654e-324, 0.25, 1.0, 1.5, 0.5, 0.5, 0.5};
                /* shares of real pairs: the best neighbour of the first query with one */
                tsk_genome_pair top[1];
                char err[256];
                tsk_cpu_genome_sets *merge = tsk_cpu_genome_sets_open(q, r, 1, err, sizeof err);
                for (int64_t i = 0, found = 0; i < q->n_items && found < 2; i++) {
                    tsk_cpu_genome_sets_topk(merge, i, 1, 1, (tsk_genome_mode)m, (tsk_pair_filter)f, top);
                    if (top[0].ref >= 0) mins[5 + found++] = top[0].share;
                }
                mins[7] = nextafter(mins[5], 2.0);
                tsk_cpu_genome_sets_close(merge);
                for (size_t i = 0; i < 8; i++)
                    expect_same_within(q, r, q0, nq, mins[i], (tsk_genome_mode)m, (tsk_pair_filter)f, name);
            }
}

/* ---- planted sets ---- */

Test(genome_index, no_shared_key)
{
    sets_builder b;
    sets_init(&b);
    for (uint64_t i = 0; i < 6; i++) {
        uint64_t k[4] = {10 * i + 1, 10 * i + 2, 10 * i + 3, UINT64_MAX - i};
        sets_add(&b, k, 4);
    }
    expect_same(&b.set, &b.set, "no shared key");
    /* every list pads: no neighbour at all */
    char err[256];
    tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(&b.set, &b.set, 2, err, sizeof err);
    tsk_genome_pair top[6 * 3];
    cr_assert_eq(tsk_cpu_genome_index_topk(e, 0, 6, 3, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top), 0);
    for (int i = 0; i < 18; i++) cr_expect(top[i].ref == -1 && top[i].query == i / 3 && top[i].share == 0.0);
    tsk_cpu_genome_index_close(e);
    sets_free(&b);
}

Test(genome_index, one_shared_key)
{
    sets_builder b;
    sets_init(&b);
    const uint64_t a[] = {5, 7, 9}, c[] = {9, 11, 13, 15}, d[] = {20, 21};
    sets_add(&b, a, 3);
    sets_add(&b, c, 4);
    sets_add(&b, d, 2);
    expect_same(&b.set, &b.set, "one shared key");
    char err[256];
    tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(&b.set, &b.set, 1, err, sizeof err);
    tsk_genome_pair top[2];
    cr_assert_eq(tsk_cpu_genome_index_topk(e, 0, 1, 2, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top), 0);
    cr_expect(top[0].ref == 1 && top[0].shared == 1 && top[0].share == (1.0 / 3 + 1.0 / 4) * 0.5 && top[1].ref == -1);
    tsk_cpu_genome_index_close(e);
    sets_free(&b);
}

Test(genome_index, identical_genomes)
{
    sets_builder b;
    sets_init(&b);
    uint64_t k[50];
    uint64_t s = 3;
    for (int i = 0; i < 50; i++) k[i] = next_rand(&s);
    for (int i = 0; i < 12; i++) sets_add(&b, k, 50); /* twelve of the same: ties everywhere */
    sets_add(&b, k, 25);
    expect_same(&b.set, &b.set, "identical genomes");
    sets_free(&b);
}

Test(genome_index, empty_sketches)
{
    sets_builder b, none;
    sets_init(&b);
    sets_init(&none);
    const uint64_t a[] = {1, 2, 3};
    sets_add(&b, a, 0);
    sets_add(&b, a, 3);
    sets_add(&b, a, 0);
    sets_add(&b, a, 2);
    sets_add(&none, a, 0);
    sets_add(&none, a, 0);
    expect_same(&b.set, &b.set, "empty sketches among others");
    expect_same(&none.set, &none.set, "all empty");
    expect_same(&b.set, &none.set, "against all empty");
    /* no references at all, and no queries */
    sets_builder zero;
    sets_init(&zero);
    expect_same(&b.set, &zero.set, "no references");
    expect_same(&zero.set, &b.set, "no queries");
    sets_free(&b);
    sets_free(&none);
    sets_free(&zero);
}

/* Thresholds of the size floor: pairs of different ones are compared below the smaller. */
Test(genome_index, thresholds)
{
    sets_builder b;
    sets_init(&b);
    const uint64_t A[] = {2, 4, 6, 8, 10}, B[] = {1, 2, 3, 4, 5, 10, 11, 12}, C[] = {2, 4, 100, UINT64_MAX};
    sets_add_below(&b, A, 5, 10);
    sets_add_below(&b, B, 8, 12);
    sets_add_below(&b, C, 4, UINT64_MAX);
    sets_add_below(&b, A, 5, 10);
    expect_same(&b.set, &b.set, "thresholds planted");
    sets_free(&b);
    /* ties made by the cut alone at the k boundary */
    sets_init(&b);
    uint64_t k[40];
    for (int i = 0; i < 10; i++) k[i] = 2 * (uint64_t)(i + 1);
    sets_add_below(&b, k, 10, 20);
    for (int j = 1; j <= 5; j++) {
        int m = 0;
        for (int i = 0; i < 5; i++) k[m++] = 2 * (uint64_t)(i + 1);
        for (int i = 0; i < 6 - j; i++) k[m++] = 1000 + 10 * (uint64_t)j + (uint64_t)i;
        sets_add_below(&b, k, m, j == 3 ? UINT64_MAX : 5000);
    }
    for (int i = 0; i < 5; i++) k[i] = 2 * (uint64_t)(i + 1);
    k[5] = 3;
    sets_add_below(&b, k, 6, 5000);
    expect_same(&b.set, &b.set, "thresholds make ties");
    sets_free(&b);
}

/* Ties at the k-th place: six references of share 0.5 to the query, around every k. */
Test(genome_index, ties_at_the_kth_place)
{
    sets_builder b;
    sets_init(&b);
    uint64_t k[20];
    for (int i = 0; i < 10; i++) k[i] = (uint64_t)i + 1;
    sets_add(&b, k, 10);
    for (int j = 1; j <= 6; j++) {
        for (int i = 0; i < 5; i++) k[i] = (uint64_t)i + 1, k[5 + i] = (uint64_t)(100 * j + i);
        sets_add(&b, k, 10);
    }
    for (int i = 0; i < 9; i++) k[i] = (uint64_t)i + 1;
    sets_add(&b, k, 9);
    expect_same(&b.set, &b.set, "ties");
    char err[256];
    tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(&b.set, &b.set, 16, err, sizeof err);
    tsk_genome_pair top[4];
    cr_assert_eq(tsk_cpu_genome_index_topk(e, 0, 1, 4, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, top), 0);
    cr_expect(top[0].ref == 7 && top[1].ref == 1 && top[2].ref == 2 && top[3].ref == 3 && top[3].share == 0.5);
    tsk_cpu_genome_index_close(e);
    sets_free(&b);
}

Test(genome_index, one_reference_and_other_sets)
{
    sets_builder q, one, r;
    random_sets(&q, 40, 60, 300, 7, 0);
    sets_init(&one);
    sets_add(&one, q.keys + q.offset[2], q.offset[3] - q.offset[2]);
    random_sets(&r, 25, 60, 300, 8, 0);
    expect_same(&q.set, &one.set, "a reference of one genome");
    expect_same(&one.set, &q.set, "one query");
    expect_same(&q.set, &r.set, "queries against another set");
    expect_same(&r.set, &q.set, "and the other way");
    sets_free(&q);
    sets_free(&one);
    sets_free(&r);
}

Test(genome_index, random_sets)
{
    sets_builder b;
    random_sets(&b, 70, 120, 500, 11, 0);
    expect_same(&b.set, &b.set, "random sets");
    sets_free(&b);
    random_sets(&b, 60, 120, 500, 12, 1);
    expect_same(&b.set, &b.set, "random sets with thresholds");
    sets_free(&b);
}

/* A small pool: keys held by most of the 300 sets (buckets of many postings). */
Test(genome_index, keys_of_many_references)
{
    sets_builder b;
    random_sets(&b, 300, 40, 60, 13, 0);
    const int ks[] = {1, 10, 100};
    for (size_t k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++) expect_same_topk(&b.set, &b.set, 0, 300, ks[k], (tsk_genome_mode)m, TSK_PAIRS_NOT_SELF, "many");
    expect_same_within(&b.set, &b.set, 0, 300, 0.3, TSK_GENOME_SYMMETRIC, TSK_PAIRS_UPPER, "many");
    sets_free(&b);
}

/* More postings than one round takes (4 rounds of buckets): a few queries, every reference. */
Test(genome_index, indexed_in_rounds, .timeout = 600)
{
    sets_builder b;
    sets_init(&b);
    const int n = 430, size = 10000;
    uint64_t *k = malloc(sizeof *k * (size_t)size), s = 17;
    for (int i = 0; i < n; i++) {
        /* families of ten: half of the family's keys, half its own */
        for (int j = 0; j < size; j++) {
            uint64_t t = (uint64_t)(i / 10) * 1000003 + (uint64_t)j;
            k[j] = next_rand(&s) & 1 ? next_rand(&t) : next_rand(&s);
        }
        sets_add(&b, k, size);
    }
    cr_assert_gt(b.n_keys, INT64_C(1) << 22);
    free(k);
    expect_same_topk(&b.set, &b.set, 200, 12, 10, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, "rounds");
    expect_same_within(&b.set, &b.set, 200, 12, 0.1, TSK_GENOME_CONTAINMENT, TSK_PAIRS_UPPER, "rounds");
    sets_free(&b);
}

/* ---- the walk, its estimate, errors ---- */

Test(genome_index, walk_is_the_sum_of_shared_counts)
{
    sets_builder q, r;
    random_sets(&q, 30, 80, 300, 21, 1);
    random_sets(&r, 20, 80, 300, 22, 0);
    char err[256];
    tsk_cpu_genome_sets *merge = tsk_cpu_genome_sets_open(&q.set, &r.set, 2, err, sizeof err);
    uint32_t *block = malloc(sizeof *block * 30 * 20);
    cr_assert_eq(tsk_cpu_genome_sets_block(merge, 0, 30, 0, 20, block, 20), 0);
    int64_t want = 0, want_part = 0;
    for (int i = 0; i < 30 * 20; i++) want += block[i], want_part += i >= 5 * 20 && i < 15 * 20 ? block[i] : 0;
    tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(&q.set, &r.set, 2, err, sizeof err);
    cr_expect_eq(tsk_cpu_genome_index_walk(e, 0, 30), want);
    cr_expect_eq(tsk_cpu_genome_index_walk(e, 5, 10), want_part);
    cr_expect_eq(tsk_cpu_genome_index_walk(e, 25, 6), -1);
    cr_expect_eq(tsk_genome_walk_estimate(&q.set, 0, 30, &r.set, 30, 2), (double)want, "every query sampled: exact");
    cr_expect_eq(tsk_genome_walk_estimate(&q.set, 5, 10, &r.set, 100, 1), (double)want_part);
    cr_expect_gt(tsk_cpu_genome_index_bytes(e), 0);
    cr_expect(tsk_genome_index_cost(30, 100, 20, 100, 0.0, 1) < tsk_genome_merge_cost(30, 100, 20, 100));
    free(block);
    tsk_cpu_genome_index_close(e);
    tsk_cpu_genome_sets_close(merge);
    sets_free(&q);
    sets_free(&r);
}

Test(genome_index, bad_arguments_say_why)
{
    sets_builder b;
    random_sets(&b, 10, 20, 100, 5, 0);
    char err[256];
    tsk_cpu_genome_index *e = tsk_cpu_genome_index_open(&b.set, &b.set, 2, err, sizeof err);
    tsk_genome_pair top[4];
    cr_expect_str_empty(tsk_cpu_genome_index_error(e));
    cr_expect_eq(tsk_cpu_genome_index_topk(e, 0, 1, 0, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, top), -1);
    cr_expect(strstr(tsk_cpu_genome_index_error(e), "k 0") != NULL, "%s", tsk_cpu_genome_index_error(e));
    cr_expect_eq(tsk_cpu_genome_index_topk(e, 9, 2, 1, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, top), -1);
    tsk_genome_pair *pairs = NULL;
    int64_t n = 7, cap = 0;
    cr_expect_eq(tsk_cpu_genome_index_within(e, -1, 2, 0.5, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, &pairs, &n, &cap), -1);
    cr_expect_eq(n, 0);
    cr_expect(strstr(tsk_cpu_genome_index_error(e), "threshold query") != NULL);
    tsk_cpu_genome_index_close(e);
    sets_free(&b);
}
