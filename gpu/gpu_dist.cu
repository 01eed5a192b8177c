/* gpu_dist.cu: the CUDA distance engine (gpu_dist.h): device memory, blocking of the reference
 * set, splitting of queries over devices, and the host side of selection (merging partial top-k
 * lists, ordering threshold hits). Kernels are in dist_kernels.cu. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "../core/vec_dist.h"
#include "cuda_util.cuh"
#include "dist_gemm.cuh"
#include "dist_kernels.cuh"
#include "gpu_dist.h"
#include "host_pinned.h"

#define DENSE_PANEL_FLOATS ((size_t)64 << 20)   /* 256 MB of dense distances per launch */
#define STAGE_BYTES ((size_t)32 << 20)          /* pinned staging for uploads */

/* One device's buffers. Reference items [r_lo, r_lo + r_n) are resident; queries are sent per
 * call unless they are part of that block (query set == reference set). */
struct dev_ctx {
    int dev = 0;
    int n_sm = 1;
    int filter_per_sm = 0;  /* blocks of the top-k filter resident on one multiprocessor */
    int filter_stride = 0;  /* pass 1 of the top-k filter on every filter_stride-th reference tile */
    size_t free_at_open = 0;
    cudaStream_t st = nullptr;
    float *R = nullptr, *Rinv = nullptr;
    double *Rnorm = nullptr;
    long long r_lo = 0, r_n = -1, r_alloc = 0;
    float *Q = nullptr, *Qinv = nullptr;
    double *Qnorm = nullptr;
    long long q_alloc = 0;
    dist_cand *part = nullptr;
    size_t part_cap = 0;
    float *centre = nullptr;  /* the top-k filter's centre (tsk_gpu_dist::centre), rounded up to 32 floats */
    float *thr = nullptr;  /* per-query candidate thresholds of the top-k filter */
    size_t thr_cap = 0;
    int *slots = nullptr;  /* the filter's candidates, slot_cap a query, and their distances */
    size_t slots_bytes = 0;
    float *slot_dist = nullptr;
    size_t slot_dist_bytes = 0;
    unsigned slot_cap = 0, *qcount = nullptr;  /* qcount: each query's candidates, then their most */
    size_t qcount_bytes = 0;
    dist_cand *lists = nullptr;  /* the filter's k-lists */
    size_t lists_bytes = 0;
    dist_hit *hits = nullptr;
    unsigned long long hits_cap = 0, *count = nullptr;
    float *dense = nullptr;
    size_t dense_cap = 0;
    void *pinned = nullptr;
    size_t pinned_cap = 0, pinned_mapped = 0;  /* tsk_pinned_free's sizes (host_pinned.h) */
    float *stage = nullptr;
    size_t stage_mapped = 0;
    cudaEvent_t stage_ev[2] = {nullptr, nullptr};
    /* ragged sets, whole */
    float *gq_rows = nullptr, *gr_rows = nullptr;
    long long *gq_start = nullptr, *gq_nrows = nullptr, *gr_start = nullptr, *gr_nrows = nullptr;
    char err[256] = "";
};

struct tsk_gpu_dist {
    const tsk_sketch_set *query, *ref;
    int same;             /* query and ref are one set */
    tsk_metric metric;
    int uniform;          /* every item of both sets has n_rows == urows */
    int64_t urows;
    int L, Lp;            /* vector length and its padding to DIST_BK */
    std::vector<double> qnorm, rnorm;  /* float64 norms (uniform path) */
    std::vector<float> centre;         /* the top-k filter's centre: the references' mean, Lp floats */
    std::vector<float> qinv, rinv;
    std::vector<dev_ctx> devs;
    long long max_ref = 0, max_query = 0;
    double open_passes_s = 0, open_devices_s = 0; /* tsk_gpu_dist_open_times */
    char err[320] = "";
};

/* ---------------------------------------------------------------- errors */

static int fail(dev_ctx &dc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(dev_ctx &dc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dc.err, sizeof dc.err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Where TSK_CUDA_CHECK reports a device's failures: its context's message, which the call that
 * ran on it hands up (on_devices). */
static tsk_cuda_site site(dev_ctx &dc) { return {dc.dev, dc.err, sizeof dc.err}; }

static int grow_pinned(dev_ctx &dc, size_t bytes)
{
    if (bytes <= dc.pinned_cap && dc.pinned) return 0;
    tsk_pinned_free(dc.pinned, dc.pinned_mapped);
    dc.pinned = nullptr;
    dc.pinned_cap = dc.pinned_mapped = 0;
    TSK_CUDA_CHECK(site(dc), tsk_pinned_alloc(bytes, &dc.pinned, &dc.pinned_mapped));
    dc.pinned_cap = bytes;
    return 0;
}

static long long round_tile(long long n) { return (n + DIST_TILE - 1) / DIST_TILE * DIST_TILE; }

/* ---------------------------------------------------------------- uploads */

/* Items [lo, lo + n) of set s, each padded to Lp floats, into dst (which has room for
 * round_tile(n) + DIST_TILE items; the rows after n are zeroed so tile loads read defined
 * memory). Cosine items are scaled by their scale[item] = 1/|x| on the way, as the CPU engine
 * packs them (core/vec_dist.h), so the kernels sum the differences of unit vectors; scale is NULL
 * for l2. Packs through two pinned halves so packing overlaps the copies. */
static int upload_items(tsk_gpu_dist *g, dev_ctx &dc, const tsk_sketch_set *s, const float *scale, long long lo,
                        long long n, float *dst, long long alloc_items)
{
    const size_t row_bytes = (size_t)g->Lp * sizeof(float);
    if (!dc.stage) {
        TSK_CUDA_CHECK(site(dc), tsk_pinned_alloc(STAGE_BYTES, (void **)&dc.stage, &dc.stage_mapped));
        TSK_CUDA_CHECK(site(dc), cudaEventCreateWithFlags(&dc.stage_ev[0], cudaEventDisableTiming));
        TSK_CUDA_CHECK(site(dc), cudaEventCreateWithFlags(&dc.stage_ev[1], cudaEventDisableTiming));
    }
    if (g->Lp > 0) {
        const long long per = std::max<long long>(1, (long long)(STAGE_BYTES / 2 / row_bytes));
        int h = 0;
        for (long long c = 0; c < n; c += per, h ^= 1) {
            long long m = std::min(per, n - c);
            float *buf = dc.stage + (size_t)h * (STAGE_BYTES / 2 / sizeof(float));
            TSK_CUDA_CHECK(site(dc), cudaEventSynchronize(dc.stage_ev[h]));
            for (long long i = 0; i < m; i++) {
                long long item = lo + c + i;
                const float *src = s->rows + (size_t)s->first_row[item] * s->dim;
                float *o = buf + (size_t)i * g->Lp;
                if (scale)
                    for (int j = 0; j < g->L; j++) o[j] = tsk_vd_scale(src[j], scale[item]);
                else
                    memcpy(o, src, (size_t)g->L * sizeof(float));
                memset(o + g->L, 0, (size_t)(g->Lp - g->L) * sizeof(float));
            }
            TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(dst + (size_t)c * g->Lp, buf, (size_t)m * row_bytes,
                                                     cudaMemcpyHostToDevice, dc.st));
            TSK_CUDA_CHECK(site(dc), cudaEventRecord(dc.stage_ev[h], dc.st));
        }
        TSK_CUDA_CHECK(site(dc),
                       cudaMemsetAsync(dst + (size_t)n * g->Lp, 0, (size_t)(alloc_items - n) * row_bytes, dc.st));
    }
    return 0;
}

/* Norm arrays of items [lo, lo+n) (cosine only). */
static int upload_norms(tsk_gpu_dist *g, dev_ctx &dc, const std::vector<double> &norm, const std::vector<float> &inv,
                        long long lo, long long n, double *dnorm, float *dinv)
{
    if (n <= 0) return 0;  /* both metrics: the top-k filter bounds from the norms */
    TSK_CUDA_CHECK(site(dc),
                   cudaMemcpyAsync(dnorm, norm.data() + lo, n * sizeof(double), cudaMemcpyHostToDevice, dc.st));
    TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(dinv, inv.data() + lo, n * sizeof(float), cudaMemcpyHostToDevice, dc.st));
    TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
    return 0;
}

