/* dist_kernels.cu: tiled |a - b|^2 kernels with fused distance epilogues (dense, within, top-k)
 * and the ragged thread-per-pair kernel. See dist_kernels.cuh for layouts. Every value follows
 * core/vec_dist.h, the CPU engine's arithmetic (#42): cosine vectors arrive scaled by 1/|x|
 * (gpu_dist.cu's upload), each pair sums fmaf(d, d, acc) over the elements in order, and vectors
 * longer than TSK_VD_CHUNK carry their chunk sums in float64 (the CHUNKED instantiations). */
#include <float.h>
#include <math.h>

#include "../core/vec_dist.h"
#include "dist_kernels.cuh"

#define APAD (DIST_TILE + 4)   /* As/Bs row stride: 16-byte aligned, fewer bank conflicts */
#define DSTR (DIST_TILE + 2)   /* distance tile stride: 2q + c spreads a warp over 32 banks */

/* Row (or column) of the tile that register i of a thread covers: two groups of 4, 64 apart, so
 * each group is one aligned float4 in shared memory. */
__device__ __forceinline__ int sub_index(int t, int i) { return (i < 4 ? 0 : 64) + t * 4 + (i & 3); }

/* acc[i][j] = |Q[row i] - R[col j]|^2 for this thread's 8 x 8 pairs of the tile whose first
 * query is Q and first reference R (both already offset to the tile). CHUNKED (Lp > TSK_VD_CHUNK):
 * the float sums restart every TSK_VD_CHUNK elements and are carried into sum[i][j] in float64,
 * as the CPU engine carries them; sum is untouched otherwise. */
template <bool CHUNKED>
__device__ __forceinline__ void tile_sqdiff(const float *__restrict__ Q, const float *__restrict__ R, int Lp,
                                            float (*As)[APAD], float (*Bs)[APAD], float acc[8][8],
                                            double (*sum)[8])
{
    const int tid = threadIdx.x, ty = tid >> 4, tx = tid & 15;
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) {
            acc[i][j] = 0.f;
            if constexpr (CHUNKED) sum[i][j] = 0.0;
        }

    for (int k0 = 0; k0 < Lp; k0 += DIST_BK) {
        /* 128 items x 16 floats per operand = 512 float4: two per thread, stored k-major. */
#pragma unroll
        for (int p = 0; p < 2; p++) {
            int idx = tid + p * DIST_THREADS, row = idx >> 2, kq = (idx & 3) * 4;
            float4 va = *reinterpret_cast<const float4 *>(Q + (size_t)row * Lp + k0 + kq);
            float4 vb = *reinterpret_cast<const float4 *>(R + (size_t)row * Lp + k0 + kq);
            As[kq + 0][row] = va.x; As[kq + 1][row] = va.y; As[kq + 2][row] = va.z; As[kq + 3][row] = va.w;
            Bs[kq + 0][row] = vb.x; Bs[kq + 1][row] = vb.y; Bs[kq + 2][row] = vb.z; Bs[kq + 3][row] = vb.w;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < DIST_BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][64 + ty * 4]);
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][64 + tx * 4]);
            float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) acc[i][j] = tsk_vd_step(acc[i][j], a[i], b[j]);
        }
        __syncthreads();
        /* DIST_BK divides TSK_VD_CHUNK: chunk ends fall on stage ends. The zero padding past the
         * vector adds exact zeros, so the last chunk's sum is the CPU's over the real elements. */
        if constexpr (CHUNKED) {
            if ((k0 + DIST_BK) % TSK_VD_CHUNK == 0 || k0 + DIST_BK >= Lp) {
#pragma unroll
                for (int i = 0; i < 8; i++)
#pragma unroll
                    for (int j = 0; j < 8; j++) {
                        sum[i][j] += (double)acc[i][j];
                        acc[i][j] = 0.f;
                    }
            }
        }
    }
}

/* The printed distance of a pair (core/vec_dist.h's finish); cosine is 1 when either vector is
 * zero (inv == 0), its vectors being scaled already. */
