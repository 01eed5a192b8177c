/* genome_ani.c: ANI over the aligned part and the aligned fraction of two genomes from their segment
 * anchors (genome_ani.h; docs/algorithm.md, "ANI and aligned fraction").
 *
 * A pair: both genomes' anchors, tagged with their segment and sorted by value (LSD radix; once a
 * genome with tsk_ani_sort_anchors), are cut to the sparser rate inside one merge, which counts
 * every segment's hits in both directions; per direction the segments become cells (n, a) with
 * multiplicities, and the mixture of identities over them is fitted by EM, accelerated by SQUAREM.
 * Every sum runs in one fixed order and nothing depends on the order of the anchors within a
 * segment (the counts are integers), so a pair gives the same bytes on any thread, whichever
 * engine found it. */
#include "genome_ani.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 11
#define RADIX (1 << RADIX_BITS)
#define MAX_GRID_DIV 400                  /* the finest grid tsk_ani_work_set_em takes: step 0.0025 */
#define MAX_GRID (MAX_GRID_DIV + 2)       /* the atom and at most every step of the grid */
#define POWER_TABLE_N 256                  /* cells with n below this take their row from power tables */

struct tsk_ani_work {
    uint64_t *keys_q, *keys_r, *tmp;     /* (stored value << 32 | segment), then sorted */
    int64_t cap_keys_q, cap_keys_r, cap_tmp;
    uint32_t *n_q, *a_q, *n_r, *a_r;     /* per segment: anchors at the common rate, hits */
    int64_t cap_seg_q, cap_seg_r;
    int64_t radix_count[3][RADIX];
    /* one direction's cells and the EM's tables */
    uint32_t *cell_n, *cell_a;
    double *cell_m;                      /* segments in the cell */
    int64_t cap_cells;
    double *lik, *lik_t;                 /* cells x grid and grid x cells, each row scaled to max 1 */
    int64_t cap_lik;
    double *denom, *ratio;               /* per cell */
    double pw_p[POWER_TABLE_N * MAX_GRID], pw_q[POWER_TABLE_N * MAX_GRID];
    double grid[MAX_GRID], p[MAX_GRID];
    double x0[MAX_GRID], x1[MAX_GRID], x2[MAX_GRID], xe[MAX_GRID], acc[MAX_GRID];
    int plain_steps;                     /* > 0: that many plain EM steps, no acceleration */
    int grid_div;                        /* grid step 1 / grid_div */
    double tol;                          /* SQUAREM stops on a gain below tol a segment */
    int last_em_steps;
    int value_bits;                      /* bits of the values the pair compares */
};

tsk_ani_work *tsk_ani_work_new(void)
{
    tsk_ani_work *w = calloc(1, sizeof *w);
    if (w) {
        w->grid_div = TSK_ANI_GRID_DIV;
        w->tol = TSK_ANI_EM_TOL;
    }
    return w;
}

void tsk_ani_work_free(tsk_ani_work *w)
{
    if (!w) return;
    free(w->keys_q); free(w->keys_r); free(w->tmp);
    free(w->n_q); free(w->a_q); free(w->n_r); free(w->a_r);
    free(w->cell_n); free(w->cell_a); free(w->cell_m);
    free(w->lik); free(w->lik_t); free(w->denom); free(w->ratio);
    free(w);
}

int tsk_ani_work_set_em(tsk_ani_work *w, int plain_steps, int grid_div, double tol)
{
    if (plain_steps < 0 || !(tol > 0) || grid_div < 10 || grid_div > MAX_GRID_DIV || MAX_GRID_DIV % grid_div ||
        7 * grid_div % 10)
        return -1;
    w->plain_steps = plain_steps;
    w->grid_div = grid_div;
    w->tol = tol;
    return 0;
}

int tsk_ani_work_em_steps(const tsk_ani_work *w) { return w->last_em_steps; }