static long long ref_capacity(tsk_gpu_dist *g, dev_ctx &dc)
{
    long long n = g->ref->n_items;
    if (g->max_ref > 0) return std::min<long long>(n, g->max_ref);
    size_t per = (size_t)std::max(g->Lp, 1) * sizeof(float) + 12;
    long long fit = (long long)(dc.free_at_open * 0.45 / per);
    fit = std::min<long long>(fit, (long long)1 << 30);
    return std::max<long long>(1, std::min(n, fit));
}

static long long query_capacity(tsk_gpu_dist *g, dev_ctx &dc)
{
    long long n = g->query->n_items;
    if (g->max_query > 0) return std::min<long long>(n, g->max_query);
    size_t per = (size_t)std::max(g->Lp, 1) * sizeof(float) + 12 + 8 * 64;
    long long fit = (long long)(dc.free_at_open * 0.15 / per);
    fit = std::min<long long>(fit, (long long)1 << 30);
    return std::max<long long>(1, std::min(n, fit));
}

/* Grows a device block (rows, inverse norms, squared norms) to alloc items; the old contents are
 * dropped. On failure the block is left empty (cap 0) and the CUDA error returned. Like every
 * device buffer here it grows to exactly its need (tsk_cuda_grow's spare off: 0, false): the sizes
 * come from a plan (free memory at open, DENSE_PANEL_FLOATS), not from a need that creeps up. */
static cudaError_t grow_block(const tsk_gpu_dist *g, float *&X, float *&inv, double *&norm, long long &cap,
                              long long alloc)
{
    if (alloc <= cap) return cudaSuccess;
    cudaFree(X);  /* all three first: the new block needs the old one's room */
    cudaFree(inv);
    cudaFree(norm);
    X = inv = nullptr;
    norm = nullptr;
    cap = 0;
    size_t cx = 0, ci = 0, cn = 0;
    cudaError_t e = tsk_cuda_grow((void **)&X, &cx, (size_t)alloc * std::max(g->Lp, 1) * sizeof(float), 0, false);
    if (e == cudaSuccess) e = tsk_cuda_grow((void **)&inv, &ci, alloc * sizeof(float), 0, false);
    if (e == cudaSuccess) e = tsk_cuda_grow((void **)&norm, &cn, alloc * sizeof(double), 0, false);
    if (e == cudaSuccess) cap = alloc;
    return e;
}

/* The scales upload_items applies to a set's items: 1/|x| for cosine, none for l2. */
static const float *scales(const tsk_gpu_dist *g, const std::vector<float> &inv)
{
    return g->metric == TSK_METRIC_COSINE ? inv.data() : nullptr;
}

/* Makes reference items [lo, lo + want) resident, loading a block starting at lo if needed.
 * Returns the number of items resident from lo on (>= 1), or -1. */
static long long ensure_ref(tsk_gpu_dist *g, dev_ctx &dc, long long lo, long long want)
{
    if (dc.r_n >= 0 && lo >= dc.r_lo && lo + want <= dc.r_lo + dc.r_n) return dc.r_lo + dc.r_n - lo;
    long long cap = ref_capacity(g, dc);
    long long n = std::min(cap, g->ref->n_items - lo);
    long long alloc = round_tile(cap) + DIST_TILE;
    if (alloc > dc.r_alloc) {
        dc.r_n = -1;  /* the resident block goes with its buffers */
        if (grow_block(g, dc.R, dc.Rinv, dc.Rnorm, dc.r_alloc, alloc) != cudaSuccess) {
            cudaGetLastError();
            fail(dc, "device %d: out of memory for %lld reference sketches", dc.dev, alloc);
            return -1;
        }
    }
    if (upload_items(g, dc, g->ref, scales(g, g->rinv), lo, n, dc.R, dc.r_alloc) ||
        upload_norms(g, dc, g->rnorm, g->rinv, lo, n, dc.Rnorm, dc.Rinv))
        return -1;
    dc.r_lo = lo;
    dc.r_n = n;
    return n;
}

/* Tile arguments for queries [q, q + nq) against resident references [rl, rl + rn); the queries
 * come from the resident block when they are in it (same set), else from an upload. */
static int make_args(tsk_gpu_dist *g, dev_ctx &dc, long long q, long long nq, long long rl, long long rn,
                     dist_tile_args *a)
{
    memset(a, 0, sizeof *a);
    a->Lp = g->Lp;
    a->cosine = g->metric == TSK_METRIC_COSINE;
    a->nq = (int)nq;
    a->nr = (int)rn;
    a->q0 = q;
    a->r0 = rl;
    size_t roff = (size_t)(rl - dc.r_lo);
    a->R = dc.R + roff * g->Lp;
    a->rinv = dc.Rinv + roff;
    a->rnorm = dc.Rnorm + roff;
    if (g->same && q >= dc.r_lo && q + nq <= dc.r_lo + dc.r_n) {
        size_t qoff = (size_t)(q - dc.r_lo);
        a->Q = dc.R + qoff * g->Lp;
        a->qinv = dc.Rinv + qoff;
        a->qnorm = dc.Rnorm + qoff;
        return 0;
    }
    long long alloc = round_tile(nq) + DIST_TILE;
    TSK_CUDA_CHECK(site(dc), grow_block(g, dc.Q, dc.Qinv, dc.Qnorm, dc.q_alloc, alloc));
    if (upload_items(g, dc, g->query, scales(g, g->qinv), q, nq, dc.Q, dc.q_alloc) ||
        upload_norms(g, dc, g->qnorm, g->qinv, q, nq, dc.Qnorm, dc.Qinv))
        return -1;
    a->Q = dc.Q;
    a->qinv = dc.Qinv;
    a->qnorm = dc.Qnorm;
    return 0;
}

/* ---------------------------------------------------------------- ragged sets (slides) */

