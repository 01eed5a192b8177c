/* sketch_kernels.cuh: the sketch-DP kernels of the GPU engine (see docs/gpu.md): every alphabet
 * and t except DNA at t <= 4, which runs on the tuple-count kernels (count_kernels.cuh).
 *
 * Every kernel here runs the *counting* form of the docs/spec.md DP: N[p] += sign * shift(N[p-1]), which
 * is the normalized DP times C(i+1, p). It needs one FMA per value instead of two, and the
 * normalization is applied once at the end in double. Values are scaled by beta = 1/len per level
 * so that C(len, p) never overflows float. float32 accuracy comes from a two-level accumulator:
 * increments go into a small A[p] that is folded into N[p] every SK_FOLD characters, so each
 * addition rounds against a small number instead of the ever-growing sum (error ~ eps sqrt(n/FOLD)).
 *
 * Work comes as items (one warp each, taken from an atomic queue, largest first):
 *   - a whole window/record: the sketch T[t] (and, if canonical, that of the reverse complement),
 *     written straight into the output rows;
 *   - a piece of a long one (one strand; generic kernel), written in double to a node buffer;
 *     sk_combine merges nodes in a tree. A middle chunk needs all t(t+1)/2 vectors V[j..p] (start level j < p) of
 *     docs/spec.md's split formula. The first piece only ever enters the formula with j = 0, so it
 *     is the plain DP (t vectors V[0..p]); the last piece only with p = t, and V[j..t] for every j
 *     comes from the same DP run backwards over the piece with the levels' tables in reverse
 *     order (G_q = V[t-q..t] gets level t-q+1's shift of G_(q-1)). A row cut in two therefore
 *     costs no more than a whole one.
 * Vector (j, p) lives at index sk_vidx(t, j, p); with j = 0 that is p - 1, so a whole-record
 * state and a chunk state share one layout. */
#ifndef TSK_GPU_SKETCH_KERNELS_CUH
#define TSK_GPU_SKETCH_KERNELS_CUH

#include <stdint.h>

#include "../core/tsk_def.h"

#define SK_FLAG_CHUNK 1u   /* item is a middle chunk: write every V[j..p] to node `out` */
#define SK_FLAG_REV 2u     /* piece of the reverse-complement strand */
#define SK_FLAG_CANON 4u   /* whole item: average with the reverse complement */
#define SK_FLAG_HEAD 8u    /* first piece of a strand: write V[0..p], p = 1..t, to node `out` */
#define SK_FLAG_TAIL 16u   /* last piece of a strand: write V[j..t], j = 0..t-1 (backward DP) */
#define SK_COMPLEMENT 0x03030303u  /* xor of four packed DNA codes: A<->T, C<->G */
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

/* Merge two adjacent nodes of one strand (left covers m characters, right q) into dest. A node
 * that begins its strand holds only V[0..p], one that ends it only V[j..t]: flags say which, and
 * the merge computes only what its result can hold. */