static int grow(void **p, int64_t *cap, int64_t n, size_t size)
{
    if (n <= *cap) return 0;
    int64_t c = *cap ? *cap : 1024;
    while (c < n) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

int32_t tsk_ani_rate_log2(int64_t length)
{
    int32_t r = TSK_ANI_MIN_RATE_LOG2;
    while (r < TSK_ANI_MAX_RATE_LOG2 && length > (int64_t)TSK_ANI_MAX_ANCHORS << r) r++;
    return r;
}

/* The anchors of g as (stored value << 32 | segment), in g's order. */
static void keys_of(const tsk_ani_genome *g, uint64_t *keys)
{
    int64_t at = 0;
    for (int64_t s = 0; s < g->n_segments; s++)
        for (uint32_t j = 0; j < g->seg_count[s]; j++, at++) keys[at] = (uint64_t)g->hash[at] << 32 | (uint64_t)s;
}

/* How a pair compares the anchors of g: the pair's genomes differ in rate by drop = hi - lo bits
 * (lo, hi: the denser and the sparser rate), and the values of both are cut to the 32 - drop bits
 * they both hold, bits 32 - lo .. 64 - hi of h. The denser genome (rate lo, drop > 0) keeps the
 * anchors of the sparser rate, h < 2^(64 - hi), those whose stored value is below *limit; the
 * sparser one's values lose their *shift = drop lowest bits. A cut and a right shift keep the
 * values' order, so a genome's sorted anchors serve every pair. */
static void compare_form(const tsk_ani_genome *g, int32_t lo, int32_t hi, uint64_t *limit, int *shift)
{
    const int drop = hi - lo;
    *limit = g->rate_log2 == lo ? UINT64_C(1) << (32 - drop) : UINT64_C(1) << 32;
    *shift = g->rate_log2 == lo ? 0 : drop;
}

/* The anchors per segment of g below limit, into n. */
static void counts_below(const tsk_ani_genome *g, uint64_t limit, uint32_t *n)
{
    int64_t at = 0;
    for (int64_t s = 0; s < g->n_segments; s++) {
        uint32_t c = 0;
        for (uint32_t j = 0; j < g->seg_count[s]; j++) c += g->hash[at++] < limit;
        n[s] = c;
    }
}

/* Sorted keys below a value limit: a prefix; its length. */
static int64_t kept_prefix(const uint64_t *keys, int64_t n, uint64_t limit)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (keys[mid] >> 32 < limit) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Sorts keys[0..n) by their high 32 bits, stably, through tmp; returns where the sorted keys are. */
static uint64_t *sort_by_high(tsk_ani_work *w, uint64_t *keys, uint64_t *tmp, int64_t n)
{
    static const int shift[3] = {32, 32 + RADIX_BITS, 32 + 2 * RADIX_BITS};
    memset(w->radix_count, 0, sizeof w->radix_count);
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++) w->radix_count[d][(keys[i] >> shift[d]) & (RADIX - 1)]++;
    for (int d = 0; d < 3; d++) {
        int64_t *count = w->radix_count[d];
        if (n == 0 || count[(keys[0] >> shift[d]) & (RADIX - 1)] == n) continue; /* one bucket */
        int64_t sum = 0;
        for (int b = 0; b < RADIX; b++) {
            const int64_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) tmp[count[(keys[i] >> shift[d]) & (RADIX - 1)]++] = keys[i];
        uint64_t *t = keys;
        keys = tmp;
        tmp = t;
    }
    return keys;
}

/* Hits of both genomes' segments: one merge of the two sorted lists; a value both hold is a hit of
 * every anchor that carries it, on either side. Without branches on the values (they mispredict
 * half the time): each step takes the smaller head, Q's on a tie, and m is the last value found
 * on both sides, so R's copies of a tied value (taken after Q's) still hit. */