static int upload_ragged(tsk_gpu_dist *g, dev_ctx &dc, const tsk_sketch_set *s, float **rows, long long **start,
                         long long **nrows)
{
    const long long n = s->n_items;
    std::vector<long long> st(n), nr(n);
    long long total = 0;
    for (long long i = 0; i < n; i++) {
        st[i] = total;
        nr[i] = s->n_rows[i];
        total += (long long)s->n_rows[i] * s->dim;
    }
    const cudaError_t e = cudaMalloc(rows, std::max<long long>(total, 1) * sizeof(float));
    if (e == cudaErrorMemoryAllocation) {  /* the whole set is held on each device: say so */
        cudaGetLastError();
        return fail(dc, "device %d: out of memory for %lld slide sketch values (a set larger than the GPU?)", dc.dev,
                    total);
    }
    TSK_CUDA_CHECK(site(dc), e);
    TSK_CUDA_CHECK(site(dc), cudaMalloc(start, std::max<long long>(n, 1) * sizeof(long long)));
    TSK_CUDA_CHECK(site(dc), cudaMalloc(nrows, std::max<long long>(n, 1) * sizeof(long long)));
    for (long long i = 0; i < n; i++)
        if (nr[i] > 0)
            TSK_CUDA_CHECK(site(dc), cudaMemcpy(*rows + st[i], s->rows + (size_t)s->first_row[i] * s->dim,
                                                (size_t)nr[i] * s->dim * sizeof(float), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(dc), cudaMemcpy(*start, st.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
    TSK_CUDA_CHECK(site(dc), cudaMemcpy(*nrows, nr.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
    (void)g;
    return 0;
}

static int ensure_ragged(tsk_gpu_dist *g, dev_ctx &dc)
{
    if (dc.gr_rows) return 0;
    if (upload_ragged(g, dc, g->ref, &dc.gr_rows, &dc.gr_start, &dc.gr_nrows)) return -1;
    if (g->same) {
        dc.gq_rows = dc.gr_rows;
        dc.gq_start = dc.gr_start;
        dc.gq_nrows = dc.gr_nrows;
        return 0;
    }
    return upload_ragged(g, dc, g->query, &dc.gq_rows, &dc.gq_start, &dc.gq_nrows);
}

/* ---------------------------------------------------------------- dense */

/* Dense distances of queries [q, q+nq) x refs [r0, r0+nr) into host out (row stride ld). */
static int dense_dev(tsk_gpu_dist *g, dev_ctx &dc, long long q, long long nq, long long r0, long long nr, float *out,
                     long long ld)
{
    if (nq <= 0 || nr <= 0) return 0;
    if (!g->uniform) {
        if (ensure_ragged(g, dc)) return -1;
        long long rows = std::max<long long>(1, std::min<long long>(nq, DENSE_PANEL_FLOATS / nr));
        TSK_CUDA_CHECK(site(dc),
                       tsk_cuda_grow((void **)&dc.dense, &dc.dense_cap, (size_t)(rows * nr) * sizeof(float), 0, false));
        for (long long p = 0; p < nq; p += rows) {
            long long m = std::min(rows, nq - p);
            TSK_CUDA_CHECK(site(dc), dist_launch_ragged(dc.gq_rows, dc.gq_start + q + p, dc.gq_nrows + q + p, (int)m,
                                                        dc.gr_rows, dc.gr_start + r0, dc.gr_nrows + r0, (int)nr,
                                                        g->ref->dim, g->metric == TSK_METRIC_COSINE, dc.dense, nr,
                                                        dc.st));
            TSK_CUDA_CHECK(site(dc), cudaMemcpy2DAsync(out + (size_t)p * ld, ld * sizeof(float), dc.dense,
                                                       nr * sizeof(float), nr * sizeof(float), m,
                                                       cudaMemcpyDeviceToHost, dc.st));
            TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
        }
        return 0;
    }
    const long long qcap = query_capacity(g, dc);
    for (long long rl = r0; rl < r0 + nr;) {
        long long have = ensure_ref(g, dc, rl, std::min(r0 + nr - rl, ref_capacity(g, dc)));
        if (have < 0) return -1;
        long long rn = std::min(have, r0 + nr - rl);
        long long rows = std::max<long long>(1, std::min<long long>(qcap, DENSE_PANEL_FLOATS / rn));
        TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.dense, &dc.dense_cap,
                                               (size_t)(std::min(rows, nq) * rn) * sizeof(float), 0, false));
        for (long long p = 0; p < nq; p += rows) {
            long long m = std::min(rows, nq - p);
            dist_tile_args a;
            if (make_args(g, dc, q + p, m, rl, rn, &a)) return -1;
            TSK_CUDA_CHECK(site(dc), dist_launch_dense(&a, dc.dense, rn, dc.st));
            TSK_CUDA_CHECK(site(dc), cudaMemcpy2DAsync(out + (size_t)p * ld + (rl - r0), ld * sizeof(float), dc.dense,
                                                       rn * sizeof(float), rn * sizeof(float), m,
                                                       cudaMemcpyDeviceToHost, dc.st));
            TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
        }
        rl += rn;
    }
    return 0;
}

/* ---------------------------------------------------------------- host selection */

/* Inserts (d, r) into the sorted list lst[0..k) if it beats the last entry. */
static inline void list_insert(tsk_pair *lst, int k, float d, int64_t r)
{
    if (!(d <= INFINITY) || isinf(d) || !dist_ranks_before(d, r, lst[k - 1].dist, lst[k - 1].ref < 0 ? INT64_MAX : lst[k - 1].ref))
        return;
    int pos = k - 1;
    while (pos > 0 && !dist_ranks_before(lst[pos - 1].dist, lst[pos - 1].ref < 0 ? INT64_MAX : lst[pos - 1].ref, d, r)) {
        lst[pos] = lst[pos - 1];
        pos--;
    }
    lst[pos].dist = d;
    lst[pos].ref = r;
}

static void init_lists(tsk_pair *out, long long q, long long nq, int k)
{
    for (long long i = 0; i < nq; i++)
        for (int j = 0; j < k; j++) out[i * k + j] = tsk_pair{q + i, -1, INFINITY};
}

/* Top-k or within through dense panels and host selection: slide sets, k above the fused limit. */
static int select_dev(tsk_gpu_dist *g, dev_ctx &dc, long long q, long long nq, int k, float max_dist,
                      tsk_pair_filter f, tsk_pair *topk, std::vector<tsk_pair> *hits)
{
    const long long nr = g->ref->n_items;
    if (nr == 0 || nq == 0) return 0;
    long long rows = std::max<long long>(1, std::min<long long>(nq, DENSE_PANEL_FLOATS / nr));
    std::vector<float> panel;
    try {
        panel.resize((size_t)(rows * nr));
    } catch (...) {
        return fail(dc, "out of host memory for a %lld x %lld distance panel", rows, nr);
    }
    for (long long p = 0; p < nq; p += rows) {
        long long m = std::min(rows, nq - p);
        if (dense_dev(g, dc, q + p, m, 0, nr, panel.data(), nr)) return -1;
        for (long long i = 0; i < m; i++) {
            const long long qi = q + p + i;
            const float *row = panel.data() + (size_t)i * nr;
            for (long long r = 0; r < nr; r++) {
                if (!tsk_pair_admitted(f, qi, r)) continue;
                if (topk) list_insert(topk + (p + i) * k, k, row[r], r);
                else if (hits && row[r] <= max_dist) hits->push_back(tsk_pair{qi, r, row[r]});
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- fused top-k */

/* Merges the n_split partial lists of each query (local refs + rl) into its running list. */
static void merge_partials(tsk_pair *run, long long nq, int k, int n_split, const dist_cand *part, long long rl)
{
    std::vector<int> head(n_split + 1);
    std::vector<tsk_pair> merged(k);
    for (long long i = 0; i < nq; i++) {
        tsk_pair *cur = run + i * k;
        const dist_cand *pl = part + (size_t)i * n_split * k;
        std::fill(head.begin(), head.end(), 0);
        for (int j = 0; j < k; j++) {
            int best = -1;
            float bd = INFINITY;
            int64_t br = INT64_MAX;
            if (head[n_split] < k && cur[head[n_split]].ref >= 0) {
                best = n_split;
                bd = cur[head[n_split]].dist;
                br = cur[head[n_split]].ref;
            }
            for (int s = 0; s < n_split; s++) {
                if (head[s] >= k) continue;
                const dist_cand &c = pl[(size_t)s * k + head[s]];
                if (c.r < 0) continue;
                if (best < 0 || dist_ranks_before<int64_t>(c.d, rl + c.r, bd, br)) {
                    best = s;
                    bd = c.d;
                    br = rl + c.r;
                }
            }
            if (best < 0) {
                merged[j] = tsk_pair{cur[0].query, -1, INFINITY};
            } else {
                merged[j] = tsk_pair{cur[0].query, br, bd};
                head[best]++;
            }
        }
        std::copy(merged.begin(), merged.end(), cur);
    }
}

/* Today's exact top-k of queries [qc, qc + nc) against resident references [rl, rl + rn), merged
 * into out: the direct kernel on every pair. The filter below falls back to it when its bounds
 * leave too many candidates (near-identical sketches, norms too far apart). */
static int topk_block_direct(tsk_gpu_dist *g, dev_ctx &dc, long long qc, long long nc, long long rl, long long rn, int k,
                             tsk_pair_filter f, tsk_pair *out)
{
    dist_tile_args a;
    if (make_args(g, dc, qc, nc, rl, rn, &a)) return -1;
    long long qtiles = (nc + DIST_TILE - 1) / DIST_TILE, rtiles = (rn + DIST_TILE - 1) / DIST_TILE;
    long long target = 8LL * dc.n_sm;  /* four waves of two blocks per SM */
    int n_split = (int)std::max<long long>(1, std::min(rtiles, (target + qtiles - 1) / qtiles));
    size_t n_part = (size_t)nc * n_split * k;
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.part, &dc.part_cap, n_part * sizeof(dist_cand), 0, false));
    if (grow_pinned(dc, n_part * sizeof(dist_cand))) return -1;
    a.filter = f;
    TSK_CUDA_CHECK(site(dc), dist_launch_topk(&a, k, n_split, dc.part, dc.st));
    TSK_CUDA_CHECK(site(dc),
                   cudaMemcpyAsync(dc.pinned, dc.part, n_part * sizeof(dist_cand), cudaMemcpyDeviceToHost, dc.st));
    TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
    merge_partials(out, nc, k, n_split, (const dist_cand *)dc.pinned, rl);
    return 0;
}

/* Whether top-k and within blocks go through the TF32 filter: its bounds are proven up to
 * DIST_GEMM_MAX_LP floats, and vectors of none (Lp 0) have no stage and no epilogue. */
static bool filter_applies(const tsk_gpu_dist *g) { return g->Lp > 0 && g->Lp <= DIST_GEMM_MAX_LP; }

/* The filter's centre on the device, zero past Lp to a whole stage. */
static int ensure_centre(tsk_gpu_dist *g, dev_ctx &dc)
{
    if (dc.centre) return 0;
    const size_t floats = ((size_t)g->Lp + 31) / 32 * 32 + 32;
    TSK_CUDA_CHECK(site(dc), cudaMalloc(&dc.centre, floats * sizeof(float)));
    TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.centre, 0, floats * sizeof(float), dc.st));
    TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(dc.centre, g->centre.data(), (size_t)g->Lp * sizeof(float),
                                             cudaMemcpyHostToDevice, dc.st));
    return 0;
}

/* Reference splits of the filter's launches (each block a query tile against a split's tiles):
 * the fewest from ceil(k / 4) on (so that a query's threshold is the k-th of at least 4k minima)
 * that fill the device's resident blocks in whole waves to 90 %, since every block has the same
 * work and a last wave a tenth full costs a whole one; else the fullest (at most 64). */
static int filter_splits(dev_ctx &dc, long long qtiles, long long rtiles, int Lp, int k)
{
    if (!dc.filter_per_sm) dc.filter_per_sm = dist_gemm_blocks_per_sm(Lp);
    const long long slots = (long long)dc.n_sm * dc.filter_per_sm;
    const long long most = std::max<long long>(1, std::min<long long>(rtiles, 64));
    const long long least = std::min<long long>(most, std::max(1, (4 * k + DIST_GEMM_MINIMA - 1) / DIST_GEMM_MINIMA));
    long long best_n = least;
    double best = -1.0;
    for (long long n = least; n <= most; n++) {
        const long long blocks = qtiles * n, waves = (blocks + slots - 1) / slots;
        const double use = (double)blocks / (double)(waves * slots);
        if (use >= 0.9) return (int)n;
        if (use > best + 1e-9) best = use, best_n = n;
    }
    return (int)best_n;
}

/* Top-k of queries [qc, qc + nc) against resident references [rl, rl + rn) through the TF32
 * filter (dist_gemm.cuh): bounds, thresholds, candidates into per-query slots, their exact
 * distances and the selection on the device; only the k-lists come back. Pass 1 takes every
 * FILTER_STRIDE-th reference tile (a quarter of its work; about FILTER_STRIDE times k candidates a
 * query). A query with more candidates than slots runs pass 2 again with room for them (kept for
 * the next blocks), but with more than 16 x FILTER_STRIDE x k, pass 1 first again on every tile
 * (and so does the rest of the run: the references are in an order the sample does not serve);
 * past FILTER_SLOT_BYTES the bounds do not separate the data, and the block takes the direct
 * kernel. */
#define FILTER_SLOT_BYTES ((size_t)512 << 20)
#define FILTER_STRIDE 4
static int topk_block_filtered(tsk_gpu_dist *g, dev_ctx &dc, long long qc, long long nc, long long rl, long long rn,
                               int k, tsk_pair_filter f, tsk_pair *out)
{
    dist_tile_args a;
    if (make_args(g, dc, qc, nc, rl, rn, &a)) return -1;
    a.filter = f;
    const long long qtiles = (nc + DIST_TILE - 1) / DIST_TILE, rtiles = (rn + DIST_TILE - 1) / DIST_TILE;
    const int n_split = filter_splits(dc, qtiles, rtiles, g->Lp, k);
    const size_t n_part = (size_t)nc * n_split * DIST_GEMM_MINIMA, list_bytes = (size_t)nc * k * sizeof(dist_cand);
    if (!dc.filter_stride) dc.filter_stride = FILTER_STRIDE;
    if (ensure_centre(g, dc)) return -1;
    a.centre = dc.centre;
    dc.slot_cap = std::max(dc.slot_cap, 8u * (unsigned)dc.filter_stride * (unsigned)k);
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.part, &dc.part_cap, n_part * sizeof(float), 0, false));
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.thr, &dc.thr_cap, (size_t)nc * sizeof(float), 0, false));
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.qcount, &dc.qcount_bytes, (size_t)(nc + 1) * sizeof(unsigned), 0, false));
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.lists, &dc.lists_bytes, list_bytes, 0, false));
    if (grow_pinned(dc, list_bytes + sizeof(unsigned))) return -1;
    unsigned *most = (unsigned *)((char *)dc.pinned + list_bytes);
    for (bool bounded = false;;) {
        if (!bounded) {
            TSK_CUDA_CHECK(site(dc), dist_gemm_launch_bound(&a, n_split, dc.filter_stride, (float *)dc.part, dc.st));
            TSK_CUDA_CHECK(site(dc), dist_gemm_launch_thresholds((const float *)dc.part, (int)nc, k, n_split, dc.thr, dc.st));
            bounded = true;
        }
        TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.slots, &dc.slots_bytes,
                                               (size_t)nc * dc.slot_cap * sizeof(int), 0, false));
        TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.slot_dist, &dc.slot_dist_bytes,
                                               (size_t)nc * dc.slot_cap * sizeof(float), 0, false));
        TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.qcount, 0, (size_t)(nc + 1) * sizeof(unsigned), dc.st));
        TSK_CUDA_CHECK(site(dc), dist_gemm_launch_candidates(&a, n_split, dc.thr, dc.slots, dc.slot_cap, dc.qcount, dc.st));
        TSK_CUDA_CHECK(site(dc), dist_gemm_launch_select(&a, k, dc.slots, dc.slot_dist, dc.slot_cap, dc.qcount, dc.lists,
                                                         dc.qcount + nc, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(dc.pinned, dc.lists, list_bytes, cudaMemcpyDeviceToHost, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(most, dc.qcount + nc, sizeof *most, cudaMemcpyDeviceToHost, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
        if (*most <= dc.slot_cap) break;
        if (dc.filter_stride > 1 && *most > 16u * (unsigned)(dc.filter_stride * k)) {
            /* the sample's thresholds were far too loose: every tile, from now on */
            dc.filter_stride = 1;
            bounded = false;
            continue;
        }
        if ((size_t)nc * *most * sizeof(int) > FILTER_SLOT_BYTES) return topk_block_direct(g, dc, qc, nc, rl, rn, k, f, out);
        dc.slot_cap = *most;
    }
    merge_partials(out, nc, k, 1, (const dist_cand *)dc.pinned, rl);
    return 0;
}

static int topk_dev(tsk_gpu_dist *g, dev_ctx &dc, long long q, long long nq, int k, tsk_pair_filter f, tsk_pair *out)
{
    init_lists(out, q, nq, k);
    if (!g->uniform || k > TSK_GPU_DIST_MAX_FUSED_K) return select_dev(g, dc, q, nq, k, 0, f, out, nullptr);
    const long long n_ref = g->ref->n_items, qcap = query_capacity(g, dc);
    for (long long c = 0; c < nq; c += qcap) {
        long long nc = std::min(qcap, nq - c);
        for (long long rl = 0; rl < n_ref;) {
            long long rn = ensure_ref(g, dc, rl, std::min(n_ref - rl, ref_capacity(g, dc)));
            if (rn < 0) return -1;
            rn = std::min(rn, n_ref - rl);
            /* both metrics: cosine bounds the sum S over the scaled vectors, S / 2 being monotone in S */
            int rc = filter_applies(g) ? topk_block_filtered(g, dc, q + c, nc, rl, rn, k, f, out + c * k)
                                       : topk_block_direct(g, dc, q + c, nc, rl, rn, k, f, out + c * k);
            if (rc) return -1;
            rl += rn;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- fused within */

/* dc.hits to room for n (the exact count of a launch that ran past it). */
static int grow_hits(dev_ctx &dc, unsigned long long n)
{
    size_t bytes = 0;
    dc.hits_cap = 0;
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.hits, &bytes, (size_t)n * sizeof(dist_hit), 0, false));
    dc.hits_cap = bytes / sizeof(dist_hit);
    return 0;
}

/* The n hits of dc.hits, local to queries qc.. and references rl.., appended to out. */
static int take_hits(dev_ctx &dc, unsigned long long n, long long qc, long long rl, std::vector<tsk_pair> *out)
{
    if (grow_pinned(dc, std::max<size_t>(n, 1) * sizeof(dist_hit))) return -1;
    TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(dc.pinned, dc.hits, n * sizeof(dist_hit), cudaMemcpyDeviceToHost, dc.st));
    TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
    const dist_hit *h = (const dist_hit *)dc.pinned;
    try {
        for (unsigned long long i = 0; i < n; i++) out->push_back(tsk_pair{qc + h[i].q, rl + h[i].r, h[i].d});
    } catch (...) {
        return fail(dc, "out of host memory for %llu pairs", n);
    }
    return 0;
}

/* Pairs within max_dist of queries [qc, qc + nc) and resident references [rl, rl + rn): the direct
 * kernel on every pair. The filter below falls back to it when its bounds do not separate the data. */
static int within_block_direct(tsk_gpu_dist *g, dev_ctx &dc, long long qc, long long nc, long long rl, long long rn,
                               float max_dist, tsk_pair_filter f, std::vector<tsk_pair> *hits)
{
    dist_tile_args a;
    if (make_args(g, dc, qc, nc, rl, rn, &a)) return -1;
    a.filter = f;
    unsigned long long n = 0;
    for (;;) {
        TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.count, 0, sizeof *dc.count, dc.st));
        TSK_CUDA_CHECK(site(dc), dist_launch_within(&a, max_dist, dc.hits, dc.count, dc.hits_cap, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(&n, dc.count, sizeof n, cudaMemcpyDeviceToHost, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
        if (n <= dc.hits_cap) break;
        if (grow_hits(dc, n)) return -1; /* too many survivors: room for the exact count, and again */
    }
    return take_hits(dc, n, qc, rl, hits);
}

/* The same through the TF32 filter (dist_gemm.cuh): one threshold T for every query, a bound of the
 * exact value (before the finish) of any pair whose printed distance is <= max_dist (l2 prints
 * sqrt(e), so e <= max_dist^2; cosine clamps S / 2, so S <= 2 max_dist; widened as the top-k's
 * thresholds are, for the finish's rounding); the candidates (lower bound <= T) go to per-query
 * slots and through the exact arithmetic, and only those within max_dist come back. A query with
 * more candidates than slots runs pass 2 again with room for them, up to FILTER_SLOT_BYTES; past
 * that the block takes the direct kernel. */
static int within_block_filtered(tsk_gpu_dist *g, dev_ctx &dc, long long qc, long long nc, long long rl, long long rn,
                                 float max_dist, tsk_pair_filter f, std::vector<tsk_pair> *hits)
{
    dist_tile_args a;
    if (make_args(g, dc, qc, nc, rl, rn, &a)) return -1;
    a.filter = f;
    if (ensure_centre(g, dc)) return -1;
    a.centre = dc.centre;
    const long long qtiles = (nc + DIST_TILE - 1) / DIST_TILE, rtiles = (rn + DIST_TILE - 1) / DIST_TILE;
    const int n_split = filter_splits(dc, qtiles, rtiles, g->Lp, 1);
    float T = g->metric == TSK_METRIC_COSINE ? 2.0f * max_dist : max_dist * max_dist;
    T = T + fabsf(T) * 4e-6f + 1e-35f;
    dc.slot_cap = std::max(dc.slot_cap, 64u);
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.thr, &dc.thr_cap, (size_t)nc * sizeof(float), 0, false));
    TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.qcount, &dc.qcount_bytes, (size_t)(nc + 1) * sizeof(unsigned), 0, false));
    TSK_CUDA_CHECK(site(dc), dist_gemm_launch_fill(T, (int)nc, dc.thr, dc.st));
    if (grow_pinned(dc, sizeof(unsigned long long) + sizeof(unsigned))) return -1;
    unsigned long long *n = (unsigned long long *)dc.pinned;
    unsigned *most = (unsigned *)(n + 1);
    for (bool candidates = true;;) {
        if (candidates) {
            if ((size_t)nc * dc.slot_cap * sizeof(int) > FILTER_SLOT_BYTES)
                return within_block_direct(g, dc, qc, nc, rl, rn, max_dist, f, hits);
            TSK_CUDA_CHECK(site(dc), tsk_cuda_grow((void **)&dc.slots, &dc.slots_bytes,
                                                   (size_t)nc * dc.slot_cap * sizeof(int), 0, false));
            TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.qcount, 0, (size_t)(nc + 1) * sizeof(unsigned), dc.st));
            TSK_CUDA_CHECK(site(dc), dist_gemm_launch_candidates(&a, n_split, dc.thr, dc.slots, dc.slot_cap, dc.qcount, dc.st));
        }
        TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.count, 0, sizeof *dc.count, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemsetAsync(dc.qcount + nc, 0, sizeof(unsigned), dc.st));
        TSK_CUDA_CHECK(site(dc), dist_gemm_launch_within(&a, dc.slots, dc.slot_cap, dc.qcount, max_dist, dc.hits, dc.count,
                                                         dc.hits_cap, dc.qcount + nc, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(n, dc.count, sizeof *n, cudaMemcpyDeviceToHost, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaMemcpyAsync(most, dc.qcount + nc, sizeof *most, cudaMemcpyDeviceToHost, dc.st));
        TSK_CUDA_CHECK(site(dc), cudaStreamSynchronize(dc.st));
        if (*most > dc.slot_cap) { /* a query past its slots: room for the most, and pass 2 again */
            dc.slot_cap = *most;
            candidates = true;
            continue;
        }
        if (*n <= dc.hits_cap) break;
        if (grow_hits(dc, *n)) return -1; /* the candidates stand; the exact step again with room */
        candidates = false;
    }
    return take_hits(dc, *n, qc, rl, hits);
}

