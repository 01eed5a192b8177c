/* Criterion tests of the clustering (core/cluster.h) against brute force on random link graphs,
 * and of the link store (io/link_runs.h) spilled and not. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cluster.h"
#include "../../io/link_runs.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)((rng_state >> 33) % n);
}

/* A random graph on n ranks: each pair linked with probability p_percent, distances from a
 * small set so that ties happen. d[a * n + b] = distance, or INFINITY when not linked. */
static float *random_graph(int n, int p_percent)
{
    float *d = malloc((size_t)n * (size_t)n * sizeof *d);
    for (int i = 0; i < n * n; i++) d[i] = INFINITY;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if ((int)rnd(100) < p_percent) d[a * n + b] = d[b * n + a] = 0.01f * (float)(1 + rnd(4));
    return d;
}

/* Greedy by its definition: visit in rank order, join the nearest earlier representative (ties:
 * better rank) or become one; then every member to its nearest representative (ties: better). */
static void greedy_brute(int n, const float *d, uint32_t *rep, float *dist)
{
    char *is_rep = calloc((size_t)n, 1);
    for (int g = 0; g < n; g++) {
        int best = -1;
        for (int r = 0; r < g; r++)
            if (is_rep[r] && isfinite(d[g * n + r]) && (best < 0 || d[g * n + r] < d[g * n + best])) best = r;
        is_rep[g] = best < 0;
    }
    for (int g = 0; g < n; g++) {
        if (is_rep[g]) {
            rep[g] = (uint32_t)g, dist[g] = 0;
            continue;
        }
        int best = -1;
        for (int r = 0; r < n; r++)
            if (is_rep[r] && isfinite(d[g * n + r]) && (best < 0 || d[g * n + r] < d[g * n + best])) best = r;
        rep[g] = (uint32_t)best, dist[g] = d[g * n + best];
    }
    free(is_rep);
}

/* Single linkage by repeated relaxation: each rank's label becomes the smallest label it reaches. */
static void single_brute(int n, const float *d, uint32_t *rep)
{
    for (int i = 0; i < n; i++) rep[i] = (uint32_t)i;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                if (isfinite(d[a * n + b]) && rep[b] < rep[a]) rep[a] = rep[b], changed = 1;
    }
}

/* The graph's links in a shuffled order. */
static tsk_cluster_link *links_of(int n, const float *d, int64_t *count)
{
    tsk_cluster_link *l = malloc((size_t)n * (size_t)n * sizeof *l);
    int64_t m = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < a; b++)
            if (isfinite(d[a * n + b])) l[m++] = (tsk_cluster_link){(uint32_t)a, (uint32_t)b, d[a * n + b]};
    for (int64_t i = m - 1; i > 0; i--) {
        const int64_t j = rnd((uint32_t)(i + 1));
        tsk_cluster_link t = l[i];
        l[i] = l[j], l[j] = t;
    }
    *count = m;
    return l;
}

static int take(void *ctx, const tsk_cluster_link *l, int64_t n) { return tsk_greedy_add(ctx, l, n); }

/* A second condition that vetoes about a third of the links (by a hash of the pair, so the brute
 * force can remove the same links from the graph); counts how often it is asked. */
static int64_t n_asked;
static int vetoed(uint32_t a, uint32_t b)
{
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return (lo * 2654435761u ^ hi * 40503u) % 3 == 0;
}
static int veto_holds(void *ctx, uint32_t a, uint32_t b)
{
    (void)ctx;
    n_asked++;
    return !vetoed(a, b);
}
static const tsk_link_check veto = {veto_holds, NULL};

/* d without the vetoed links (what the clustering with the check must match) */
static void remove_vetoed(int n, float *d)
{
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            if (a != b && vetoed((uint32_t)a, (uint32_t)b)) d[a * n + b] = INFINITY;
}

/* Greedy through the link store with the given budget (and the check, if any) equals the brute
 * force on the links that hold. */
