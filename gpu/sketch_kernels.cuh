/* sketch_kernels.cuh: the device side of the GPU sketch engine (see docs/gpu.md).
 *
 * Every kernel runs the *counting* form of the SKETCH.md DP: N[p] += sign * shift(N[p-1]), which
 * is the normalized DP times C(i+1, p). It needs one FMA per value instead of two, and the
 * normalization is applied once at the end in double. Values are scaled by beta = 1/len per level
 * so that C(len, p) never overflows float. float32 accuracy comes from a two-level accumulator:
 * increments go into a small A[p] that is folded into N[p] every SK_FOLD characters, so each
 * addition rounds against a small number instead of the ever-growing sum (error ~ eps sqrt(n/FOLD)).
 *
 * Work comes as items (one warp each, taken from an atomic queue, largest first):
 *   - a whole window/record: the sketch T[t] (and, if canonical, that of the reverse complement),
 *     written straight into the output rows;
 *   - a chunk of a long one: the t(t+1)/2 vectors V[j..p] (start level j < p) of SKETCH.md's
 *     split formula, written in double to a node buffer; sk_combine merges nodes in a tree.
 * Vector (j, p) lives at index sk_vidx(t, j, p); with j = 0 that is p - 1, so a whole-record
 * state and a chunk state share one layout. */
#ifndef TSK_GPU_SKETCH_KERNELS_CUH
#define TSK_GPU_SKETCH_KERNELS_CUH

#include <stdint.h>

#include "../core/tsk_def.h"

#define SK_FLAG_CHUNK 1u   /* item is a chunk: write V[j..p] to node `out` */
#define SK_FLAG_REV 2u     /* chunk of the reverse-complement strand */
#define SK_FLAG_CANON 4u   /* whole item: average with the reverse complement */
#define SK_FOLD_BLOCKS 8   /* fold A into N every 8 blocks of 16 characters */
#define SK_WARPS_PER_BLOCK 4

/* One warp's work. off/len address the part's code buffer; reverse items read it backwards,
 * complemented (codes ^ 3 is A<->T, C<->G). */
typedef struct {
    int64_t off;
    int64_t out;      /* output row (whole item) or node index (chunk) */
    int32_t len;
    uint32_t flags;
} sk_item;

/* Merge two adjacent nodes of one strand (left covers m characters, right q) into dest. */
typedef struct {
    int32_t left, right, dest, pad;
    int64_t m, q;
} sk_pair;

/* A split row: average of the roots of its strands (rev < 0 when not canonical). */
typedef struct {
    int64_t row;
    int32_t fwd, rev;
} sk_final;

/* Tables as the kernels read them: passed by value, so they sit in the constant bank. */
typedef struct {
    int t, dim;
    int hash[TSK_MAX_T][TSK_MAX_ALPHA];
    float sign[TSK_MAX_T][TSK_MAX_ALPHA];
} sk_tables;

__host__ __device__ static inline int sk_vidx(int t, int j, int p) { return j * t - j * (j - 1) / 2 + (p - j - 1); }
__host__ __device__ static inline int sk_nvec(int t) { return t * (t + 1) / 2; }

/* len^r / C(len, r): turns a count scaled by beta^r = len^-r into a mean. 0 when len < r. */
__device__ static inline double sk_mean_factor(int64_t len, int r)
{
    if (len < r) return 0.0;
    double f = 1.0;
    for (int i = 0; i < r; i++) f *= (double)len * (double)(i + 1) / (double)(len - i);
    return f;
}

/* tsk_split_weight, on the device (same falling-factorial evaluation). */
__device__ static inline double sk_split_weight(int64_t m, int64_t q, int j, int p)
{
    if (j < 0 || j > p || j > m || p - j > q) return 0.0;
    double w = 1.0;
    for (int i = 0; i < j; i++) w *= (double)(m - i) / (double)(m + q - i) * (double)(p - i) / (double)(j - i);
    for (int i = 0; i < p - j; i++) w *= (double)(q - i) / (double)(m + q - j - i);
    return w;
}

__device__ static inline int sk_next_item(int *counter, int lane)
{
    int i = 0;
    if (lane == 0) i = atomicAdd(counter, 1);
    return __shfl_sync(0xffffffffu, i, 0);
}