static int within_dev(tsk_gpu_dist *g, dev_ctx &dc, long long q, long long nq, float max_dist, tsk_pair_filter f,
                      std::vector<tsk_pair> *hits)
{
    if (!g->uniform) return select_dev(g, dc, q, nq, 0, max_dist, f, nullptr, hits);
    const long long n_ref = g->ref->n_items, qcap = query_capacity(g, dc);
    if (!dc.count) TSK_CUDA_CHECK(site(dc), cudaMalloc(&dc.count, sizeof *dc.count));
    if (dc.hits_cap == 0) {
        size_t bytes = 0;
        TSK_CUDA_CHECK(site(dc),
                       tsk_cuda_grow((void **)&dc.hits, &bytes, ((size_t)1 << 20) * sizeof(dist_hit), 0, false));
        dc.hits_cap = bytes / sizeof(dist_hit);
    }
    for (long long c = 0; c < nq; c += qcap) {
        long long nc = std::min(qcap, nq - c);
        size_t first = hits->size();
        for (long long rl = 0; rl < n_ref;) {
            long long rn = ensure_ref(g, dc, rl, std::min(n_ref - rl, ref_capacity(g, dc)));
            if (rn < 0) return -1;
            rn = std::min(rn, n_ref - rl);
            /* A reference block wholly below the diagonal has no upper pair. */
            bool upper = f == TSK_PAIRS_UPPER || f == TSK_PAIRS_UPPER_SELF;
            if (!(upper && rl + rn - 1 < q + c)) {
                int rc = filter_applies(g) ? within_block_filtered(g, dc, q + c, nc, rl, rn, max_dist, f, hits)
                                           : within_block_direct(g, dc, q + c, nc, rl, rn, max_dist, f, hits);
                if (rc) return -1;
            }
            rl += rn;
        }
        /* The kernel emits in no particular order: restore query-major, then reference order. */
        std::sort(hits->begin() + first, hits->end(), [](const tsk_pair &x, const tsk_pair &y) {
            return x.query < y.query || (x.query == y.query && x.ref < y.ref);
        });
    }
    return 0;
}

