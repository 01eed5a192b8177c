/* genome_ani.c: ANI over the aligned part and the aligned fraction of two genomes from their segment
 * anchors (genome_ani.h; docs/algorithm.md, "ANI and aligned fraction").
 *
 * A pair: the query's anchors, tagged with their segment, are sorted by value (LSD radix) once for
 * all its pairs, with an index of their top bits; every anchor of the reference looks its value up
 * there (both cut to the sparser rate), which counts every segment's hits in both directions; per
 * direction the segments become cells (n, a) with multiplicities, and the mixture of identities
 * over them is fitted by a few EM steps from the segments' likeliest identities.
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
#define QUERY_MIN_BUCKET_BITS 10
#define QUERY_MAX_BUCKET_BITS 20
#define LOOKUP_WIDTH 4                    /* a bucket's anchors an exact lookup compares without a branch: one word of stamps */
#define LOOKUP_REGION_BITS 6
#define LOOKUP_REGIONS (1 << LOOKUP_REGION_BITS)
#define POWER_TABLE_N TSK_ANI_POWER_ROWS /* cells with n below this take their row from power tables */

struct tsk_ani_work {
    /* the query (tsk_ani_work_query): its anchors sorted by value (keys_q: as stored value << 32 |
     * segment while they are sorted; then value_q and seg_q), and where each bucket of values
     * (their top bucket_bits bits) starts in them: about one anchor a bucket */
    const tsk_ani_genome *query;
    uint64_t *keys_q, *tmp;
    int64_t cap_keys_q, cap_tmp;
    uint32_t *value_q;                   /* the sorted anchors' values alone: the lookups' working set */
    int64_t cap_value_q;
    uint32_t *bucket;                    /* 2^bucket_bits + 1 starts */
    int64_t cap_bucket;
    int bucket_bits;
    uint8_t *stamp;                      /* per sorted query anchor: the pair that last hit it */
    int64_t cap_stamp;
    uint8_t pair_id;                     /* the pair's stamp, 1..255 */
    uint32_t *seg_q;                     /* the sorted anchors' segments */
    int64_t cap_seg_q_anchors;
    uint32_t *n_q, *a_q, *n_r, *a_r;     /* per segment: anchors at the common rate, hits */
    uint64_t n_q_limit;                  /* the limit n_q was counted below for the query (0: none) */
    int64_t cap_seg_q, cap_seg_r;
    int64_t radix_count[3][RADIX];
    /* one direction's cells and the EM's tables */
    uint32_t *cell_n, *cell_a;
    double *cell_m;                      /* segments in the cell */
    int64_t cap_cells;
    double *lik;                         /* cells x grid, each row scaled to max 1 (lik_at) */
    int64_t cap_lik;
    uint16_t *band_lo, *band_hi;         /* per cell: its row's entries above TSK_ANI_ROW_FLOOR */
    double *denom;                       /* per cell: the EM step's denominators */
    double pw_p[POWER_TABLE_N * MAX_GRID], pw_q[POWER_TABLE_N * MAX_GRID];
    int pw_k, pw_div;                    /* the k and grid of the powers (0: none yet) */
    double grid[MAX_GRID], p[MAX_GRID];
    double reported[MAX_GRID];           /* the identity fastANI reports for each grid identity */
    double x0[MAX_GRID], x1[MAX_GRID], acc[4 * MAX_GRID]; /* acc: a grid entry's four stripes side by side */
    int em_steps;                        /* EM steps from the start */
    double start_uniform;                /* the start's share spread evenly over the grid */
    int grid_div;                        /* grid step 1 / grid_div */
    int value_bits;                      /* bits of the values the pair compares */
    int window;                          /* W of the results' m (0: none) */
    int gw_div, gw_window;               /* the grid and window gw was made for */
    double gw[MAX_GRID];                 /* the grid's identities to the W */
    /* tsk_ani_repeats' scratch: a genome's anchors sorted apart from the query's, counts a segment */
    uint64_t *rep_keys, *rep_tmp;
    int64_t cap_rep_keys, cap_rep_tmp;
    uint32_t *rep_count;
    int64_t cap_rep_count;
};

tsk_ani_work *tsk_ani_work_new(void)
{
    tsk_ani_work *w = calloc(1, sizeof *w);
    if (w) {
        w->grid_div = TSK_ANI_GRID_DIV;
        w->em_steps = TSK_ANI_EM_STEPS;
        w->start_uniform = TSK_ANI_START_UNIFORM;
    }
    return w;
}

void tsk_ani_work_free(tsk_ani_work *w)
{
    if (!w) return;
    free(w->keys_q); free(w->tmp); free(w->value_q); free(w->bucket); free(w->stamp); free(w->seg_q);
    free(w->n_q); free(w->a_q); free(w->n_r); free(w->a_r);
    free(w->cell_n); free(w->cell_a); free(w->cell_m);
    free(w->lik); free(w->band_lo); free(w->band_hi); free(w->denom);
    free(w->rep_keys); free(w->rep_tmp); free(w->rep_count);
    free(w);
}