static void check_greedy(int n, int p, size_t budget, const tsk_link_check *check)
{
    float *d = random_graph(n, p);
    int64_t m;
    tsk_cluster_link *l = links_of(n, d, &m);
    if (check) remove_vetoed(n, d);
    char err[256];
    tsk_link_runs *s = tsk_link_runs_open(budget, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    for (int64_t i = 0; i < m; i += 7) cr_assert_eq(tsk_link_runs_add(s, l + i, m - i < 7 ? m - i : 7, err, sizeof err), 0);
    cr_assert_eq(tsk_link_runs_count(s), m);
    tsk_clustering c;
    cr_assert_eq(tsk_clustering_init(&c, n), 0);
    tsk_greedy *g = tsk_greedy_open(&c, check);
    cr_assert_eq(tsk_link_runs_read(s, take, g, err, sizeof err), 0, "%s", err);
    tsk_greedy_finish(g);
    uint32_t *rep = malloc((size_t)n * sizeof *rep);
    float *dist = malloc((size_t)n * sizeof *dist);
    greedy_brute(n, d, rep, dist);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(c.rep[i], rep[i], "n %d p %d budget %zu: rank %d rep %u, brute %u", n, p, budget, i, c.rep[i],
                     rep[i]);
        cr_assert_eq(c.dist[i], dist[i]);
    }
    if (budget < 1000 && m > 200) cr_assert_gt(tsk_link_runs_spilled(s), 1, "a small budget spills");
    tsk_link_runs_close(s);
    tsk_clustering_free(&c);
    free(rep), free(dist), free(l), free(d);
}

Test(cluster, greedy_matches_brute_force)
{
    rng_state = 1;
    for (int trial = 0; trial < 40; trial++) {
        const int n = 1 + (int)rnd(120), p = 1 + (int)rnd(30);
        check_greedy(n, p, (size_t)1 << 20, NULL);
        check_greedy(n, p, 300, NULL); /* about a dozen links a run: many runs merged */
        check_greedy(n, p, 300, &veto);
    }
}

Test(cluster, checks_only_deciding_links)
{
    /* 60 items all linked: greedy asks about one link per item and single linkage about far fewer
     * than the 1,770 links */
    rng_state = 3;
    for (int single = 0; single < 2; single++) {
        float *d = random_graph(60, 100);
        int64_t m;
        tsk_cluster_link *l = links_of(60, d, &m);
        tsk_clustering c;
        cr_assert_eq(tsk_clustering_init(&c, 60), 0);
        n_asked = 0;
        if (single) {
            tsk_components u;
            cr_assert_eq(tsk_components_init(&u, 60), 0);
            for (int64_t i = 0; i < m; i++) tsk_components_link(&u, l[i].worse, l[i].better, &veto);
            tsk_components_free(&u);
        } else {
            char err[256];
            tsk_link_runs *s = tsk_link_runs_open(1 << 20, err, sizeof err);
            cr_assert_eq(tsk_link_runs_add(s, l, m, err, sizeof err), 0);
            tsk_greedy *g = tsk_greedy_open(&c, &veto);
            cr_assert_eq(tsk_link_runs_read(s, take, g, err, sizeof err), 0);
            tsk_greedy_finish(g);
            tsk_link_runs_close(s);
        }
        cr_assert_eq(m, 1770);
        cr_assert_lt(n_asked, 300, "%s asked about %lld links", single ? "single" : "greedy", (long long)n_asked);
        tsk_clustering_free(&c);
        free(l), free(d);
    }
}