/* ---------------------------------------------------------------- open / close */

static void free_dev(dev_ctx &dc)
{
    if (cudaSetDevice(dc.dev) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    if (dc.gq_rows != dc.gr_rows) {
        cudaFree(dc.gq_rows);
        cudaFree(dc.gq_start);
        cudaFree(dc.gq_nrows);
    }
    cudaFree(dc.gr_rows);
    cudaFree(dc.gr_start);
    cudaFree(dc.gr_nrows);
    cudaFree(dc.R);
    cudaFree(dc.Rinv);
    cudaFree(dc.Rnorm);
    cudaFree(dc.Q);
    cudaFree(dc.Qinv);
    cudaFree(dc.Qnorm);
    cudaFree(dc.part);
    cudaFree(dc.thr);
    cudaFree(dc.centre);
    cudaFree(dc.slots);
    cudaFree(dc.slot_dist);
    cudaFree(dc.qcount);
    cudaFree(dc.lists);
    cudaFree(dc.hits);
    cudaFree(dc.count);
    cudaFree(dc.dense);
    tsk_pinned_free(dc.pinned, dc.pinned_mapped);
    tsk_pinned_free(dc.stage, dc.stage_mapped);
    for (int i = 0; i < 2; i++)
        if (dc.stage_ev[i]) cudaEventDestroy(dc.stage_ev[i]);
    if (dc.st) cudaStreamDestroy(dc.st);
    cudaGetLastError();
}

/* The vector the kernels sum over for item i of s: x, or fl(x * inv) for cosine (upload_items'). */
static inline float summed(const float *x, int e, float inv, int cosine) { return cosine ? tsk_vd_scale(x[e], inv) : x[e]; }

/* fn(lo, hi) over parts of [0, n) of at least min_part each, on up to `threads` threads (-p, at
 * most 16): the passes below over a 10^6-read set took 0.4 s of one core at every opening. A thread
 * that cannot be started leaves its part to the caller. */
template <class F> static void over_items(int64_t n, int threads, int64_t min_part, F fn)
{
    const int nt = (int)std::max<int64_t>(1, std::min<int64_t>(std::min(threads, 16), n / std::max<int64_t>(min_part, 1)));
    std::vector<std::thread> th;
    int i = 1;
    for (; i < nt; i++) {
        try {
            th.emplace_back(fn, n * i / nt, n * (i + 1) / nt);
        } catch (...) {
            break;
        }
    }
    for (int j = i; j < nt; j++) fn(n * j / nt, n * (j + 1) / nt);
    fn(0, n / nt);
    for (auto &t : th) t.join();
}

#define ITEMS_A_THREAD 16384 /* items of the passes below a thread takes at least */
#define CENTRE_CHUNK 65536   /* references a partial sum of the centre holds: the same sums on any -p */

/* Each item's scale (inv: 1/|x| for cosine, as the CPU engine's, to the bit). */
static void scales_of(const tsk_sketch_set *s, int L, int threads, std::vector<float> &inv)
{
    inv.resize(s->n_items);
    over_items(s->n_items, threads, ITEMS_A_THREAD, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; i++) inv[i] = tsk_vd_inv_norm(tsk_vd_norm2(s->rows + (size_t)s->first_row[i] * s->dim, L));
    });
}