int tsk_ani_work_set_em(tsk_ani_work *w, int em_steps, int grid_div, double start_uniform)
{
    if (em_steps < 0 || em_steps > 100000 || !(start_uniform > 0 && start_uniform <= 1) || grid_div < 10 ||
        grid_div > MAX_GRID_DIV || MAX_GRID_DIV % grid_div || 7 * grid_div % 10)
        return -1;
    w->em_steps = em_steps;
    w->grid_div = grid_div;
    w->start_uniform = start_uniform;
    return 0;
}

int tsk_ani_work_set_window(tsk_ani_work *w, int window)
{
    if (window < 0 || window > TSK_ANI_MAX_WINDOW) return -1;
    w->window = window;
    return 0;
}

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
    if (limit > UINT32_MAX) { /* every stored value is below it: the counts as stored */
        for (int64_t s = 0; s < g->n_segments; s++) n[s] = g->seg_count[s];
        return;
    }
    int64_t at = 0;
    for (int64_t s = 0; s < g->n_segments; s++) {
        uint32_t c = 0;
        for (uint32_t j = 0; j < g->seg_count[s]; j++) c += g->hash[at++] < limit;
        n[s] = c;
    }
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

/* Sorts cell codes n << 48 | a << 32 with a <= n < 256 through tmp (two byte-wide counting passes,
 * a then n: the usual segment, where sort_by_high's three 11-bit tables would cost more than the
 * sort); returns where the sorted codes are. */
