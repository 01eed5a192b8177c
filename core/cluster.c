/* cluster.c: greedy and single-linkage clusters from links (cluster.h). */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- ranking ---- */

typedef struct {
    double score;
    int64_t n50, n_contigs, length, index;
} rank_key;

static int better_first(const void *pa, const void *pb)
{
    const rank_key *a = pa, *b = pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    if (a->n50 != b->n50) return a->n50 > b->n50 ? -1 : 1;
    if (a->n_contigs != b->n_contigs) return a->n_contigs < b->n_contigs ? -1 : 1;
    if (a->length != b->length) return a->length > b->length ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Absent arrays make their key equal for all items, so that the next one decides. */
static int rank_by(int64_t n, const double *score, const int64_t *n50, const int64_t *n_contigs,
                   const int64_t *length, int64_t *order)
{
    rank_key *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    if (!k) return -1;
    for (int64_t i = 0; i < n; i++)
        k[i] = (rank_key){score ? score[i] : 0, n50 ? n50[i] : 0, n_contigs ? n_contigs[i] : 0,
                          length ? length[i] : 0, i};
    qsort(k, (size_t)n, sizeof *k, better_first);
    for (int64_t i = 0; i < n; i++) order[i] = k[i].index;
    free(k);
    return 0;
}

int tsk_cluster_rank(int64_t n, const double *score, const int64_t *length, int64_t *order)
{
    return rank_by(n, score, NULL, NULL, length, order);
}

int tsk_cluster_rank_assembly(int64_t n, const int64_t *n50, const int64_t *n_contigs, const int64_t *length,
                              int64_t *order)
{
    return rank_by(n, NULL, n50, n_contigs, length, order);
}

/* ---- the result ---- */

int tsk_clustering_init(tsk_clustering *c, int64_t n)
{
    c->n = n;
    c->rep = malloc((size_t)(n > 0 ? n : 1) * sizeof *c->rep);
    c->dist = malloc((size_t)(n > 0 ? n : 1) * sizeof *c->dist);
    if (!c->rep || !c->dist) {
        tsk_clustering_free(c);
        return -1;
    }
    for (int64_t r = 0; r < n; r++) c->rep[r] = (uint32_t)r, c->dist[r] = 0;
    return 0;
}

void tsk_clustering_free(tsk_clustering *c)
{
    free(c->rep);
    free(c->dist);
    c->rep = NULL, c->dist = NULL;
}

static int is_representative(const tsk_clustering *c, int64_t r) { return c->rep[r] == (uint32_t)r; }

/* ---- greedy ---- */

struct tsk_greedy {
    tsk_clustering *c;
    const tsk_link_check *check;  /* NULL: every link holds */
    int reassign;             /* a new representative takes better-ranked members nearer to it */
    int64_t next_visit;       /* the first rank not visited yet */
    int64_t item;             /* the rank whose links are gathered in links[], -1 before the first */
    uint64_t last_key;        /* (worse, better) of the last link taken: the order check */
    int have_last;
    tsk_cluster_link *links;  /* the links of item */
    int64_t n_links, cap_links;
};

tsk_greedy *tsk_greedy_open(tsk_clustering *c, const tsk_link_check *check)
{
    tsk_greedy *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->c = c;
    g->check = check;
    g->reassign = 1;
    g->item = -1;
    return g;
}

void tsk_greedy_set_reassign(tsk_greedy *g, int reassign) { g->reassign = reassign; }

static int holds(const tsk_link_check *check, uint32_t a, uint32_t b)
{
    return !check || check->holds(check->ctx, a, b);
}

static int nearer_first(const void *pa, const void *pb)
{
    const tsk_cluster_link *x = pa, *y = pb;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return (x->better > y->better) - (x->better < y->better);
}

/* Visits item w with its links to better items l[0..n) (sorted by the better rank): it joins
 * the nearest representative among them, or becomes one and takes from its linked members those
 * it is nearer to. Members' ties stay with the representative they have: it ranks better (it was
 * visited first, or is better than w). The check is asked in order of nearness, so only about the
 * links that decide. */
static void visit(tsk_clustering *c, const tsk_link_check *check, int reassign, int64_t w, tsk_cluster_link *l,
                  int64_t n)
{
    int64_t best = -1;
    float best_dist = INFINITY;
    if (!check) {
        for (int64_t i = 0; i < n; i++)
            if (is_representative(c, l[i].better) && l[i].dist < best_dist) best = l[i].better, best_dist = l[i].dist;
    } else {
        if (n > 1) qsort(l, (size_t)n, sizeof *l, nearer_first);
        for (int64_t i = 0; i < n && best < 0; i++)
            if (is_representative(c, l[i].better) && holds(check, (uint32_t)w, l[i].better))
                best = l[i].better, best_dist = l[i].dist;
    }
    if (best >= 0) {
        c->rep[w] = (uint32_t)best;
        c->dist[w] = best_dist;
        return;
    }
    c->rep[w] = (uint32_t)w;
    c->dist[w] = 0;
    for (int64_t i = 0; reassign && i < n; i++) {
        const uint32_t b = l[i].better;
        if (!is_representative(c, b) && l[i].dist < c->dist[b] && holds(check, (uint32_t)w, b))
            c->rep[b] = (uint32_t)w, c->dist[b] = l[i].dist;
    }
}

/* Visits every item before rank `until`: the gathered item with its links, the others (no links
 * to better items) as representatives. */
static void visit_until(tsk_greedy *g, int64_t until)
{
    for (; g->next_visit < until; g->next_visit++) {
        const int with_links = g->next_visit == g->item;
        visit(g->c, g->check, g->reassign, g->next_visit, with_links ? g->links : NULL, with_links ? g->n_links : 0);
    }
}

int tsk_greedy_add(tsk_greedy *g, const tsk_cluster_link *links, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        const tsk_cluster_link *l = &links[i];
        const uint64_t key = (uint64_t)l->worse << 32 | l->better;
        if ((g->have_last && key <= g->last_key) || l->better >= l->worse || (int64_t)l->worse >= g->c->n) return -1;
        g->last_key = key, g->have_last = 1;
        if ((int64_t)l->worse != g->item) {
            visit_until(g, (int64_t)l->worse);
            g->item = l->worse;
            g->n_links = 0;
        }
        if (g->n_links == g->cap_links) {
            const int64_t cap = g->cap_links ? 2 * g->cap_links : 64;
            tsk_cluster_link *b = realloc(g->links, (size_t)cap * sizeof *b);
            if (!b) return -1;
            g->links = b, g->cap_links = cap;
        }
        g->links[g->n_links++] = *l;
    }
    return 0;
}