/* The top-k filter's centre (dist_gemm.cuh): the mean of the references as the kernels sum them,
 * in float, zero past L. Distances do not change when both vectors move by it, and the bounds'
 * error, relative to |a|^2 + |b|^2, shrinks with the vectors' common part (read sketches: 8x).
 * Summed in float64 over fixed chunks of references, then the chunks in order, so that the centre
 * is the same on any number of threads. */
static void centre_of(const tsk_sketch_set *r, int L, int Lp, int cosine, const std::vector<float> &inv, int threads,
                      std::vector<float> &centre)
{
    const int64_t n = r->n_items, n_chunks = (n + CENTRE_CHUNK - 1) / CENTRE_CHUNK;
    std::vector<double> part((size_t)std::max<int64_t>(n_chunks, 1) * L, 0.0);
    over_items(n_chunks, threads, 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; c++) {
            double *sum = part.data() + (size_t)c * L;
            for (int64_t i = c * CENTRE_CHUNK; i < std::min<int64_t>(n, (c + 1) * CENTRE_CHUNK); i++) {
                const float *x = r->rows + (size_t)r->first_row[i] * r->dim;
                for (int e = 0; e < L; e++) sum[e] += summed(x, e, inv[i], cosine);
            }
        }
    });
    centre.assign((size_t)std::max(Lp, 1), 0.f);
    for (int e = 0; e < L && n > 0; e++) {
        double sum = 0;
        for (int64_t c = 0; c < n_chunks; c++) sum += part[(size_t)c * L + e];
        centre[e] = (float)(sum / (double)n);
    }
}