/* Calls f(code) for codes[lo..hi), forwards or (rev) backwards complemented. Reads aligned 16-byte
 * words, the same address in every lane (one broadcast load per 16 characters, no shuffle); the
 * buffer is padded so the last word is readable. f(code, fold) gets fold=true every
 * SK_FOLD_BLOCKS blocks, after the block's last character. */
template <class F>
__device__ __forceinline__ void sk_stream(const uint8_t *codes, int64_t lo, int64_t hi, bool rev, F &&f)
{
    if (hi <= lo) return;
    int64_t first = lo & ~(int64_t)15, last = (hi - 1) & ~(int64_t)15;
    int64_t nblocks = (last - first) / 16 + 1;
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t base = rev ? last - 16 * b : first + 16 * b;
        uint4 w = __ldg((const uint4 *)(codes + base));
        uint32_t ws[4];
        if (!rev) {
            ws[0] = w.x, ws[1] = w.y, ws[2] = w.z, ws[3] = w.w;
        } else {  /* byte-reverse the block and complement every code */
            ws[0] = __byte_perm(w.w, 0, 0x0123) ^ 0x03030303u;
            ws[1] = __byte_perm(w.z, 0, 0x0123) ^ 0x03030303u;
            ws[2] = __byte_perm(w.y, 0, 0x0123) ^ 0x03030303u;
            ws[3] = __byte_perm(w.x, 0, 0x0123) ^ 0x03030303u;
        }
        if (base >= lo && base + 16 <= hi) {  /* all but the first and last block: no checks */
#pragma unroll
            for (int k = 0; k < 16; k++) f((int)((ws[k >> 2] >> (8 * (k & 3))) & 0xffu));
        } else {
#pragma unroll
            for (int k = 0; k < 16; k++) {
                int64_t pos = rev ? base + 15 - k : base + k;
                if (pos >= lo && pos < hi) f((int)((ws[k >> 2] >> (8 * (k & 3))) & 0xffu));
            }
        }
        if ((b % SK_FOLD_BLOCKS) == SK_FOLD_BLOCKS - 1) f(-1);  /* fold point */
    }
}

/* ---------------- fast kernel: D = 32K, state in registers, shifts by warp shuffles ----------------
 * Lane L holds bins L + 32k, k < K. Shifting a vector by h = 32 hq + hr: shuffle every register
 * from lane (L - hr) mod 32, then rotate the K registers by hq (+1 in lanes L < hr, which wrapped):
 * K shuffles and ~2K selects, no shared memory, no barrier. */

/* y rotated by d (0 <= d < K) registers: out[k] = y[(k - d) mod K], as log2(K) select stages. */
template <int K>
__device__ __forceinline__ void sk_rotate(float (&y)[K], int d)
{
#pragma unroll
    for (int s = 1; s < K; s <<= 1) {  /* no stage at all when K == 1 */
        bool on = d & s;
        float z[K];
#pragma unroll
        for (int k = 0; k < K; k++) z[k] = y[(k - s % K + K) % K];
#pragma unroll
        for (int k = 0; k < K; k++) y[k] = on ? z[k] : y[k];
    }
}

/* Shift parameters of level `lev` for code c, for this lane. */
struct sk_shift {
    int hq, hr, src, d;
    float sb;
};
template <int K>
__device__ __forceinline__ sk_shift sk_shift_of(const sk_tables &tab, int lev, int c, int lane, float beta)
{
    sk_shift s;
    int h = tab.hash[lev][c];
    s.hq = h >> 5;
    s.hr = h & 31;
    s.src = (lane - s.hr) & 31;
    int d = s.hq + (lane < s.hr);
    s.d = d >= K ? d - K : d;
    s.sb = tab.sign[lev][c] * beta;
    return s;
}

/* Runs the DP over codes[lo..hi) (rev: backwards complemented) for start levels j < J (J = 1:
 * whole sketch; J = T: chunk), leaving the scaled counts in N (A folded in). */
