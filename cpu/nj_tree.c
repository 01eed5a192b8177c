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
                const int64_t hi = s.live[x], lo = s.live[y];
                const float q = q_of(&s, *w_at(&s, hi, lo), hi, lo);
                if (pick_better(q, hi, lo, &best)) best = (nj_pick){q, hi, lo};
            }
        nj_join(&s, best.hi, best.lo);
    }
    nj_finish(&s);
    nj_close(&s);
    return 0;
}

/* ---- the RapidNJ-style search ---- */

typedef struct {
    uint32_t *ids;           /* other nodes, by ascending distance when the row was made */
    int64_t start, len, cap;
} nj_row;

/* float -> uint32 with the same order (negative working distances occur) */
static inline uint32_t order_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* Sorts keys[0..m) (distance key << 32 | node) by distance: LSD radix, 8 bits a pass, with
 * insertion sort for short rows. The order of equal distances does not matter. */
static void sort_keys(uint64_t *keys, uint64_t *tmp, int64_t m)
{
    if (m < 64) {
        for (int64_t i = 1; i < m; i++) {
            uint64_t k = keys[i];
            int64_t j = i;
            for (; j > 0 && (keys[j - 1] >> 32) > (k >> 32); j--) keys[j] = keys[j - 1];
            keys[j] = k;
        }
        return;
    }
    for (int shift = 32; shift < 64; shift += 8) {
        int64_t count[257] = {0};
        for (int64_t i = 0; i < m; i++) count[((keys[i] >> shift) & 0xFF) + 1]++;
        if (count[((keys[0] >> shift) & 0xFF) + 1] == m) continue;  /* one bucket: nothing moves */
        for (int b = 0; b < 256; b++) count[b + 1] += count[b];
        for (int64_t i = 0; i < m; i++) tmp[count[(keys[i] >> shift) & 0xFF]++] = keys[i];
        memcpy(keys, tmp, (size_t)m * sizeof *keys);
    }
}

/* Fills row `slot` with the live nodes of the slots in other[0..m), sorted by working distance. */
static int row_build(const nj_state *s, nj_row *row, int64_t slot, const int64_t *other, int64_t m, uint64_t *keys,
                     uint64_t *tmp)
{
    if (row->cap < m) {
        uint32_t *ids = realloc(row->ids, (size_t)m * sizeof *ids);
        if (!ids) return -1;
        row->ids = ids;
        row->cap = m;
    }
    for (int64_t i = 0; i < m; i++)
        keys[i] = (uint64_t)order_key(*w_at(s, slot, other[i])) << 32 | (uint64_t)s->node_at[other[i]];
    sort_keys(keys, tmp, m);
    for (int64_t i = 0; i < m; i++) row->ids[i] = (uint32_t)keys[i];
    row->start = 0;
    row->len = m;
    return 0;
}

/* Scans row `slot` for pairs better than *best; stops at the first entry whose bound exceeds it.
 * Entries of joined nodes met on the way are dropped from the row. */
static void row_scan(const nj_state *s, nj_row *row, int64_t slot, float r_max, nj_pick *best)
{
    const float base = s->r[slot] + r_max;
    int64_t k = row->start, stale = 0;
    for (; k < row->len; k++) {
        const int64_t other = s->slot_of[row->ids[k]];
        if (other < 0) {
            stale++;
            continue;
        }
        const float dist = *w_at(s, slot, other);
        const float bound = dist - base;
        if (bound > best->q) break;
        const float q = q_of(s, dist, slot, other);
        const int64_t hi = slot > other ? slot : other, lo = slot > other ? other : slot;
        if (pick_better(q, hi, lo, best)) *best = (nj_pick){q, hi, lo};
    }
    if (!stale) return;
    int64_t w = k;
    for (int64_t i = k - 1; i >= row->start; i--)
        if (s->slot_of[row->ids[i]] >= 0) row->ids[--w] = row->ids[i];
    row->start = w;
}

int tsk_nj_build(float *d, int64_t n, int threads, tsk_tree *tree, char *err, size_t errlen)
{
    nj_state s;
    nj_row *rows = NULL;
    uint64_t *keys = NULL, *tmp = NULL;
    int64_t *other = NULL;
    int rc = -1;
    if (threads < 1) threads = 1;
    if (nj_open(&s, d, n, tree, err, errlen)) goto done;
    rows = calloc((size_t)n, sizeof *rows);
    keys = malloc((size_t)(n ? n : 1) * sizeof *keys * (size_t)threads);
    tmp = malloc((size_t)(n ? n : 1) * sizeof *tmp * (size_t)threads);
    other = malloc((size_t)(n ? n : 1) * sizeof *other);
    if (!rows || !keys || !tmp || !other) goto oom;
    /* leaf i lists the leaves before it: each pair once, in its newer node's row */
    int failed = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) reduction(| : failed)
    for (int64_t i = n > 3 ? n - 1 : 0; i >= 1; i--) {
        const int tid = omp_get_thread_num();
        failed |= row_build(&s, &rows[i], i, s.live, i, keys + (size_t)tid * (size_t)n, tmp + (size_t)tid * (size_t)n);
    }
    if (failed) goto oom;
    while (s.n_live > 3) {
        float r_max = -FLT_MAX;
        for (int64_t x = 0; x < s.n_live; x++)
            if (s.r[s.live[x]] > r_max) r_max = s.r[s.live[x]];
        nj_pick best = {FLT_MAX, n, n};
        for (int64_t x = 0; x < s.n_live; x++) row_scan(&s, &rows[s.live[x]], s.live[x], r_max, &best);
        const int64_t hi = best.hi, lo = best.lo;
        nj_join(&s, hi, lo);
        /* the joined node's row: every other live node; the dead slot's row is dropped */
        if (rows[lo].cap > rows[hi].cap) {
            nj_row t = rows[hi];
            rows[hi] = rows[lo];
            rows[lo] = t;
        }
        free(rows[lo].ids);
        memset(&rows[lo], 0, sizeof rows[lo]);
        int64_t m = 0;
        for (int64_t x = 0; x < s.n_live; x++)
            if (s.live[x] != hi) other[m++] = s.live[x];
        if (row_build(&s, &rows[hi], hi, other, m, keys, tmp)) goto oom;
    }
    nj_finish(&s);
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory for a tree of %lld leaves", (long long)n);
done:
    for (int64_t i = 0; rows && i < n; i++) free(rows[i].ids);
    free(rows);
    free(keys);
    free(tmp);
    free(other);
    nj_close(&s);
    if (rc) tsk_tree_free(tree);
    return rc;
}
