/* count_kernels.cuh: the tuple-count kernels, the GPU engine for DNA at t <= 4 (docs/gpu.md,
 * "Tuple counts"; CPU twin: cpu/sketch_counts.c).
 *
 * For DNA the sketch is a linear function of the tuple counts C_t[tau] (core/tsk_def.h,
 * tsk_tuple_hash): bin r of T[t] is the sum of sign(tau) C_t[tau] over the tuples tau that hash to
 * r, divided by C(n, t). The counts have their own DP, C_k[tau c] += C_{k-1}[tau] for each new
 * character c: 1 + 4 + 16 + 64 = 85 values change per character at t=4, where the sketch DP changes
 * t D = 384 and moves every one of them between bins (shuffles). What else follows:
 *  - the state of a piece of a long row is its counts at every level (341 at t=4), and neighbours
 *    merge exactly, C_{uv,k}[tau] = sum_j C_{u,j}[tau's first j letters] C_{v,k-j}[the rest]:
 *    every piece costs what a whole row of its length does (the sketch-space split formula needs
 *    t(t+1)/2 vectors in a middle chunk);
 *  - the reverse complement's counts are those of the reverse-complemented tuples: a canonical
 *    row costs no second pass;
 *  - D matters only where counts become bins, at the end (any D, float or double rows).
 *
 * Exactness. A warp counts SKC_BLOCK characters at a time in float registers: every count is then
 * an integer below C(128, 4) < 2^24 (times a power of two, below), so exact. After each block the
 * block's counts enter double totals through the merge formula (totals x block), a few dozen
 * double operations per lane per 128 characters. Totals are exact integers up to 2^53 and carry
 * one double rounding per block beyond; rows are the means, in double, rounded once to float.
 *
 * Layout (one warp per item; T-1 letter "prefixes", first letter most significant): lane L keeps,
 * for each of its NI prefixes phi (T=4: phi = 2L + i, i < 2; T=3: L mod 16; T=2: L mod 4; T=1: the
 * empty one), the block counts of phi's own prefixes at levels 1..T-1 (lv) and of phi c for the 4
 * letters c at level T (top). Per character c every lane adds: top[i][e] += [c = e] lv[T-1][i] (4 NI
 * FMAs), lv[k] += [c = k-th letter] lv[k-1] (one FMA per level). The [c = x] factors are 2.0 or 0,
 * each one byte permute of a per-lane word (so level k counts in units of 2^k: exact, and undone in
 * the merge). At t=4: 8 permutes, 11 FMAs and one add per character, against ~68 instructions of
 * the sketch DP (sketch_kernels.cuh). Lanes whose prefixes repeat another lane's (T < 4) compute the
 * same values; only the first lane of each writes. */
#ifndef TSK_GPU_COUNT_KERNELS_CUH
#define TSK_GPU_COUNT_KERNELS_CUH

#include <stdint.h>

#include "sketch_kernels.cuh"

#define SKC_BLOCK 128  /* characters counted in float between merges: C(128, 4) < 2^24 */
#define SKC_MAX_T 4

/* Level k's first index in a count state (levels 0..T, level k has 4^k counts). */
__host__ __device__ constexpr int skc_offset(int k) { return ((1 << (2 * k)) - 1) / 3; }
__host__ __device__ constexpr int skc_size(int t) { return skc_offset(t + 1); }

/* One term of a bin's sum: the top-level count tau, times coef (the sign, halved for canonical). */
typedef struct {
    int32_t tau;
    float coef;
} skc_term;

/* A row of the part whose pieces were counted separately: its root node, length, strands. */
typedef struct {
    int64_t row, len;
    int32_t node, canonical;
} skc_final;

/* Where a launch finds the tuple-to-bin map: bin b of a row sums terms[start[b] .. start[b+1]);
 * the canonical map (both strands, coefficients halved) follows the plain one: start[dim + 1 + b]. */
typedef struct {
    const int32_t *start;
    const skc_term *terms;
} skc_map;

/* Prefixes a lane holds and how many lanes hold distinct ones. */
template <int T> struct skc_shape {
    static constexpr int NI = T == 4 ? 2 : 1;
    static constexpr int LANES = T == 4 ? 32 : T == 3 ? 16 : T == 2 ? 4 : 1;
};

