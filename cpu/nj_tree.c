/* nj_tree.c: neighbour joining with quicktree's arithmetic and a RapidNJ-style search (see
 * nj_tree.h). Every float operation below is written out in the type quicktree uses for it, so
 * the build must not reassociate or contract floating point (no -ffast-math). */
#include "nj_tree.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    float *d;                /* lower triangle: the input; upper: the working matrix */
    int64_t n;
    float *r;                /* r[slot]: row sum / (live - 2), float as in quicktree */
    double live_f;           /* live nodes, as quicktree's fnumseqs */
    int64_t *node_at;        /* node in each slot, -1 once the slot is dead */
    int64_t *slot_of;        /* slot of each node, -1 once it has been joined */
    int64_t *live;           /* live slots, ascending */
    int64_t n_live;
    tsk_tree *tree;
    int64_t joins;
} nj_state;

/* Working distance between the nodes in slots a != b. */
static inline float *w_at(const nj_state *s, int64_t a, int64_t b)
{
    return a < b ? &s->d[a * s->n + b] : &s->d[b * s->n + a];
}

static int nj_open(nj_state *s, float *d, int64_t n, tsk_tree *tree, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    memset(tree, 0, sizeof *tree);
    s->d = d;
    s->n = n;
    s->tree = tree;
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = 0; j < i; j++)
            if (!isfinite(d[i * n + j])) {
                snprintf(err, errlen, "distance of items %lld and %lld is %g: a tree needs finite distances",
                         (long long)j, (long long)i, (double)d[i * n + j]);
                return -1;
            }
    if (tsk_tree_alloc(tree, n)) goto oom;
    s->r = malloc((size_t)n * sizeof *s->r);
    s->node_at = malloc((size_t)n * sizeof *s->node_at);
    s->slot_of = malloc((size_t)(2 * n) * sizeof *s->slot_of);
    s->live = malloc((size_t)n * sizeof *s->live);
    if (!s->r || !s->node_at || !s->slot_of || !s->live) goto oom;
    for (int64_t i = 0; i < 2 * n; i++) s->slot_of[i] = i < n ? i : -1;
    for (int64_t i = 0; i < n; i++) s->node_at[i] = s->live[i] = i;
    s->n_live = n;
    s->live_f = (double)n;
    /* the working copy, transposed into the upper triangle, a tile at a time (cache) */
    const int64_t tile = 64;
    for (int64_t i0 = 0; i0 < n; i0 += tile)
        for (int64_t j0 = 0; j0 <= i0; j0 += tile)
            for (int64_t i = i0; i < i0 + tile && i < n; i++)
                for (int64_t j = j0; j < j0 + tile && j < i; j++) d[j * n + i] = d[i * n + j];
    for (int64_t i = 0; i < n; i++) {
        double sum = 0;  /* in slot order, as quicktree sums */
        for (int64_t k = 0; k < n; k++)
            if (k != i) sum += *w_at(s, i, k);
        s->r[i] = (float)(sum / (s->live_f - 2.0));
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory for a tree of %lld leaves", (long long)n);
    return -1;
}

static void nj_close(nj_state *s)
{
    free(s->r);
    free(s->node_at);
    free(s->slot_of);
    free(s->live);
}

/* quicktree's rule for a negative branch: it gets 0 and its sister the whole distance. */
static void clamp_pair(double *a, double *b, double total)
{
    if (*a < 0.0) {
        *a = 0.0;
        *b = total < 0.0 ? 0.0 : total;
    } else if (*b < 0.0) {
        *b = 0.0;
        *a = total < 0.0 ? 0.0 : total;
    }
}

/* Joins the nodes of slots hi > lo into a node that takes slot hi; updates the working matrix
 * and r exactly as quicktree does. */