template <int T, int K, int J>
__device__ __forceinline__ void sk_fast_dp(const sk_tables &tab, const uint8_t *codes, int64_t lo, int64_t hi,
                                           bool rev, int lane, float (&N)[J == 1 ? T : T * (T + 1) / 2][K])
{
    constexpr int NV = J == 1 ? T : T * (T + 1) / 2;
    float A[NV][K];
#pragma unroll
    for (int v = 0; v < NV; v++)
#pragma unroll
        for (int k = 0; k < K; k++) N[v][k] = 0.f, A[v][k] = 0.f;
    const float beta = 1.0f / (float)(hi - lo);
    sk_stream(codes, lo, hi, rev, [&](int c) {
        if (c < 0) {
#pragma unroll
            for (int v = 0; v < NV; v++)
#pragma unroll
                for (int k = 0; k < K; k++) N[v][k] += A[v][k], A[v][k] = 0.f;
            return;
        }
        /* levels top-down so every read sees the value before this character */
#pragma unroll
        for (int p = T; p >= 1; p--) {
            sk_shift s = sk_shift_of<K>(tab, p - 1, c, lane, beta);
#pragma unroll
            for (int j = 0; j < J && j < p; j++) {
                const int dst = j * T - j * (j - 1) / 2 + (p - j - 1);
                if (j == p - 1) {  /* source is e_0: one bin, h, gets sb */
                    float v = lane == s.hr ? s.sb : 0.f;
#pragma unroll
                    for (int k = 0; k < K; k++) A[dst][k] += k == s.hq ? v : 0.f;
                } else {
                    const int src = j * T - j * (j - 1) / 2 + (p - 1 - j - 1);
                    float y[K];
#pragma unroll
                    for (int k = 0; k < K; k++) y[k] = __shfl_sync(0xffffffffu, N[src][k] + A[src][k], s.src);
                    sk_rotate<K>(y, s.d);
#pragma unroll
                    for (int k = 0; k < K; k++) A[dst][k] = fmaf(s.sb, y[k], A[dst][k]);
                }
            }
        }
    });
#pragma unroll
    for (int v = 0; v < NV; v++)
#pragma unroll
        for (int k = 0; k < K; k++) N[v][k] += A[v][k];
}

template <int T, int K>
__global__ void __launch_bounds__(32 * SK_WARPS_PER_BLOCK)
sk_fast_kernel(sk_tables tab, const uint8_t *__restrict__ codes, const sk_item *__restrict__ items, int n_items,
               int *counter, void *out, int out_double, double *nodes)
{
    const int lane = threadIdx.x & 31;
    constexpr int D = 32 * K;
    for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
        sk_item w = items[it];
        if (w.flags & SK_FLAG_CHUNK) {
            if constexpr (T <= 4) {
                float N[T * (T + 1) / 2][K];
                sk_fast_dp<T, K, T>(tab, codes, w.off, w.off + w.len, (w.flags & SK_FLAG_REV) != 0, lane, N);
                double *node = nodes + (size_t)w.out * sk_nvec(T) * D;
#pragma unroll
                for (int j = 0; j < T; j++)
#pragma unroll
                    for (int p = j + 1; p <= T; p++) {
                        double f = sk_mean_factor(w.len, p - j);
#pragma unroll
                        for (int k = 0; k < K; k++)
                            node[(size_t)sk_vidx(T, j, p) * D + lane + 32 * k] = (double)N[sk_vidx(T, j, p)][k] * f;
                    }
            }
            continue;
        }
        double res[K];
#pragma unroll
        for (int k = 0; k < K; k++) res[k] = 0.0;
        if (w.len >= T) {
            float N[T][K];
            const int strands = (w.flags & SK_FLAG_CANON) ? 2 : 1;
            const double f = sk_mean_factor(w.len, T) / strands;
            for (int s = 0; s < strands; s++) {
                sk_fast_dp<T, K, 1>(tab, codes, w.off, w.off + w.len, s == 1, lane, N);
#pragma unroll
                for (int k = 0; k < K; k++) res[k] += (double)N[T - 1][k] * f;
            }
        }
        if (out_double) {
            double *o = (double *)out + (size_t)w.out * D;
#pragma unroll
            for (int k = 0; k < K; k++) o[lane + 32 * k] = res[k];
        } else {
            float *o = (float *)out + (size_t)w.out * D;
#pragma unroll
            for (int k = 0; k < K; k++) o[lane + 32 * k] = (float)res[k];
        }
    }
}

