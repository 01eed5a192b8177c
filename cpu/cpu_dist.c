/* cpu_dist.c: the CPU distance engine (see cpu_dist.h and docs/distances.md).
 *
 * Every distance is a sum of squared differences sum((s_a a - s_b b)^2), with s = 1 for l2 and
 * s = 1/|x| for cosine (then 1 - cos = sum / 2). Summing differences keeps full relative accuracy
 * for near-identical sketches, where |a|^2 + |b|^2 - 2ab in float32 would cancel to noise. The
 * arithmetic (scaling, order, FMAs, finish) is core/vec_dist.h's, which the GPU engine follows to
 * the bit (#42): the micro-kernels below are its tiled sum, element by element with one FMA each.
 *
 * When every item of both sets has the same number of rows (always true for whole-record
 * sketches) the pairs go through a GEMM-like blocked kernel: a block of references is packed into
 * panels of NR references interleaved by element, a block of queries into panels of MR, and a
 * register-blocked micro-kernel (AVX-512, AVX2+FMA or portable C, chosen at run time) produces
 * MR x NR sums at once, each element of a panel loaded once per MR or NR pairs. Sums are taken
 * in float32 over at most KC elements and carried across chunks in float64, which bounds the
 * rounding error of long (slide) vectors. Items with differing row counts (slide sketches of
 * records of different lengths) are compared pair by pair over min(rows) rows.
 *
 * Every pair goes through the same arithmetic whatever the tiling or the thread count, so output
 * is bit-for-bit reproducible on one machine. */
#include "cpu_dist.h"

#include "../core/vec_dist.h"

#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MR 6          /* queries per micro-tile */
#define NR_MAX 32     /* references per panel with AVX-512 (16 with AVX2, 8 portable) */
#define KC TSK_VD_CHUNK /* elements summed in float32 before carrying into float64 */
#define QB (16 * MR)  /* queries per tile */
#define TILE_BYTES (192 * 1024) /* target size of a packed reference block */

/* The micro-kernel: out[i * nr + j] = sum over d < kc of (qp[d*MR + i] - rp[d*nr + j])^2. */
typedef void (*micro_kernel)(const float *qp, const float *rp, int64_t kc, float *out);

struct tsk_cpu_dist {
    tsk_sketch_set q, r;
    tsk_metric metric;
    int threads;
    int uniform;          /* every item of both sets has the same row count */
    int64_t len;          /* floats per item when uniform */
    double *q_prefix, *r_prefix; /* per item: squared norms of its first 0..n_rows rows */
    int64_t *q_pre_off, *r_pre_off;
    float *q_scale, *r_scale;    /* uniform: 1 (l2) or 1/|x| (cosine), 0 for a zero sketch */
    micro_kernel kernel;
    int nr;               /* panel width of the kernel */
    int64_t rb;           /* references per tile */
    char err[160];        /* why the last call failed (tsk_cpu_dist_error) */
};

/* ---- micro-kernels ---- */

__attribute__((target("avx512f"))) static void kernel_avx512(const float *qp, const float *rp, int64_t kc,
                                                             float *out)
{
    __m512 c[MR][2];
    for (int i = 0; i < MR; i++) c[i][0] = c[i][1] = _mm512_setzero_ps();
    for (int64_t d = 0; d < kc; d++) {
        __m512 b0 = _mm512_load_ps(rp + d * 32), b1 = _mm512_load_ps(rp + d * 32 + 16);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            __m512 a = _mm512_set1_ps(qp[d * MR + i]);
            __m512 x0 = _mm512_sub_ps(a, b0), x1 = _mm512_sub_ps(a, b1);
            c[i][0] = _mm512_fmadd_ps(x0, x0, c[i][0]);
            c[i][1] = _mm512_fmadd_ps(x1, x1, c[i][1]);
        }
    }
    for (int i = 0; i < MR; i++) {
        _mm512_storeu_ps(out + i * 32, c[i][0]);
        _mm512_storeu_ps(out + i * 32 + 16, c[i][1]);
    }
}