static uint64_t *sort_small_cells(uint64_t *codes, uint64_t *tmp, int64_t n)
{
    for (int shift = 32; shift <= 48; shift += 16) {
        int64_t count[256] = {0};
        for (int64_t i = 0; i < n; i++) count[(codes[i] >> shift) & 255]++;
        int64_t sum = 0;
        for (int b = 0; b < 256; b++) {
            const int64_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (int64_t i = 0; i < n; i++) tmp[count[(codes[i] >> shift) & 255]++] = codes[i];
        uint64_t *t = codes;
        codes = tmp;
        tmp = t;
    }
    return codes;
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

/* Four doubles as one value: the four cells of a block of the likelihood, or a grid entry's four
 * stripes. Each lane's arithmetic is the scalar's, in the same order (no contraction: C17 mode). */
typedef double lanes4 __attribute__((vector_size(32), aligned(8)));

/* The likelihood's entry j of cell i: the cells in blocks of four, a block's rows interleaved
 * (entry j of its four cells side by side), so that the EM reads four cells as one lanes4. */
static inline int64_t lik_at(int64_t i, int g, int j) { return (i & ~(int64_t)3) * g + 4 * (int64_t)j + (i & 3); }

/* One EM step from x (g grid entries, c cells): out = the next weights. The cells' denominators
 * stay in d. Rows are read over their bands only, a block of four cells at a time (four sums in
 * flight) over the union of their bands: the entries outside a band are 0 and add nothing, so
 * each denominator is the full row's sum in j's order. A grid entry's sum over the cells runs in
 * four stripes, the cells i with i mod 4 = 0, 1, 2, 3 each in ascending order, added up in that
 * order: the order the GPU twin (gpu/ani_pairs.cu) sums in with a warp a stripe. */
__attribute__((target_clones("avx2", "default"))) static void em_step(tsk_ani_work *w, int64_t c, int g, double n_seg,
                                                                     const double *x, double *out, double *d)
{
    lanes4 *acc = (lanes4 *)w->acc; /* per grid entry, its four stripes */
    for (int j = 0; j < g; j++) acc[j] = (lanes4){0, 0, 0, 0};
    const int64_t full = c & ~(int64_t)3;
    for (int64_t i = 0; i < full; i += 4) {
        const lanes4 *l = (const lanes4 *)(w->lik + i * g); /* entry j of the block's four rows */
        int lo = w->band_lo[i], hi = w->band_hi[i];
        for (int t = 1; t < 4; t++) {
            lo = w->band_lo[i + t] < lo ? w->band_lo[i + t] : lo;
            hi = w->band_hi[i + t] > hi ? w->band_hi[i + t] : hi;
        }
        lanes4 sum = {0, 0, 0, 0};
        for (int j = lo; j < hi; j++) sum += l[j] * (lanes4){x[j], x[j], x[j], x[j]};
        lanes4 ratio;
        for (int t = 0; t < 4; t++) {
            const double dt = sum[t] > 0 ? sum[t] : 0x1p-1000; /* every weight of the cell's row underflowed */
            d[i + t] = dt;
            ratio[t] = w->cell_m[i + t] / dt;
        }
        for (int j = lo; j < hi; j++) acc[j] += l[j] * ratio;
    }
    for (int64_t i = full; i < c; i++) { /* cell i's stripe is i mod 4: the blocks above start at multiples of 4 */
        const double *l = w->lik + lik_at(i, g, 0);
        const int t = (int)(i & 3), lo = w->band_lo[i], hi = w->band_hi[i];
        double di = 0;
        for (int j = lo; j < hi; j++) di += l[4 * j] * x[j];
        di = di > 0 ? di : 0x1p-1000;
        d[i] = di;
        const double ri = w->cell_m[i] / di;
        for (int j = lo; j < hi; j++) acc[j][t] += l[4 * j] * ri;
    }
    for (int j = 0; j < g; j++) out[j] = x[j] * (acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3]) / n_seg;
}

/* The mixture's weights over the grid (into w->x0): from the segments' own likeliest identities
 * (each cell's row peaks at its 1), a share start_uniform spread evenly over the grid, then
 * w->em_steps plain EM steps. Stopped early on purpose: the likelihood is flat along some
 * directions of the weights, and run to convergence the EM moves weight to where the 3 kb
 * segments' ~45 anchors cannot place it (bench/ani/FINDINGS.md, "Stopping early"). */
static void fit_weights(tsk_ani_work *w, int64_t c, int g, double n_seg)
{
    double *x0 = w->x0, *x1 = w->x1;
    for (int j = 0; j < g; j++) x0[j] = w->start_uniform / g;
    for (int64_t i = 0; i < c; i++) {
        const double *l = w->lik + lik_at(i, g, 0);
        int peak = w->band_lo[i];
        for (int j = w->band_lo[i]; j < w->band_hi[i]; j++) peak = l[4 * j] > l[4 * peak] ? j : peak;
        x0[peak] += (1 - w->start_uniform) * w->cell_m[i] / n_seg;
    }
    for (int s = 0; s < w->em_steps; s++) {
        em_step(w, c, g, n_seg, x0, x1, w->denom);
        memcpy(x0, x1, (size_t)g * sizeof *x0);
    }
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
    uint16_t *b = realloc(w->band_lo, (size_t)cap * sizeof *b);
    if (!b) return -1;
    w->band_lo = b;
    if (!(b = realloc(w->band_hi, (size_t)cap * sizeof *b))) return -1;
    w->band_hi = b;
    w->cap_cells = cap;
    return 0;
}

/* x^e as e products from 1 (no pow): the GPU twin reads tables made by it, never recomputes them. */
static double product_power(double x, int e)
{
    double y = 1;
    for (int t = 0; t < e; t++) y *= x;
    return y;
}

int tsk_ani_grid_powers(int anchor_k, int grid_div, double *grid, double *p, double *pw_p, double *pw_q)
{
    const int first = (int)(TSK_ANI_GRID_LOW * grid_div + 0.5);
    const int g = 1 + grid_div - first + 1;
    for (int j = 1; j < g; j++) {
        grid[j] = (double)(first + j - 1) / grid_div;
        p[j] = product_power(grid[j], anchor_k);
    }
    for (int e = 0; e < TSK_ANI_POWER_ROWS; e++)
        for (int j = 1; j < g; j++) {
            pw_p[e * g + j] = e ? pw_p[(e - 1) * g + j] * p[j] : 1;
            pw_q[e * g + j] = e ? pw_q[(e - 1) * g + j] * (1 - p[j]) : 1;
        }
    return g;
}

void tsk_ani_grid_reported(const double *grid, int g, double *reported)
{
    reported[0] = 0;
    for (int j = 1; j < g; j++) reported[j] = 1 + TSK_ANI_SCALE * log(grid[j]);
}

void tsk_ani_grid_window_powers(const double *grid, int g, int window, double *gw)
{
    gw[0] = 0;
    for (int j = 1; j < g; j++) gw[j] = product_power(grid[j], window);
}

double tsk_ani_atom(int anchor_k, int64_t length_r, int64_t anchors_r, int value_bits, double self_rate)
{
    double four_k = 1;
    for (int t = 0; t < anchor_k; t++) four_k *= 4;
    double chance = 2.0 * (double)length_r / four_k;
    if (self_rate > chance) chance = self_rate;
    const double eps = chance + (double)anchors_r / (double)(UINT64_C(1) << value_bits);
    return eps > 0.5 ? 0.5 : eps;
}

double tsk_ani_self_rate(int64_t repeats, int64_t n_anchors, int64_t length_q, int64_t length_r)
{
    if (repeats <= 0 || n_anchors <= 0 || length_q <= 0) return 0;
    return (double)repeats / (double)n_anchors * (double)length_r / (double)length_q;
}

/* One direction: Q's segments (n_seg of them, counts n and hits a), R's length and anchors at the
 * common rate. Returns -1 when out of memory; else 0 with *ani, *af (both 0 when below
 * TSK_ANI_MIN_AF) and *with_anchors (Q's segments with an anchor). */
static int direction(tsk_ani_work *w, const uint32_t *n, const uint32_t *a, int64_t n_seg, int64_t length_r,
                     int64_t anchors_r, double self_rate, int anchor_k, double *ani, double *af, int64_t *with_anchors,
                     double *mean_pow)
{
    *ani = 0;
    *af = 0;
    *mean_pow = 0;
    /* cells: (n, a) of the segments with anchors, sorted, with multiplicities */
    int64_t used = 0;
    for (int64_t s = 0; s < n_seg; s++) used += n[s] > 0;
    *with_anchors = used;
    if (used == 0) return 0;
    if (grow((void **)&w->tmp, &w->cap_tmp, 2 * used, sizeof *w->tmp)) return -1;
    uint64_t *codes = w->tmp, *spare = w->tmp + used;
    int64_t m = 0, all_hit = 1;
    uint32_t max_n = 0;
    for (int64_t s = 0; s < n_seg; s++)
        if (n[s] > 0) {
            codes[m++] = (uint64_t)n[s] << 48 | (uint64_t)a[s] << 32;
            all_hit &= a[s] == n[s];
            max_n = n[s] > max_n ? n[s] : max_n;
        }
    if (all_hit) { /* every cell is likeliest at identity 1 (p = 1): the mixture's limit puts all there */
        *ani = 1;
        *mean_pow = w->window > 0 ? 1 : 0;
        *af = (double)used / (double)n_seg;
        if (*af < TSK_ANI_MIN_AF) *ani = *af = *mean_pow = 0;
        return 0;
    }
    codes = max_n < 256 ? sort_small_cells(codes, spare, used) : sort_by_high(w, codes, spare, used);
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

    /* the grid: the atom (not homologous), then identities first/div .. 1; the powers of the grid's
     * identities depend on k and the grid only, kept from pair to pair; the atom's column is this
     * direction's */
    const int div = w->grid_div;
    if (w->pw_k != anchor_k || w->pw_div != div) {
        const int g_made = tsk_ani_grid_powers(anchor_k, div, w->grid, w->p, w->pw_p, w->pw_q);
        tsk_ani_grid_reported(w->grid, g_made, w->reported);
        w->pw_k = anchor_k;
        w->pw_div = div;
    }
    const int first = (int)(TSK_ANI_GRID_LOW * div + 0.5);
    const int g = 1 + div - first + 1;
    const double eps = tsk_ani_atom(anchor_k, length_r, anchors_r, w->value_bits, self_rate);
    w->grid[0] = 0;
    w->p[0] = eps;

    /* the likelihood rows p^a (1 - p)^(n - a), each scaled to its largest entry (C(n, a) and the
     * scale cancel in the EM) */
    const int64_t lik_n = ((c + 3) & ~(int64_t)3) * g; /* whole blocks of four cells */
    if (lik_n > w->cap_lik) {
        const int64_t cap = 2 * lik_n;
        double *l = realloc(w->lik, (size_t)cap * sizeof *l);
        if (!l) return -1;
        w->lik = l;
        w->cap_lik = cap;
    }
    const uint32_t table_n = max_n < POWER_TABLE_N ? max_n + 1 : POWER_TABLE_N;
    for (uint32_t e = 0; e < table_n; e++) {
        w->pw_p[e * g] = e ? w->pw_p[(e - 1) * g] * eps : 1;
        w->pw_q[e * g] = e ? w->pw_q[(e - 1) * g] * (1 - eps) : 1;
    }
    for (int64_t i = 0; i < c; i++) {
        double row[MAX_GRID];
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
        int lo = g, hi = 0;
        for (int j = 0; j < g; j++) {
            row[j] /= top;
            if (row[j] < TSK_ANI_ROW_FLOOR) row[j] = 0;
            else {
                lo = j < lo ? j : lo;
                hi = j + 1;
            }
        }
        w->band_lo[i] = (uint16_t)lo; /* the row's 1 is in it: lo < hi */
        w->band_hi[i] = (uint16_t)hi;
        double *dst = w->lik + lik_at(i, g, 0);
        for (int j = 0; j < g; j++) dst[4 * j] = row[j];
    }

    fit_weights(w, c, g, (double)used);

    if (w->window > 0 && (w->gw_div != div || w->gw_window != w->window)) {
        tsk_ani_grid_window_powers(w->grid, g, w->window, w->gw);
        w->gw_div = div;
        w->gw_window = w->window;
    }
    double hi = 0, mean = 0, mean_w = 0;
    for (int j = 1; j < g; j++)
        if (first + j - 1 >= TSK_ANI_CUTOFF * div - 1e-9) {
            hi += w->x0[j];
            mean += w->x0[j] * w->reported[j];
            if (w->window > 0) mean_w += w->x0[j] * w->gw[j];
        }
    *af = hi * (double)used / (double)n_seg;
    if (*af < TSK_ANI_MIN_AF || !(hi > 0)) {
        *af = 0;
        return 0;
    }
    *ani = mean / hi;
    if (w->window > 0) *mean_pow = mean_w / hi;
    return 0;
}

/* The anchors of g as (stored value << 32 | segment), in g's order; its loose anchors after them,
 * with segment n_segments (every per-segment array has that one slot more, never read). */
static void keys_of(const tsk_ani_genome *g, uint64_t *keys)
{
    int64_t at = 0;
    for (int64_t s = 0; s < g->n_segments; s++)
        for (uint32_t j = 0; j < g->seg_count[s]; j++, at++) keys[at] = (uint64_t)g->hash[at] << 32 | (uint64_t)s;
    for (const int64_t end = at + tsk_ani_loose_used(g); at < end; at++)
        keys[at] = (uint64_t)g->hash[at] << 32 | (uint64_t)g->n_segments;
}

static int64_t all_anchors(const tsk_ani_genome *g) { return g->n_anchors + tsk_ani_loose_used(g); }

int tsk_ani_work_query(tsk_ani_work *w, const tsk_ani_genome *q)
{
    w->query = NULL;
    const int64_t n = all_anchors(q);
    if (n >= (INT64_C(1) << 32)) return -1;
    int bits = QUERY_MIN_BUCKET_BITS;
    while (bits < QUERY_MAX_BUCKET_BITS && (INT64_C(1) << bits) < n) bits++;
    const int64_t buckets = INT64_C(1) << bits;
    /* the exact lookups read and stamp up to LOOKUP_WIDTH entries from a bucket's start */
    if (grow((void **)&w->keys_q, &w->cap_keys_q, n, sizeof *w->keys_q) ||
        grow((void **)&w->tmp, &w->cap_tmp, n, sizeof *w->tmp) ||
        grow((void **)&w->stamp, &w->cap_stamp, n + LOOKUP_WIDTH, sizeof *w->stamp) ||
        grow((void **)&w->value_q, &w->cap_value_q, n + LOOKUP_WIDTH, sizeof *w->value_q) ||
        grow((void **)&w->seg_q, &w->cap_seg_q_anchors, n, sizeof *w->seg_q) ||
        grow((void **)&w->bucket, &w->cap_bucket, buckets + 1, sizeof *w->bucket))
        return -1;
    w->bucket_bits = bits;
    keys_of(q, w->keys_q);
    const uint64_t *sorted = sort_by_high(w, w->keys_q, w->tmp, n);
    if (sorted != w->keys_q) memcpy(w->keys_q, sorted, (size_t)n * sizeof *w->keys_q);
    for (int64_t i = 0; i < n; i++) {
        w->value_q[i] = (uint32_t)(w->keys_q[i] >> 32);
        w->seg_q[i] = (uint32_t)w->keys_q[i];
    }
    for (int t = 0; t < LOOKUP_WIDTH; t++) w->value_q[n + t] = 0;
    int64_t at = 0;
    for (int64_t b = 0; b < buckets; b++) {
        w->bucket[b] = (uint32_t)at;
        while (at < n && (int64_t)(w->keys_q[at] >> (64 - bits)) == b) at++;
    }
    w->bucket[buckets] = (uint32_t)at;
    memset(w->stamp, 0, (size_t)(n + LOOKUP_WIDTH) * sizeof *w->stamp);
    w->pair_id = 0;
    w->n_q_limit = 0;
    w->query = q;
    return 0;
}

const tsk_ani_genome *tsk_ani_work_current_query(const tsk_ani_work *w) { return w->query; }

int64_t tsk_ani_repeats(tsk_ani_work *w, const tsk_ani_genome *g)
{
    if (g->repeats) {
        const int64_t known = __atomic_load_n(g->repeats, __ATOMIC_RELAXED);
        if (known >= 0) return known;
    }
    const int64_t n = all_anchors(g);
    const uint64_t *keys = w->query == g ? w->keys_q : NULL; /* the query's, sorted by value */
    if (!keys && n > 0) {
        if (grow((void **)&w->rep_keys, &w->cap_rep_keys, n, sizeof *w->rep_keys) ||
            grow((void **)&w->rep_tmp, &w->cap_rep_tmp, n, sizeof *w->rep_tmp))
            return -1;
        keys_of(g, w->rep_keys);
        keys = sort_by_high(w, w->rep_keys, w->rep_tmp, n);
    }
    if (grow((void **)&w->rep_count, &w->cap_rep_count, g->n_segments + 1, sizeof *w->rep_count)) return -1;
    memset(w->rep_count, 0, (size_t)(g->n_segments + 1) * sizeof *w->rep_count);
    for (int64_t i = 0; i < n;) { /* a run of one value: its anchors recur when it spans two segments */
        int64_t j = i + 1;
        uint32_t lo = (uint32_t)keys[i], hi = lo;
        for (; j < n && keys[j] >> 32 == keys[i] >> 32; j++) {
            const uint32_t sg = (uint32_t)keys[j];
            lo = sg < lo ? sg : lo;
            hi = sg > hi ? sg : hi;
        }
        if (lo != hi)
            for (int64_t t = i; t < j; t++) w->rep_count[(uint32_t)keys[t]]++;
        i = j;
    }
    int64_t total = 0;
    for (int64_t sg = 0; sg < g->n_segments; sg++)
        total += w->rep_count[sg] < TSK_ANI_REPEAT_CAP ? w->rep_count[sg] : TSK_ANI_REPEAT_CAP;
    if (g->repeats) __atomic_store_n(g->repeats, total, __ATOMIC_RELAXED);
    return total;
}

/* Whether the query holds a value in [from, to] (stored values, to < 2^32), stamping every anchor
 * that does with the pair's id. */
static int query_holds(tsk_ani_work *w, uint64_t from, uint64_t to)
{
    const int shift = 32 - w->bucket_bits;
    int found = 0;
    for (uint64_t b = from >> shift; b <= to >> shift; b++)
        for (uint32_t i = w->bucket[b]; i < w->bucket[b + 1]; i++) {
            const uint64_t v = w->value_q[i];
            if (v > to) return found;
            if (v >= from) {
                w->stamp[i] = w->pair_id;
                found = 1;
            }
        }
    return found;
}

/* query_holds(w, v, v), the first LOOKUP_WIDTH (4) anchors of v's bucket compared and stamped without
 * a branch (about half of all lookups hit, so a branch on it would mispredict half the time): the
 * matches make a byte mask, and the four stamps are one word read and written. The work's arrays
 * come as locals: stores through the stamps may alias anything, and would make the compiler reload
 * every field after each. */
static inline int query_holds_exact(tsk_ani_work *w, const uint32_t *restrict bucket, const uint32_t *restrict value,
                                    uint8_t *restrict stamp, int bucket_shift, uint32_t id_bytes, uint64_t v)
{
    const uint32_t lo = bucket[v >> bucket_shift], hi = bucket[(v >> bucket_shift) + 1];
    if (hi - lo > LOOKUP_WIDTH) return query_holds(w, v, v);
    const uint32_t n = hi - lo;
    const uint32_t match = (uint32_t)((0 < n) & (value[lo] == v)) | (uint32_t)((1 < n) & (value[lo + 1] == v)) << 8 |
                           (uint32_t)((2 < n) & (value[lo + 2] == v)) << 16 |
                           (uint32_t)((3 < n) & (value[lo + 3] == v)) << 24;
    const uint32_t mask = match * 0xFFu; /* each byte 0 or 1: no carries */
    uint32_t word;
    memcpy(&word, stamp + lo, sizeof word);
    word = (word & ~mask) | (id_bytes & mask);
    memcpy(stamp + lo, &word, sizeof word);
    return match != 0;
}

/* Grows a genome's per-segment arrays (anchors, hits) to hold n segments. */
static int grow_segment_counts(uint32_t **anchors, uint32_t **hits, int64_t *cap, int64_t n)
{
    if (n <= *cap) return 0;
    uint32_t *a = realloc(*anchors, (size_t)n * sizeof *a);
    if (!a) return -1;
    *anchors = a;
    uint32_t *h = realloc(*hits, (size_t)n * sizeof *h);
    if (!h) return -1;
    *hits = h;
    *cap = n;
    return 0;
}

/* The query's and r's per-segment counts and hits at the common rate, into w->n_q, a_q, n_r,
 * a_r; the anchors kept in *kept_q, *kept_r. Every kept anchor of r looks its value up among the
 * query's (a value both hold is a hit of every anchor that carries it, on either side). Returns
 * 0, or -1 when out of memory or on a genome out of range. */
static int query_hits(tsk_ani_work *w, const tsk_ani_genome *r, int64_t *kept_q, int64_t *kept_r)
{
    const tsk_ani_genome *q = w->query;
    if (!q || q->n_segments >= (INT64_C(1) << 32) || r->n_segments >= (INT64_C(1) << 32)) return -1;
    if (q->rate_log2 < TSK_ANI_MIN_RATE_LOG2 || q->rate_log2 > TSK_ANI_MAX_RATE_LOG2 ||
        r->rate_log2 < TSK_ANI_MIN_RATE_LOG2 || r->rate_log2 > TSK_ANI_MAX_RATE_LOG2)
        return -1;
    if (grow_segment_counts(&w->n_q, &w->a_q, &w->cap_seg_q, q->n_segments + 1) ||
        grow_segment_counts(&w->n_r, &w->a_r, &w->cap_seg_r, r->n_segments + 1))
        return -1;
    const int32_t hi = q->rate_log2 > r->rate_log2 ? q->rate_log2 : r->rate_log2;
    const int32_t lo = q->rate_log2 < r->rate_log2 ? q->rate_log2 : r->rate_log2;
    w->value_bits = 32 - (hi - lo);
    uint64_t limit_q, limit_r;
    int shift_q, shift_r;
    compare_form(q, lo, hi, &limit_q, &shift_q);
    compare_form(r, lo, hi, &limit_r, &shift_r);
    if (w->n_q_limit != limit_q) { /* the query's counts serve all its pairs at one rate */
        counts_below(q, limit_q, w->n_q);
        w->n_q_limit = limit_q;
    }
    counts_below(r, limit_r, w->n_r);
    if (++w->pair_id == 0) { /* the stamps wrapped: none may look current */
        memset(w->stamp, 0, (size_t)(all_anchors(q) + LOOKUP_WIDTH) * sizeof *w->stamp);
        w->pair_id = 1;
    }
    uint32_t *a_r = w->a_r; /* a_r[r->n_segments]: r's loose anchors' hits, not counted */
    for (int64_t s = 0; s <= r->n_segments; s++) a_r[s] = 0;
    const int64_t r_all = all_anchors(r);
    /* r's kept anchor of value v (compared as v >> shift_r) hits the query's kept anchors whose
     * value u has u >> shift_q == v >> shift_r: u in [(v >> shift_r) << shift_q, that + 2^shift_q) */
    if (shift_q == 0) {
        /* the query as dense as r or denser: one value to look up a kept anchor of r. The lookups
         * go region by region of the query's index (r's kept anchors, each with its segment,
         * partitioned by the top LOOKUP_REGION_BITS bits of their value first), so that each
         * region's part of the index stays in the nearest cache while it is read */
        if (grow((void **)&w->tmp, &w->cap_tmp, r_all, sizeof *w->tmp)) return -1;
        int64_t start[LOOKUP_REGIONS + 1] = {0};
        const uint32_t *hash = r->hash;
        const int region_shift = 32 - LOOKUP_REGION_BITS;
        for (int64_t i = 0; i < r_all; i++)
            if (hash[i] < limit_r) start[((uint64_t)hash[i] >> shift_r >> region_shift) + 1]++;
        for (int p = 0; p < LOOKUP_REGIONS; p++) start[p + 1] += start[p];
        const int64_t n_kept = start[LOOKUP_REGIONS];
        uint64_t *part = w->tmp;
        int64_t at = 0;
        for (int64_t s = 0; s < r->n_segments; s++)
            for (uint32_t j = 0; j < r->seg_count[s]; j++, at++)
                if (hash[at] < limit_r) {
                    const uint64_t v = (uint64_t)hash[at] >> shift_r;
                    part[start[v >> region_shift]++] = v << 32 | (uint64_t)s;
                }
        for (; at < r_all; at++)
            if (hash[at] < limit_r) {
                const uint64_t v = (uint64_t)hash[at] >> shift_r;
                part[start[v >> region_shift]++] = v << 32 | (uint64_t)r->n_segments;
            }
        const uint32_t *bucket = w->bucket, *value = w->value_q;
        uint8_t *stamp = w->stamp;
        const uint32_t id_bytes = w->pair_id * 0x01010101u;
        const int bucket_shift = 32 - w->bucket_bits;
        for (int64_t k = 0; k < n_kept; k++)
            a_r[(uint32_t)part[k]] += (uint32_t)query_holds_exact(w, bucket, value, stamp, bucket_shift, id_bytes,
                                                                  part[k] >> 32);
    } else {
        /* the query sparser: a range of its values a kept anchor of r (rare: r the denser genome) */
        int64_t at = 0;
        for (int64_t s = 0; s < r->n_segments; s++)
            for (uint32_t j = 0; j < r->seg_count[s]; j++, at++) {
                const uint64_t from = (uint64_t)r->hash[at] << shift_q, to = from + (UINT64_C(1) << shift_q) - 1;
                a_r[s] += (uint32_t)(r->hash[at] < limit_r && query_holds(w, from, to < limit_q ? to : limit_q - 1));
            }
        for (; at < r_all; at++) {
            const uint64_t from = (uint64_t)r->hash[at] << shift_q, to = from + (UINT64_C(1) << shift_q) - 1;
            if (r->hash[at] < limit_r) query_holds(w, from, to < limit_q ? to : limit_q - 1);
        }
    }
    int64_t nr = 0; /* r's kept anchors, loose ones too: the values a query anchor may meet by chance */
    for (int64_t s = 0; s < r->n_segments; s++) nr += w->n_r[s]; /* counts_below's kept anchors */
    for (int64_t j = r->n_anchors; j < r_all; j++) nr += r->hash[j] < limit_r;
    uint32_t *a_q = w->a_q;
    const uint32_t *seg_q = w->seg_q, *value_q = w->value_q;
    const uint8_t *stamp = w->stamp, id = w->pair_id;
    for (int64_t s = 0; s <= q->n_segments; s++) a_q[s] = 0;
    int64_t nq = 0;
    for (const int64_t q_all = all_anchors(q); nq < q_all && value_q[nq] < limit_q; nq++)
        a_q[seg_q[nq]] += stamp[nq] == id; /* a_q[q->n_segments]: q's loose anchors' hits, not counted */
    *kept_q = nq;
    *kept_r = nr;
    return 0;
}

/* query_hits with q as the query. */
static int segment_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int64_t *kept_q,
                        int64_t *kept_r)
{
    if (tsk_ani_work_query(w, q)) return -1;
    return query_hits(w, r, kept_q, kept_r);
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

/* Both directions and the pair, from the hits in the work. */
static int pair_from_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int64_t nq, int64_t nr,
                          int anchor_k, tsk_ani_result *out)
{
    tsk_ani_direction dq, dr;
    const int64_t rep_q = tsk_ani_repeats(w, q), rep_r = tsk_ani_repeats(w, r);
    if (rep_q < 0 || rep_r < 0) return -1;
    const double self_q = tsk_ani_self_rate(rep_q, q->n_anchors, q->length, r->length),
                 self_r = tsk_ani_self_rate(rep_r, r->n_anchors, r->length, q->length);
    if (direction(w, w->n_q, w->a_q, q->n_segments, r->length, nr, self_q, anchor_k, &dq.ani, &dq.af,
                  &dq.with_anchors, &dq.m) ||
        direction(w, w->n_r, w->a_r, r->n_segments, q->length, nq, self_r, anchor_k, &dr.ani, &dr.af,
                  &dr.with_anchors, &dr.m))
        return -1;
    tsk_ani_pair_finish(q, r, &dq, &dr, out);
    return 0;
}