Test(cluster, single_matches_brute_force)
{
    rng_state = 2;
    for (int trial = 0; trial < 80; trial++) {
        const int n = 1 + (int)rnd(150), p = (int)rnd(6);
        const tsk_link_check *check = trial % 2 ? &veto : NULL;
        float *d = random_graph(n, p);
        int64_t m;
        tsk_cluster_link *l = links_of(n, d, &m);
        if (check) remove_vetoed(n, d);
        tsk_components u;
        tsk_clustering c;
        cr_assert_eq(tsk_components_init(&u, n), 0);
        cr_assert_eq(tsk_clustering_init(&c, n), 0);
        for (int64_t i = 0; i < m; i++) tsk_components_link(&u, l[i].worse, l[i].better, check);
        tsk_components_finish(&u, &c);
        uint32_t *rep = malloc((size_t)n * sizeof *rep);
        single_brute(n, d, rep);
        for (int i = 0; i < n; i++) {
            cr_assert_eq(c.rep[i], rep[i]);
            cr_assert(c.rep[i] == (uint32_t)i ? c.dist[i] == 0 : isnan(c.dist[i]));
        }
        tsk_components_free(&u);
        tsk_clustering_free(&c);
        free(rep), free(l), free(d);
    }
}

Test(cluster, output_order)
{
    /* ranks 0..5: 0 and 3 representatives; 1 -> 3 (a member better ranked than its representative),
     * 2 -> 0, 4 alone, 5 -> 0 */
    tsk_clustering c;
    cr_assert_eq(tsk_clustering_init(&c, 6), 0);
    const uint32_t rep[6] = {0, 3, 0, 3, 4, 0};
    memcpy(c.rep, rep, sizeof rep);
    int64_t cluster_of[6], line[6], nc, ns;
    cr_assert_eq(tsk_clustering_order(&c, cluster_of, line, &nc, &ns), 0);
    const int64_t want_cluster[6] = {1, 2, 1, 2, 3, 1}, want_line[6] = {0, 2, 5, 3, 1, 4};
    cr_assert_eq(nc, 3);
    cr_assert_eq(ns, 1);
    for (int i = 0; i < 6; i++) cr_assert_eq(cluster_of[i], want_cluster[i], "rank %d", i);
    for (int i = 0; i < 6; i++) cr_assert_eq(line[i], want_line[i], "line %d", i);
    tsk_clustering_free(&c);
}

Test(cluster, rank_by_score_length_index)
{
    const double score[5] = {1, 2, 2, 1, 2};
    const int64_t length[5] = {9, 5, 7, 9, 7};
    int64_t order[5];
    cr_assert_eq(tsk_cluster_rank(5, score, length, order), 0);
    const int64_t want[5] = {2, 4, 1, 0, 3};
    for (int i = 0; i < 5; i++) cr_assert_eq(order[i], want[i]);
    cr_assert_eq(tsk_cluster_rank(5, NULL, length, order), 0);
    const int64_t by_length[5] = {0, 3, 2, 4, 1};
    for (int i = 0; i < 5; i++) cr_assert_eq(order[i], by_length[i]);
}

Test(cluster, rank_by_n50_contigs_length_index)
{
    /* without scores: N50 first, then fewer contigs, then longer, then the earlier input */
    const int64_t n50[6] = {400, 9000, 400, 400, 9000, 400};
    const int64_t contigs[6] = {80, 1, 75, 75, 1, 75};
    const int64_t length[6] = {35000, 9000, 30000, 30000, 9000, 31000};
    int64_t order[6];
    cr_assert_eq(tsk_cluster_rank_assembly(6, n50, contigs, length, order), 0);
    const int64_t want[6] = {1, 4, 5, 2, 3, 0};
    for (int i = 0; i < 6; i++) cr_assert_eq(order[i], want[i], "rank %d", i);
}

Test(cluster, greedy_refuses_unsorted_links)
{
    tsk_clustering c;
    cr_assert_eq(tsk_clustering_init(&c, 4), 0);
    tsk_greedy *g = tsk_greedy_open(&c, NULL);
    const tsk_cluster_link l[2] = {{3, 1, 0.1f}, {2, 0, 0.1f}};
    cr_assert_eq(tsk_greedy_add(g, l, 2), -1);
    tsk_greedy_finish(g);
    tsk_clustering_free(&c);
}
