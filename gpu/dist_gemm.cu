/* dist_gemm.cu: TF32 tensor-core bounds of l2 / cosine distances, for the exact top-k filter of
 * gpu_dist.cu (see dist_gemm.cuh for the scheme).
 *
 * The error bound. Let s = a.b, M = |a|^2 + |b|^2, and e the value the exact kernel computes
 * (float32 sums of fl(a_i - b_i)^2 with FMAs over chunks of 128 elements, carried in float64:
 * core/vec_dist.h; before the sqrt of l2 or the cosine finish). The chunks only shorten the float32
 * sums, so the bound of one float32 sum below holds for them.
 *  - TF32 operands (cvt.rna: 11-bit significands, u_t = 2^-11): a~_i b~_i = a_i b_i (1 + d),
 *    |d| <= 2 u_t + u_t^2. Products of TF32 values are exact in float32; the tensor cores add them
 *    with truncation (relative error <= 2^-22 per addition). gpu_dist.cu filters only D <= 4096
 *    (DIST_GEMM_MAX_LP); the accumulation term is taken as D * 2^-22 <= 2.3e-5 for D = 96;
 *    for D up to 4096 it is <= 1e-3, hence the D-dependent term below. By Cauchy-Schwarz
 *    sum |a_i b_i| <= |a||b| <= M / 2, so |s~ - s| <= (2^-10 + 2^-22 + D 2^-22 (1 + 2^-10)) M / 2.
 *  - l2: g = M - 2 s~ (float32, norms rounded from float64: a few ulps of M), so
 *    |g - |a - b|^2| <= (2^-10 + (D + 2) 2^-22) M + 8 u M; and the exact kernel's own error is
 *    |e - |a - b|^2| <= (2u + D u (1 + u)) |a - b|^2 <= (2 + D) 2^-24 * 2M. Together
 *    |g - e| <= E = (1.25e-3 + D 2^-21) M + 1e-35 (the last term for float32 underflow).
 *  - cosine: g = 1 - s~ / (|a||b|) is off by <= (2^-10 + (D+2) 2^-22) + 1e-6; the printed
 *    (e - (|a| - |b|)^2) / (2|a||b|) by <= ((2 + D) 2^-24 (|a| + |b|)^2 + u M) / (2|a||b|) + 1e-6
 *    <= (D + 4) 2^-24 M / (|a||b|) + 1e-6, so E = 1.25e-3 + D 2^-21 + (D + 4) 2^-23 M / (|a||b|).
 *    A zero vector gives exactly 1, as the exact kernel.
 *  - Anything non-finite (overflow of the squares or of g) gives the bounds (-inf, +inf): such a
 *    pair is always a candidate and never tightens a threshold.
 * With lo = g - E <= e <= hi = g + E: the k references of smallest hi have e <= T, the k-th
 * smallest hi, so the k-th exact value is <= T and every member of the exact top-k (ties by the
 * lower index included) has lo <= T: the candidates are a superset of the answer. l2 prints
 * sqrtf(e): two e within 2^-21 relative can round to one float, hence T is widened by 4e-6. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "dist_gemm.cuh"

#define GT 128            /* pairs tile: GT queries x GT references */
#define GK 32             /* elements per shared-memory stage */
#define GS (GK + 4)       /* As/Bs row stride (words): fragment loads hit 32 distinct banks */
#define DSTR (GT + 2)     /* bound tile stride */
#define GTHREADS 256