static void count_hits(const uint64_t *q, int64_t nq, int shift_q, const uint64_t *r, int64_t nr, int shift_r,
                       uint32_t *a_q, uint32_t *a_r)
{
    int64_t i = 0, j = 0;
    uint64_t m = UINT64_MAX; /* no 32-bit value */
    while (i < nq && j < nr) {
        const uint64_t vq = q[i] >> 32 >> shift_q, vr = r[j] >> 32 >> shift_r;
        const int take_q = vq <= vr;
        m = vq == vr ? vq : m;
        a_q[(uint32_t)q[i]] += (uint32_t)(take_q & (vq == m));
        a_r[(uint32_t)r[j]] += (uint32_t)(!take_q & (vr == m));
        i += take_q;
        j += !take_q;
    }
    for (; j < nr && r[j] >> 32 >> shift_r == m; j++) a_r[(uint32_t)r[j]]++;
}

/* x^e by repeated multiplication, scaled by a power of two whenever it falls below 2^-600 (the
 * scale is counted in *scale, so x^e = result * 2^(-600 * scale)). */
static double power_scaled(double x, uint32_t e, int *scale)
{
    double v = 1.0;
    for (uint32_t t = 0; t < e; t++) {
        v *= x;
        if (v < 0x1p-600 && v > 0) {
            v *= 0x1p600;
            (*scale)++;
        }
    }
    return v;
}

/* One EM step from x (g grid entries, c cells): out = the next weights; returns the log-likelihood
 * of x (up to the constant of the rows' scales and the binomial coefficients). */
static double em_step(tsk_ani_work *w, int64_t c, int g, double n_seg, const double *x, double *out)
{
    double *d = w->denom;
    for (int64_t i = 0; i < c; i++) d[i] = 0;
    for (int j = 0; j < g; j++) {
        const double xj = x[j];
        const double *lt = w->lik_t + (int64_t)j * c;
        for (int64_t i = 0; i < c; i++) d[i] += lt[i] * xj;
    }
    double loglik = 0;
    for (int64_t i = 0; i < c; i++) {
        if (!(d[i] > 0)) d[i] = 0x1p-1000; /* every weight of the cell's row underflowed */
        loglik += w->cell_m[i] * log(d[i]);
        w->ratio[i] = w->cell_m[i] / d[i];
    }
    for (int j = 0; j < g; j++) w->acc[j] = 0;
    for (int64_t i = 0; i < c; i++) {
        const double ri = w->ratio[i];
        const double *l = w->lik + i * g;
        for (int j = 0; j < g; j++) w->acc[j] += l[j] * ri;
    }
    for (int j = 0; j < g; j++) out[j] = x[j] * w->acc[j] / n_seg;
    return loglik;
}

/* The NPMLE of the weights over the grid (into w->x0): plain EM steps, or SQUAREM (the S3 step
 * length, shortened toward a plain double step while it leaves the simplex; rejected when its
 * stabilizing step does not beat the plain one) until a cycle gains less than TSK_ANI_EM_TOL in
 * log-likelihood per segment. */
