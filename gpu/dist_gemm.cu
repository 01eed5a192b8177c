/* dist_gemm.cu: TF32 tensor-core bounds of l2 distances, for the exact top-k filter of gpu_dist.cu
 * (see dist_gemm.cuh for the scheme).
 *
 * The error bound. Let s = a.b, M = |a|^2 + |b|^2, and e the value the exact kernel computes
 * (float32 sums of fl(a_i - b_i)^2 with FMAs over chunks of 128 elements, carried in float64:
 * core/vec_dist.h; before the sqrt). The chunks only shorten the float32 sums, so the bound of one
 * float32 sum below holds for them.
 *  - TF32 operands (cvt.rna: 11-bit significands, u_t = 2^-11): a~_i b~_i = a_i b_i (1 + d),
 *    |d| <= 2 u_t + u_t^2. Products of TF32 values are exact in float32; the tensor cores add them
 *    with truncation (relative error <= 2^-22 per addition). gpu_dist.cu filters only D <= 4096
 *    (DIST_GEMM_MAX_LP); the accumulation term is taken as D * 2^-22 <= 2.3e-5 for D = 96;
 *    for D up to 4096 it is <= 1e-3, hence the D-dependent term below. By Cauchy-Schwarz
 *    sum |a_i b_i| <= |a||b| <= M / 2, so |s~ - s| <= (2^-10 + 2^-22 + D 2^-22 (1 + 2^-10)) M / 2.
 *  - g = M - 2 s~ (norms rounded from float64: a few ulps of M), so
 *    |g - |a - b|^2| <= (2^-10 + (D + 2) 2^-22) M + 8 u M; and the exact kernel's own error is
 *    |e - |a - b|^2| <= (2u + D u (1 + u)) |a - b|^2 <= (2 + D) 2^-24 * 2M. Together
 *    |g - e| <= E = (1.25e-3 + D 2^-21) M + 1e-35 (the last term for float32 underflow).
 *  - Centring. Every vector is first moved by one centre m (the references' mean): x' = fl(x - m),
 *    one float subtraction each (|x'_i - (x_i - m_i)| <= u |x'_i|), and the above is taken for a'
 *    and b' (s = a'.b', M = |a'|^2 + |b'|^2): |a' - b'|^2 is |a - b|^2 within 6 u M, which the
 *    1e-6 M below covers, and the error bound shrinks with M, since read sketches share most of
 *    their length (|a|^2 + |b|^2 is 8 |a - b|^2 at a read's 10th neighbour; centred, about 1x).
 *  - The kernels evaluate hi = g + E and lo = g - E as c_q + c_r - 2 s~ with per-item terms
 *    c_x = (1 +- c) |x|^2 (c = 1.25e-3 + D 2^-21 + 1e-6): three roundings of values <= 1.01 M,
 *    which the 1e-6 M covers. An item with |x|^2 > 1e37 or not finite (overflow ahead) has c_x =
 *    +inf in the upper bound and -inf in the lower one: its pairs never tighten a threshold and are
 *    always candidates. Below 1e37, |s~| <= M (1 + 2^-9) stays finite.
 * With lo = g - E <= e <= hi = g + E: any k references of hi <= T have e <= T, so the k-th exact
 * value is <= T and every member of the exact top-k (ties by the lower index included) has lo <= T:
 * the candidates are a superset of the answer. l2 prints sqrtf(e): two e within 2^-21 relative
 * can round to one float, hence T is widened by 4e-6.
 *
 * The threshold T of a query is the k-th smallest of the minima of hi that each thread keeps over
 * the references it sees (16 threads a query in a block, times the reference splits): minima over
 * disjoint sets of references, so the k smallest belong to k distinct references. It costs one
 * FMA and one min a pair, where a sorted list of the k smallest cost a pass over shared memory;
 * it is looser only when two of the k nearest fall to one thread (k = 10 of 16 x 33 minima). Pass
 * 1 may take every stride-th reference tile of a split only: the minima are then over a sample, T
 * is still an upper bound of a k-th exact distance, and pass 2 finds more candidates (about stride
 * times k) for a quarter of pass 1's work at stride 4; gpu_dist.cu runs pass 1 again on every tile
 * when a query gets more candidates than its slots.
 *
 * The layout (both passes): a block holds a tile of 128 queries, converted to TF32 once into shared
 * memory (in panels of 128 floats when D is longer), and walks a range of reference tiles of 128,
 * their 32-float stages streamed by cp.async into two buffers (the next stage lands while the
 * tensor cores work on this one), each thread centring and rounding to TF32 what it copied. 8 warps
 * of 64 x 32 pairs, m16n8k8 TF32 mma. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "dist_gemm.cuh"

#define GT 128          /* pairs tile: GT queries x GT references */
#define GK 32           /* floats of a reference stage */
#define GS (GK + 4)     /* stage row stride (words): fragment loads hit 32 distinct banks */
#define QP_MAX 128      /* floats of the resident query panel */
#define GTHREADS 256
#define BIG_NORM2 1e37f /* beyond: the item's pairs are unbounded (see top) */

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