__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ void mma_tf32(float c[4], const uint32_t a[4], const uint32_t b[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Tile row (query) and column (reference) of accumulator acc[i][j][e] of this thread: warps in a
 * 2 x 4 grid of 64 x 32 pairs, each 4 x 4 mma tiles of 16 x 8. */
__device__ __forceinline__ int acc_row(int i, int e) { return ((threadIdx.x >> 5) & 1) * 64 + i * 16 + ((threadIdx.x & 31) >> 2) + (e >> 1) * 8; }
__device__ __forceinline__ int acc_col(int j, int e) { return (threadIdx.x >> 6) * 32 + j * 8 + (threadIdx.x & 3) * 2 + (e & 1); }

/* acc = Q[tile] . R[tile]^T in TF32 for this thread's 8 x 8 pairs. */
__device__ __forceinline__ void tile_dot(const float *__restrict__ Q, const float *__restrict__ R, int Lp,
                                         uint32_t (*As)[GS], uint32_t (*Bs)[GS], float acc[4][4][4])
{
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = warp & 1, wn = warp >> 1, g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;
    for (int k0 = 0; k0 < Lp; k0 += GK) {
#pragma unroll
        for (int p = 0; p < 4; p++) {
            int idx = tid + p * GTHREADS, row = idx >> 3, c4 = (idx & 7) * 4;
            float4 va = make_float4(0.f, 0.f, 0.f, 0.f), vb = va;
            if (k0 + c4 < Lp) {  /* Lp is a multiple of 16: a stage's upper half may be past the end */
                va = *reinterpret_cast<const float4 *>(Q + (size_t)row * Lp + k0 + c4);
                vb = *reinterpret_cast<const float4 *>(R + (size_t)row * Lp + k0 + c4);
            }
            *reinterpret_cast<uint4 *>(&As[row][c4]) = make_uint4(to_tf32(va.x), to_tf32(va.y), to_tf32(va.z), to_tf32(va.w));
            *reinterpret_cast<uint4 *>(&Bs[row][c4]) = make_uint4(to_tf32(vb.x), to_tf32(vb.y), to_tf32(vb.z), to_tf32(vb.w));
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < GK; kk += 8) {
            uint32_t af[4][4], bf[4][2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                int r0 = wm * 64 + i * 16 + g;
                af[i][0] = As[r0][kk + t];
                af[i][1] = As[r0 + 8][kk + t];
                af[i][2] = As[r0][kk + t + 4];
                af[i][3] = As[r0 + 8][kk + t + 4];
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                int c0 = wn * 32 + j * 8 + g;
                bf[j][0] = Bs[c0][kk + t];
                bf[j][1] = Bs[c0][kk + t + 4];
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) mma_tf32(acc[i][j], af[i], bf[j]);
        }
        __syncthreads();
    }
}

/* Per-item values of a tile's queries or references, staged in shared memory. */
struct tile_norms {
    float n2[GT];   /* |x|^2 */
    float inv[GT];  /* cosine: 1/|x|, 0 for a zero vector */
};

__device__ __forceinline__ void stage_norms(tile_norms *tn, const double *norm, const float *inv, int first, int n,
                                            int cosine)
{
    for (int i = threadIdx.x; i < GT; i += GTHREADS) {
        int x = first + i;
        double v = x < n ? norm[x] : 0.0;
        tn->n2[i] = (float)(v * v);
        tn->inv[i] = cosine && x < n ? inv[x] : 0.f;
    }
}

/* This thread's 8 rows' and 8 columns' norms, in registers for the whole tile (the epilogue
 * would otherwise read shared memory four times per pair). */
struct thread_norms {
    float qn2[4][2], qi[4][2], rn2[4][2], ri[4][2];
};

__device__ __forceinline__ void load_thread_norms(thread_norms &t, const tile_norms *qn, const tile_norms *rn)
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int lq = acc_row(i, h * 2), lr = acc_col(i, h);
            t.qn2[i][h] = qn->n2[lq];
            t.qi[i][h] = qn->inv[lq];
            t.rn2[i][h] = rn->n2[lr];
            t.ri[i][h] = rn->inv[lr];
        }
}

/* Bounds lo <= e <= hi of the exact kernel's value for the pair with dot product s~ (see top). */
__device__ __forceinline__ void bounds(float s, float qn2, float rn2, float qi, float ri, int cosine, float ek,
                                       float &lo, float &hi)
{
    float M = qn2 + rn2, g, E;
    if (!cosine) {
        g = M - 2.f * s;
        E = (1.25e-3f + ek) * M + 1e-35f;
    } else if (qi == 0.f || ri == 0.f) {
        lo = hi = 1.f;
        return;
    } else {
        float w = qi * ri;
        g = 1.f - s * w;
        E = 1.25e-3f + ek + ek * 4.f * M * w;
    }
    bool fin = fabsf(g) <= FLT_MAX && E <= FLT_MAX;
    lo = fin ? g - E : -INFINITY;
    hi = fin ? g + E : INFINITY;
}

