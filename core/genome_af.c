/* genome_af.c: the aligned fraction of a pair of genome sketches (genome_af.h). */
#include "genome_af.h"

#include <math.h>

static uint64_t anchor_of(uint64_t key) { return key >> TSK_GENOME_FP_BITS; }

/* What one merge of two key lists counts: shared keys, shared anchors, each side's anchors. */
typedef struct {
    int64_t keys, anchors, anchors_a, anchors_b;
} shared_counts;

/* Walks a[0..na) and b[0..nb) (ascending keys: equal anchors are neighbours) anchor run by anchor
 * run, in one pass: a pair is the hot loop of --min-af, once per link. */
static shared_counts count_shared(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    shared_counts c = {0, 0, 0, 0};
    int64_t i = 0, j = 0;
    while (i < na && j < nb) {
        const uint64_t x = anchor_of(a[i]), y = anchor_of(b[j]);
        if (x != y) {
            if (x < y) {
                c.anchors_a++;
                while (i < na && anchor_of(a[i]) == x) i++;
            } else {
                c.anchors_b++;
                while (j < nb && anchor_of(b[j]) == y) j++;
            }
            continue;
        }
        c.anchors++, c.anchors_a++, c.anchors_b++;
        int64_t ie = i, je = j; /* the two runs of this anchor: usually one key each */
        while (ie < na && anchor_of(a[ie]) == x) ie++;
        while (je < nb && anchor_of(b[je]) == x) je++;
        c.keys += tsk_genome_shared_ref(a + i, ie - i, b + j, je - j);
        i = ie, j = je;
    }
    for (; i < na; i++) c.anchors_a += i == 0 || anchor_of(a[i]) != anchor_of(a[i - 1]);
    for (; j < nb; j++) c.anchors_b += j == 0 || anchor_of(b[j]) != anchor_of(b[j - 1]);
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
