/* genome_af.c: the aligned fraction of a pair of genome sketches (genome_af.h). */
#include "genome_af.h"

#include <math.h>

static uint64_t anchor_of(uint64_t key) { return key >> TSK_GENOME_FP_BITS; }

/* What one merge of two key lists counts: shared keys, shared anchors, each side's anchors. */
typedef struct {
    int64_t keys, anchors, anchors_a, anchors_b;
} shared_counts;

/* Distinct anchors among keys[0..n) (ascending keys: equal anchors are neighbours). */
static int64_t count_anchors(const uint64_t *k, int64_t n)
{
    int64_t c = n > 0;
    for (int64_t i = 1; i < n; i++) c += anchor_of(k[i]) != anchor_of(k[i - 1]);
    return c;
}

/* One merge of a[0..na) and b[0..nb) without branches on the data (the hot loop of --min-af).
 * A key's order is its anchor's order, so the plain merge of keys meets every shared anchor: when
 * both sides stand in runs of one anchor it compares two of their keys, and counts the anchor
 * the first time. */
static shared_counts count_shared(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    shared_counts c = {0, 0, count_anchors(a, na), count_anchors(b, nb)};
    int64_t i = 0, j = 0;
    uint64_t last = UINT64_MAX; /* the last shared anchor counted (no anchor is all ones: 40 bits) */
    while (i < na && j < nb) {
        const uint64_t x = a[i], y = b[j], ax = anchor_of(x), ay = anchor_of(y);
        const int same_anchor = ax == ay;
        c.anchors += same_anchor & (ax != last);
        last = same_anchor ? ax : last;
        c.keys += x == y;
        i += x <= y;
        j += y <= x;
    }
    return c;
}

double tsk_genome_aligned_fraction(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j, int64_t window,
                                   int anchor_k)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(q, i, r, j, &nq, &nr);
    const uint64_t *a = q->keys + q->offset[i], *b = r->keys + r->offset[j];
    const shared_counts c = count_shared(a, nq, b, nr);
    const int64_t s = c.keys, shared = c.anchors, anchors_q = c.anchors_a, anchors_r = c.anchors_b;
    if (s == 0) return 0.0;
    const int64_t n = nq < nr ? anchors_q : nr < nq ? anchors_r : anchors_q < anchors_r ? anchors_q : anchors_r;
    double af = (double)shared / (double)n;
    if (window > anchor_k) {
        const double identity = pow((double)s / (double)shared, 1.0 / (double)(window - anchor_k));
        af /= pow(identity, (double)anchor_k);
    }
    return af < 1.0 ? af : 1.0;
}