__attribute__((target("avx2,fma"))) static void kernel_avx2(const float *qp, const float *rp, int64_t kc,
                                                            float *out)
{
    __m256 c[MR][2];
    for (int i = 0; i < MR; i++) c[i][0] = c[i][1] = _mm256_setzero_ps();
    for (int64_t d = 0; d < kc; d++) {
        __m256 b0 = _mm256_load_ps(rp + d * 16), b1 = _mm256_load_ps(rp + d * 16 + 8);
#pragma GCC unroll 6
        for (int i = 0; i < MR; i++) {
            __m256 a = _mm256_broadcast_ss(qp + d * MR + i);
            __m256 x0 = _mm256_sub_ps(a, b0), x1 = _mm256_sub_ps(a, b1);
            c[i][0] = _mm256_fmadd_ps(x0, x0, c[i][0]);
            c[i][1] = _mm256_fmadd_ps(x1, x1, c[i][1]);
        }
    }
    for (int i = 0; i < MR; i++) {
        _mm256_storeu_ps(out + i * 16, c[i][0]);
        _mm256_storeu_ps(out + i * 16 + 8, c[i][1]);
    }
}

/* The same sums as the SIMD kernels (and the GPU's): one rounding per element through fmaf, which
 * is a library call on a CPU without FMA, slow but the same bytes. */
static void kernel_portable(const float *qp, const float *rp, int64_t kc, float *out)
{
    float c[MR][8] = {{0}};
    for (int64_t d = 0; d < kc; d++)
        for (int i = 0; i < MR; i++) {
            float a = qp[d * MR + i];
            for (int j = 0; j < 8; j++) c[i][j] = tsk_vd_step(c[i][j], a, rp[d * 8 + j]);
        }
    memcpy(out, c, sizeof c);
}

/* The kernel of the contexts opened next: tsk_cpu_dist_force_kernel's, -1 until it is called
 * (then TSKETCH_DIST_KERNEL's). */
static int kernel_forced = -1;

void tsk_cpu_dist_force_kernel(tsk_knob_kernel k) { __atomic_store_n(&kernel_forced, (int)k, __ATOMIC_RELAXED); }

/* The fastest kernel this CPU runs, or the one forced (tests and benchmarks compare them; one
 * the CPU lacks gives the fastest it has). */
static void choose_kernel(tsk_cpu_dist *d)
{
    int forced = __atomic_load_n(&kernel_forced, __ATOMIC_RELAXED);
    if (forced < 0) forced = (int)tsk_knobs_get()->dist_kernel;
    __builtin_cpu_init();
    int avx512 = __builtin_cpu_supports("avx512f");
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (forced == TSK_KNOB_PORTABLE) avx512 = avx2 = 0;
    if (forced == TSK_KNOB_AVX2) avx512 = 0;
    if (avx512) {
        d->kernel = kernel_avx512;
        d->nr = 32;
    } else if (avx2) {
        d->kernel = kernel_avx2;
        d->nr = 16;
    } else {
        d->kernel = kernel_portable;
        d->nr = 8;
    }
}

/* ---- setup ---- */

static const float *item_data(const tsk_sketch_set *s, int64_t i)
{
    return s->rows + (size_t)s->first_row[i] * (size_t)s->dim;
}

/* Squared norms of the first 0..n_rows rows of every item, in float64. */
static int prefix_norms(const tsk_sketch_set *s, double **prefix, int64_t **off)
{
    *off = malloc((size_t)(s->n_items + 1) * sizeof **off);
    if (!*off) return -1;
    int64_t total = 0;
    for (int64_t i = 0; i < s->n_items; i++) {
        (*off)[i] = total;
        total += s->n_rows[i] + 1;
    }
    (*off)[s->n_items] = total;
    *prefix = malloc((size_t)(total > 0 ? total : 1) * sizeof **prefix);
    if (!*prefix) return -1;
    for (int64_t i = 0; i < s->n_items; i++) {
        double *p = *prefix + (*off)[i], acc = 0;
        const float *x = item_data(s, i);
        p[0] = 0;
        for (int64_t row = 0; row < s->n_rows[i]; row++) {
            for (int k = 0; k < s->dim; k++) acc += (double)x[row * s->dim + k] * x[row * s->dim + k];
            p[row + 1] = acc;
        }
    }
    return 0;
}