/* The norm the top-k filter bounds with: |fl(x - centre)| of the vector the kernels sum (the
 * centred floats the filter kernels make), and NaN for a cosine zero vector (distance 1 whatever
 * its sum: its pairs are always candidates and never tighten a threshold). */
static void filter_norms_of(const tsk_sketch_set *s, int L, int cosine, const std::vector<float> &inv,
                            const std::vector<float> &centre, int threads, std::vector<double> &norm)
{
    norm.resize(s->n_items);
    over_items(s->n_items, threads, ITEMS_A_THREAD, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; i++) {
            const float *x = s->rows + (size_t)s->first_row[i] * s->dim;
            double a = 0;
            for (int e = 0; e < L; e++) {
                const float f = summed(x, e, inv[i], cosine) - centre[e]; /* fl(x - c): the kernels' __fsub_rn */
                a += (double)f * f;
            }
            norm[i] = cosine && inv[i] == 0.f ? NAN : sqrt(a);
        }
    });
}

static tsk_gpu_dist *dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m, const int *devices,
                               int n_devices, int threads, char *err, size_t errlen)
{
    char why[128];
    int avail = tsk_cuda_device_count(why, sizeof why);
    if (avail == 0) {
        snprintf(err, errlen, "no usable GPU: %s", why);
        return NULL;
    }
    if (query->dim != ref->dim || query->dim <= 0) {
        snprintf(err, errlen, "sketch dimensions differ (%d and %d)", query->dim, ref->dim);
        return NULL;
    }
    tsk_gpu_dist *g;
    try {
        g = new tsk_gpu_dist();
    } catch (...) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    g->query = query;
    g->ref = ref;
    g->same = query == ref;
    g->metric = m;
    if (threads > 0) tsk_pinned_set_threads(threads);
    /* Uniform when every item has the same row count: then each item is one vector. */
    g->uniform = 1;
    g->urows = ref->n_items ? ref->n_rows[0] : query->n_items ? query->n_rows[0] : 1;
    for (int64_t i = 0; i < ref->n_items && g->uniform; i++) g->uniform = ref->n_rows[i] == g->urows;
    for (int64_t i = 0; i < query->n_items && g->uniform; i++) g->uniform = query->n_rows[i] == g->urows;
    /* Long vectors stay on the tiled kernels, which carry their chunk sums in float64 as the CPU
     * engine's blocked path does (the ragged kernel's order is the CPU's pair path, not that one),
     * up to 2^20 floats an item: a tile pads its buffers by 128 items (0.5 GB each at that length).
     * Past it the ragged kernel's sums may differ from the CPU's in the last bits. */
    if (g->uniform && g->urows * query->dim > ((int64_t)1 << 20)) g->uniform = 0;
    g->L = g->uniform ? (int)(g->urows * query->dim) : 0;
    g->Lp = (g->L + DIST_BK - 1) / DIST_BK * DIST_BK;
    /* The devices' contexts are made on a thread of their own while the passes below run (each
     * takes 0.2-0.3 s at 10^6 items); the setup after them finds the contexts there. */
    const int nd = devices && n_devices > 0 ? n_devices : 1;
    struct context_warmer {
        std::thread t;
        ~context_warmer() { join(); }
        void join()
        {
            if (t.joinable()) t.join();
        }
    } warm;
    try {
        std::vector<int> ids;
        for (int i = 0; i < nd; i++) ids.push_back(devices && n_devices > 0 ? devices[i] : 0);
        warm.t = std::thread([ids] { tsk_cuda_make_contexts(ids.data(), (int)ids.size()); });
    } catch (...) {
        /* no thread: the setup makes the contexts */
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (g->uniform) {
            const int cosine = m == TSK_METRIC_COSINE;
            const int nt = threads > 0 ? threads : 1;
            scales_of(ref, g->L, nt, g->rinv);
            if (!g->same) scales_of(query, g->L, nt, g->qinv);
            centre_of(ref, g->L, g->Lp, cosine, g->rinv, nt, g->centre);
            filter_norms_of(ref, g->L, cosine, g->rinv, g->centre, nt, g->rnorm);
            if (!g->same) filter_norms_of(query, g->L, cosine, g->qinv, g->centre, nt, g->qnorm);
        }
        if (g->same) {
            g->qnorm = g->rnorm;
            g->qinv = g->rinv;
        }
        g->devs.resize(nd);
        for (int i = 0; i < nd; i++) g->devs[i].dev = devices && n_devices > 0 ? devices[i] : 0;
    } catch (...) {
        delete g;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const auto t1 = std::chrono::steady_clock::now();
    warm.join();
    for (dev_ctx &dc : g->devs) {
        cudaDeviceProp prop;
        size_t total = 0;
        if (dc.dev < 0 || dc.dev >= avail) {
            snprintf(err, errlen, "no GPU %d (this machine has %d)", dc.dev, avail);
            tsk_gpu_dist_close(g);
            return NULL;
        }
        cudaError_t e = cudaSetDevice(dc.dev);
        if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dc.dev);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&dc.st, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaMemGetInfo(&dc.free_at_open, &total);
        if (e != cudaSuccess) {
            snprintf(err, errlen, "GPU %d unusable: %s", dc.dev, cudaGetErrorString(e));
            cudaGetLastError();
            tsk_gpu_dist_close(g);
            return NULL;
        }
        dc.n_sm = prop.multiProcessorCount;
        /* The devices share the free memory figure of a context-less process: leave room for
         * other work on the card. */
    }
    const auto t2 = std::chrono::steady_clock::now();
    g->open_passes_s = std::chrono::duration<double>(t1 - t0).count();
    g->open_devices_s = std::chrono::duration<double>(t2 - t1).count();
    return g;
}