template <bool CHUNKED>
__device__ __forceinline__ float finish(const dist_tile_args &a, float acc, double sum, int q, int r)
{
    int zero = a.cosine && (a.qinv[q] == 0.f || a.rinv[r] == 0.f);
    return CHUNKED ? tsk_vd_finish(sum, a.cosine, zero) : tsk_vd_finish_chunk(acc, a.cosine, zero);
}

template <bool CHUNKED>
__global__ void __launch_bounds__(DIST_THREADS, 2)
dense_kernel(dist_tile_args a, float *__restrict__ out, long long ld)
{
    __shared__ __align__(16) float As[DIST_BK][APAD];
    __shared__ __align__(16) float Bs[DIST_BK][APAD];
    const int qb = blockIdx.y * DIST_TILE, rb = blockIdx.x * DIST_TILE;
    float acc[8][8];
    double sum[CHUNKED ? 8 : 1][8] = {};  /* the carried chunk sums (CHUNKED); else one row of zeros, unused */
    tile_sqdiff<CHUNKED>(a.Q + (size_t)qb * a.Lp, a.R + (size_t)rb * a.Lp, a.Lp, As, Bs, acc, sum);
    const int ty = threadIdx.x >> 4, tx = threadIdx.x & 15;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int q = qb + sub_index(ty, i);
        if (q >= a.nq) continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int r = rb + sub_index(tx, j);
            if (r < a.nr) out[(size_t)q * ld + r] = finish<CHUNKED>(a, acc[i][j], sum[CHUNKED ? i : 0][j], q, r);
        }
    }
}

template <bool CHUNKED>
__global__ void __launch_bounds__(DIST_THREADS, 2)
within_kernel(dist_tile_args a, float max_dist, dist_hit *__restrict__ hits, unsigned long long *count,
              unsigned long long cap)
{
    __shared__ __align__(16) float As[DIST_BK][APAD];
    __shared__ __align__(16) float Bs[DIST_BK][APAD];
    const int qb = blockIdx.y * DIST_TILE, rb = blockIdx.x * DIST_TILE;
    /* Upper-triangle filters: a tile wholly below the diagonal holds no pair. */
    if ((a.filter == TSK_PAIRS_UPPER || a.filter == TSK_PAIRS_UPPER_SELF) &&
        a.r0 + rb + DIST_TILE - 1 < a.q0 + qb)
        return;
    float acc[8][8];
    double sum[CHUNKED ? 8 : 1][8] = {};  /* the carried chunk sums (CHUNKED); else one row of zeros, unused */
    tile_sqdiff<CHUNKED>(a.Q + (size_t)qb * a.Lp, a.R + (size_t)rb * a.Lp, a.Lp, As, Bs, acc, sum);
    const int ty = threadIdx.x >> 4, tx = threadIdx.x & 15;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int q = qb + sub_index(ty, i);
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int r = rb + sub_index(tx, j);
            if (q >= a.nq || r >= a.nr || !tsk_pair_admitted(a.filter, a.q0 + q, a.r0 + r)) continue;
            float d = finish<CHUNKED>(a, acc[i][j], sum[CHUNKED ? i : 0][j], q, r);
            if (d <= max_dist) {
                unsigned long long slot = atomicAdd(count, 1ULL);
                if (slot < cap) hits[slot] = dist_hit{q, r, d};
            }
        }
    }
}

/* Each block owns one query tile and walks the reference tiles of its split. After each tile the
 * distances go through shared memory; two threads per query scan alternate columns into their
 * own sorted list of k (struct of arrays, thread-minor: conflict-free), and at the end the two
 * lists are merged into the split's partial list. Insertions are rare once the lists fill, so the
 * scan costs a few percent of the tile's arithmetic. */