/* 16 bytes from global to shared memory, or zeros when !valid (cp.async's source size 0). */
__device__ __forceinline__ void copy16(void *smem, const void *gmem, bool valid)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;"); }
__device__ __forceinline__ void copy_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

/* The query panel's width: D rounded up to a stage, at most QP_MAX. */
__host__ __device__ __forceinline__ int panel_width(int Lp) { return min((Lp + GK - 1) / GK * GK, QP_MAX); }

static size_t filter_smem(int Lp)
{
    return sizeof(uint32_t) * ((size_t)GT * (panel_width(Lp) + 4) + 2 * (size_t)GT * GS) + sizeof(float) * 3 * GT;
}

/* The per-item term of a bound: (1 + c) |x|^2 (upper, +inf when unbounded) or (1 - c) |x|^2
 * (lower, -inf when unbounded). */
__device__ __forceinline__ float item_term(double norm, float c, bool upper)
{
    const float n2 = (float)(norm * norm);
    if (!(n2 <= BIG_NORM2)) return upper ? INFINITY : -INFINITY;
    return upper ? (1.f + c) * n2 : (1.f - c) * n2;
}

/* UPPER: pass 1 (minima of hi per thread and row into part); else pass 2 (candidates lo <= thr into
 * their query's slots). */
template <bool UPPER>
__global__ void __launch_bounds__(GTHREADS, 2)
    filter_kernel(const dist_tile_args a, float c, int n_split, int stride, const float *__restrict__ thr,
                  float *__restrict__ part, int *__restrict__ slots, unsigned slot_cap, unsigned *__restrict__ qcount)
{
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const int QP = panel_width(a.Lp), QW = QP + 4;
    uint32_t *Qs = reinterpret_cast<uint32_t *>(smem_raw);
    uint32_t (*Rs)[GT][GS] = reinterpret_cast<uint32_t (*)[GT][GS]>(Qs + (size_t)GT * QW);
    float (*colc)[GT] = reinterpret_cast<float (*)[GT]>(Rs + 2);
    float *rowc = colc[2];

    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const int wm = warp & 1, wn = warp >> 1, g = lane >> 2, t = lane & 3;
    const int qb = blockIdx.x * GT, split = blockIdx.y;
    const int n_rt = (a.nr + GT - 1) / GT, per = (n_rt + n_split - 1) / n_split;
    int rt_lo = split * per;
    const int rt_hi = min(n_rt, rt_lo + per);
    if (a.filter == TSK_PAIRS_UPPER || a.filter == TSK_PAIRS_UPPER_SELF) {
        /* tiles whose every reference precedes every query admit no pair: start past them */
        const long long need = a.q0 + qb - a.r0 - (GT - 1);
        if (need > 0) rt_lo = max(rt_lo, (int)((need + GT - 1) / GT));
    }

    /* accumulator acc[i][j][e]'s pair in the tile: row row_of(i, e >> 1), column col_of(j, e & 1) */
    auto row_of = [&](int i, int h) { return wm * 64 + i * 16 + h * 8 + g; };
    auto col_of = [&](int j, int b) { return wn * 32 + j * 8 + t * 2 + b; };
    /* the rows' terms of the bound, in shared memory (registers are the accumulators') */
    for (int i = tid; i < GT; i += GTHREADS) {
        const int q = qb + i;
        float v = UPPER ? INFINITY : -INFINITY; /* padding rows: never read (the slow path) */
        if (q < a.nq && UPPER) {
            v = item_term(a.qnorm[q], c, true) + 1e-35f;
        } else if (q < a.nq) {
            const float T = thr[q];
            v = T <= FLT_MAX ? item_term(a.qnorm[q], c, false) - T - 1e-35f : -INFINITY;
        }
        rowc[i] = v;
    }
    float mn[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++) mn[i][0] = mn[i][1] = INFINITY;

    const int n_k = (a.Lp + GK - 1) / GK;
    const long long n_stages = rt_hi > rt_lo ? (long long)((rt_hi - rt_lo + stride - 1) / stride) * n_k : 0;
    /* stage s: reference tile rt_lo + s / n_k * stride, floats (s % n_k) GK .. + GK, into Rs[s & 1] */
    auto fetch = [&](long long s) {
        const int rt = rt_lo + (int)(s / n_k) * stride, k0 = (int)(s % n_k) * GK;
        const float *R = a.R + (size_t)rt * GT * a.Lp;
#pragma unroll
        for (int p = 0; p < 4; p++) {
            const int idx = tid + p * GTHREADS, row = idx >> 3, c4 = (idx & 7) * 4;
            const bool in = k0 + c4 < a.Lp; /* Lp is a multiple of 16: a stage's upper half may be past the end */
            copy16(&Rs[s & 1][row][c4], in ? R + (size_t)row * a.Lp + k0 + c4 : R, in);
        }
        copy_commit();
    };
    if (n_stages > 0) fetch(0);
    float acc[4][4][4];
    for (long long s = 0; s < n_stages; s++) {
        const int rt = rt_lo + (int)(s / n_k) * stride, ks = (int)(s % n_k), k0 = ks * GK, p0 = k0 / QP * QP;
        if (k0 == p0 && (s == 0 || a.Lp > QP)) { /* the query panel: once, or at each panel of a long D */
            if (s > 0) __syncthreads();          /* every warp is done with the last panel */
            const float *Q = a.Q + (size_t)qb * a.Lp;
            for (int idx = tid; idx < GT * QP / 4; idx += GTHREADS) {
                const int row = idx / (QP / 4), c4 = idx % (QP / 4) * 4;
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (p0 + c4 < a.Lp) {
                    const float4 x = *reinterpret_cast<const float4 *>(Q + (size_t)row * a.Lp + p0 + c4),
                                 m = *reinterpret_cast<const float4 *>(a.centre + p0 + c4);
                    v = make_float4(__fsub_rn(x.x, m.x), __fsub_rn(x.y, m.y), __fsub_rn(x.z, m.z), __fsub_rn(x.w, m.w));
                }
                *reinterpret_cast<uint4 *>(Qs + (size_t)row * QW + c4) =
                    make_uint4(to_tf32(v.x), to_tf32(v.y), to_tf32(v.z), to_tf32(v.w));
            }
        }
        if (ks == 0) {
            for (int i = tid; i < GT; i += GTHREADS) {
                const int r = rt * GT + i;
                colc[(s / n_k) & 1][i] = r < a.nr ? item_term(a.rnorm[r], c, UPPER) : (UPPER ? INFINITY : -INFINITY);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;
        }
        copy_wait_all(); /* this thread's copies of stage s landed: it centres and rounds them */
#pragma unroll
        for (int p = 0; p < 4; p++) {
            const int idx = tid + p * GTHREADS, row = idx >> 3, c4 = (idx & 7) * 4;
            uint32_t *w = &Rs[s & 1][row][c4];
            const float4 x = *reinterpret_cast<const float4 *>(w), m = *reinterpret_cast<const float4 *>(a.centre + k0 + c4);
            *reinterpret_cast<uint4 *>(w) = make_uint4(to_tf32(__fsub_rn(x.x, m.x)), to_tf32(__fsub_rn(x.y, m.y)),
                                                       to_tf32(__fsub_rn(x.z, m.z)), to_tf32(__fsub_rn(x.w, m.w)));
        }
        __syncthreads(); /* stage s landed and rounded for all; every warp is done with stage s - 1 */
        if (s + 1 < n_stages) fetch(s + 1);
        const uint32_t (*B)[GS] = Rs[s & 1];
        const int kq = k0 - p0;
#pragma unroll
        for (int kk = 0; kk < GK; kk += 8) {
            uint32_t af[4][4];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint32_t *r0 = Qs + (size_t)(wm * 64 + i * 16 + g) * QW + kq + kk + t;
                af[i][0] = r0[0];
                af[i][1] = r0[8 * QW];
                af[i][2] = r0[4];
                af[i][3] = r0[8 * QW + 4];
            }
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int c0 = wn * 32 + j * 8 + g;
                const uint32_t bf[2] = {B[c0][kk + t], B[c0][kk + t + 4]};
#pragma unroll
                for (int i = 0; i < 4; i++) mma_tf32(acc[i][j], af[i], bf);
            }
        }
        if (ks != n_k - 1) continue;

        /* the tile's epilogue */
        const int rb = rt * GT;
        float rc[4][2], cc[4][2]; /* the terms of this thread's rows row_of(i, h) and columns col_of(j, b) */
#pragma unroll
        for (int x = 0; x < 4; x++)
#pragma unroll
            for (int y = 0; y < 2; y++) rc[x][y] = rowc[row_of(x, y)], cc[x][y] = colc[(s / n_k) & 1][col_of(x, y)];
        const long long gq = a.q0 + qb, gr = a.r0 + rb; /* the tile's first query and reference, globally */
        bool whole = qb + GT <= a.nq && rb + GT <= a.nr;
        if (a.filter == TSK_PAIRS_NOT_SELF) whole = whole && (gr >= gq + GT || gq >= gr + GT);
        else if (a.filter == TSK_PAIRS_UPPER) whole = whole && gr > gq + GT - 1;
        else if (a.filter == TSK_PAIRS_UPPER_SELF) whole = whole && gr >= gq + GT - 1;
        auto admitted = [&](int lq, int lr) {
            return whole || (qb + lq < a.nq && rb + lr < a.nr && tsk_pair_admitted(a.filter, gq + lq, gr + lr));
        };
        uint64_t hit = 0; /* pass 2: lo <= T (NaN: a candidate) as a mask, without a branch; candidates are few */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const int h = e >> 1, b = e & 1;
                    const float v = fmaf(-2.f, acc[i][j][e], rc[i][h] + cc[j][b]); /* hi (pass 1), lo - T */
                    if (!UPPER) hit |= (uint64_t)!(v > 0.f) << ((i * 4 + j) * 4 + e);
                    else if (admitted(row_of(i, h), col_of(j, b))) mn[i][h] = fminf(mn[i][h], v); /* NaN leaves it */
                }
        if (!UPPER) {
            while (hit) {
                const int x = __ffsll((long long)hit) - 1, i = x >> 4, j = (x >> 2) & 3, e = x & 3;
                hit &= hit - 1;
                const int lq = row_of(i, e >> 1), lr = col_of(j, e & 1);
                if (!admitted(lq, lr)) continue;
                const unsigned n = atomicAdd(&qcount[qb + lq], 1u);
                if (n < slot_cap) slots[(size_t)(qb + lq) * slot_cap + n] = rb + lr;
            }
        }
    }
    if (UPPER) {
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                const int q = qb + row_of(i, h);
                if (q < a.nq) part[((size_t)q * n_split + split) * DIST_GEMM_MINIMA + wn * 4 + t] = mn[i][h];
            }
    }
}