/* The pair's ANI and AF from out's directions and defined (q and r as out's directions name them):
 * the mean of both directions' ANI, the AF of the genome with fewer segments (q's when even). */
static void pair_of_directions(const tsk_ani_genome *q, const tsk_ani_genome *r, tsk_ani_result *out)
{
    if (!out->defined || out->af_q < TSK_ANI_MIN_AF || out->af_r < TSK_ANI_MIN_AF) return;
    out->ani = (out->ani_q + out->ani_r) / 2;
    out->af = q->n_segments <= r->n_segments ? out->af_q : out->af_r;
}

void tsk_ani_pair_finish(const tsk_ani_genome *q, const tsk_ani_genome *r, const tsk_ani_direction *dq,
                         const tsk_ani_direction *dr, tsk_ani_result *out)
{
    memset(out, 0, sizeof *out);
    out->ani_q = dq->ani, out->af_q = dq->af, out->ani_r = dr->ani, out->af_r = dr->af;
    out->m_q = dq->m, out->m_r = dr->m;
    out->defined = dq->with_anchors > 0 && dr->with_anchors > 0;
    pair_of_directions(q, r, out);
}

void tsk_ani_result_swap(const tsk_ani_genome *q, const tsk_ani_genome *r, const tsk_ani_result *res,
                         tsk_ani_result *out)
{
    const tsk_ani_result in = *res; /* out may be res */
    memset(out, 0, sizeof *out);
    out->ani_q = in.ani_r, out->af_q = in.af_r, out->ani_r = in.ani_q, out->af_r = in.af_q;
    out->m_q = in.m_r, out->m_r = in.m_q;
    out->defined = in.defined;
    pair_of_directions(r, q, out);
}