#define SK_PAIR_LEFT_HEAD 1   /* left child begins the strand: only j = 0 */
#define SK_PAIR_RIGHT_TAIL 2  /* right child ends the strand: only p = t */
typedef struct {
    int32_t left, right, dest, flags;
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

/* Where a piece's DP left V[j..p]: a middle chunk (J = t) at sk_vidx(t, j, p); a first piece
 * (J = 1) has V[0..p] as level p; a last piece (J = 1, levels flipped) has V[j..t] as level t - j.
 * -1 for the vectors a first or last piece does not hold. */
__host__ __device__ static inline int sk_piece_vector(int t, int j, int p, bool chunk, bool tail)
{
    if (chunk) return sk_vidx(t, j, p);
    if (tail ? p != t : j != 0) return -1;
    return tail ? t - j - 1 : p - 1;
}

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

/* Calls f(code) for codes[lo..hi), forwards or (back) backwards, every code xor cmask (0, or
 * SK_COMPLEMENT for the reverse-complement strand). Reads aligned 16-byte words, the same address
 * in every lane (one broadcast load per 16 characters, no shuffle); the buffer is padded so the
 * last word is readable. f(-1) comes every SK_FOLD_BLOCKS blocks, after the block's last
 * character. f is inlined for every character of a block (straight-line code the scheduler can
 * interleave). */
template <class F>
__device__ __forceinline__ void sk_stream(const uint8_t *codes, int64_t lo, int64_t hi, bool rev, uint32_t cmask,
                                          F &&f)
{
    if (hi <= lo) return;
    int64_t first = lo & ~(int64_t)15, last = (hi - 1) & ~(int64_t)15;
    int64_t nblocks = (last - first) / 16 + 1;
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t base = rev ? last - 16 * b : first + 16 * b;
        uint4 w = __ldg((const uint4 *)(codes + base));
        uint32_t ws[4];
        if (!rev) {
            ws[0] = w.x ^ cmask, ws[1] = w.y ^ cmask, ws[2] = w.z ^ cmask, ws[3] = w.w ^ cmask;
        } else {  /* byte-reverse the block */
            ws[0] = __byte_perm(w.w, 0, 0x0123) ^ cmask;
            ws[1] = __byte_perm(w.z, 0, 0x0123) ^ cmask;
            ws[2] = __byte_perm(w.y, 0, 0x0123) ^ cmask;
            ws[3] = __byte_perm(w.x, 0, 0x0123) ^ cmask;
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
 * Whole rows, float32, t <= 8, K <= 4: protein, and DNA at t > 4 (DNA at t <= 4 runs on the count
 * kernels, count_kernels.cuh). Lane L holds bins L + 32k of every level. Shifting by
 * h = 32 hq + hr: every register comes from lane (L - hr) mod 32, then the K registers rotate by
 * d = hq + (L < hr) mod K, a per-lane amount, as log2(K) select stages. No branch, so the compiler
 * interleaves the t levels of a character, which hides the shuffle latency.
 *
 * Level 1 (right above the e_0 start) holds plain counts: its increments are exactly +-1, so it
 * needs neither the beta scale nor the two-level accumulator (rows are at most 2^20 characters,
 * far below 2^24 where a float count stops being exact; the host guarantees it). The level above
 * takes beta^2 to catch up. */

/* Shift parameters of one level for one character, for this lane, packed in the low byte:
 *   bits 0-4  source lane, (L - hr) mod 32; shfl reads only these bits, so x goes in as it is;
 *   bits 5-6  d, the rotation;
 *   bit 7     sign of the table entry (replicated into bits 8-31 by the callers).
 * The e_0 start (one bin, h, gets the sign) lands in this lane iff the source lane is the lane
 * itself, and then in register d: (x & 0x7f) == k << 5. */
__device__ __forceinline__ int sk_pack_shift(const sk_tables &tab, int lev, int c, int lane, int K)
{
    const int h = tab.hash[lev][c], sign = tab.sign[lev][c] < 0.f ? 0x80 : 0;
    const int hq = h >> 5, hr = h & 31;
    int d = hq + (lane < hr);
    d = d >= K ? d - K : d;
    return ((lane - hr) & 31) | d << 5 | sign;
}

/* DNA (4 codes): the packed bytes of the 4 codes of every level, computed once per thread, so a
 * character costs one byte permute per level: byte c moved to byte 0 with its sign bit replicated
 * into bytes 1-3 (prmt selector nibbles c, 8|c, 8|c, 8|c). */
template <int T, int K>
__device__ __forceinline__ void sk_dna_words(const sk_tables &tab, int lane, uint32_t (&P)[T])
{
#pragma unroll
    for (int lev = 0; lev < T; lev++) {
        P[lev] = 0;
        for (int c = 0; c < 4; c++) P[lev] |= (uint32_t)sk_pack_shift(tab, lev, c, lane, K) << (8 * c);
    }
}

__device__ __forceinline__ uint32_t sk_dna_selector(int c) { return (uint32_t)c * 0x1111u + 0x8880u; }

__device__ __forceinline__ int sk_prmt(uint32_t a, uint32_t sel)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(a), "r"(sel));
    return (int)r;
}

/* The packed shift of level lev for code c, sign in bit 31. */
template <int T, int K, bool DNA>
__device__ __forceinline__ int sk_shift_of(const sk_tables &tab, const uint32_t (&P)[T], int lev, int c,
                                           uint32_t sel, int lane)
{
    if constexpr (DNA) {
        return sk_prmt(P[lev], sel);
    } else {
        const int x = sk_pack_shift(tab, lev, c, lane, K);
        return x & 0x80 ? x | (int)0xffffff00 : x;
    }
}

/* f with the sign bit of x (f > 0). */
__device__ __forceinline__ float sk_signed(float f, int x) { return __int_as_float(__float_as_int(f) ^ (x & (int)0x80000000)); }

/* y rotated by d (0 <= d < K) registers, d = bits 5-6 of x: out[k] = y[(k - d) mod K], as
 * log2(K) select stages. */
template <int K>
__device__ __forceinline__ void sk_rotate(float (&y)[K], int x)
{
#pragma unroll
    for (int s = 1; s < K; s <<= 1) {  /* no stage at all when K == 1 */
        bool on = x & (s << 5);
        float z[K];
#pragma unroll
        for (int k = 0; k < K; k++) z[k] = y[(k - s % K + K) % K];
#pragma unroll
        for (int k = 0; k < K; k++) y[k] = on ? z[k] : y[k];
    }
}

/* Level p's update for one character (p >= 2): N[p-1] += sign * beta^(1 or 2) * shift(N[p-2]),
 * through A. Reads see the value before this character because levels go top-down. */
template <int T, int K>
__device__ __forceinline__ void sk_level(float (&N)[T][K], float (&A)[T][K], int p, int x, float sb, float sb2)
{
    const bool counts = p == 2;  /* level 1 holds counts: no accumulator, beta^2 above it */
    float y[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        y[k] = __shfl_sync(0xffffffffu, counts ? N[p - 2][k] : N[p - 2][k] + A[p - 2][k], x);
    sk_rotate<K>(y, x);
#pragma unroll
    for (int k = 0; k < K; k++) A[p - 1][k] = fmaf(counts ? sb2 : sb, y[k], A[p - 1][k]);
}

/* The two-level accumulator (see the top of this file): both zero at the start of a DP; at a fold
 * point and at the end, A goes into N. */
template <int NV, int K>
__device__ __forceinline__ void sk_acc_clear(float (&N)[NV][K], float (&A)[NV][K])
{
#pragma unroll
    for (int v = 0; v < NV; v++)
#pragma unroll
        for (int k = 0; k < K; k++) N[v][k] = 0.f, A[v][k] = 0.f;
}

template <int NV, int K>
__device__ __forceinline__ void sk_acc_fold(float (&N)[NV][K], float (&A)[NV][K])
{
#pragma unroll
    for (int v = 0; v < NV; v++)
#pragma unroll
        for (int k = 0; k < K; k++) N[v][k] += A[v][k], A[v][k] = 0.f;
}

/* Runs the DP over codes[lo..hi) (rev: backwards; xor cmask), leaving in N[p - 1] level p's
 * counts, scaled by beta^p for p >= 2. The levels' shifts come from P (DNA). */
template <int T, int K, bool DNA>
__device__ __forceinline__ void sk_fast_dp(const sk_tables &tab, const uint32_t (&P)[T], const uint8_t *codes,
                                           int64_t lo, int64_t hi, bool rev, uint32_t cmask, int lane,
                                           float (&N)[T][K])
{
    float A[T][K];
    sk_acc_clear(N, A);
    const float beta = 1.0f / (float)(hi - lo), beta2 = beta * beta;
    sk_stream(codes, lo, hi, rev, cmask, [&](int c) {
        if (c < 0) {
            sk_acc_fold(N, A);
            return;
        }
        const uint32_t sel = sk_dna_selector(c);
#pragma unroll
        for (int p = T; p >= 1; p--) {
            const int x = sk_shift_of<T, K, DNA>(tab, P, p - 1, c, sel, lane);
            if (p >= 2) {
                sk_level<T, K>(N, A, p, x, sk_signed(beta, x), sk_signed(beta2, x));
            } else {  /* level 1 starts from e_0: one bin, h, gets the sign */
                const int m = x & 0x7f;
                const float one = sk_signed(1.0f, x);
#pragma unroll
                for (int k = 0; k < K; k++)
                    if (m == k << 5) N[0][k] += one;
            }
        }
    });
    sk_acc_fold(N, A);
}

/* What turns level r of a row of len characters into a mean: counts (r = 1) / len, scaled counts
 * len^r / C(len, r). */
__device__ static inline double sk_fast_factor(int64_t len, int r)
{
    return r == 1 ? 1.0 / (double)len : sk_mean_factor(len, r);
}

/* Whole rows (a record or a window; with SK_FLAG_CANON also its reverse complement, read
 * backwards and complemented in registers), written straight into the output rows. */
template <int T, int K, bool DNA>
__global__ void __launch_bounds__(32 * SK_WARPS_PER_BLOCK)
sk_fast_kernel(sk_tables tab, const uint8_t *__restrict__ codes, const sk_item *__restrict__ items, int n_items,
               int *counter, void *out, int out_double)
{
    const int lane = threadIdx.x & 31;
    constexpr int D = 32 * K;
    uint32_t P[T];
    if constexpr (DNA) sk_dna_words<T, K>(tab, lane, P);
    for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
        const sk_item w = items[it];
        double res[K];
#pragma unroll
        for (int k = 0; k < K; k++) res[k] = 0.0;
        if (w.len >= T) {
            float N[T][K];
            const int strands = (w.flags & SK_FLAG_CANON) ? 2 : 1;
            const double f = sk_fast_factor(w.len, T) / strands;
#pragma unroll 1
            for (int s = 0; s < strands; s++) {
                sk_fast_dp<T, K, DNA>(tab, P, codes, w.off, w.off + w.len, s == 1, s == 1 ? SK_COMPLEMENT : 0u, lane,
                                      N);
#pragma unroll
                for (int k = 0; k < K; k++) res[k] += (double)N[T - 1][k] * f;
            }
        }
#pragma unroll
        for (int k = 0; k < K; k++) {
            const size_t at = (size_t)w.out * D + lane + 32 * k;
            if (out_double) ((double *)out)[at] = res[k];
            else ((float *)out)[at] = (float)res[k];
        }
    }
}

/* ---------------- generic kernel: any t <= 16, any D, float or double ----------------
 * The state of each warp lives in shared memory (N, plus A for float); the shift is a gather
 * from shared memory, and __syncwarp separates the levels. Used where the fast kernel does not
 * apply (D not a multiple of 32 or > 128, t > 8, chunks with t > 4, float64 output). */
template <typename F>
__device__ void sk_generic_dp(const sk_tables &tab, const uint8_t *codes, int64_t lo, int64_t hi, bool rev,
                              uint32_t cmask, bool flip, int lane, int J, F *N, F *A)
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
    sk_stream(codes, lo, hi, rev, cmask, [&](int c) {
        if (c < 0) {
            if (acc) {
                for (int i = lane; i < NV * D; i += 32) N[i] += A[i], A[i] = 0;
                __syncwarp();
            }
            return;
        }
        for (int p = T; p >= 1; p--) {
            const int lev = flip ? T - p : p - 1;  /* flip: the backward DP of a last piece */
            const int h = tab.hash[lev][c];
            const F sb = (F)tab.sign[lev][c] * beta;
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
        const bool rev = (w.flags & SK_FLAG_REV) != 0;
        if (w.flags & (SK_FLAG_CHUNK | SK_FLAG_HEAD | SK_FLAG_TAIL)) {  /* a piece, as in the fast kernel */
            const bool chunk = (w.flags & SK_FLAG_CHUNK) != 0, tail = (w.flags & SK_FLAG_TAIL) != 0;
            sk_generic_dp<F>(tab, codes, w.off, w.off + w.len, rev != tail, rev ? SK_COMPLEMENT : 0u, tail, lane,
                             chunk ? T : 1, N, A);
            double *node = nodes + (size_t)w.out * sk_nvec(T) * D;
            for (int j = 0; j < T; j++)
                for (int p = j + 1; p <= T; p++) {
                    const int from = sk_piece_vector(T, j, p, chunk, tail);
                    if (from < 0) continue;
                    const double f = sk_mean_factor(w.len, p - j);
                    const F *v = N + (size_t)from * D;
                    for (int l = lane; l < D; l += 32) node[(size_t)sk_vidx(T, j, p) * D + l] = (double)v[l] * f;
                }
            __syncwarp();
            continue;
        }
        const int strands = (w.flags & SK_FLAG_CANON) ? 2 : 1;
        const double f = sk_mean_factor(w.len, T) / strands;
        for (int s = 0; s < strands && w.len >= T; s++) {
            sk_generic_dp<F>(tab, codes, w.off, w.off + w.len, s == 1, s == 1 ? SK_COMPLEMENT : 0u, false, lane, 1,
                             N, A);
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
 * Only the (j, p) the result can be asked for: j = 0 when U begins the strand, p = t when V ends
 * it (and those are all such a U or V holds). One block per pair; threads over output bins. */
__global__ void sk_combine_kernel(int t, int dim, const sk_pair *__restrict__ pairs, int n_pairs, double *nodes)
{
    const int nv = sk_nvec(t);
    for (int pi = blockIdx.x; pi < n_pairs; pi += gridDim.x) {
        sk_pair pr = pairs[pi];
        const double *U = nodes + (size_t)pr.left * nv * dim;
        const double *V = nodes + (size_t)pr.right * nv * dim;
        double *W = nodes + (size_t)pr.dest * nv * dim;
        const int j_end = (pr.flags & SK_PAIR_LEFT_HEAD) ? 1 : t;
        for (int j = 0; j < j_end; j++)
            for (int p = (pr.flags & SK_PAIR_RIGHT_TAIL) ? t : j + 1; p <= t; p++) {
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