#define FULL_WARP 0xffffffffu

/* The query of the calling warp (a warp per query: its lanes read the query's values side by side). */
__device__ __forceinline__ int warp_query() { return (int)(((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5); }

/* A warp per query: its threshold, the k-th smallest of its n_minima minima (repeats counted; NaN
 * and infinity left out, so fewer than k finite minima give infinity), widened for the bound's
 * own rounding. The warp takes the distinct values in ascending order, a pass over the minima
 * each, until k are counted: k is at most 64 and a query has a few hundred minima, where a thread
 * per query kept a sorted array in local memory and read the minima one strided load at a time. */
__global__ void thresholds_kernel(const float *__restrict__ part, int nq, int k, int n_minima, float *__restrict__ thr)
{
    const int q = warp_query(), lane = (int)(threadIdx.x & 31);
    if (q >= nq) return; /* the whole warp: q is the warp's */
    const float *p = part + (size_t)q * n_minima;
    float T = INFINITY, last = -INFINITY;
    for (int counted = 0, first = 1;; first = 0) {
        float v = INFINITY;
        for (int s = lane; s < n_minima; s += 32) {
            const float x = p[s];
            if ((first || x > last) && x < v) v = x;
        }
        for (int off = 16; off > 0; off >>= 1) v = fminf(v, __shfl_xor_sync(FULL_WARP, v, off));
        if (v == INFINITY) break;
        int c = 0;
        for (int s = lane; s < n_minima; s += 32) c += p[s] == v;
        for (int off = 16; off > 0; off >>= 1) c += __shfl_xor_sync(FULL_WARP, c, off);
        counted += c;
        if (counted >= k) {
            T = v;
            break;
        }
        last = v;
    }
    if (lane == 0) thr[q] = T + fabsf(T) * 4e-6f + 1e-35f;
}

/* A thread per slot: the exact distance of each query's candidates (a query past slot_cap is left
 * to the caller, which runs again). */
__global__ void exact_kernel(const dist_tile_args a, const int *__restrict__ slots, unsigned slot_cap,
                             const unsigned *__restrict__ qcount, float *__restrict__ dist)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int q = (int)(i / slot_cap);
    if (q >= a.nq) return;
    const unsigned n = qcount[q];
    if (n > slot_cap || i % slot_cap >= n) return;
    dist[i] = dist_exact_pair(a, q, slots[i]);
}

/* A warp per query: the k nearest of its candidates (non-finite distances left out, as the direct
 * kernel leaves them) into lists[q * k ..] in rank order, padded with {INFINITY, -1}; *most = the
 * largest candidate count. Round j takes the first candidate, by dist_ranks_before, of those after round
 * j - 1's: a query's references are distinct, so the order is total and every lane agrees. */
__global__ void select_kernel(int nq, int k, const int *__restrict__ slots, const float *__restrict__ dist,
                              unsigned slot_cap, const unsigned *__restrict__ qcount, dist_cand *__restrict__ lists,
                              unsigned *most)
{
    const int q = warp_query(), lane = (int)(threadIdx.x & 31);
    if (q >= nq) return;
    const unsigned n = qcount[q];
    if (lane == 0) atomicMax(most, n);
    if (n > slot_cap) return;
    const int *cand = slots + (size_t)q * slot_cap;
    const float *cd = dist + (size_t)q * slot_cap;
    dist_cand *o = lists + (size_t)q * k;
    float last_d = 0.0f;
    int last_r = -1;
    for (int j = 0; j < k; j++) {
        float bd = INFINITY;
        int br = -1, have = 0;
        for (unsigned i = (unsigned)lane; i < n; i += 32) {
            const float d = cd[i];
            const int r = cand[i];
            if (!(d <= FLT_MAX) || (j > 0 && !dist_ranks_before(last_d, last_r, d, r))) continue;
            if (!have || dist_ranks_before(d, r, bd, br)) bd = d, br = r, have = 1;
        }
        for (int off = 16; off > 0; off >>= 1) {
            const float od = __shfl_xor_sync(FULL_WARP, bd, off);
            const int orr = __shfl_xor_sync(FULL_WARP, br, off), oh = __shfl_xor_sync(FULL_WARP, have, off);
            if (oh && (!have || dist_ranks_before(od, orr, bd, br))) bd = od, br = orr, have = 1;
        }
        if (!have) { /* fewer than k: the rest padded (every lane agrees on have) */
            for (int i = j + lane; i < k; i += 32) o[i] = dist_cand{INFINITY, -1};
            return;
        }
        if (lane == 0) o[j] = dist_cand{bd, br};
        last_d = bd, last_r = br;
    }
}

__global__ void fill_kernel(float T, int nq, float *__restrict__ thr)
{
    const int q = (int)((size_t)blockIdx.x * blockDim.x + threadIdx.x);
    if (q < nq) thr[q] = T;
}

/* A thread per slot: a candidate's exact distance, kept when within max_dist (NaN never is, as in
 * the direct kernel); a query past slot_cap is left to the caller, which runs pass 2 again. */
__global__ void within_exact_kernel(const dist_tile_args a, const int *__restrict__ slots, unsigned slot_cap,
                              const unsigned *__restrict__ qcount, float max_dist, dist_hit *__restrict__ hits,
                              unsigned long long *count, unsigned long long cap, unsigned *most)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int q = (int)(i / slot_cap);
    if (q >= a.nq) return;
    const unsigned n = qcount[q], at = (unsigned)(i % slot_cap);
    if (at == 0) atomicMax(most, n);
    if (n > slot_cap || at >= n) return;
    const int r = slots[i];
    const float d = dist_exact_pair(a, q, r);
    if (!(d <= max_dist)) return;
    const unsigned long long k = atomicAdd(count, 1ull);
    if (k < cap) hits[k] = dist_hit{q, r, d};
}

