/* genome_match.c: shared-window counts of anchored rows (genome_match.h). */
#include "genome_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/genome_summary.h"
#include "../core/tsk_def.h"

/* One set's rows, each item's sorted by projection on u. */
typedef struct {
    const tsk_sketch_set *set;
    double *proj;      /* proj[k]: projection of the item's k-th row in sorted order */
    int64_t *row;      /* row[k]: that row's global index */
    double *norm2;     /* norm2[g]: squared L2 of global row g */
    double *widest;    /* widest[i]: the widest match radius among item i's rows */
} sorted_set;

struct tsk_genome_match {
    sorted_set q, r;
    int same;          /* q and r are one set */
    int64_t window;
    int threads;
};

static int64_t total_rows(const tsk_sketch_set *s)
{
    int64_t n = 0;
    for (int64_t i = 0; i < s->n_items; i++) n += s->n_rows[i];
    return n;
}

typedef struct {
    double key;
    int64_t row;
} keyed_row;

static int by_projection(const void *x, const void *y)
{
    const keyed_row *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* A fixed unit vector (the golden angle's sines): any direction gives the same counts; one with
 * all coordinates different spreads the rows better than the diagonal would. */
static void unit_vector(double *u, int dim)
{
    double s = 0.0;
    for (int i = 0; i < dim; i++) {
        u[i] = sin(1.0 + 2.399963229728653 * i);
        s += u[i] * u[i];
    }
    s = sqrt(s);
    for (int i = 0; i < dim; i++) u[i] /= s;
}

static int sorted_set_build(sorted_set *ss, const tsk_sketch_set *s)
{
    const int64_t n = total_rows(s);
    const int dim = s->dim;
    ss->set = s;
    ss->proj = malloc((size_t)(n ? n : 1) * sizeof *ss->proj);
    ss->row = malloc((size_t)(n ? n : 1) * sizeof *ss->row);
    ss->norm2 = malloc((size_t)(n ? n : 1) * sizeof *ss->norm2);
    ss->widest = calloc((size_t)(s->n_items > 0 ? s->n_items : 1), sizeof *ss->widest);
    keyed_row *keyed = malloc((size_t)(n ? n : 1) * sizeof *keyed);
    double *u = malloc((size_t)dim * sizeof *u);
    if (!ss->proj || !ss->row || !ss->norm2 || !ss->widest || !keyed || !u) {
        free(keyed);
        free(u);
        return -1;
    }
    unit_vector(u, dim);
    for (int64_t g = 0; g < n; g++) {
        const float *a = s->rows + g * dim;
        double p = 0.0, q = 0.0;
        for (int i = 0; i < dim; i++) p += u[i] * a[i], q += (double)a[i] * a[i];
        keyed[g] = (keyed_row){p, g};
        ss->norm2[g] = q;
    }
    /* items own consecutive rows: each item's slice is sorted on its own */
    for (int64_t i = 0; i < s->n_items; i++) {
        qsort(keyed + s->first_row[i], (size_t)s->n_rows[i], sizeof *keyed, by_projection);
        double w = 0.0;
        for (int64_t g = s->first_row[i]; g < s->first_row[i] + s->n_rows[i]; g++)
            if (ss->norm2[g] > w) w = ss->norm2[g];
        ss->widest[i] = TSK_GENOME_MATCH_EPS * sqrt(w);
    }
    for (int64_t g = 0; g < n; g++) ss->proj[g] = keyed[g].key, ss->row[g] = keyed[g].row;
    free(keyed);
    free(u);
    return 0;
}

static void sorted_set_free(sorted_set *ss)
{
    free(ss->proj);
    free(ss->row);
    free(ss->norm2);
    free(ss->widest);
}

tsk_genome_match *tsk_genome_match_open(const tsk_sketch_set *q, const tsk_sketch_set *r, int64_t window,
                                        int threads, char *err, size_t errlen)
{
    tsk_genome_match *m = calloc(1, sizeof *m);
    if (!m) goto oom;
    m->same = q == r;
    m->window = window;
    m->threads = threads > 0 ? threads : 1;
    if (sorted_set_build(&m->q, q)) goto oom;
    if (m->same) m->r = m->q;
    else if (sorted_set_build(&m->r, r)) goto oom;
    return m;
oom:
    snprintf(err, errlen, "out of memory sorting the rows of genome mode");
    tsk_genome_match_close(m);
    return NULL;
}

void tsk_genome_match_close(tsk_genome_match *m)
{
    if (!m) return;
    sorted_set_free(&m->q);
    if (!m->same) sorted_set_free(&m->r);
    free(m);
}

static int within(const float *a, const float *b, int dim, double limit2)
{
    double d2 = 0.0;
    for (int i = 0; i < dim; i++) {
        const double d = (double)a[i] - b[i];
        d2 += d * d;
    }
    return d2 <= limit2;
}

/* Rows of item i of a matched by some row of item j of b. Both items are walked in projection
 * order: the start of the candidate band only moves forward (it trails by the item's widest band),
 * so a pair costs O(na + nb) plus the candidates' distances. */
static int64_t matched_rows(const sorted_set *a, int64_t i, const sorted_set *b, int64_t j)
{
    const int dim = a->set->dim;
    const int64_t a0 = a->set->first_row[i], a1 = a0 + a->set->n_rows[i];
    const int64_t b0 = b->set->first_row[j], b1 = b0 + b->set->n_rows[j];
    const double widest = a->widest[i];
    int64_t matched = 0, start = b0;
    for (int64_t k = a0; k < a1; k++) {
        const int64_t g = a->row[k];
        const double p = a->proj[k];
        const double limit2 = TSK_GENOME_MATCH_EPS * TSK_GENOME_MATCH_EPS * a->norm2[g];
        /* |u.(a-b)| <= |a-b|; the slack covers the rounding of the two projections */
        const double slack = 1e-9 * widest + 1e-12 * (1.0 + fabs(p));
        const double band = sqrt(limit2) + slack;
        while (start < b1 && b->proj[start] < p - widest - slack) start++;
        const float *row = a->set->rows + g * dim;
        for (int64_t l = start; l < b1 && b->proj[l] <= p + band; l++)
            if (b->proj[l] >= p - band && within(row, b->set->rows + b->row[l] * dim, dim, limit2)) {
                matched++;
                break;
            }
    }
    return matched;
}

double tsk_genome_match_distance(int64_t matched_a, int64_t na, int64_t matched_b, int64_t nb, int64_t window)
{
    if (na == 0 && nb == 0) return 0.0;
    if (na == 0 || nb == 0) return INFINITY;
    const double f = 0.5 * ((double)matched_a / (double)na + (double)matched_b / (double)nb);
    return f > 0.0 ? 1.0 - pow(f, 1.0 / (double)(window > 0 ? window : 1)) : 1.0;
}

int tsk_genome_match_block(const tsk_genome_match *m, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                           int64_t ld)
{
    if (!m || nq < 0 || nr < 0 || q0 < 0 || r0 < 0 || q0 + nq > m->q.set->n_items || r0 + nr > m->r.set->n_items ||
        (nq > 0 && ld < nr))
        return -1;
    /* one set against itself: a mirrored pair inside the block is counted once, then copied */
    const int64_t cells = nq * nr;
#pragma omp parallel for schedule(dynamic, 1) num_threads(m->threads)
    for (int64_t c = 0; c < cells; c++) {
        const int64_t i = q0 + c / nr, j = r0 + c % nr;
        double d;
        if (m->same && tsk_genome_is_mirror(i, j, q0, r0, nr)) continue;
        if (m->same && i == j) {
            d = 0.0;
        } else {
            const int64_t na = m->q.set->n_rows[i], nb = m->r.set->n_rows[j];
            const int64_t ma = na && nb ? matched_rows(&m->q, i, &m->r, j) : 0;
            const int64_t mb = na && nb ? matched_rows(&m->r, j, &m->q, i) : 0;
            d = tsk_genome_match_distance(ma, na, mb, nb, m->window);
        }
        out[(c / nr) * ld + c % nr] = (float)d;
    }
    if (m->same) tsk_genome_copy_mirrors(q0, nq, r0, nr, out, ld);
    return 0;
}

int64_t tsk_genome_matched_ref(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim)
{
    int64_t matched = 0;
    for (int64_t i = 0; i < na; i++) {
        const float *a = rows_a + i * dim;
        double n2 = 0.0;
        for (int k = 0; k < dim; k++) n2 += (double)a[k] * a[k];
        const double limit2 = TSK_GENOME_MATCH_EPS * TSK_GENOME_MATCH_EPS * n2;
        for (int64_t j = 0; j < nb; j++)
            if (within(a, rows_b + j * dim, dim, limit2)) {
                matched++;
                break;
            }
    }
    return matched;
}