template <bool CHUNKED>
__global__ void __launch_bounds__(DIST_THREADS, 2)
topk_kernel(dist_tile_args a, int k, int n_split, dist_cand *__restrict__ part)
{
    extern __shared__ __align__(16) float smem[];
    float (*As)[APAD] = reinterpret_cast<float (*)[APAD]>(smem);
    float (*Bs)[APAD] = reinterpret_cast<float (*)[APAD]>(smem + DIST_BK * APAD);
    float (*Ds)[DSTR] = reinterpret_cast<float (*)[DSTR]>(smem + 2 * DIST_BK * APAD);
    float *Ld = smem + 2 * DIST_BK * APAD + DIST_TILE * DSTR;
    int *Li = reinterpret_cast<int *>(Ld + (size_t)k * DIST_THREADS);

    const int tid = threadIdx.x, ty = tid >> 4, tx = tid & 15;
    const int qb = blockIdx.x * DIST_TILE, split = blockIdx.y;
    const int n_rt = (a.nr + DIST_TILE - 1) / DIST_TILE;
    const int per = (n_rt + n_split - 1) / n_split;
    const int rt_lo = split * per, rt_hi = min(n_rt, rt_lo + per);

    for (int i = 0; i < k; i++) {
        Ld[i * DIST_THREADS + tid] = INFINITY;
        Li[i * DIST_THREADS + tid] = -1;
    }
    float wd = INFINITY;  /* worst kept entry of this thread's list */
    int wi = -1;
    const int my_q = tid >> 1, half = tid & 1;

    for (int rt = rt_lo; rt < rt_hi; rt++) {
        const int rb = rt * DIST_TILE;
        float acc[8][8];
        double sum[CHUNKED ? 8 : 1][8] = {};  /* the carried chunk sums (CHUNKED); else one row of zeros, unused */
        tile_sqdiff<CHUNKED>(a.Q + (size_t)qb * a.Lp, a.R + (size_t)rb * a.Lp, a.Lp, As, Bs, acc, sum);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            int lq = sub_index(ty, i), q = qb + lq;
#pragma unroll
            for (int j = 0; j < 8; j++) {
                int lr = sub_index(tx, j), r = rb + lr;
                bool ok = q < a.nq && r < a.nr && tsk_pair_admitted(a.filter, a.q0 + q, a.r0 + r);
                Ds[lq][lr] = ok ? finish<CHUNKED>(a, acc[i][j], sum[CHUNKED ? i : 0][j], q, r) : INFINITY;
            }
        }
        __syncthreads();
        for (int c = half; c < DIST_TILE; c += 2) {
            float d = Ds[my_q][c];
            int r = rb + c;
            if (!(d <= FLT_MAX) || !dist_ranks_before(d, r, wd, wi)) continue;  /* also drops NaN and masked */
            int pos = k - 1;
            while (pos > 0) {
                float pd = Ld[(pos - 1) * DIST_THREADS + tid];
                int pi = Li[(pos - 1) * DIST_THREADS + tid];
                if (dist_ranks_before(pd, pi, d, r)) break;
                Ld[pos * DIST_THREADS + tid] = pd;
                Li[pos * DIST_THREADS + tid] = pi;
                pos--;
            }
            Ld[pos * DIST_THREADS + tid] = d;
            Li[pos * DIST_THREADS + tid] = r;
            wd = Ld[(k - 1) * DIST_THREADS + tid];
            wi = Li[(k - 1) * DIST_THREADS + tid];
        }
        __syncthreads();  /* Ds and As/Bs are rewritten by the next tile */
    }

    /* Merge the two lists of each query (threads 2q and 2q+1) into the partial output. */
    const int q = qb + my_q;
    if (half == 0 && q < a.nq) {
        dist_cand *o = part + ((size_t)q * n_split + split) * k;
        int x = 0, y = 0;
        for (int i = 0; i < k; i++) {
            float dx = Ld[x * DIST_THREADS + tid], dy = Ld[y * DIST_THREADS + tid + 1];
            int ix = Li[x * DIST_THREADS + tid], iy = Li[y * DIST_THREADS + tid + 1];
            bool take_x = ix >= 0 && (iy < 0 || dist_ranks_before(dx, ix, dy, iy));
            if (take_x) {
                o[i] = dist_cand{dx, ix};
                x++;
            } else if (iy >= 0) {
                o[i] = dist_cand{dy, iy};
                y++;
            } else {
                o[i] = dist_cand{INFINITY, -1};
            }
        }
    }
}

