/* sketch_slide.c: Tensor Slide Sketch rows on the CPU (see sketch_dp.h).
 *
 * A window's state is the count rows N[j][d] of every start level j (sketch_kernel.h), in double.
 * Appending c is the DP step; removing the first character c inverts the split formula with
 * |u| = 1, which in counts is a plain subtraction (no division, nothing to amplify):
 *
 *     N_{cW}[j][d] = N_W[j][d] + sign[j][c] * shift_{hash[j][c]} N_W[j+1][d-1]
 *
 * so with j descending N_W[j][d] = N_{cW}[j][d] - sign[j][c] shift N_W[j+1][d-1]. Counts below
 * 2^53 are exact integers in double, so a window of up to ~10^4 bases at t = 4 slides without any
 * rounding at all; beyond, the state is rebuilt from scratch at the start of each group of rows. */
#include "sketch_dp.h"

#include "cpu_sketch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REAL double
#define KFN(name) name##_d
#include "sketch_kernel.h"
#undef REAL
#undef KFN

/* A group of rows covers at least this many bases, so that the rebuild at its start costs at most
 * about as much as the sliding it saves, and tasks are big enough to schedule. */
#define SLIDE_GROUP_BASES 65536

static tsk_slide_mode pick_mode(const tsk_params *p)
{
    /* recomputing a window costs w t level updates; sliding by s costs s t (t + 1) */
    return p->window <= p->stride * (p->t + 1) ? TSK_SLIDE_RECOMPUTE : TSK_SLIDE_INCREMENTAL;
}

double tsk_cpu_dp_cost_per_base(const tsk_params *p)
{
    const double td = (double)p->t * (double)p->dim;
    if (p->window <= 0) return td;
    if (pick_mode(p) == TSK_SLIDE_RECOMPUTE) return td * (double)((p->window + p->stride - 1) / p->stride);
    return td * (double)(p->t + 1);
}

int64_t tsk_cpu_slide_group(const tsk_params *p)
{
    int64_t bases = p->window > SLIDE_GROUP_BASES ? p->window : SLIDE_GROUP_BASES;
    if (pick_mode(p) == TSK_SLIDE_RECOMPUTE) return bases / p->window > 1 ? bases / p->window : 1;
    return (bases + p->stride - 1) / p->stride;
}

void tsk_cpu_revcomp_tables(const tsk_params *p, tsk_params *rc)
{
    *rc = *p;
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < 4; c++) {
            rc->hash[k][c] = p->hash[p->t - 1 - k][3 - c];
            rc->sign[k][c] = p->sign[p->t - 1 - k][3 - c];
        }
}

/* Removes the first character c of the window (needs every start level). */
static void counts_remove_front(counts_d *k, const tsk_params *p, int c)
{
    const int t = k->t, dim = k->dim, ld = k->ld;
    double coef[TSK_MAX_T + 1];
    for (int d = 1; d <= t; d++) coef[d] = ldexp(1.0, k->e[d - 1] - k->e[d]);
    for (int j = t - 1; j >= 0; j--) {
        double *rows = k->rows + (size_t)k->row0[j] * (size_t)ld;
        const int h = p->hash[j][c];
        const double s = p->sign[j][c] > 0 ? 1.0 : -1.0;
        bump_d(rows, dim, k->padded, h, -s * coef[1]);
        if (j + 1 < t) {
            const double *next = k->rows + (size_t)k->row0[j + 1] * (size_t)ld; /* N[j+1][d-1] */
            for (int d = 2; d <= t - j; d++)
                row_shift_add_d(k, rows + (size_t)(d - 1) * ld, next + (size_t)(d - 2) * ld, h, -s * coef[d]);
        }
    }
    k->len--;
}

int tsk_cpu_slide_rows(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t r0, int64_t r1,
                       tsk_slide_mode mode, tsk_precision prec, void *out)
{
    const int t = p->t, dim = p->dim;
    const int strands = p->canonical ? 2 : 1;
    if (r1 <= r0) return 0;
    const size_t elem = prec == TSK_DOUBLE ? sizeof(double) : sizeof(float);
    if (n < t) {
        memset(out, 0, (size_t)(r1 - r0) * (size_t)dim * elem);
        return 0;
    }
    if (mode == TSK_SLIDE_AUTO) mode = pick_mode(p);
    const int starts = mode == TSK_SLIDE_RECOMPUTE ? 1 : t;

    tsk_params tables[2];
    tables[0] = *p;
    if (strands == 2) tsk_cpu_revcomp_tables(p, &tables[1]);
    const size_t row_values = (size_t)counts_rows(t, starts) * (size_t)counts_ld(dim);
    double *buf = aligned_alloc(64, (2 * row_values + 2 * (size_t)counts_ld(dim)) * sizeof *buf);
    if (!buf) return -1;
    double *mean = buf + 2 * row_values, *row = mean + counts_ld(dim);
    counts_d state[2];

    int64_t lo = 0, hi = -1; /* the window the states hold, [lo, hi] */
    for (int64_t r = r0; r < r1; r++) {
        int64_t first, last;
        tsk_slide_row_span(p, r, &first, &last);
        memset(row, 0, (size_t)dim * sizeof *row);
        for (int s = 0; s < strands; s++) {
            counts_d *k = &state[s];
            if (mode == TSK_SLIDE_RECOMPUTE || r == r0) {
                counts_init_d(k, t, dim, starts, buf + (size_t)s * row_values);
                k->dup_top = 1;
                kernel_consume_d(k, &tables[s], codes + first, last - first + 1);
            } else {
                for (int64_t i = lo; i < first; i++) counts_remove_front(k, &tables[s], codes[i]);
                kernel_consume_d(k, &tables[s], codes + hi + 1, last - hi);
            }
            counts_mean_d(k, 0, t, mean);
            const double f = strands == 2 ? 0.5 : 1.0;
            for (int l = 0; l < dim; l++) row[l] += f * mean[l];
        }
        const size_t at = (size_t)(r - r0) * (size_t)dim;
        if (prec == TSK_DOUBLE) {
            memcpy((double *)out + at, row, (size_t)dim * sizeof *row);
        } else {
            for (int l = 0; l < dim; l++) ((float *)out)[at + (size_t)l] = (float)row[l];
        }
        lo = first;
        hi = last;
    }
    free(buf);
    return 0;
}