static float *uniform_scales(const tsk_sketch_set *s, const double *prefix, const int64_t *off, tsk_metric m)
{
    float *sc = malloc((size_t)(s->n_items > 0 ? s->n_items : 1) * sizeof *sc);
    if (!sc) return NULL;
    for (int64_t i = 0; i < s->n_items; i++) {
        double n2 = prefix[off[i] + s->n_rows[i]];
        sc[i] = m == TSK_METRIC_L2 ? 1.0f : tsk_vd_inv_norm(n2);
    }
    return sc;
}

tsk_cpu_dist *tsk_cpu_dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m,
                                int threads, char *err, size_t errlen)
{
    if (query->dim != ref->dim) {
        snprintf(err, errlen, "sketch dimensions differ (%d and %d)", query->dim, ref->dim);
        return NULL;
    }
    tsk_cpu_dist *d = calloc(1, sizeof *d);
    if (!d) goto oom;
    d->q = *query;
    d->r = *ref;
    d->metric = m;
    d->threads = threads > 0 ? threads : omp_get_max_threads();
    choose_kernel(d);
    if (prefix_norms(query, &d->q_prefix, &d->q_pre_off) || prefix_norms(ref, &d->r_prefix, &d->r_pre_off))
        goto oom;
    int64_t rows = query->n_items > 0 ? query->n_rows[0] : ref->n_items > 0 ? ref->n_rows[0] : 0;
    d->uniform = 1;
    for (int64_t i = 0; i < query->n_items && d->uniform; i++) d->uniform = query->n_rows[i] == rows;
    for (int64_t i = 0; i < ref->n_items && d->uniform; i++) d->uniform = ref->n_rows[i] == rows;
    d->len = rows * query->dim;
    if (d->uniform) {
        d->q_scale = uniform_scales(query, d->q_prefix, d->q_pre_off, m);
        d->r_scale = uniform_scales(ref, d->r_prefix, d->r_pre_off, m);
        if (!d->q_scale || !d->r_scale) goto oom;
    }
    int64_t per_ref = (d->len > 0 ? d->len : 1) * (int64_t)sizeof(float);
    d->rb = TILE_BYTES / per_ref / d->nr * d->nr;
    if (d->rb < d->nr) d->rb = d->nr;
    if (d->rb > 512) d->rb = 512;
    return d;
oom:
    snprintf(err, errlen, "out of memory preparing distances");
    tsk_cpu_dist_close(d);
    return NULL;
}

void tsk_cpu_dist_close(tsk_cpu_dist *d)
{
    if (!d) return;
    free(d->q_prefix);
    free(d->r_prefix);
    free(d->q_pre_off);
    free(d->r_pre_off);
    free(d->q_scale);
    free(d->r_scale);
    free(d);
}

/* ---- one tile of distances ---- */

/* Per-thread buffers: packed queries and references, and a tile of results. */
typedef struct {
    float *qpack, *rpack, *tile;
} workspace;

static int workspace_init(const tsk_cpu_dist *d, workspace *ws)
{
    int64_t len = d->len > 0 ? d->len : 1;
    size_t qbytes = (size_t)QB * (size_t)len * sizeof(float);
    size_t rbytes = (size_t)d->rb * (size_t)len * sizeof(float);
    ws->qpack = aligned_alloc(64, (qbytes + 63) / 64 * 64);
    ws->rpack = aligned_alloc(64, (rbytes + 63) / 64 * 64);
    ws->tile = malloc((size_t)QB * (size_t)d->rb * sizeof(float));
    return ws->qpack && ws->rpack && ws->tile ? 0 : -1;
}

static void workspace_free(workspace *ws)
{
    free(ws->qpack);
    free(ws->rpack);
    free(ws->tile);
}

/* Packs n items from a0 into panels of w items interleaved by element, scaled, zero-padded. */
static void pack(const tsk_sketch_set *s, const float *scale, int64_t a0, int64_t n, int64_t len, int w,
                 float *buf)
{
    for (int64_t p = 0; p < n; p += w) {
        float *panel = buf + p * len;
        for (int j = 0; j < w; j++) {
            if (p + j < n) {
                const float *x = item_data(s, a0 + p + j);
                float sc = scale[a0 + p + j];
                for (int64_t e = 0; e < len; e++) panel[e * w + j] = tsk_vd_scale(x[e], sc);
            } else {
                for (int64_t e = 0; e < len; e++) panel[e * w + j] = 0.0f;
            }
        }
    }
}

