/* dist_kernels.cuh: the distance kernels of gpu_dist.cu and their launchers.
 *
 * Tiled path (every item has the same number of rows, so each item is one vector of L floats):
 * query and reference items are stored row-major, each padded with zeros to Lp (a multiple of
 * DIST_BK) floats, and each buffer padded to a multiple of DIST_TILE items so that tile loads
 * need no bounds checks. A block computes a DIST_TILE x DIST_TILE tile of |a - b|^2 in float32
 * (8 x 8 pairs per thread), then finishes the distance and, by mode, stores it (dense), keeps it
 * if <= max (within) or folds it into per-query top-k lists (topk). Cosine items arrive scaled by
 * 1/|x|. Every value is core/vec_dist.h's, to the bit what the CPU engine prints (#42).
 *
 * Ragged path (slide sketches with differing row counts): one thread per pair over the packed
 * rows, core/vec_dist.h's pair sum (the CPU's pair path), dense output only. */
#ifndef TSK_DIST_KERNELS_CUH
#define TSK_DIST_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "../core/tsk_def.h"
#include "../core/vec_dist.h"

#define DIST_TILE 128
#define DIST_BK 16
#define DIST_THREADS 256

/* One candidate of a partial top-k list: distance and reference index local to the launch. */
struct dist_cand {
    float d;
    int r;
};

/* One surviving pair of a within launch, indices local to the launch. */
struct dist_hit {
    int q;
    int r;
    float d;
};

/* What every tiled launch shares. */
struct dist_tile_args {
    const float *Q;        /* query items, padded rows of Lp floats */
    const float *R;        /* reference items, same layout */
    int Lp;                /* padded vector length (multiple of DIST_BK) */
    int nq, nr;            /* valid items in Q and R */
    long long q0, r0;      /* global index of Q's and R's first item (for filters) */
    const float *qinv, *rinv;  /* cosine: 1/|x| (0 for a zero vector: distance 1), float */
    const double *qnorm, *rnorm; /* the top-k filter's norms: |fl(x - centre)| in float64 */
    const float *centre;    /* the top-k filter's centre, zero past Lp (to a multiple of 32 floats) */
    int cosine;
    tsk_pair_filter filter; /* which pairs take part (tsk_pair_admitted, core/tsk_def.h) */
};

/* Dense: out[q * ld + r] for every valid pair. */
cudaError_t dist_launch_dense(const dist_tile_args *a, float *out, long long ld, cudaStream_t s);

/* Within: every valid pair passing filter with d <= max_dist goes to hits[atomicAdd(count)] while
 * the count is below cap (the caller re-runs with a larger buffer when *count ends above cap). */
cudaError_t dist_launch_within(const dist_tile_args *a, float max_dist, dist_hit *hits,
                               unsigned long long *count, unsigned long long cap, cudaStream_t s);

/* Top-k: reference tiles split into n_split ranges; part[(q * n_split + s) * k + i] is the i-th
 * nearest of query q within split s (entries {INFINITY, -1} when fewer). k <= 64. */
cudaError_t dist_launch_topk(const dist_tile_args *a, int k, int n_split, dist_cand *part, cudaStream_t s);
size_t dist_topk_smem(int k);

/* Whether (d, r) ranks before (e, s): the nearer, then the lower reference. The one order of every
 * top-k list of vector rows: the tiled kernel's, the filter's selection, the host's merge. */
template <class I> __host__ __device__ __forceinline__ bool dist_ranks_before(float d, I r, float e, I s)
{
    return d < e || (d == e && r < s);
}

/* Exact: the distance of pair (q, r) with the very arithmetic of the tiled kernels (the elements
 * in tile_sqdiff's order, 0 .. Lp-1, one FMA each, the chunk sums carried in float64 past
 * TSK_VD_CHUNK elements; the same finish), so the value is bit-identical to what dense, within and
 * top-k give for that pair. For the candidates of dist_gemm.cuh. */
static __device__ __forceinline__ float dist_exact_pair(const dist_tile_args &a, int q, int r)
{
    const float4 *x = reinterpret_cast<const float4 *>(a.Q + (size_t)q * a.Lp);
    const float4 *y = reinterpret_cast<const float4 *>(a.R + (size_t)r * a.Lp);
    float acc = 0.f;
    double sum = 0.0;
    for (int k = 0; k < a.Lp / 4; k++) {
        const float4 u = x[k], v = y[k];
        acc = tsk_vd_step(acc, u.x, v.x);
        acc = tsk_vd_step(acc, u.y, v.y);
        acc = tsk_vd_step(acc, u.z, v.z);
        acc = tsk_vd_step(acc, u.w, v.w);
        if ((k + 1) % (TSK_VD_CHUNK / 4) == 0 || k + 1 == a.Lp / 4) { /* as tile_sqdiff folds */
            sum += (double)acc;
            acc = 0.f;
        }
    }
    const bool chunked = a.Lp > TSK_VD_CHUNK;
    const int zero = a.cosine && (a.qinv[q] == 0.f || a.rinv[r] == 0.f);
    return chunked ? tsk_vd_finish(sum, a.cosine, zero) : tsk_vd_finish_chunk((float)sum, a.cosine, zero);
}

/* Ragged dense: items as packed rows of dim floats; item i's rows start at element start[i] and
 * number nrows[i]. out[q * ld + r] = distance over the first min(nrows) rows. */
cudaError_t dist_launch_ragged(const float *Qrows, const long long *qstart, const long long *qrows,
                               int nq, const float *Rrows, const long long *rstart, const long long *rrows,
                               int nr, int dim, int cosine, float *out, long long ld, cudaStream_t s);

#endif