static void nj_join(nj_state *s, int64_t hi, int64_t lo)
{
    const double dij = *w_at(s, hi, lo);
    double len_hi = (dij + (double)s->r[hi] - (double)s->r[lo]) * 0.5;
    double len_lo = dij - len_hi;
    clamp_pair(&len_hi, &len_lo, dij);
    tsk_tree *t = s->tree;
    const int64_t a = s->node_at[hi], b = s->node_at[lo], joined = t->n_leaves + s->joins;
    t->length[a] = len_hi;
    t->length[b] = len_lo;
    t->children[s->joins][0] = a;
    t->children[s->joins][1] = b;
    s->joins++;
    s->slot_of[a] = s->slot_of[b] = -1;
    s->slot_of[joined] = hi;
    s->node_at[hi] = joined;
    s->node_at[lo] = -1;
    int64_t k = 0;
    while (s->live[k] != lo) k++;
    memmove(&s->live[k], &s->live[k + 1], (size_t)(s->n_live - k - 1) * sizeof *s->live);
    s->n_live--;

    float r_hi = 0.0f;
    const double f = s->live_f;
    for (int64_t i = 0; i < s->n_live; i++) {
        const int64_t m = s->live[i];
        if (m == hi) continue;
        const double dmj = *w_at(s, m, lo), dmi = *w_at(s, m, hi);
        float *w = w_at(s, m, hi);
        *w = (float)((dmi + dmj - dij) * 0.5);
        s->r[m] = (float)(((double)s->r[m] * (f - 2.0) - dmi - dmj + (double)*w) / (f - 3.0));
        r_hi = r_hi + *w;
    }
    s->live_f = f - 1.0;
    s->r[hi] = (float)((double)r_hi / (s->live_f - 2.0));
}

/* The last three nodes hang from the top node; quicktree's rule for negative lengths there. */
static void nj_finish(nj_state *s)
{
    tsk_tree *t = s->tree;
    t->n_top = (int)s->n_live;
    for (int64_t i = 0; i < s->n_live; i++) t->top[i] = s->node_at[s->live[i]];
    if (s->n_live == 2) {
        t->length[t->top[0]] = t->length[t->top[1]] = (double)*w_at(s, s->live[1], s->live[0]) * 0.5;
        return;
    }
    if (s->n_live < 3) {
        if (s->n_live == 1) t->length[t->top[0]] = 0.0;
        return;
    }
    const int64_t l0 = s->live[0], l1 = s->live[1], l2 = s->live[2];
    const double a = *w_at(s, l1, l0), b = *w_at(s, l2, l0), c = *w_at(s, l2, l1);
    double x = (a + b - c) * 0.5, y = a - x, z = b - x;
    /* the first negative length becomes 0, its two sisters take their whole distances to it,
     * and a second negative one goes to 0 with the third taking the mean of its two */
    if (x < 0.0) {
        x = 0.0, y = a, z = b;
        if (y < 0.0) y = 0.0, z = fmax((b + c) * 0.5, 0.0);
        else if (z < 0.0) z = 0.0, y = fmax((a + c) * 0.5, 0.0);
    } else if (y < 0.0) {
        y = 0.0, x = a, z = c;
        if (x < 0.0) x = 0.0, z = fmax((b + c) * 0.5, 0.0);
        else if (z < 0.0) z = 0.0, x = fmax((a + b) * 0.5, 0.0);
    } else if (z < 0.0) {
        z = 0.0, x = b, y = c;
        if (x < 0.0) x = 0.0, y = fmax((a + c) * 0.5, 0.0);
        else if (y < 0.0) y = 0.0, x = fmax((a + b) * 0.5, 0.0);
    }
    t->length[t->top[0]] = x;
    t->length[t->top[1]] = y;
    t->length[t->top[2]] = z;
}

/* quicktree's choice between two candidate pairs: smaller Q, then earlier in its scan (larger
 * slot ascending, then smaller slot ascending). */
typedef struct {
    float q;
    int64_t hi, lo;
} nj_pick;

static inline int pick_better(float q, int64_t hi, int64_t lo, const nj_pick *p)
{
    return q < p->q || (q == p->q && (hi < p->hi || (hi == p->hi && lo < p->lo)));
}

static inline float q_of(const nj_state *s, float dist, int64_t a, int64_t b)
{
    const float rr = s->r[a] + s->r[b];
    return dist - rr;
}

/* Offers the pair of slots a != b, at working distance dist, to *best. */
static inline void offer(const nj_state *s, float dist, int64_t a, int64_t b, nj_pick *best)
{
    const float q = q_of(s, dist, a, b);
    const int64_t hi = a > b ? a : b, lo = a > b ? b : a;
    if (pick_better(q, hi, lo, best)) *best = (nj_pick){q, hi, lo};
}