/* The printed distance of a sum (core/vec_dist.h: the GPU's finish too). */
static float finish(const tsk_cpu_dist *d, double sum, int zero)
{
    return tsk_vd_finish(sum, d->metric == TSK_METRIC_COSINE, zero);
}

/* Blocked path: distances of qn <= QB queries from q0 and rn <= rb references from r0. */
static void tile_uniform(const tsk_cpu_dist *d, workspace *ws, int64_t q0, int64_t qn, int64_t r0, int64_t rn,
                         float *out, int64_t ld)
{
    const int64_t len = d->len;
    const int nr = d->nr;
    pack(&d->q, d->q_scale, q0, qn, len, MR, ws->qpack);
    pack(&d->r, d->r_scale, r0, rn, len, nr, ws->rpack);
    float part[MR * NR_MAX];
    double sum[MR * NR_MAX];
    for (int64_t qi = 0; qi < qn; qi += MR) {
        const float *qp = ws->qpack + qi * len;
        for (int64_t rj = 0; rj < rn; rj += nr) {
            const float *rp = ws->rpack + rj * len;
            for (int k = 0; k < MR * nr; k++) sum[k] = 0;
            for (int64_t e0 = 0; e0 < len; e0 += KC) {
                int64_t kc = len - e0 < KC ? len - e0 : KC;
                d->kernel(qp + e0 * MR, rp + e0 * nr, kc, part);
                for (int k = 0; k < MR * nr; k++) sum[k] += part[k];
            }
            for (int i = 0; i < MR && qi + i < qn; i++) {
                int qzero = d->q_scale[q0 + qi + i] == 0.0f;
                for (int j = 0; j < nr && rj + j < rn; j++)
                    out[(qi + i) * ld + rj + j] =
                        finish(d, sum[i * nr + j], qzero || d->r_scale[r0 + rj + j] == 0.0f);
            }
        }
    }
}

/* Pair path (row counts differ): over the first min(rows) rows, scaled by the norms over them;
 * the sum is core/vec_dist.h's, which the GPU's ragged kernel calls too. */
static float pair_distance(const tsk_cpu_dist *d, int64_t q, int64_t r)
{
    int64_t rows = d->q.n_rows[q] < d->r.n_rows[r] ? d->q.n_rows[q] : d->r.n_rows[r];
    int64_t len = rows * d->q.dim;
    float sa = 1, sb = 1;
    int cosine = d->metric == TSK_METRIC_COSINE;
    if (cosine) {
        double na = d->q_prefix[d->q_pre_off[q] + rows], nb = d->r_prefix[d->r_pre_off[r] + rows];
        if (na == 0 || nb == 0) return tsk_vd_finish(0, 1, 1);
        sa = tsk_vd_inv_norm(na);
        sb = tsk_vd_inv_norm(nb);
    }
    return tsk_vd_finish(tsk_vd_pair_sum(item_data(&d->q, q), sa, item_data(&d->r, r), sb, len), cosine, 0);
}

static void tile(const tsk_cpu_dist *d, workspace *ws, int64_t q0, int64_t qn, int64_t r0, int64_t rn, float *out,
                 int64_t ld)
{
    if (d->uniform && d->len > 0) {
        tile_uniform(d, ws, q0, qn, r0, rn, out, ld);
        return;
    }
    for (int64_t i = 0; i < qn; i++)
        for (int64_t j = 0; j < rn; j++) out[i * ld + j] = pair_distance(d, q0 + i, r0 + j);
}

/* ---- the three requests ---- */

const char *tsk_cpu_dist_error(const tsk_cpu_dist *d) { return d->err; }

/* What a call ran out of memory for: bits of its `failed`. */
enum { NO_TILES = 1, NO_PAIRS = 2 };

