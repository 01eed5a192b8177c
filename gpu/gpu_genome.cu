/* gpu_genome.cu: genome mode's GPU engine, host side (gpu_genome.h; kernel in genome_kernels.cuh).
 *
 * A block of genome pairs becomes searches (both directions of every pair that is computed), cut
 * into launches of at most SKG_LAUNCH_ROWS rows of A so that the per-row results stay small. Each
 * launch's nearest distances and indices come back to the host, where core/genome_summary.c turns
 * them into distances exactly as the CPU engine does. */
#include "gpu_genome.h"
#include "genome_kernels.cuh"

#include "cuda_util.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#define SKG_LAUNCH_ROWS (1LL << 24)  /* rows of A per launch: 16 M x 12 bytes of results */

struct tsk_gpu_genome {
    const tsk_sketch_set *q = nullptr, *r = nullptr;
    bool same = false;
    tsk_genome_opts o;
    int dev = 0, sms = 0, dim = 0;
    float *rows_d = nullptr;     /* q's rows, then r's (unless the same set) */
    int64_t r_base = 0;          /* device row of r's row 0 */
    cudaStream_t st = nullptr;
    void *plan_d = nullptr;      /* searches, then tiles */
    size_t plan_cap = 0;
    double *d2_d = nullptr;      /* per row of A: the nearest squared distance, and its row of B */
    int32_t *at_d = nullptr;
    size_t d2_cap = 0, at_cap = 0;  /* bytes */
    /* host scratch */
    std::vector<skg_search> searches;
    std::vector<skg_tile> tiles;
    std::vector<double> d2;
    std::vector<int32_t> at;
    char err[256] = "";
};

/* A pair of the current launch: where its result goes and its two searches (-1: decided on the
 * host, value in `value`). */
struct skg_pair {
    int64_t out;
    int64_t search;  /* the A-against-B search; B-against-A is search + 1 */
    int64_t na, nb;
    double value;
};

#define SKG_CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    snprintf(g->err, sizeof g->err, "CUDA error on device %d in %s: %s", g->dev, #call, cudaGetErrorString(e_)); \
    cudaGetLastError(); return -1; } } while (0)

static int64_t set_rows(const tsk_sketch_set *s)
{
    int64_t n = 0;
    for (int64_t i = 0; i < s->n_items; i++) n = std::max(n, s->first_row[i] + s->n_rows[i]);
    return n;
}

extern "C" const char *tsk_gpu_genome_error(const tsk_gpu_genome *g) { return g ? g->err : "no GPU genome engine"; }

extern "C" void tsk_gpu_genome_close(tsk_gpu_genome *g)
{
    if (!g) return;
    cudaSetDevice(g->dev);
    cudaFree(g->rows_d);
    cudaFree(g->plan_d);
    cudaFree(g->d2_d);
    cudaFree(g->at_d);
    if (g->st) cudaStreamDestroy(g->st);
    delete g;
}

extern "C" tsk_gpu_genome *tsk_gpu_genome_open(const tsk_sketch_set *q, const tsk_sketch_set *r,
                                               const tsk_genome_opts *o, int device, char *err, size_t errlen)
{
    if (q->dim != r->dim || q->dim <= 0) {
        snprintf(err, errlen, "sketch dimensions differ (%d and %d)", q->dim, r->dim);
        return NULL;
    }
    if (q->dim > SKG_MAX_DIM) {
        snprintf(err, errlen, "D=%d exceeds the GPU genome engine's maximum %d", q->dim, SKG_MAX_DIM);
        return NULL;
    }
    if (o->chord) {
        snprintf(err, errlen, "chords are not on the GPU");
        return NULL;
    }
    if (tsk_cuda_device_usable(device, err, errlen)) return NULL;
    tsk_gpu_genome *g = new tsk_gpu_genome();
    g->q = q, g->r = r, g->same = q == r, g->o = *o, g->dev = device, g->dim = q->dim;
    const int64_t nq = set_rows(q), nr = g->same ? 0 : set_rows(r);
    g->r_base = g->same ? 0 : nq;
    const size_t row_bytes = (size_t)g->dim * sizeof(float);
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(&g->rows_d, (size_t)(nq + nr + 1) * row_bytes);
    if (e == cudaSuccess && nq) e = cudaMemcpy(g->rows_d, q->rows, (size_t)nq * row_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && nr)
        e = cudaMemcpy(g->rows_d + nq * g->dim, r->rows, (size_t)nr * row_bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA device %d: %s", device, cudaGetErrorString(e));
        cudaGetLastError();
        tsk_gpu_genome_close(g);
        return NULL;
    }
    return g;
}

