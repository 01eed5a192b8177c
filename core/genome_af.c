/* genome_af.c: the aligned fraction of a pair of genome sketches (genome_af.h). */
#include "genome_af.h"

#include <math.h>

static uint64_t anchor_of(uint64_t key) { return key >> TSK_GENOME_FP_BITS; }

/* Distinct anchors among keys[0..n) (ascending keys: equal anchors are neighbours). */
static int64_t count_anchors(const uint64_t *k, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += i == 0 || anchor_of(k[i]) != anchor_of(k[i - 1]);
    return c;
}

/* Distinct anchors both a[0..na) and b[0..nb) hold: a merge over the anchor runs. */
static int64_t shared_anchors(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb)
{
    int64_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        const uint64_t x = anchor_of(a[i]), y = anchor_of(b[j]);
        if (x < y) i++;
        else if (y < x) j++;
        else {
            c++;
            while (i < na && anchor_of(a[i]) == x) i++;
            while (j < nb && anchor_of(b[j]) == x) j++;
        }
    }
    return c;
}

double tsk_genome_aligned_fraction(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j, int64_t window,
                                   int anchor_k)
{
    int64_t nq, nr;
    tsk_genome_pair_sizes(q, i, r, j, &nq, &nr);
    const uint64_t *a = q->keys + q->offset[i], *b = r->keys + r->offset[j];
    const int64_t s = tsk_genome_shared_ref(a, nq, b, nr);
    if (s == 0) return 0.0;
    const int64_t shared = shared_anchors(a, nq, b, nr), anchors_q = count_anchors(a, nq),
                  anchors_r = count_anchors(b, nr);
    const int64_t n = nq < nr ? anchors_q : nr < nq ? anchors_r : anchors_q < anchors_r ? anchors_q : anchors_r;
    double af = (double)shared / (double)n;
    if (window > anchor_k) {
        const double identity = pow((double)s / (double)shared, 1.0 / (double)(window - anchor_k));
        af /= pow(identity, (double)anchor_k);
    }
    return af < 1.0 ? af : 1.0;
}