/* A call's end: 0, or -1 with why in d->err when failed. */
static int finish_call(tsk_cpu_dist *d, int failed)
{
    if (!failed) return 0;
    const double len = (double)(d->len > 0 ? d->len : 1), floats = ((double)QB + (double)d->rb) * len + QB * (double)d->rb;
    if (failed & NO_TILES)
        snprintf(d->err, sizeof d->err, "out of memory for the distance tiles of %d threads (%.3g MB each)", d->threads,
                 floats * sizeof(float) / 1e6);
    else
        snprintf(d->err, sizeof d->err, "out of memory for the pairs within the distance");
    return -1;
}

/* First reference index of [0, n) that can pass f for some query of [q0, q1). */
static int64_t first_ref(tsk_pair_filter f, int64_t q0)
{
    return f == TSK_PAIRS_UPPER ? q0 + 1 : f == TSK_PAIRS_UPPER_SELF ? q0 : 0;
}

int tsk_cpu_dist_block(tsk_cpu_dist *d, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    int64_t nqb = (nq + QB - 1) / QB, nrb = (nr + d->rb - 1) / d->rb;
    int failed = 0;
#pragma omp parallel num_threads(d->threads) reduction(| : failed)
    {
        workspace ws;
        if (workspace_init(d, &ws)) failed = NO_TILES;
#pragma omp for schedule(dynamic) collapse(2)
        for (int64_t bq = 0; bq < nqb; bq++)
            for (int64_t br = 0; br < nrb; br++) {
                if (failed) continue;
                int64_t qa = bq * QB, ra = br * d->rb;
                int64_t qn = nq - qa < QB ? nq - qa : QB, rn = nr - ra < d->rb ? nr - ra : d->rb;
                tile(d, &ws, q0 + qa, qn, r0 + ra, rn, out + qa * ld + ra, ld);
            }
        workspace_free(&ws);
    }
    return finish_call(d, failed);
}

/* Max-heap of the k best (dist, ref) so far: the root is the worst kept. */
static int worse(const tsk_pair *a, const tsk_pair *b)
{
    return a->dist > b->dist || (a->dist == b->dist && a->ref > b->ref);
}