static void npmle(tsk_ani_work *w, int64_t c, int g, double n_seg)
{
    double *x0 = w->x0, *x1 = w->x1, *x2 = w->x2, *xe = w->xe;
    for (int j = 0; j < g; j++) x0[j] = 1.0 / g;
    if (w->plain_steps > 0) {
        for (int s = 0; s < w->plain_steps; s++) {
            em_step(w, c, g, n_seg, x0, x1);
            memcpy(x0, x1, (size_t)g * sizeof *x0);
        }
        w->last_em_steps = w->plain_steps;
        return;
    }
    double prev = -INFINITY;
    int steps = 0;
    for (int cycle = 0; cycle < TSK_ANI_EM_MAX_CYCLES; cycle++) {
        const double l0 = em_step(w, c, g, n_seg, x0, x1);
        const double l1 = em_step(w, c, g, n_seg, x1, x2);
        steps += 2;
        if (l0 - prev < w->tol * n_seg) {
            memcpy(x0, x1, (size_t)g * sizeof *x0);
            break;
        }
        prev = l0;
        double rr = 0, vv = 0;
        for (int j = 0; j < g; j++) {
            const double r = x1[j] - x0[j], v = x2[j] - 2 * x1[j] + x0[j];
            rr += r * r;
            vv += v * v;
        }
        double alpha = vv > 0 ? -sqrt(rr / vv) : -1;
        if (alpha > -1) alpha = -1;
        int inside = 0;
        for (int halve = 0; halve < 30 && !inside; halve++) {
            inside = 1;
            double sum = 0;
            for (int j = 0; j < g; j++) {
                const double r = x1[j] - x0[j], v = x2[j] - 2 * x1[j] + x0[j];
                xe[j] = x0[j] - 2 * alpha * r + alpha * alpha * v;
                if (!(xe[j] > 0)) inside = 0;
                sum += xe[j];
            }
            if (inside)
                for (int j = 0; j < g; j++) xe[j] /= sum;
            else
                alpha = (alpha - 1) / 2;
        }
        if (inside && alpha < -1) {
            /* the stabilizing EM step from the extrapolation: kept when it is no worse than x2 */
            const double le = em_step(w, c, g, n_seg, xe, x0);
            steps++;
            if (le >= l1) continue;
        }
        memcpy(x0, x2, (size_t)g * sizeof *x0);
    }
    w->last_em_steps = steps;
}

/* Room for c cells in every per-cell array. */
static int grow_cells(tsk_ani_work *w, int64_t c)
{
    if (c <= w->cap_cells) return 0;
    const int64_t cap = 2 * c;
    uint32_t *u = realloc(w->cell_n, (size_t)cap * sizeof *u);
    if (!u) return -1;
    w->cell_n = u;
    if (!(u = realloc(w->cell_a, (size_t)cap * sizeof *u))) return -1;
    w->cell_a = u;
    double *d = realloc(w->cell_m, (size_t)cap * sizeof *d);
    if (!d) return -1;
    w->cell_m = d;
    if (!(d = realloc(w->denom, (size_t)cap * sizeof *d))) return -1;
    w->denom = d;
    if (!(d = realloc(w->ratio, (size_t)cap * sizeof *d))) return -1;
    w->ratio = d;
    w->cap_cells = cap;
    return 0;
}

/* One direction: Q's segments (n_seg of them, counts n and hits a), R's length and anchors at the
 * common rate. Returns -1 when out of memory; else 0 with *ani, *af (both 0 when below
 * TSK_ANI_MIN_AF) and *with_anchors (Q's segments with an anchor). */