extern "C" tsk_gpu_dist *tsk_gpu_dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m,
                                           const int *devices, int n_devices, int threads, char *err, size_t errlen)
{
    return tsk_cuda_entry("opening the GPU distance engine", err, errlen, (tsk_gpu_dist *)nullptr,
                          [&] { return dist_open(query, ref, m, devices, n_devices, threads, err, errlen); });
}

/* Frees only (cudaFree, the vectors' destructors): nothing here throws, as in the two below. */
extern "C" void tsk_gpu_dist_close(tsk_gpu_dist *g)
{
    if (!g) return;
    for (dev_ctx &dc : g->devs) free_dev(dc);
    delete g;
}

extern "C" const char *tsk_gpu_dist_error(const tsk_gpu_dist *g) { return g ? g->err : "no context"; }

extern "C" void tsk_gpu_dist_open_times(const tsk_gpu_dist *g, double *passes_s, double *devices_s)
{
    *passes_s = g ? g->open_passes_s : 0;
    *devices_s = g ? g->open_devices_s : 0;
}

extern "C" void tsk_gpu_dist_set_limits(tsk_gpu_dist *g, int64_t max_ref_items, int64_t max_query_items)
{
    g->max_ref = max_ref_items > 0 ? max_ref_items : 0;
    g->max_query = max_query_items > 0 ? max_query_items : 0;
    for (dev_ctx &dc : g->devs) dc.r_n = -1;  /* re-block on next use */
}

/* ---------------------------------------------------------------- calls, split over devices */

/* Runs fn(dev_ctx, lo, n) for a contiguous share of [q0, q0+nq) on each device, one host thread
 * per device; the first failure is reported. */
template <class F> static int on_devices(tsk_gpu_dist *g, int64_t q0, int64_t nq, F fn)
{
    const int nd = (int)g->devs.size();
    const int used = (int)std::max<int64_t>(1, std::min<int64_t>(nd, (nq + DIST_TILE - 1) / DIST_TILE));
    std::vector<int> rc(used, 0);
    auto work = [&](int i) {
        dev_ctx &dc = g->devs[i];
        int64_t lo = q0 + nq * i / used, hi = q0 + nq * (i + 1) / used;
        if (cudaSetDevice(dc.dev) != cudaSuccess) {
            cudaGetLastError();
            rc[i] = fail(dc, "cannot select GPU %d", dc.dev);
            return;
        }
        rc[i] = fn(dc, i, lo, hi - lo);
    };
    if (used == 1) {
        work(0);
    } else {
        std::vector<std::thread> th;
        try {
            for (int i = 0; i < used; i++) th.emplace_back(work, i);
        } catch (...) {
            for (auto &t : th) t.join();
            snprintf(g->err, sizeof g->err, "cannot start device threads");
            return -1;
        }
        for (auto &t : th) t.join();
    }
    for (int i = 0; i < used; i++)
        if (rc[i]) {
            snprintf(g->err, sizeof g->err, "%s", g->devs[i].err);
            return -1;
        }
    return 0;
}

extern "C" int tsk_gpu_dist_block(tsk_gpu_dist *g, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                                  int64_t ld)
{
    return tsk_cuda_entry("GPU dense block", g->err, sizeof g->err, -1, [&] {
        return on_devices(g, q0, nq, [&](dev_ctx &dc, int, int64_t lo, int64_t n) {
            return dense_dev(g, dc, lo, n, r0, nr, out + (lo - q0) * ld, ld);
        });
    });
}

extern "C" int tsk_gpu_dist_topk(tsk_gpu_dist *g, int64_t q0, int64_t nq, int k, tsk_pair_filter filter,
                                 tsk_pair *out)
{
    if (k <= 0) return 0;
    return tsk_cuda_entry("GPU top-k", g->err, sizeof g->err, -1, [&] {
        return on_devices(g, q0, nq, [&](dev_ctx &dc, int, int64_t lo, int64_t n) {
            try {
                return topk_dev(g, dc, lo, n, k, filter, out + (lo - q0) * k);
            } catch (...) {
                return fail(dc, "out of host memory (top-k)");
            }
        });
    });
}

static int within(tsk_gpu_dist *g, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter, tsk_pair **pairs,
                  int64_t *n_pairs, int64_t *cap)
{
    std::vector<std::vector<tsk_pair>> part(g->devs.size());
    int rc = on_devices(g, q0, nq, [&](dev_ctx &dc, int i, int64_t lo, int64_t n) {
        try {
            return within_dev(g, dc, lo, n, max_dist, filter, &part[i]);
        } catch (...) {
            return fail(dc, "out of host memory (threshold pairs)");
        }
    });
    if (rc) return rc;
    size_t add = 0;
    for (auto &p : part) add += p.size();
    if (*n_pairs + (int64_t)add > *cap) {
        int64_t nc = std::max<int64_t>(*n_pairs + (int64_t)add, *cap * 2);
        tsk_pair *np = (tsk_pair *)realloc(*pairs, (size_t)nc * sizeof(tsk_pair));
        if (!np) {
            snprintf(g->err, sizeof g->err, "out of host memory for %zu pairs", add);
            return -1;
        }
        *pairs = np;
        *cap = nc;
    }
    for (auto &p : part) {
        if (!p.empty()) memcpy(*pairs + *n_pairs, p.data(), p.size() * sizeof(tsk_pair));
        *n_pairs += (int64_t)p.size();
    }
    return 0;
}

extern "C" int tsk_gpu_dist_within(tsk_gpu_dist *g, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter,
                                   tsk_pair **pairs, int64_t *n_pairs, int64_t *cap)
{
    return tsk_cuda_entry("GPU threshold pairs", g->err, sizeof g->err, -1,
                          [&] { return within(g, q0, nq, max_dist, filter, pairs, n_pairs, cap); });
}