static void heap_sift_down(tsk_pair *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, w = i;
        if (l < n && worse(&h[l], &h[w])) w = l;
        if (l + 1 < n && worse(&h[l + 1], &h[w])) w = l + 1;
        if (w == i) return;
        tsk_pair t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void heap_push(tsk_pair *h, int *n, int k, tsk_pair p)
{
    if (*n < k) {
        int i = (*n)++;
        h[i] = p;
        while (i > 0 && worse(&h[i], &h[(i - 1) / 2])) {
            tsk_pair t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (worse(&h[0], &p)) {
        h[0] = p;
        heap_sift_down(h, k, 0);
    }
}

/* Sorts a heap in place, nearest first (heapsort: repeatedly move the worst to the end). */
static void heap_sort(tsk_pair *h, int n)
{
    for (int end = n - 1; end > 0; end--) {
        tsk_pair t = h[0];
        h[0] = h[end];
        h[end] = t;
        heap_sift_down(h, end, 0);
    }
}

int tsk_cpu_dist_topk(tsk_cpu_dist *d, int64_t q0, int64_t nq, int k, tsk_pair_filter filter, tsk_pair *out)
{
    if (k <= 0 || nq <= 0) return 0;
    int64_t nqb = (nq + QB - 1) / QB, n_ref = d->r.n_items;
    int failed = 0;
#pragma omp parallel num_threads(d->threads) reduction(| : failed)
    {
        workspace ws;
        int count[QB];
        if (workspace_init(d, &ws)) failed = NO_TILES;
#pragma omp for schedule(dynamic)
        for (int64_t bq = 0; bq < nqb; bq++) {
            if (failed) continue;
            int64_t qa = q0 + bq * QB, qn = q0 + nq - qa < QB ? q0 + nq - qa : QB;
            memset(count, 0, sizeof count);
            for (int64_t ra = first_ref(filter, qa); ra < n_ref; ra += d->rb) {
                int64_t rn = n_ref - ra < d->rb ? n_ref - ra : d->rb;
                tile(d, &ws, qa, qn, ra, rn, ws.tile, rn);
                for (int64_t i = 0; i < qn; i++) {
                    tsk_pair *h = out + (qa - q0 + i) * k;
                    for (int64_t j = 0; j < rn; j++) {
                        float x = ws.tile[i * rn + j];
                        if (isnan(x) || !tsk_pair_admitted(filter, qa + i, ra + j)) continue;
                        heap_push(h, &count[i], k, (tsk_pair){qa + i, ra + j, x});
                    }
                }
            }
            for (int64_t i = 0; i < qn; i++) {
                tsk_pair *h = out + (qa - q0 + i) * k;
                heap_sort(h, count[i]);
                for (int j = count[i]; j < k; j++) h[j] = (tsk_pair){qa + i, -1, INFINITY};
            }
        }
        workspace_free(&ws);
    }
    return finish_call(d, failed);
}

int tsk_cpu_dist_within(tsk_cpu_dist *d, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter,
                        tsk_pair **pairs, int64_t *n_pairs, int64_t *cap)
{
    if (nq <= 0) return 0;
    int64_t nqb = (nq + QB - 1) / QB, n_ref = d->r.n_items;
    /* Each query tile collects its pairs alone; they are appended in tile order afterwards. */
    typedef struct {
        tsk_pair *p;
        int64_t n, cap;
    } list;
    list *found = calloc((size_t)nqb, sizeof *found);
    if (!found) return finish_call(d, NO_PAIRS);
    int failed = 0;
#pragma omp parallel num_threads(d->threads) reduction(| : failed)
    {
        workspace ws;
        if (workspace_init(d, &ws)) failed = NO_TILES;
#pragma omp for schedule(dynamic)
        for (int64_t bq = 0; bq < nqb; bq++) {
            if (failed) continue;
            int64_t qa = q0 + bq * QB, qn = q0 + nq - qa < QB ? q0 + nq - qa : QB;
            list *l = &found[bq];
            for (int64_t ra = first_ref(filter, qa); ra < n_ref && !failed; ra += d->rb) {
                int64_t rn = n_ref - ra < d->rb ? n_ref - ra : d->rb;
                tile(d, &ws, qa, qn, ra, rn, ws.tile, rn);
                for (int64_t i = 0; i < qn; i++)
                    for (int64_t j = 0; j < rn; j++) {
                        float x = ws.tile[i * rn + j];
                        if (!(x <= max_dist) || !tsk_pair_admitted(filter, qa + i, ra + j)) continue;
                        if (l->n == l->cap) {
                            int64_t c = l->cap ? 2 * l->cap : 256;
                            tsk_pair *p = realloc(l->p, (size_t)c * sizeof *p);
                            if (!p) {
                                failed = NO_PAIRS;
                                break;
                            }
                            l->p = p;
                            l->cap = c;
                        }
                        l->p[l->n++] = (tsk_pair){qa + i, ra + j, x};
                    }
            }
        }
        workspace_free(&ws);
    }
    /* Pairs were found reference block by reference block: restore query-major order. Within a
     * query tile a stable sort by query keeps the reference order. */
    int64_t total = *n_pairs;
    for (int64_t b = 0; b < nqb; b++) total += found[b].n;
    if (!failed && total > *cap) {
        tsk_pair *p = realloc(*pairs, (size_t)total * sizeof *p);
        if (!p) failed = NO_PAIRS;
        else {
            *pairs = p;
            *cap = total;
        }
    }
    for (int64_t b = 0; b < nqb; b++) {
        if (!failed) {
            /* Counting sort by query within the tile (at most QB distinct queries). */
            list *l = &found[b];
            int64_t qa = q0 + b * QB, start[QB + 1] = {0};
            for (int64_t i = 0; i < l->n; i++) start[l->p[i].query - qa + 1]++;
            for (int i = 0; i < QB; i++) start[i + 1] += start[i];
            tsk_pair *dst = *pairs + *n_pairs;
            for (int64_t i = 0; i < l->n; i++) dst[start[l->p[i].query - qa]++] = l->p[i];
            *n_pairs += l->n;
        }
        free(found[b].p);
    }
    free(found);
    return finish_call(d, failed);
}