/* ---------------- generic kernel: any t <= 16, any D, float or double ----------------
 * The state of each warp lives in shared memory (N, plus A for float); the shift is a gather
 * from shared memory, and __syncwarp separates the levels. Used where the fast kernel does not
 * apply (D not a multiple of 32 or > 128, t > 8, chunks with t > 4, float64 output). */
template <typename F>
__device__ void sk_generic_dp(const sk_tables &tab, const uint8_t *codes, int64_t lo, int64_t hi, bool rev,
                              int lane, int J, F *N, F *A)
{
    /* whole rows keep the t vectors of start level 0, chunks all t(t+1)/2 (layout sk_vidx) */
    const int T = tab.t, D = tab.dim, NV = J == 1 ? T : sk_nvec(T);
    const bool acc = sizeof(F) == 4;  /* double needs no two-level accumulation */
    for (int i = lane; i < NV * D; i += 32) {
        N[i] = 0;
        if (acc) A[i] = 0;
    }
    __syncwarp();
    const F beta = (F)1 / (F)(hi - lo);
    F *Ad = acc ? A : N;  /* where increments go */
    sk_stream(codes, lo, hi, rev, [&](int c) {
        if (c < 0) {
            if (acc) {
                for (int i = lane; i < NV * D; i += 32) N[i] += A[i], A[i] = 0;
                __syncwarp();
            }
            return;
        }
        for (int p = T; p >= 1; p--) {
            const int h = tab.hash[p - 1][c];
            const F sb = (F)tab.sign[p - 1][c] * beta;
            for (int j = 0; j < J && j < p; j++) {
                F *dst = Ad + (size_t)sk_vidx(T, j, p) * D;
                if (j == p - 1) {
                    if (lane == 0) dst[h] += sb;
                } else {
                    const F *sn = N + (size_t)sk_vidx(T, j, p - 1) * D;
                    const F *sa = A + (size_t)sk_vidx(T, j, p - 1) * D;
                    for (int l = lane; l < D; l += 32) {
                        int m = l - h;
                        m += m < 0 ? D : 0;
                        F v = acc ? sn[m] + sa[m] : sn[m];
                        dst[l] += sb * v;
                    }
                }
            }
            __syncwarp();
        }
    });
    if (acc) {
        for (int i = lane; i < NV * D; i += 32) N[i] += A[i];
        __syncwarp();
    }
}

template <typename F>
__global__ void __launch_bounds__(32 * SK_WARPS_PER_BLOCK)
sk_generic_kernel(sk_tables tab, const uint8_t *__restrict__ codes, const sk_item *__restrict__ items, int n_items,
                  int *counter, void *out, int out_double, double *nodes, int nv_alloc)
{
    extern __shared__ __align__(16) unsigned char sk_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int T = tab.t, D = tab.dim;
    const bool acc = sizeof(F) == 4;
    F *N = (F *)sk_smem + (size_t)warp * nv_alloc * D * (acc ? 2 : 1);
    F *A = N + (size_t)nv_alloc * D;
    for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
        sk_item w = items[it];
        if (w.flags & SK_FLAG_CHUNK) {
            sk_generic_dp<F>(tab, codes, w.off, w.off + w.len, (w.flags & SK_FLAG_REV) != 0, lane, T, N, A);
            double *node = nodes + (size_t)w.out * sk_nvec(T) * D;
            for (int j = 0; j < T; j++)
                for (int p = j + 1; p <= T; p++) {
                    double f = sk_mean_factor(w.len, p - j);
                    const F *v = N + (size_t)sk_vidx(T, j, p) * D;
                    for (int l = lane; l < D; l += 32) node[(size_t)sk_vidx(T, j, p) * D + l] = (double)v[l] * f;
                }
            __syncwarp();
            continue;
        }
        const int strands = (w.flags & SK_FLAG_CANON) ? 2 : 1;
        const double f = sk_mean_factor(w.len, T) / strands;
        for (int s = 0; s < strands && w.len >= T; s++) {
            sk_generic_dp<F>(tab, codes, w.off, w.off + w.len, s == 1, lane, 1, N, A);
            const F *v = N + (size_t)(T - 1) * D;
            for (int l = lane; l < D; l += 32) {
                double x = (double)v[l] * f;
                if (out_double) {
                    double *o = (double *)out + (size_t)w.out * D + l;
                    *o = s ? *o + x : x;
                } else {
                    float *o = (float *)out + (size_t)w.out * D + l;
                    /* the forward half is kept in the output in float, so the canonical sum is
                     * rounded twice; both halves carry float error anyway */
                    *o = s ? (float)((double)*o + x) : (float)x;
                }
            }
            __syncwarp();
        }
        if (w.len < T)
            for (int l = lane; l < D; l += 32) {
                if (out_double) ((double *)out)[(size_t)w.out * D + l] = 0.0;
                else ((float *)out)[(size_t)w.out * D + l] = 0.f;
            }
    }
}