int tsk_nj_build_naive(float *d, int64_t n, tsk_tree *tree, char *err, size_t errlen)
{
    nj_state s;
    if (nj_open(&s, d, n, tree, err, errlen)) {
        nj_close(&s);
        tsk_tree_free(tree);
        return -1;
    }
    while (s.n_live > 3) {
        nj_pick best = {FLT_MAX, n, n};
        for (int64_t x = 0; x < s.n_live; x++)
            for (int64_t y = 0; y < x; y++) {
                offer(&s, *w_at(&s, s.live[x], s.live[y]), s.live[x], s.live[y], &best);
            }
        nj_join(&s, best.hi, best.lo);
    }
    nj_finish(&s);
    nj_close(&s);
    return 0;
}

/* ---- the RapidNJ-style search ---- */

/* A row keeps only its nearest members, PREFIX at first: the scan stops within the first dozen
 * entries on typical data. A row that runs out is refilled from the working matrix, twice as
 * long when its entries were still live (a row whose node is far from all others needs more). */
#define PREFIX 32

typedef struct {
    float v;                 /* working distance (constant while both nodes live) */
    uint32_t id;             /* the other node */
} nj_entry;

/* Row of the node X in a slot: its members are the live nodes older than X (smaller id), each
 * pair so listed once. e[start..len) holds the nearest of them, ascending; every member not in
 * e[] is at least `rest` away (INFINITY when e[] held them all). */
typedef struct {
    nj_entry *e;
    int32_t start, len, cap;
    float rest;
} nj_row;

static void heap_sift_down(nj_entry *h, int32_t m, int32_t i)
{
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= m) return;
        if (c + 1 < m && h[c + 1].v > h[c].v) c++;
        if (h[c].v <= h[i].v) return;
        nj_entry t = h[i];
        h[i] = h[c];
        h[c] = t;
        i = c;
    }
}