/* c of the top: the bound's relative term with the D-dependent accumulation (D 2^-21, D the padded
 * length, an upper bound) and the 1e-6 for the kernels' own roundings. */
static float bound_term(int Lp) { return 1.25e-3f + (float)Lp * 4.76837158203125e-7f + 1e-6f; }

template <bool UPPER> static cudaError_t launch_filter(const dist_tile_args *a, int n_split, int stride, const float *thr,
                                                      float *part, int *slots, unsigned slot_cap, unsigned *qcount,
                                                      cudaStream_t s)
{
    const size_t smem = filter_smem(a->Lp);
    cudaError_t e = cudaFuncSetAttribute(filter_kernel<UPPER>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 grid((a->nq + GT - 1) / GT, n_split);
    filter_kernel<UPPER><<<grid, GTHREADS, smem, s>>>(*a, bound_term(a->Lp), n_split, stride, thr, part, slots, slot_cap,
                                                         qcount);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_bound(const dist_tile_args *a, int n_split, int stride, float *part, cudaStream_t s)
{
    if (a->nq <= 0) return cudaSuccess;
    return launch_filter<true>(a, n_split, stride, nullptr, part, nullptr, 0, nullptr, s);
}

cudaError_t dist_gemm_launch_thresholds(const float *part, int nq, int k, int n_split, float *thr, cudaStream_t s)
{
    if (nq <= 0) return cudaSuccess;
    thresholds_kernel<<<(unsigned)(((size_t)nq * 32 + 255) / 256), 256, 0, s>>>(part, nq, k, n_split * DIST_GEMM_MINIMA, thr);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_candidates(const dist_tile_args *a, int n_split, const float *thr, int *slots,
                                        unsigned slot_cap, unsigned *qcount, cudaStream_t s)
{
    if (a->nq <= 0 || a->nr <= 0) return cudaSuccess;
    return launch_filter<false>(a, n_split, 1, thr, nullptr, slots, slot_cap, qcount, s);
}

cudaError_t dist_gemm_launch_select(const dist_tile_args *a, int k, const int *slots, float *dist, unsigned slot_cap,
                                    const unsigned *qcount, dist_cand *lists, unsigned *most, cudaStream_t s)
{
    if (a->nq <= 0) return cudaSuccess;
    const size_t n = (size_t)a->nq * slot_cap;
    exact_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(*a, slots, slot_cap, qcount, dist);
    select_kernel<<<(unsigned)(((size_t)a->nq * 32 + 255) / 256), 256, 0, s>>>(a->nq, k, slots, dist, slot_cap, qcount, lists, most);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_fill(float T, int nq, float *thr, cudaStream_t s)
{
    if (nq <= 0) return cudaSuccess;
    fill_kernel<<<(unsigned)(((size_t)nq + 255) / 256), 256, 0, s>>>(T, nq, thr);
    return cudaGetLastError();
}

cudaError_t dist_gemm_launch_within(const dist_tile_args *a, const int *slots, unsigned slot_cap, const unsigned *qcount,
                                    float max_dist, dist_hit *hits, unsigned long long *count, unsigned long long cap,
                                    unsigned *most, cudaStream_t s)
{
    if (a->nq <= 0) return cudaSuccess;
    const size_t n = (size_t)a->nq * slot_cap;
    within_exact_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(*a, slots, slot_cap, qcount, max_dist, hits, count, cap, most);
    return cudaGetLastError();
}

int dist_gemm_blocks_per_sm(int Lp)
{
    int n = 0;
    const size_t smem = filter_smem(Lp);
    if (cudaFuncSetAttribute(filter_kernel<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, filter_kernel<false>, GTHREADS, smem) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    return n > 0 ? n : 1;
}