/* Runs the searches collected in g, then finishes pairs[0..n) into out. */
static int run_launch(tsk_gpu_genome *g, std::vector<skg_pair> &pairs, float *out)
{
    const size_t n_search = g->searches.size(), rows = n_search ? (size_t)(g->searches.back().out0 + g->searches.back().na) : 0;
    if (n_search > 0) {
        const size_t search_b = (n_search * sizeof(skg_search) + 15) & ~(size_t)15;
        const size_t plan_b = search_b + g->tiles.size() * sizeof(skg_tile);
        SKG_CK(tsk_cuda_grow(&g->plan_d, &g->plan_cap, plan_b));
        SKG_CK(tsk_cuda_grow((void **)&g->d2_d, &g->d2_cap, rows * sizeof(double)));
        SKG_CK(tsk_cuda_grow((void **)&g->at_d, &g->at_cap, rows * sizeof(int32_t)));
        SKG_CK(cudaMemcpyAsync(g->plan_d, g->searches.data(), n_search * sizeof(skg_search), cudaMemcpyHostToDevice, g->st));
        SKG_CK(cudaMemcpyAsync((char *)g->plan_d + search_b, g->tiles.data(), g->tiles.size() * sizeof(skg_tile),
                               cudaMemcpyHostToDevice, g->st));
        const size_t smem = (size_t)skg_tile_rows(g->dim) * g->dim * sizeof(float);
        int per_sm = 0;
        SKG_CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, skg_nearest_kernel, SKG_THREADS, smem));
        const int n_tiles = (int)g->tiles.size();
        const int blocks = std::max(1, std::min(n_tiles, std::max(1, per_sm) * g->sms));
        skg_nearest_kernel<<<blocks, SKG_THREADS, smem, g->st>>>(g->rows_d, g->dim, (const skg_search *)g->plan_d,
                                                                 (const skg_tile *)((char *)g->plan_d + search_b),
                                                                 n_tiles, g->d2_d, g->at_d);
        SKG_CK(cudaGetLastError());
        g->d2.resize(rows);
        g->at.resize(rows);
        SKG_CK(cudaMemcpyAsync(g->d2.data(), g->d2_d, rows * sizeof(double), cudaMemcpyDeviceToHost, g->st));
        SKG_CK(cudaMemcpyAsync(g->at.data(), g->at_d, rows * sizeof(int32_t), cudaMemcpyDeviceToHost, g->st));
        SKG_CK(cudaStreamSynchronize(g->st));
    }
    /* the summaries, O(rows) per pair, on the caller's threads (each pair's value is computed by
     * one thread in row order: the same bits for any count) */
    const size_t n_pairs = pairs.size();
    const int nt = (int)std::max<size_t>(1, std::min<size_t>((size_t)std::max(1, g->o.threads), n_pairs / 64 + 1));
    auto work = [&](int w) {
        std::vector<double> nearest;
        std::vector<int64_t> index;
        tsk_genome_direction dir[2];
        for (size_t k = (size_t)w; k < n_pairs; k += (size_t)nt) {
            const skg_pair &p = pairs[k];
            double d = p.value;
            if (p.search >= 0) {
                for (int h = 0; h < 2; h++) {
                    const skg_search &s = g->searches[(size_t)p.search + h];
                    nearest.resize((size_t)s.na);
                    index.resize((size_t)s.na);
                    for (int32_t i = 0; i < s.na; i++) {
                        nearest[(size_t)i] = std::sqrt(g->d2[(size_t)(s.out0 + i)]);
                        index[(size_t)i] = g->at[(size_t)(s.out0 + i)];
                    }
                    dir[h] = tsk_genome_direction_of(nearest.data(), index.data(), s.na, s.nb, &g->o);
                }
                d = tsk_genome_combine(&dir[0], &dir[1], p.na, p.nb, &g->o);
            }
            out[p.out] = (float)d;
        }
    };
    std::vector<std::thread> threads;
    try {
        for (int w = 1; w < nt; w++) threads.emplace_back(work, w);
    } catch (...) {  /* no more threads to be had: this one does the rest too */
        for (int w = (int)threads.size() + 1; w < nt; w++) work(w);
    }
    work(0);
    for (std::thread &th : threads) th.join();
    pairs.clear();
    g->searches.clear();
    g->tiles.clear();
    return 0;
}