/* ---------------- combining chunk nodes (double) ----------------
 * W[j..p] = sum_{k=j..p} w(m, q, k-j, p-j) U[j..k] (*) V[k..p], with U[j..j] = V[p..p] = e_0.
 * One block per pair; threads over output bins. */
__global__ void sk_combine_kernel(int t, int dim, const sk_pair *__restrict__ pairs, int n_pairs, double *nodes)
{
    const int nv = sk_nvec(t);
    for (int pi = blockIdx.x; pi < n_pairs; pi += gridDim.x) {
        sk_pair pr = pairs[pi];
        const double *U = nodes + (size_t)pr.left * nv * dim;
        const double *V = nodes + (size_t)pr.right * nv * dim;
        double *W = nodes + (size_t)pr.dest * nv * dim;
        for (int j = 0; j < t; j++)
            for (int p = j + 1; p <= t; p++) {
                const double w0 = sk_split_weight(pr.m, pr.q, 0, p - j);      /* k = j */
                const double w1 = sk_split_weight(pr.m, pr.q, p - j, p - j);  /* k = p */
                const double *vjp = V + (size_t)sk_vidx(t, j, p) * dim;
                const double *ujp = U + (size_t)sk_vidx(t, j, p) * dim;
                for (int l = threadIdx.x; l < dim; l += blockDim.x) {
                    double s = w0 * vjp[l] + w1 * ujp[l];
                    for (int k = j + 1; k < p; k++) {
                        const double wk = sk_split_weight(pr.m, pr.q, k - j, p - j);
                        if (wk == 0.0) continue;
                        const double *u = U + (size_t)sk_vidx(t, j, k) * dim;
                        const double *v = V + (size_t)sk_vidx(t, k, p) * dim;
                        double c = 0.0;
                        /* (u (*) v)[l] = sum_r u[r] v[(l - r) mod D], in two runs to avoid a modulo */
                        for (int r = 0; r <= l; r++) c += u[r] * v[l - r];
                        for (int r = l + 1; r < dim; r++) c += u[r] * v[l - r + dim];
                        s += wk * c;
                    }
                    W[(size_t)sk_vidx(t, j, p) * dim + l] = s;
                }
            }
    }
}

/* Split rows: output = mean of the strands' V[0..t]. */
__global__ void sk_final_kernel(int t, int dim, const sk_final *__restrict__ fin, int n_fin, const double *nodes,
                                void *out, int out_double)
{
    const int nv = sk_nvec(t), top = sk_vidx(t, 0, t);
    for (int fi = blockIdx.x; fi < n_fin; fi += gridDim.x) {
        sk_final f = fin[fi];
        const double *a = nodes + ((size_t)f.fwd * nv + top) * dim;
        const double *b = f.rev >= 0 ? nodes + ((size_t)f.rev * nv + top) * dim : NULL;
        for (int l = threadIdx.x; l < dim; l += blockDim.x) {
            double x = b ? 0.5 * (a[l] + b[l]) : a[l];
            if (out_double) ((double *)out)[(size_t)f.row * dim + l] = x;
            else ((float *)out)[(size_t)f.row * dim + l] = (float)x;
        }
    }
}

#endif
