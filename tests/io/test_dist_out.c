/* test_dist_out.c: the tsv pair writer. tsk_dist_out_pairs (formatted on several threads) must
 * write exactly what tsk_dist_out_pair writes line by line, whatever the thread count, with its
 * filters (ref < 0, dist > max_dist) and the query/reference swap of one set against itself, and
 * whether its room comes from the longest names or, past 256 bytes of them, from each line's. */
#include <criterion/criterion.h>
#include <math.h>

#include "../../io/dist_out.h"
#include "io_test.h"

#define N_NAMES 300

static int long_names; /* some reference names of 300 characters: each line's own room */

/* Writes the pairs once through tsk_dist_out_pair and once through tsk_dist_out_pairs with
 * `threads`, and checks the two files are the same bytes; returns the line count. */
static size_t compare_writers(const tsk_pair *pairs, int64_t n, int swap, double max_dist, int threads)
{
    static char names_q[N_NAMES][24], names_r[N_NAMES][340];
    const char *qn[N_NAMES], *rn[N_NAMES];
    char tail[301];
    memset(tail, 'z', 300);
    tail[300] = 0;
    for (int i = 0; i < N_NAMES; i++) {
        snprintf(names_q[i], sizeof names_q[i], "q%d", i);
        snprintf(names_r[i], sizeof names_r[i], "reference_%d_%s", i,
                 long_names && i % 5 == 0 ? tail : i % 3 ? "x" : "a longer name");
        qn[i] = names_q[i];
        rn[i] = swap ? names_q[i] : names_r[i];  /* one set: the same names both ways */
    }
    char *dir = scratch_dir(), a[4200], b[4200], err[256];
    snprintf(a, sizeof a, "%s/one.tsv", dir);
    snprintf(b, sizeof b, "%s/many.tsv", dir);
    tsk_dist_out *o1 = tsk_dist_out_open(a, TSK_DIST_TSV, qn, N_NAMES, rn, N_NAMES, 1, err, sizeof err);
    tsk_dist_out *o2 = tsk_dist_out_open(b, TSK_DIST_TSV, qn, N_NAMES, rn, N_NAMES, 1, err, sizeof err);
    cr_assert(o1 && o2, "%s", err);
    for (int64_t i = 0; i < n; i++) {
        const tsk_pair *p = &pairs[i];
        if (p->ref < 0 || !((double)p->dist <= max_dist)) continue;
        cr_assert_eq(swap ? tsk_dist_out_pair(o1, p->ref, p->query, p->dist)
                          : tsk_dist_out_pair(o1, p->query, p->ref, p->dist), 0);
    }
    cr_assert_eq(tsk_dist_out_pairs(o2, pairs, n, swap, max_dist, threads), 0);
    cr_assert_eq(tsk_dist_out_finish(o1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(tsk_dist_out_finish(o2, err, sizeof err), 0, "%s", err);
    size_t la = 0, lb = 0;
    unsigned char *ta = slurp(a, &la), *tb = slurp(b, &lb);
    cr_assert(ta && tb);
    cr_assert_eq(la, lb, "lengths %zu and %zu (threads %d)", la, lb, threads);
    cr_assert(memcmp(ta, tb, la) == 0, "contents differ (threads %d)", threads);
    size_t lines = 0;
    for (size_t i = 0; i < la; i++) lines += ta[i] == '\n';
    free(ta);
    free(tb);
    unlink(a);
    unlink(b);
    rmdir(dir);
    free(dir);
    return lines;
}

static tsk_pair *random_pairs(int64_t n, unsigned seed)
{
    tsk_pair *p = malloc((size_t)n * sizeof *p);
    srand(seed);
    for (int64_t i = 0; i < n; i++) {
        p[i].query = rand() % N_NAMES;
        p[i].ref = rand() % 17 == 0 ? -1 : rand() % N_NAMES;  /* -1: an empty top-k slot */
        switch (rand() % 6) {
        case 0: p[i].dist = 0.f; break;
        case 1: p[i].dist = 1e-30f * (float)rand(); break;
        case 2: p[i].dist = INFINITY; break;
        default: p[i].dist = (float)rand() / (float)RAND_MAX;
        }
    }
    return p;
}

Test(dist_out, parallel_pairs_equal_line_by_line)
{
    const int64_t n = 50000;
    tsk_pair *p = random_pairs(n, 7);
    size_t kept = 0;
    for (int64_t i = 0; i < n; i++) kept += p[i].ref >= 0;
    for (int threads = 1; threads <= 8; threads++) {
        size_t all = compare_writers(p, n, 0, INFINITY, threads);
        size_t some = compare_writers(p, n, 0, 0.25, threads);
        size_t swapped = compare_writers(p, n, 1, 0.5, threads);
        cr_assert_eq(all, 1 + kept, "header + every pair with a reference (threads %d)", threads);
        cr_assert(some > 1 && some < all, "the threshold drops some lines, not all");
        cr_assert_gt(swapped, 1);
    }
    free(p);
}

Test(dist_out, long_names_take_each_lines_room)
{
    const int64_t n = 20000;
    tsk_pair *p = random_pairs(n, 11);
    long_names = 1;
    for (int threads = 1; threads <= 4; threads += 3) {
        cr_assert_gt(compare_writers(p, n, 0, INFINITY, threads), 1);
        cr_assert_gt(compare_writers(p, n, 0, 0.5, threads), 1);
    }
    long_names = 0;
    free(p);
}

Test(dist_out, few_and_no_pairs)
{
    tsk_pair one = {3, 5, 0.125f}, none = {3, -1, 0.f};
    cr_assert_eq(compare_writers(&one, 1, 0, INFINITY, 4), 2);
    cr_assert_eq(compare_writers(&one, 1, 1, INFINITY, 4), 2);
    cr_assert_eq(compare_writers(&none, 1, 0, INFINITY, 4), 1);
    cr_assert_eq(compare_writers(&one, 0, 0, INFINITY, 4), 1);
}