/* Prefix i of lane (T-1 letters). */
template <int T> __device__ __forceinline__ int skc_prefix(int lane, int i)
{
    return T == 4 ? 2 * lane + i : T == 3 ? (lane & 15) : T == 2 ? (lane & 3) : 0;
}

/* 1 / C(n, t) (0 when n < t): counts to means. */
__device__ __forceinline__ double skc_inv_tuples(int64_t n, int t)
{
    if (n < t) return 0.0;
    double c = 1.0;
    for (int i = 0; i < t; i++) c = c * (double)(n - i) / (double)(i + 1);
    return 1.0 / c;
}

/* Block counts -> totals: S <- S x L (the merge formula with S as the left string). The block's
 * counts go through the warp's shared scratch (each lane needs suffixes that other lanes hold),
 * scaled by 2^-k back to plain integers on the way. L is cleared. */
template <int T>
__device__ __forceinline__ void skc_fold(float *sh, int lane, float (&top)[skc_shape<T>::NI][4],
                                         float (&lv)[T][skc_shape<T>::NI], double (&stop)[skc_shape<T>::NI][4],
                                         double (&slv)[T][skc_shape<T>::NI])
{
    constexpr int NI = skc_shape<T>::NI;
    const float top_unit = 1.0f / (float)(1 << T);
    __syncwarp();
    if (lane < skc_shape<T>::LANES) {
#pragma unroll
        for (int i = 0; i < NI; i++) {
            const int phi = skc_prefix<T>(lane, i);
#pragma unroll
            for (int e = 0; e < 4; e++) sh[skc_offset(T) + phi * 4 + e] = top[i][e] * top_unit;
#pragma unroll
            for (int k = 1; k < T; k++) {
                /* level k's count of phi's first k letters: written by the lane (and slot) whose
                 * prefix ends in A's below level k */
                const int rest = 2 * (T - 1 - k);
                if ((k == T - 1 || i == 0) && (skc_prefix<T>(lane, 0) & ((1 << rest) - 1)) == 0)
                    sh[skc_offset(k) + (phi >> rest)] = lv[k][k == T - 1 ? i : 0] / (float)(1 << k);
            }
        }
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < NI; i++) {
        const int phi = skc_prefix<T>(lane, i);
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int tau = phi * 4 + e;
            double s = stop[i][e] + (double)(top[i][e] * top_unit);
#pragma unroll
            for (int j = 1; j < T; j++)  /* j letters from the totals, T - j from the block */
                s += slv[j][j == T - 1 ? i : 0] *
                     (double)sh[skc_offset(T - j) + (tau & ((1 << (2 * (T - j))) - 1))];
            stop[i][e] = s;
            top[i][e] = 0.f;
        }
    }
#pragma unroll
    for (int k = T - 1; k >= 1; k--)  /* downwards: level k reads the totals of levels below it */
#pragma unroll
        for (int i = 0; i < (k == T - 1 ? NI : 1); i++) {
            const int tau = skc_prefix<T>(lane, i) >> (2 * (T - 1 - k));
            double s = slv[k][i] + (double)(lv[k][i] / (float)(1 << k));
#pragma unroll
            for (int j = 1; j < k; j++)
                s += slv[j][j == T - 1 ? i : 0] * (double)sh[skc_offset(k - j) + (tau & ((1 << (2 * (k - j))) - 1))];
            slv[k][i] = s;
            lv[k][i] = 0.f;
        }
}

/* One character: sel puts the code's byte of a word into the top byte (__byte_perm(word, 0, sel)),
 * which turns the per-lane words below into 2.0f or 0. */
template <int T>
__device__ __forceinline__ void skc_char(uint32_t sel, const uint32_t (&word)[T][skc_shape<T>::NI],
                                         float (&top)[skc_shape<T>::NI][4], float (&lv)[T][skc_shape<T>::NI])
{
    constexpr int NI = skc_shape<T>::NI;
#pragma unroll
    for (int e = 0; e < 4; e++) {
        const float is_e = __uint_as_float(__byte_perm(0x40u << (8 * e), 0, sel));
#pragma unroll
        for (int i = 0; i < NI; i++) {
            if constexpr (T == 1) top[i][e] += is_e;
            else top[i][e] = fmaf(is_e, lv[T - 1][i], top[i][e]);
        }
    }
#pragma unroll
    for (int k = T - 1; k >= 2; k--)
#pragma unroll
        for (int i = 0; i < (k == T - 1 ? NI : 1); i++)
            lv[k][i] = fmaf(__uint_as_float(__byte_perm(word[k][i], 0, sel)), lv[k - 1][0], lv[k][i]);
    if constexpr (T >= 2) lv[1][0] += __uint_as_float(__byte_perm(word[1][0], 0, sel));
}