/* One thread per pair: core/vec_dist.h's pair sum, the CPU engine's pair path, over the first
 * min(rows) rows with the norms over those rows. */
__global__ void ragged_kernel(const float *__restrict__ Qrows, const long long *qstart, const long long *qrows, int nq,
                              const float *__restrict__ Rrows, const long long *rstart, const long long *rrows, int nr,
                              int dim, int cosine, float *__restrict__ out, long long ld)
{
    const long long pair = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (pair >= (long long)nq * nr) return;
    const int q = (int)(pair / nr), r = (int)(pair % nr);
    const long long len = min(qrows[q], rrows[r]) * dim;
    const float *x = Qrows + qstart[q], *y = Rrows + rstart[r];
    float sa = 1.f, sb = 1.f, d;
    double na = 0, nb = 0;
    if (cosine) {
        na = tsk_vd_norm2(x, len);
        nb = tsk_vd_norm2(y, len);
        sa = tsk_vd_inv_norm(na);
        sb = tsk_vd_inv_norm(nb);
    }
    if (cosine && (na == 0 || nb == 0)) d = tsk_vd_finish(0, 1, 1);
    else d = tsk_vd_finish(tsk_vd_pair_sum(x, sa, y, sb, len), cosine, 0);
    out[(size_t)q * ld + r] = d;
}

static dim3 tile_grid(const dist_tile_args *a)
{
    return dim3((a->nr + DIST_TILE - 1) / DIST_TILE, (a->nq + DIST_TILE - 1) / DIST_TILE);
}

/* The tiled kernels' instantiation for a.Lp: one float sum per pair, or chunk sums carried. */
#define TILED(kernel, a) ((a)->Lp > TSK_VD_CHUNK ? kernel<true> : kernel<false>)

cudaError_t dist_launch_dense(const dist_tile_args *a, float *out, long long ld, cudaStream_t s)
{
    if (a->nq <= 0 || a->nr <= 0) return cudaSuccess;
    TILED(dense_kernel, a)<<<tile_grid(a), DIST_THREADS, 0, s>>>(*a, out, ld);
    return cudaGetLastError();
}

cudaError_t dist_launch_within(const dist_tile_args *a, float max_dist, dist_hit *hits, unsigned long long *count,
                               unsigned long long cap, cudaStream_t s)
{
    if (a->nq <= 0 || a->nr <= 0) return cudaSuccess;
    TILED(within_kernel, a)<<<tile_grid(a), DIST_THREADS, 0, s>>>(*a, max_dist, hits, count, cap);
    return cudaGetLastError();
}

size_t dist_topk_smem(int k)
{
    return sizeof(float) * (2 * DIST_BK * APAD + DIST_TILE * DSTR) + (size_t)k * DIST_THREADS * 8;
}

cudaError_t dist_launch_topk(const dist_tile_args *a, int k, int n_split, dist_cand *part, cudaStream_t s)
{
    if (a->nq <= 0) return cudaSuccess;
    size_t smem = dist_topk_smem(k);
    auto kernel = TILED(topk_kernel, a);
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 grid((a->nq + DIST_TILE - 1) / DIST_TILE, n_split);
    kernel<<<grid, DIST_THREADS, smem, s>>>(*a, k, n_split, part);
    return cudaGetLastError();
}

cudaError_t dist_launch_ragged(const float *Qrows, const long long *qstart, const long long *qrows, int nq,
                               const float *Rrows, const long long *rstart, const long long *rrows, int nr, int dim,
                               int cosine, float *out, long long ld, cudaStream_t s)
{
    long long pairs = (long long)nq * nr;
    if (pairs <= 0) return cudaSuccess;
    ragged_kernel<<<(unsigned)((pairs + 255) / 256), 256, 0, s>>>(Qrows, qstart, qrows, nq, Rrows, rstart, rrows, nr,
                                                                 dim, cosine, out, ld);
    return cudaGetLastError();
}
