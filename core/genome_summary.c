/* genome_summary.c: genome mode's summaries of nearest-row searches (genome_summary.h). */
#include "genome_summary.h"

#include <math.h>
#include <stdlib.h>

void tsk_genome_opts_default(tsk_genome_opts *o)
{
    o->summary = TSK_GENOME_MEAN_NEAREST;
    o->match_radius = 0.0;
    o->chord = 0;   /* chords gave no consistent gain (docs/accuracy.md) and cost twice the time */
    o->threads = 1;
    o->skip_rows = 0;
}

/* Rows of one direction whose match is "anchored": a neighbouring row (i - 1 or i + 1) found
 * its match right next to this row's match (index +-1, either strand's order). Homologous
 * windows of two collinear stretches chain like this; a window matched only because its
 * composition resembles some window of the other genome almost never does, which is what
 * separates homology from composition at ANI below ~85 % (docs/accuracy.md). With a single row
 * on either side there is no order to check, and every row counts as anchored. */
static int is_anchored(const int64_t *index, int64_t i, int64_t n, int64_t n_other)
{
    if (n < 2 || n_other < 2) return 1;
    int64_t j = index[i];
    return (i > 0 && llabs(index[i - 1] - j) == 1) || (i + 1 < n && llabs(index[i + 1] - j) == 1);
}

tsk_genome_direction tsk_genome_direction_of(const double *nearest, const int64_t *index, int64_t n, int64_t n_other,
                                             const tsk_genome_opts *o)
{
    tsk_genome_direction r = {0, 0, 0, 0};
    double s_all = 0.0, s_anch = 0.0;
    int64_t n_anch = 0, far = 0;
    for (int64_t i = 0; i < n; i++) {
        s_all += nearest[i];
        far += !(nearest[i] <= o->match_radius);
        if (index && is_anchored(index, i, n, n_other)) {
            s_anch += nearest[i];
            n_anch++;
        }
    }
    r.mean_all = s_all / (double)n;
    r.unmatched = (double)far / (double)n;
    r.anchored = (double)n_anch / (double)n;
    r.mean_anchored = n_anch ? s_anch / (double)n_anch : 0.0;
    return r;
}

/* The anchored distance: mean anchored nearest distance divided by the anchored share (both
 * averaged over the two directions). Closer genomes have nearer matches AND more of them chain;
 * the ratio ranks pairs by both, as ANI x aligned fraction does. The share is floored at one row
 * in the two sets so that genomes with nothing anchored stay finite and rank by their mean. */
static double anchored_distance(const tsk_genome_direction *a, const tsk_genome_direction *b, int64_t na, int64_t nb)
{
    double share = 0.5 * (a->anchored + b->anchored);
    double floor_share = 1.0 / (double)(na + nb);
    double m;
    if (a->anchored > 0 && b->anchored > 0) m = 0.5 * (a->mean_anchored + b->mean_anchored);
    else if (a->anchored > 0) m = a->mean_anchored;
    else if (b->anchored > 0) m = b->mean_anchored;
    else m = 0.5 * (a->mean_all + b->mean_all);
    return m / (share > floor_share ? share : floor_share);
}

double tsk_genome_combine(const tsk_genome_direction *a, const tsk_genome_direction *b, int64_t na, int64_t nb,
                          const tsk_genome_opts *o)
{
    switch (o->summary) {
    case TSK_GENOME_UNMATCHED: return 0.5 * (a->unmatched + b->unmatched);
    case TSK_GENOME_ANCHORED: return anchored_distance(a, b, na, nb);
    default: return 0.5 * (a->mean_all + b->mean_all);
    }
}

void tsk_genome_copy_mirrors(int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    for (int64_t i = 0; i < nq; i++)
        for (int64_t j = 0; j < nr; j++)
            if (tsk_genome_is_mirror(q0 + i, r0 + j, q0, r0, nr))
                out[i * ld + j] = out[(r0 + j - q0) * ld + (q0 + i - r0)];
}

/* Item i's rows as the set functions see them: without the leading partial windows. Those exist
 * only at a record's start, so a genome and its reverse complement (or another start point) would
 * otherwise differ by them. An item with nothing else keeps them all. */
const float *tsk_genome_item_rows(const tsk_sketch_set *s, int64_t i, int64_t skip, int64_t *n)
{
    int64_t first = s->first_row[i], cnt = s->n_rows[i];
    if (skip > 0 && cnt > skip) first += skip, cnt -= skip;
    *n = cnt;
    return s->rows + first * s->dim;
}