/* skc_char's selector for character q (0..3) of a word of codes prepared as
 * (codes << 4) | 0x04040404: (c << 12) | 0x444, i.e. nibble 3 = the code c (byte c of the word
 * goes to the top) and nibbles 0-2 = 4 (a zero byte below it). One permute builds it: byte 1 <-
 * the prepared byte q, (c << 4) | 4; byte 0 <- 0x44; bytes 2-3 <- 0. */
__device__ __forceinline__ uint32_t skc_sel(uint32_t prepared, int q)
{
    return __byte_perm(prepared, 0x44u, 0x5504u | ((uint32_t)q << 4));
}

/* Counts of the warp's item: codes[lo, hi), totals in stop/slv (all lanes, their prefixes). */
template <int T>
__device__ __forceinline__ void skc_count(const uint8_t *codes, int64_t lo, int64_t hi, float *sh, int lane,
                                          const uint32_t (&word)[T][skc_shape<T>::NI],
                                          double (&stop)[skc_shape<T>::NI][4], double (&slv)[T][skc_shape<T>::NI])
{
    constexpr int NI = skc_shape<T>::NI;
    float top[NI][4], lv[T][NI];
#pragma unroll
    for (int i = 0; i < NI; i++) {
#pragma unroll
        for (int e = 0; e < 4; e++) top[i][e] = 0.f, stop[i][e] = 0.0;
#pragma unroll
        for (int k = 0; k < T; k++) lv[k][i] = 0.f, slv[k][i] = 0.0;
    }
    if (hi <= lo) return;
    const int64_t first = lo & ~(int64_t)15, last = (hi - 1) & ~(int64_t)15;
    for (int64_t base = first; base <= last; base += 16) {
        const uint4 w = __ldg((const uint4 *)(codes + base));
        const uint32_t ws[4] = {(w.x << 4) | 0x04040404u, (w.y << 4) | 0x04040404u, (w.z << 4) | 0x04040404u,
                                (w.w << 4) | 0x04040404u};
        if (base >= lo && base + 16 <= hi) {
#pragma unroll
            for (int k = 0; k < 16; k++) skc_char<T>(skc_sel(ws[k >> 2], k & 3), word, top, lv);
        } else {
#pragma unroll 1
            for (int k = 0; k < 16; k++)
                if (base + k >= lo && base + k < hi) skc_char<T>(skc_sel(ws[k >> 2], k & 3), word, top, lv);
        }
        /* every SKC_BLOCK characters of the buffer (aligned), and after the last */
        if (((base + 16) & (SKC_BLOCK - 1)) == 0 || base == last) skc_fold<T>(sh, lane, top, lv, stop, slv);
    }
}

/* The per-lane words of skc_char: for level k < T, byte x is 0x40 where x is the k-th letter of the
 * lane's prefix. */
template <int T>
__device__ __forceinline__ void skc_words(int lane, uint32_t (&word)[T][skc_shape<T>::NI])
{
#pragma unroll
    for (int i = 0; i < skc_shape<T>::NI; i++) {
        word[0][i] = 0;
#pragma unroll
        for (int k = 1; k < T; k++) {
            const int letter = (skc_prefix<T>(lane, i) >> (2 * (T - 1 - k))) & 3;
            word[k][i] = 0x40u << (8 * letter);
        }
    }
}

/* Persistent warps over the items (largest first). A whole item (a row, or a window) becomes its
 * row through the map; a piece (SK_FLAG_CHUNK) leaves its count state in node item.out. */