__global__ void __launch_bounds__(GTHREADS, 2) bound_kernel(dist_tile_args a, int k, int n_split, float ek,
                                                            float *__restrict__ part)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    /* As/Bs and the bound tile Ds share their room: Ds is written after the last stage's barrier. */
    uint32_t (*As)[GS] = reinterpret_cast<uint32_t (*)[GS]>(smem_raw);
    uint32_t (*Bs)[GS] = reinterpret_cast<uint32_t (*)[GS]>(smem_raw + sizeof(uint32_t) * GT * GS);
    float (*Ds)[DSTR] = reinterpret_cast<float (*)[DSTR]>(smem_raw);
    const size_t tile_bytes = sizeof(float) * GT * DSTR;
    tile_norms *qn = reinterpret_cast<tile_norms *>(smem_raw + tile_bytes);
    tile_norms *rn = qn + 1;
    float *Ld = reinterpret_cast<float *>(rn + 1);

    const int tid = threadIdx.x;
    const int qb = blockIdx.x * GT, split = blockIdx.y;
    const int n_rt = (a.nr + GT - 1) / GT, per = (n_rt + n_split - 1) / n_split;
    const int rt_lo = split * per, rt_hi = min(n_rt, rt_lo + per);
    for (int i = 0; i < k; i++) Ld[i * GTHREADS + tid] = INFINITY;
    float wd = INFINITY;
    const int my_q = tid >> 1, half = tid & 1;
    stage_norms(qn, a.qnorm, a.qinv, qb, a.nq, a.cosine);

    for (int rt = rt_lo; rt < rt_hi; rt++) {
        const int rb = rt * GT;
        stage_norms(rn, a.rnorm, a.rinv, rb, a.nr, a.cosine);
        float acc[4][4][4];
        tile_dot(a.Q + (size_t)qb * a.Lp, a.R + (size_t)rb * a.Lp, a.Lp, As, Bs, acc);
        thread_norms tn;
        load_thread_norms(tn, qn, rn);
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    int lq = acc_row(i, e), lr = acc_col(j, e), q = qb + lq, r = rb + lr;
                    float lo, hi = INFINITY;
                    if (q < a.nq && r < a.nr && tsk_pair_admitted(a.filter, a.q0 + q, a.r0 + r))
                        bounds(acc[i][j][e], tn.qn2[i][e >> 1], tn.rn2[j][e & 1], tn.qi[i][e >> 1], tn.ri[j][e & 1],
                               a.cosine, ek, lo, hi);
                    Ds[lq][lr] = hi;
                }
        __syncthreads();
        for (int c = half; c < GT; c += 2) {
            float d = Ds[my_q][c];
            if (!(d < wd)) continue;  /* also drops +inf and NaN */
            int pos = k - 1;
            while (pos > 0) {
                float pd = Ld[(pos - 1) * GTHREADS + tid];
                if (pd <= d) break;
                Ld[pos * GTHREADS + tid] = pd;
                pos--;
            }
            Ld[pos * GTHREADS + tid] = d;
            wd = Ld[(k - 1) * GTHREADS + tid];
        }
        __syncthreads();  /* Ds, As/Bs and rn are rewritten by the next tile */
    }
    const int q = qb + my_q;
    if (half == 0 && q < a.nq) {  /* merge the two lists of the query */
        float *o = part + ((size_t)q * n_split + split) * k;
        int x = 0, y = 0;
        for (int i = 0; i < k; i++) {
            float dx = Ld[x * GTHREADS + tid], dy = Ld[y * GTHREADS + tid + 1];
            if (dx <= dy) {
                o[i] = dx;
                x++;
            } else {
                o[i] = dy;
                y++;
            }
        }
    }
}

__global__ void thresholds_kernel(const float *__restrict__ part, int nq, int k, int n_split, float *__restrict__ thr)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nq) return;
    float best[64];
    for (int i = 0; i < k; i++) best[i] = INFINITY;
    for (int s = 0; s < n_split; s++) {
        const float *p = part + ((size_t)q * n_split + s) * k;
        for (int i = 0; i < k; i++) {
            float v = p[i];
            if (!(v < best[k - 1])) break;  /* each list is sorted */
            int pos = k - 1;
            while (pos > 0 && best[pos - 1] > v) {
                best[pos] = best[pos - 1];
                pos--;
            }
            best[pos] = v;
        }
    }
    float t = best[k - 1];
    thr[q] = t + fabsf(t) * 4e-6f + 1e-35f;
}