/* Adds (v, id) to the max-heap h (*m entries) of the cap smallest values seen. */
static inline void heap_offer(nj_entry *h, int32_t *m, int32_t cap, float v, uint32_t id)
{
    if (*m < cap) {
        int32_t i = (*m)++;
        h[i] = (nj_entry){v, id};
        while (i > 0 && h[(i - 1) / 2].v < h[i].v) {
            nj_entry t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (v < h[0].v) {
        h[0] = (nj_entry){v, id};
        heap_sift_down(h, cap, 0);
    }
}

/* Turns the heap in row->e (m entries of `all` members) into the ascending prefix. */
static void row_from_heap(nj_row *row, int32_t m, int64_t all)
{
    nj_entry *h = row->e;
    row->rest = all > m ? h[0].v : INFINITY;
    for (int32_t k = m - 1; k > 0; k--) { /* heap sort: largest to the end */
        nj_entry t = h[0];
        h[0] = h[k];
        h[k] = t;
        heap_sift_down(h, k, 0);
    }
    row->start = 0;
    row->len = m;
}

static int row_reserve(nj_row *row, int64_t cap)
{
    if (row->cap >= cap) return 0;
    nj_entry *e = realloc(row->e, (size_t)cap * sizeof *e);
    if (!e) return -1;
    row->e = e;
    row->cap = (int32_t)cap;
    return 0;
}

/* Refills the row of `slot` from the working matrix, cap entries long; with best, also offers
 * every member to it (the scan of a row whose unlisted members could still win). 0 or -1. */
static int row_fill(const nj_state *s, nj_row *row, int64_t slot, int64_t cap, nj_pick *best)
{
    if (cap > s->n_live) cap = s->n_live;
    if (row_reserve(row, cap < PREFIX ? PREFIX : cap)) return -1;
    int32_t m = 0;
    int64_t all = 0;
    const int64_t x = s->node_at[slot];
    for (int64_t k = 0; k < s->n_live; k++) {
        const int64_t other = s->live[k];
        if (other == slot || s->node_at[other] > x) continue;
        all++;
        const float dist = *w_at(s, slot, other);
        heap_offer(row->e, &m, (int32_t)cap, dist, (uint32_t)s->node_at[other]);
        if (best) offer(s, dist, slot, other, best);
    }
    row_from_heap(row, m, all);
    return 0;
}

/* Scans the row of `slot` for pairs better than *best, up to the first entry whose bound
 * d - (r_slot + r_max) exceeds it; entries of joined nodes met on the way are dropped. A row that
 * runs out while its unlisted members could still do better is scanned whole from the working
 * matrix and refilled. 0 or -1 (out of memory). */
static int row_scan(const nj_state *s, nj_row *row, int64_t slot, float r_max, nj_pick *best)
{
    if (row->start == row->len && row->rest == INFINITY) return 0; /* no members left */
    const float base = s->r[slot] + r_max;
    int32_t k = row->start, stale = 0;
    for (; k < row->len; k++) {
        const int64_t other = s->slot_of[row->e[k].id];
        if (other < 0) {
            stale++;
            continue;
        }
        const float dist = row->e[k].v;
        const float bound = dist - base;
        if (bound > best->q) break;
        offer(s, dist, slot, other, best);
    }
    const int32_t live_seen = k - row->start - stale;
    if (stale) { /* keep the live entries before k, packed against k */
        int32_t w = k;
        for (int32_t i = k - 1; i >= row->start; i--)
            if (s->slot_of[row->e[i].id] >= 0) row->e[--w] = row->e[i];
        row->start = w;
    }
    const float rest_bound = row->rest - base;
    if (k < row->len || !(rest_bound <= best->q)) return 0;
    return row_fill(s, row, slot, live_seen >= row->cap / 2 ? 2 * (int64_t)row->cap : row->cap, best);
}

/* A lower bound of every distance the row lists or may list: entries only ever leave a row. */
static float row_low(const nj_row *row) { return row->start < row->len ? row->e[row->start].v : row->rest; }

int tsk_nj_build(float *d, int64_t n, int threads, tsk_tree *tree, char *err, size_t errlen)
{
    nj_state s;
    nj_row *rows = NULL;
    float *low = NULL;
    int rc = -1;
    if (threads < 1) threads = 1;
    if (nj_open(&s, d, n, tree, err, errlen)) goto done;
    rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    low = malloc((size_t)(n ? n : 1) * sizeof *low);
    if (!rows || !low) goto oom;
    /* leaf i's members are the leaves before it: its input row, read in order */
    int failed = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) reduction(| : failed)
    for (int64_t i = 0; i < n; i++) {
        int32_t m = 0;
        if (row_reserve(&rows[i], PREFIX)) {
            failed = 1;
            continue;
        }
        for (int64_t j = 0; j < i; j++) heap_offer(rows[i].e, &m, PREFIX, d[i * n + j], (uint32_t)j);
        row_from_heap(&rows[i], m, i);
    }
    if (failed) goto oom;
    for (int64_t i = 0; i < n; i++) low[i] = row_low(&rows[i]);
    while (s.n_live > 3) {
        /* A row whose nearest listed distance already bounds Q above the best is skipped
         * unread: low[] and r[] are read in order, rows only where they might win. The row
         * with the smallest bound goes first, so that the best is tight early. */
        float r_max = -FLT_MAX;
        int64_t first = s.live[0];
        for (int64_t x = 0; x < s.n_live; x++) {
            const int64_t i = s.live[x];
            if (s.r[i] > r_max) r_max = s.r[i];
            if (low[i] - s.r[i] < low[first] - s.r[first]) first = i;
        }
        nj_pick best = {FLT_MAX, n, n};
        if (row_scan(&s, &rows[first], first, r_max, &best)) goto oom;
        low[first] = row_low(&rows[first]);
        for (int64_t x = 0; x < s.n_live; x++) {
            const int64_t i = s.live[x];
            const float base = s.r[i] + r_max;
            const float bound = low[i] - base;
            if (bound > best.q || i == first) continue;
            if (row_scan(&s, &rows[i], i, r_max, &best)) goto oom;
            low[i] = row_low(&rows[i]);
        }
        nj_join(&s, best.hi, best.lo);
        /* the joined node takes slot hi: its row lists every other live node */
        if (row_fill(&s, &rows[best.hi], best.hi, PREFIX, NULL)) goto oom;
        low[best.hi] = row_low(&rows[best.hi]);
    }
    nj_finish(&s);
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory for a tree of %lld leaves", (long long)n);
done:
    for (int64_t i = 0; rows && i < n; i++) free(rows[i].e);
    free(rows);
    free(low);
    nj_close(&s);
    if (rc) tsk_tree_free(tree);
    return rc;
}