template <int T>
__global__ void __launch_bounds__(32 * SK_WARPS_PER_BLOCK)
skc_count_kernel(const uint8_t *__restrict__ codes, const sk_item *__restrict__ items, int n_items, int *counter,
                 skc_map map, int dim, void *out, int out_double, double *nodes)
{
    constexpr int NI = skc_shape<T>::NI;
    __shared__ double scratch[SK_WARPS_PER_BLOCK][1 << (2 * SKC_MAX_T)];  /* >= skc_size(T) floats */
    const int lane = threadIdx.x & 31;
    double *shd = scratch[threadIdx.x >> 5];
    float *sh = (float *)shd;
    uint32_t word[T][NI];
    skc_words<T>(lane, word);
    for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
        const sk_item w = items[it];
        double stop[NI][4], slv[T][NI];
        skc_count<T>(codes, w.off, w.off + w.len, sh, lane, word, stop, slv);
        __syncwarp();
        if (w.flags & SK_FLAG_CHUNK) {
            double *node = nodes + (size_t)w.out * skc_size(T);
            if (lane == 0) node[0] = 1.0;
            if (lane < skc_shape<T>::LANES)
#pragma unroll
                for (int i = 0; i < NI; i++) {
                    const int phi = skc_prefix<T>(lane, i);
#pragma unroll
                    for (int e = 0; e < 4; e++) node[skc_offset(T) + phi * 4 + e] = stop[i][e];
#pragma unroll
                    for (int k = 1; k < T; k++) {
                        const int rest = 2 * (T - 1 - k);
                        if ((k == T - 1 || i == 0) && (skc_prefix<T>(lane, 0) & ((1 << rest) - 1)) == 0)
                            node[skc_offset(k) + (phi >> rest)] = slv[k][k == T - 1 ? i : 0];
                    }
                }
            continue;
        }
        if (lane < skc_shape<T>::LANES)
#pragma unroll
            for (int i = 0; i < NI; i++)
#pragma unroll
                for (int e = 0; e < 4; e++) shd[skc_prefix<T>(lane, i) * 4 + e] = stop[i][e];
        __syncwarp();
        const double scale = skc_inv_tuples(w.len, T);
        const int *start = map.start + ((w.flags & SK_FLAG_CANON) ? dim + 1 : 0);
        for (int b = lane; b < dim; b += 32) {
            double s = 0.0;
            for (int q = start[b]; q < start[b + 1]; q++) s += (double)map.terms[q].coef * shd[map.terms[q].tau];
            const size_t at = (size_t)w.out * dim + b;
            if (out_double) ((double *)out)[at] = s * scale;
            else ((float *)out)[at] = (float)(s * scale);
        }
    }
}

/* Merge neighbouring pieces: dest = left x right (skc_size(t) counts each). One block per pair. */
__global__ void skc_merge_kernel(int t, const sk_pair *__restrict__ pairs, int n_pairs, double *nodes)
{
    const int size = skc_size(t);
    for (int pi = blockIdx.x; pi < n_pairs; pi += gridDim.x) {
        const sk_pair pr = pairs[pi];
        const double *u = nodes + (size_t)pr.left * size, *v = nodes + (size_t)pr.right * size;
        double *uv = nodes + (size_t)pr.dest * size;
        for (int x = threadIdx.x; x < size; x += blockDim.x) {
            int k = 0;
            while (x >= skc_offset(k + 1)) k++;
            const int tau = x - skc_offset(k);
            double s = 0.0;
            for (int j = 0; j <= k; j++) {
                const int rest = 2 * (k - j);
                s += u[skc_offset(j) + (tau >> rest)] * v[skc_offset(k - j) + (tau & ((1 << rest) - 1))];
            }
            uv[x] = s;
        }
    }
}

/* Rows of split rows from their root nodes. One block per row, threads over bins. */
__global__ void skc_final_kernel(int t, int dim, const skc_final *__restrict__ fin, int n_fin, skc_map map,
                                 const double *nodes, void *out, int out_double)
{
    for (int fi = blockIdx.x; fi < n_fin; fi += gridDim.x) {
        const skc_final f = fin[fi];
        const double *top = nodes + (size_t)f.node * skc_size(t) + skc_offset(t);
        const double scale = skc_inv_tuples(f.len, t);
        const int *start = map.start + (f.canonical ? dim + 1 : 0);
        for (int b = threadIdx.x; b < dim; b += blockDim.x) {
            double s = 0.0;
            for (int q = start[b]; q < start[b + 1]; q++) s += (double)map.terms[q].coef * top[map.terms[q].tau];
            const size_t at = (size_t)f.row * dim + b;
            if (out_double) ((double *)out)[at] = s * scale;
            else ((float *)out)[at] = (float)(s * scale);
        }
    }
}

#endif
