/* sketch_counts.c: the tuple-count form of the sketch, plain (see sketch_counts.h). */
#include "sketch_counts.h"

#include <string.h>

void tsk_counts_scan(int t, const uint8_t *codes, int64_t n, double *state)
{
    memset(state, 0, sizeof(double) * (size_t)tsk_counts_size(t));
    state[0] = 1.0;
    for (int64_t i = 0; i < n; i++) {
        const int c = codes[i] & 3;
        for (int k = t; k >= 1; k--) {
            double *to = state + tsk_counts_offset(k);
            const double *from = state + tsk_counts_offset(k - 1);
            for (int prefix = 0; prefix < 1 << (2 * (k - 1)); prefix++) to[prefix * 4 + c] += from[prefix];
        }
    }
}

void tsk_counts_concat(int t, const double *u, const double *v, double *uv)
{
    for (int k = 0; k <= t; k++)
        for (int tau = 0; tau < 1 << (2 * k); tau++) {
            double s = 0.0;
            for (int j = 0; j <= k; j++) {
                const int rest = 2 * (k - j);
                s += u[tsk_counts_offset(j) + (tau >> rest)] * v[tsk_counts_offset(k - j) + (tau & ((1 << rest) - 1))];
            }
            uv[tsk_counts_offset(k) + tau] = s;
        }
}

void tsk_counts_row(const tsk_params *p, const double *state, int64_t n, double *row)
{
    const int t = p->t;
    memset(row, 0, sizeof(double) * (size_t)p->dim);
    if (n < t) return;
    double tuples = 1.0;  /* C(n, t) */
    for (int i = 0; i < t; i++) tuples = tuples * (double)(n - i) / (double)(i + 1);
    const double scale = (p->canonical ? 0.5 : 1.0) / tuples;
    const double *top = state + tsk_counts_offset(t);
    for (uint32_t tau = 0; tau < 1u << (2 * t); tau++) {
        int bin, sign;
        tsk_tuple_hash(p, tau, &bin, &sign);
        row[bin] += sign * top[tau] * scale;
        if (p->canonical)  /* the reverse complement holds tau as often as x holds its image */
            row[bin] += sign * top[tsk_tuple_revcomp(t, tau)] * scale;
    }
}