__global__ void __launch_bounds__(GTHREADS, 2) candidates_kernel(dist_tile_args a, float ek, const float *__restrict__ thr,
                                                                 dist_hit *__restrict__ hits, unsigned long long *count,
                                                                 unsigned long long cap)
{
    __shared__ __align__(16) uint32_t As[GT][GS];
    __shared__ __align__(16) uint32_t Bs[GT][GS];
    __shared__ tile_norms qn, rn;
    __shared__ float sthr[GT];
    const int qb = blockIdx.y * GT, rb = blockIdx.x * GT;
    if ((a.filter == TSK_PAIRS_UPPER || a.filter == TSK_PAIRS_UPPER_SELF) && a.r0 + rb + GT - 1 < a.q0 + qb) return;
    stage_norms(&qn, a.qnorm, a.qinv, qb, a.nq, a.cosine);
    stage_norms(&rn, a.rnorm, a.rinv, rb, a.nr, a.cosine);
    for (int i = threadIdx.x; i < GT; i += GTHREADS) sthr[i] = qb + i < a.nq ? thr[qb + i] : -INFINITY;
    float acc[4][4][4];
    tile_dot(a.Q + (size_t)qb * a.Lp, a.R + (size_t)rb * a.Lp, a.Lp, As, Bs, acc);  /* its barriers cover the staging */
    thread_norms tn;
    load_thread_norms(tn, &qn, &rn);
    float th[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) th[i][h] = sthr[acc_row(i, h * 2)];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                int lq = acc_row(i, e), lr = acc_col(j, e), q = qb + lq, r = rb + lr;
                if (q >= a.nq || r >= a.nr || !tsk_pair_admitted(a.filter, a.q0 + q, a.r0 + r)) continue;
                float lo, hi;
                bounds(acc[i][j][e], tn.qn2[i][e >> 1], tn.rn2[j][e & 1], tn.qi[i][e >> 1], tn.ri[j][e & 1], a.cosine,
                       ek, lo, hi);
                if (lo <= th[i][e >> 1]) {
                    unsigned long long slot = atomicAdd(count, 1ULL);
                    if (slot < cap) hits[slot] = dist_hit{q, r, 0.f};
                }
            }
}

/* The D-dependent part of E (see top): D 2^-21, D the padded length (an upper bound). */
static float accumulation_term(int Lp) { return (float)Lp * 4.76837158203125e-7f; }

static size_t bound_smem(int k)
{
    size_t tile = sizeof(float) * GT * DSTR, stages = 2 * sizeof(uint32_t) * GT * GS;
    return (tile > stages ? tile : stages) + 2 * sizeof(tile_norms) + sizeof(float) * (size_t)k * GTHREADS;
}

cudaError_t dist_gemm_launch_bound(const dist_tile_args *a, int k, int n_split, float *part, cudaStream_t s)
{
    if (a->nq <= 0) return cudaSuccess;
    size_t smem = bound_smem(k);
    cudaError_t e = cudaFuncSetAttribute(bound_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 grid((a->nq + GT - 1) / GT, n_split);
    bound_kernel<<<grid, GTHREADS, smem, s>>>(*a, k, n_split, accumulation_term(a->Lp), part);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_thresholds(const float *part, int nq, int k, int n_split, float *thr, cudaStream_t s)
{
    if (nq <= 0) return cudaSuccess;
    thresholds_kernel<<<(nq + 127) / 128, 128, 0, s>>>(part, nq, k, n_split, thr);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_candidates(const dist_tile_args *a, const float *thr, dist_hit *hits,
                                        unsigned long long *count, unsigned long long cap, cudaStream_t s)
{
    if (a->nq <= 0 || a->nr <= 0) return cudaSuccess;
    dim3 grid((a->nr + GT - 1) / GT, (a->nq + GT - 1) / GT);
    candidates_kernel<<<grid, GTHREADS, 0, s>>>(*a, accumulation_term(a->Lp), thr, hits, count, cap);
    return cudaGetLastError();
}