static int direction(tsk_ani_work *w, const uint32_t *n, const uint32_t *a, int64_t n_seg, int64_t length_r,
                     int64_t anchors_r, int anchor_k, double *ani, double *af, int64_t *with_anchors)
{
    *ani = 0;
    *af = 0;
    /* cells: (n, a) of the segments with anchors, sorted, with multiplicities */
    int64_t used = 0;
    for (int64_t s = 0; s < n_seg; s++) used += n[s] > 0;
    *with_anchors = used;
    if (used == 0) return 0;
    if (grow((void **)&w->tmp, &w->cap_tmp, 2 * used, sizeof *w->tmp)) return -1;
    uint64_t *codes = w->tmp, *spare = w->tmp + used;
    int64_t m = 0, all_hit = 1;
    for (int64_t s = 0; s < n_seg; s++)
        if (n[s] > 0) {
            codes[m++] = (uint64_t)n[s] << 48 | (uint64_t)a[s] << 32;
            all_hit &= a[s] == n[s];
        }
    if (all_hit) { /* every cell is likeliest at identity 1 (p = 1): the NPMLE puts all there */
        *ani = 1;
        *af = (double)used / (double)n_seg;
        if (*af < TSK_ANI_MIN_AF) *ani = *af = 0;
        w->last_em_steps = 0;
        return 0;
    }
    codes = sort_by_high(w, codes, spare, used);
    int64_t c = 0;
    for (int64_t i = 0; i < used; i++)
        if (i == 0 || codes[i] >> 32 != codes[i - 1] >> 32) c++;
    if (grow_cells(w, c)) return -1;
    c = 0;
    for (int64_t i = 0; i < used; i++) {
        const uint32_t code = (uint32_t)(codes[i] >> 32);
        if (i == 0 || code != (uint32_t)(codes[i - 1] >> 32)) {
            w->cell_n[c] = code >> 16;
            w->cell_a[c] = code & 0xFFFF;
            w->cell_m[c] = 0;
            c++;
        }
        w->cell_m[c - 1] += 1;
    }

    /* the grid: the atom (not homologous), then identities first/div .. 1 */
    const int div = w->grid_div;
    const int first = (int)(TSK_ANI_GRID_LOW * div + 0.5);
    const int g = 1 + div - first + 1;
    double four_k = 1;
    for (int t = 0; t < anchor_k; t++) four_k *= 4;
    double eps = 2.0 * (double)length_r / four_k + (double)anchors_r / (double)(UINT64_C(1) << w->value_bits);
    if (eps > 0.5) eps = 0.5;
    w->grid[0] = 0;
    w->p[0] = eps;
    for (int j = 1; j < g; j++) {
        const double id = (double)(first + j - 1) / div;
        double p = 1;
        for (int t = 0; t < anchor_k; t++) p *= id;
        w->grid[j] = id;
        w->p[j] = p;
    }

    /* the likelihood rows p^a (1 - p)^(n - a), each scaled to its largest entry (C(n, a) and the
     * scale cancel in the EM) */
    if (c * g > w->cap_lik) {
        const int64_t cap = 2 * c * g;
        double *l = realloc(w->lik, (size_t)cap * sizeof *l);
        if (!l) return -1;
        w->lik = l;
        l = realloc(w->lik_t, (size_t)cap * sizeof *l);
        if (!l) return -1;
        w->lik_t = l;
        w->cap_lik = cap;
    }
    uint32_t max_n = 0;
    for (int64_t i = 0; i < c; i++) max_n = w->cell_n[i] > max_n ? w->cell_n[i] : max_n;
    const uint32_t table_n = max_n < POWER_TABLE_N ? max_n + 1 : POWER_TABLE_N;
    for (int j = 0; j < g; j++) {
        w->pw_p[j] = 1;
        w->pw_q[j] = 1;
    }
    for (uint32_t e = 1; e < table_n; e++)
        for (int j = 0; j < g; j++) {
            w->pw_p[e * g + j] = w->pw_p[(e - 1) * g + j] * w->p[j];
            w->pw_q[e * g + j] = w->pw_q[(e - 1) * g + j] * (1 - w->p[j]);
        }
    for (int64_t i = 0; i < c; i++) {
        double *row = w->lik + i * g;
        const uint32_t nn = w->cell_n[i], aa = w->cell_a[i];
        double top = 0;
        if (nn < POWER_TABLE_N) {
            for (int j = 0; j < g; j++) row[j] = w->pw_p[aa * g + j] * w->pw_q[(nn - aa) * g + j];
            for (int j = 0; j < g; j++) top = row[j] > top ? row[j] : top;
        }
        if (!(top > 0x1p-600)) { /* a cell of many anchors (repeats): scaled powers */
            int scale[MAX_GRID], least = 1 << 30;
            for (int j = 0; j < g; j++) {
                scale[j] = 0;
                row[j] = power_scaled(w->p[j], aa, &scale[j]) * power_scaled(1 - w->p[j], nn - aa, &scale[j]);
                if (row[j] > 0 && scale[j] < least) least = scale[j];
            }
            top = 0;
            for (int j = 0; j < g; j++) {
                const int over = scale[j] - least;
                row[j] = row[j] > 0 && over < 2 ? row[j] * (over ? 0x1p-600 : 1.0) : 0;
                top = row[j] > top ? row[j] : top;
            }
        }
        for (int j = 0; j < g; j++) {
            row[j] /= top;
            if (row[j] < 0x1p-900) row[j] = 0; /* no subnormals: negligible beside the row's 1 */
        }
    }
    for (int64_t i = 0; i < c; i++)
        for (int j = 0; j < g; j++) w->lik_t[(int64_t)j * c + i] = w->lik[i * g + j];

    npmle(w, c, g, (double)used);

    double hi = 0, mean = 0;
    for (int j = 1; j < g; j++)
        if (first + j - 1 >= TSK_ANI_CUTOFF * div - 1e-9) {
            hi += w->x0[j];
            mean += w->x0[j] * w->grid[j];
        }
    *af = hi * (double)used / (double)n_seg;
    if (*af < TSK_ANI_MIN_AF || !(hi > 0)) {
        *af = 0;
        return 0;
    }
    *ani = mean / hi;
    return 0;
}