int tsk_ani_pair(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int anchor_k,
                 tsk_ani_result *out)
{
    memset(out, 0, sizeof *out);
    int64_t nq, nr;
    if (segment_hits(w, q, r, &nq, &nr)) return -1;
    return pair_from_hits(w, q, r, nq, nr, anchor_k, out);
}

int tsk_ani_pair_query(tsk_ani_work *w, const tsk_ani_genome *r, int anchor_k, tsk_ani_result *out)
{
    memset(out, 0, sizeof *out);
    int64_t nq, nr;
    if (query_hits(w, r, &nq, &nr)) return -1;
    return pair_from_hits(w, w->query, r, nq, nr, anchor_k, out);
}

/* The share of W-base windows a point mass at identity a keeps on the grid: the mass split between
 * the grid identities around a, keeping its mean (the spread the grid alone gives it). */
static double grid_point_mass(double a, int window)
{
    const int div = TSK_ANI_GRID_DIV;
    int below = (int)floor(a * div);
    if (below >= div) below = div - 1;
    const double lo = (double)below / div, hi = (double)(below + 1) / div;
    return ((hi - a) * pow(lo, window) + (a - lo) * pow(hi, window)) * div;
}

void tsk_ani_level_from_keys(tsk_ani_result *res, int64_t shared, int64_t n_q, int64_t n_r, int window)
{
    if (!res->defined || !(res->ani > TSK_ANI_KEYS_LOW) || window <= 0 || shared <= 0 || n_q <= 0 || n_r <= 0 ||
        !(res->m_q > 0) || !(res->m_r > 0) || !(res->af_q > 0) || !(res->af_r > 0))
        return;
    const double ramp = res->ani >= TSK_ANI_KEYS_HIGH
                            ? 1.0
                            : (res->ani - TSK_ANI_KEYS_LOW) / (TSK_ANI_KEYS_HIGH - TSK_ANI_KEYS_LOW);
    const double contained[2] = {(double)shared / (double)n_q, (double)shared / (double)n_r};
    const double af[2] = {res->af_q, res->af_r}, m[2] = {res->m_q, res->m_r};
    double ani[2] = {res->ani_q, res->ani_r};
    const double inv_w = 1.0 / window;
    for (int d = 0; d < 2; d++) {
        /* in the identity's own scale (ani[d] is fastANI's, 1 + s ln I: exp((ani[d] - 1) / s) is
         * the identity of a point mass there), then reported on fastANI's */
        double spread =
            pow(m[d], inv_w) - pow(grid_point_mass(exp((ani[d] - 1) / TSK_ANI_SCALE), window), inv_w);
        if (spread < 0) spread = 0;
        double keys = pow(contained[d] / af[d], inv_w) - spread;
        keys = keys > 1 ? 1 : keys;
        double keys_reported = keys > 0 ? 1 + TSK_ANI_SCALE * log(keys) : 0;
        if (keys_reported < 0) keys_reported = 0;
        ani[d] = ramp * keys_reported + (1 - ramp) * ani[d];
    }
    res->ani_q = ani[0], res->ani_r = ani[1];
    res->ani = (ani[0] + ani[1]) / 2;
}

float tsk_ani_distance(const tsk_ani_result *r)
{
    if (!r->defined || !(r->ani > 0)) return 1.0f;
    return (float)(1.0 - r->ani);
}