int tsk_greedy_finish(tsk_greedy *g)
{
    visit_until(g, g->c->n);
    free(g->links);
    free(g);
    return 0;
}

/* ---- single linkage ---- */

int tsk_components_init(tsk_components *u, int64_t n)
{
    u->n = n;
    if (!(u->parent = malloc((size_t)(n > 0 ? n : 1) * sizeof *u->parent))) return -1;
    for (int64_t r = 0; r < n; r++) u->parent[r] = (uint32_t)r;
    return 0;
}

/* The root of r's tree (path halving on the way). Every root is the best rank of its tree. */
static uint32_t root_of(tsk_components *u, uint32_t r)
{
    while (u->parent[r] != r) {
        u->parent[r] = u->parent[u->parent[r]];
        r = u->parent[r];
    }
    return r;
}

void tsk_components_link(tsk_components *u, uint32_t a, uint32_t b, const tsk_link_check *check)
{
    const uint32_t ra = root_of(u, a), rb = root_of(u, b);
    if (ra == rb || !holds(check, a, b)) return;
    if (ra < rb) u->parent[rb] = ra;
    else if (rb < ra) u->parent[ra] = rb;
}

void tsk_components_finish(tsk_components *u, tsk_clustering *c)
{
    for (int64_t r = 0; r < u->n; r++) {
        c->rep[r] = root_of(u, (uint32_t)r);
        c->dist[r] = c->rep[r] == (uint32_t)r ? 0.0f : NAN;
    }
}

void tsk_components_free(tsk_components *u)
{
    free(u->parent);
    u->parent = NULL;
}

/* ---- output order ---- */

int tsk_clustering_order(const tsk_clustering *c, int64_t *cluster_of, int64_t *line, int64_t *n_clusters,
                         int64_t *n_singletons)
{
    const int64_t n = c->n;
    int64_t nc = 0;
    for (int64_t r = 0; r < n; r++)
        if (is_representative(c, r)) cluster_of[r] = ++nc;
    for (int64_t r = 0; r < n; r++) cluster_of[r] = cluster_of[c->rep[r]];
    int64_t *start = calloc((size_t)nc + 2, sizeof *start);
    if (!start) return -1;
    for (int64_t r = 0; r < n; r++) start[cluster_of[r] + 1]++;
    for (int64_t k = 1; k <= nc + 1; k++) start[k] += start[k - 1];
    *n_singletons = 0;
    for (int64_t k = 1; k <= nc; k++) *n_singletons += start[k + 1] - start[k] == 1;
    /* representatives open their clusters; members follow in rank order */
    for (int64_t r = 0; r < n; r++)
        if (is_representative(c, r)) line[start[cluster_of[r]]++] = r;
    for (int64_t r = 0; r < n; r++)
        if (!is_representative(c, r)) line[start[cluster_of[r]]++] = r;
    *n_clusters = nc;
    free(start);
    return 0;
}