int tsk_ani_sort_anchors(tsk_ani_work *w, const tsk_ani_genome *g, uint64_t *keys)
{
    if (grow((void **)&w->tmp, &w->cap_tmp, g->n_anchors, sizeof *w->tmp)) return -1;
    keys_of(g, keys);
    const uint64_t *sorted = sort_by_high(w, keys, w->tmp, g->n_anchors);
    if (sorted != keys) memcpy(keys, sorted, (size_t)g->n_anchors * sizeof *keys);
    return 0;
}

/* Both genomes' per-segment counts and hits at the common rate, from their sorted anchors, into
 * w->n_q, a_q, n_r, a_r; the anchors kept in *kept_q, *kept_r. Returns 0, or -1 when out of memory
 * or on a genome out of range. */
static int hits_sorted(tsk_ani_work *w, const tsk_ani_genome *q, const uint64_t *q_keys, const tsk_ani_genome *r,
                       const uint64_t *r_keys, int64_t *kept_q, int64_t *kept_r)
{
    if (q->n_segments >= (INT64_C(1) << 32) || r->n_segments >= (INT64_C(1) << 32)) return -1;
    if (q->rate_log2 < TSK_ANI_MIN_RATE_LOG2 || q->rate_log2 > TSK_ANI_MAX_RATE_LOG2 ||
        r->rate_log2 < TSK_ANI_MIN_RATE_LOG2 || r->rate_log2 > TSK_ANI_MAX_RATE_LOG2)
        return -1;
    if (q->n_segments > w->cap_seg_q) {
        uint32_t *n = realloc(w->n_q, (size_t)q->n_segments * sizeof *n);
        if (!n) return -1;
        w->n_q = n;
        if (!(n = realloc(w->a_q, (size_t)q->n_segments * sizeof *n))) return -1;
        w->a_q = n;
        w->cap_seg_q = q->n_segments;
    }
    if (r->n_segments > w->cap_seg_r) {
        uint32_t *n = realloc(w->n_r, (size_t)r->n_segments * sizeof *n);
        if (!n) return -1;
        w->n_r = n;
        if (!(n = realloc(w->a_r, (size_t)r->n_segments * sizeof *n))) return -1;
        w->a_r = n;
        w->cap_seg_r = r->n_segments;
    }
    const int32_t hi = q->rate_log2 > r->rate_log2 ? q->rate_log2 : r->rate_log2;
    const int32_t lo = q->rate_log2 < r->rate_log2 ? q->rate_log2 : r->rate_log2;
    w->value_bits = 32 - (hi - lo);
    uint64_t limit_q, limit_r;
    int shift_q, shift_r;
    compare_form(q, lo, hi, &limit_q, &shift_q);
    compare_form(r, lo, hi, &limit_r, &shift_r);
    counts_below(q, limit_q, w->n_q);
    counts_below(r, limit_r, w->n_r);
    *kept_q = kept_prefix(q_keys, q->n_anchors, limit_q);
    *kept_r = kept_prefix(r_keys, r->n_anchors, limit_r);
    for (int64_t s = 0; s < q->n_segments; s++) w->a_q[s] = 0;
    for (int64_t s = 0; s < r->n_segments; s++) w->a_r[s] = 0;
    count_hits(q_keys, *kept_q, shift_q, r_keys, *kept_r, shift_r, w->a_q, w->a_r);
    return 0;
}