/* Adds the search of rows a (device row a_row0, na rows) against b to g's launch. */
static void add_search(tsk_gpu_genome *g, int64_t a_row0, int64_t na, int64_t b_row0, int64_t nb)
{
    const int64_t out0 = g->searches.empty() ? 0 : g->searches.back().out0 + g->searches.back().na;
    const int32_t id = (int32_t)g->searches.size();
    g->searches.push_back({a_row0, b_row0, out0, (int32_t)na, (int32_t)nb});
    for (int64_t a = 0; a < na; a += SKG_THREADS) g->tiles.push_back({id, (int32_t)a});
}

extern "C" int tsk_gpu_genome_block(tsk_gpu_genome *g, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                                    int64_t ld)
{
    if (!g) return -1;
    if (nq < 0 || nr < 0 || ld < nr) {
        snprintf(g->err, sizeof g->err, "bad block");
        return -1;
    }
    SKG_CK(cudaSetDevice(g->dev));
    const int64_t skip = g->o.skip_rows;
    std::vector<skg_pair> pairs;
    int64_t launch_rows = 0;
    for (int64_t i = 0; i < nq; i++)
        for (int64_t j = 0; j < nr; j++) {
            const int64_t qi = q0 + i, rj = r0 + j;
            /* one set against itself: the diagonal is 0, a mirrored pair inside the block is
             * computed once and copied below (as the CPU engine does) */
            if (g->same && tsk_genome_is_mirror(qi, rj, q0, r0, nr)) continue;
            skg_pair p = {i * ld + j, -1, 0, 0, 0.0};
            int64_t na, nb;
            const float *a = tsk_genome_item_rows(g->q, qi, skip, &na);
            const float *b = tsk_genome_item_rows(g->r, rj, skip, &nb);
            if (na > INT32_MAX || nb > INT32_MAX) {
                snprintf(g->err, sizeof g->err, "a genome has more than 2^31 rows");
                return -1;
            }
            p.na = na, p.nb = nb;
            if (g->same && qi == rj) p.value = 0.0;
            else if (na == 0 && nb == 0) p.value = 0.0;
            else if (na == 0 || nb == 0) p.value = g->o.summary == TSK_GENOME_UNMATCHED ? 1.0 : INFINITY;
            else {
                const int64_t a_row0 = (a - g->q->rows) / g->dim, b_row0 = g->r_base + (b - g->r->rows) / g->dim;
                if (launch_rows > 0 && launch_rows + na + nb > SKG_LAUNCH_ROWS) {
                    if (run_launch(g, pairs, out)) return -1;
                    launch_rows = 0;
                }
                p.search = (int64_t)g->searches.size();
                add_search(g, a_row0, na, b_row0, nb);
                add_search(g, b_row0, nb, a_row0, na);
                launch_rows += na + nb;
            }
            pairs.push_back(p);
        }
    if (run_launch(g, pairs, out)) return -1;
    if (g->same) tsk_genome_copy_mirrors(q0, nq, r0, nr, out, ld);
    return 0;
}