/* hits_sorted after sorting both genomes' anchors into the work. */
static int segment_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int64_t *kept_q,
                        int64_t *kept_r)
{
    if (grow((void **)&w->keys_q, &w->cap_keys_q, q->n_anchors, sizeof *w->keys_q) ||
        grow((void **)&w->keys_r, &w->cap_keys_r, r->n_anchors, sizeof *w->keys_r) ||
        tsk_ani_sort_anchors(w, q, w->keys_q) || tsk_ani_sort_anchors(w, r, w->keys_r))
        return -1;
    return hits_sorted(w, q, w->keys_q, r, w->keys_r, kept_q, kept_r);
}

int tsk_ani_segment_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, uint32_t *n_q,
                         uint32_t *a_q, uint32_t *n_r, uint32_t *a_r)
{
    int64_t nq, nr;
    if (segment_hits(w, q, r, &nq, &nr)) return -1;
    for (int64_t s = 0; s < q->n_segments; s++) {
        n_q[s] = w->n_q[s];
        a_q[s] = w->a_q[s];
    }
    for (int64_t s = 0; s < r->n_segments; s++) {
        n_r[s] = w->n_r[s];
        a_r[s] = w->a_r[s];
    }
    return 0;
}

/* Whether g's segments cover at least TSK_ANI_MIN_COVER of its length: the rest, its contigs' tails
 * under TSK_ANI_SEGMENT bases, holds no anchors, so another genome's segments over it would find
 * none of theirs there and read as diverged (a 6 kb genome against its own reverse complement). */
static int covered(const tsk_ani_genome *g)
{
    return (double)g->n_segments * TSK_ANI_SEGMENT >= TSK_ANI_MIN_COVER * (double)g->length;
}

/* Both directions and the pair, from the hits in the work. */
static int pair_from_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int64_t nq, int64_t nr,
                          int anchor_k, tsk_ani_result *out)
{
    int64_t used_q, used_r;
    if (direction(w, w->n_q, w->a_q, q->n_segments, r->length, nr, anchor_k, &out->ani_q, &out->af_q, &used_q) ||
        direction(w, w->n_r, w->a_r, r->n_segments, q->length, nq, anchor_k, &out->ani_r, &out->af_r, &used_r))
        return -1;
    out->defined = used_q > 0 && used_r > 0 && covered(q) && covered(r);
    if (!out->defined || out->af_q < TSK_ANI_MIN_AF || out->af_r < TSK_ANI_MIN_AF) return 0;
    out->ani = (out->ani_q + out->ani_r) / 2;
    out->af = q->n_segments <= r->n_segments ? out->af_q : out->af_r;
    return 0;
}

int tsk_ani_pair(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int anchor_k,
                 tsk_ani_result *out)
{
    memset(out, 0, sizeof *out);
    int64_t nq, nr;
    if (segment_hits(w, q, r, &nq, &nr)) return -1;
    return pair_from_hits(w, q, r, nq, nr, anchor_k, out);
}

int tsk_ani_pair_sorted(tsk_ani_work *w, const tsk_ani_genome *q, const uint64_t *q_keys, const tsk_ani_genome *r,
                        const uint64_t *r_keys, int anchor_k, tsk_ani_result *out)
{
    memset(out, 0, sizeof *out);
    int64_t nq, nr;
    if (hits_sorted(w, q, q_keys, r, r_keys, &nq, &nr)) return -1;
    return pair_from_hits(w, q, r, nq, nr, anchor_k, out);
}

float tsk_ani_distance(const tsk_ani_result *r)
{
    if (!r->defined || !(r->ani > 0)) return 1.0f;
    return (float)(1.0 - r->ani);
}
