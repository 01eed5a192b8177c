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
 *   - a piece of a long one (one strand), written in double to a node buffer; sk_combine merges
 *     nodes in a tree. A middle chunk needs all t(t+1)/2 vectors V[j..p] (start level j < p) of
 *     SKETCH.md's split formula. The first piece only ever enters the formula with j = 0, so it
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
/* The node instance holds both layouts' code; left alone ptxas gives it 121 registers (16 warps
 * per SM), held to 5 blocks per SM (<= 102 registers) it keeps the 20 warps of the chunk-only
 * kernel it replaced. */
#define SK_NODE_BLOCKS_PER_SM 5
/* The whole-row instance with the rotation in the FMAs (sk_rf_dp): left alone ptxas gives it 135
 * registers (12 warps per SM); held to 8 blocks per SM it takes 64 (8 bytes of spills, outside
 * the character loop) and ran short reads at 11.5 Gbp/s against 11.1 with 6 blocks (80 registers,
 * H200). */
#define SK_RF_BLOCKS_PER_SM 8
/* The end-pieces instance (SK_ENDS): 80 registers at 6 blocks; at 8 (64 registers, 20 bytes of
 * spills) seed-homogeneous as two pieces a row went 10.5 -> 9.4 Gbp/s (H200). */
#define SK_ENDS_BLOCKS_PER_SM 6

/* What a fast-kernel launch holds (the kernel's MODE). */
enum sk_fast_mode { SK_ROWS = 0, SK_NODES = 1, SK_ROWS_BESIDE = 2, SK_ENDS = 3 };

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
 * interleave), or with WORD_LOOP once per 4-character word in a loop: the node instance holds
 * two large DPs (chunks and first/last pieces) whose warps run side by side, and unrolled 16
 * times they did not fit the instruction cache (ncu: "no instruction" the main stall). */
template <bool WORD_LOOP = false, class F>
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
        if constexpr (WORD_LOOP) {  /* f inlined twice instead of 32 times (see above) */
            if (base >= lo && base + 16 <= hi) {
#pragma unroll 1
                for (int q = 0; q < 4; q++) {
                    const uint32_t word = ws[0];
                    ws[0] = ws[1], ws[1] = ws[2], ws[2] = ws[3];
#pragma unroll
                    for (int k = 0; k < 4; k++) f((int)((word >> (8 * k)) & 0xffu));
                }
            } else {
#pragma unroll 1
                for (int k = 0; k < 16; k++) {
                    const int c = (int)(ws[0] & 0xffu);
                    ws[0] = __funnelshift_r(ws[0], ws[1], 8), ws[1] = __funnelshift_r(ws[1], ws[2], 8);
                    ws[2] = __funnelshift_r(ws[2], ws[3], 8), ws[3] >>= 8;
                    const int64_t pos = rev ? base + 15 - k : base + k;
                    if (pos >= lo && pos < hi) f(c);
                }
            }
        } else if (base >= lo && base + 16 <= hi) {  /* all but the first and last block: no checks */
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
 * Two layouts of the K registers per lane, chosen per launch (measured on the H100, docs/gpu.md):
 *
 * ROT (whole rows): lane L holds bins L + 32k. Shifting by h = 32 hq + hr: every register comes
 *   from lane (L - hr) mod 32, then the K registers rotate by d = hq + (L < hr) mod K, a per-lane
 *   amount, as log2(K) select stages. No branch, so the compiler interleaves the levels of a
 *   character; the selects are the cost.
 * BR (chunks): lane L holds the K consecutive bins K*L + k. Shifting by h = K*a + r: output
 *   register k reads register (k - r) mod K of lane L - a, or of lane L - a - 1 when k < r. r is the
 *   same in every lane, so a branch picks one of K unrolled variants: K shuffles and no select.
 *   Chunks update up to t-1 vectors per level under one branch, which pays for it; whole rows
 *   (one vector per level) lose more to the branch than they save.
 *
 * Vectors whose start level is one below their end (V[j..j+1], right above an e_0 start) hold
 * plain counts: their increments are exactly +-1, so they need neither the beta scale nor the
 * two-level accumulator (rows are at most 2^20 characters, far below 2^24 where a float count
 * stops being exact; the host guarantees it). The level above them takes beta^2 to catch up. */
enum { SK_ROT = 0, SK_BR = 1 };

/* Shift parameters of one level for one character, for this lane, packed in the low byte:
 *   bits 0-4  source lane, (L - hr) mod 32 (ROT) or (L - a) mod 32 (BR); shfl reads only these
 *             bits, so x goes in as it is (and x - 1 is the BR wrap lane);
 *   bits 5-6  d (ROT: the rotation) or r (BR);
 *   bit 7     sign of the table entry (replicated into bits 8-31 by the callers).
 * An e_0 start (one bin, h, gets the sign) lands in this lane iff the source lane is the lane
 * itself, and then in register d resp. r: (x & 0x7f) == k << 5 in both layouts. */
template <int LAYOUT>
__device__ __forceinline__ int sk_pack_shift(const sk_tables &tab, int lev, int c, int lane, int K)
{
    const int h = tab.hash[lev][c], sign = tab.sign[lev][c] < 0.f ? 0x80 : 0;
    if constexpr (LAYOUT == SK_BR) return ((lane - h / K) & 31) | (h % K) << 5 | sign;
    const int hq = h >> 5, hr = h & 31;
    int d = hq + (lane < hr);
    d = d >= K ? d - K : d;
    return ((lane - hr) & 31) | d << 5 | sign;
}

/* Register k of lane L holds bin sk_bin(L, k). */
template <int K, int LAYOUT>
__device__ __forceinline__ int sk_bin(int lane, int k) { return LAYOUT == SK_BR ? K * lane + k : lane + 32 * k; }

/* DNA (4 codes): the packed bytes of the 4 codes of every level, computed per thread (again when
 * an item needs the levels in the other order), so a character costs one byte permute per level:
 * byte c moved to byte 0 with its sign bit replicated into bytes 1-3 (prmt selector nibbles c,
 * 8|c, 8|c, 8|c). flip: level lev takes table T-1-lev (the backward DP of a last piece). */
template <int T, int K, int LAYOUT>
__device__ __forceinline__ void sk_dna_words(const sk_tables &tab, int lane, uint32_t (&P)[T], bool flip)
{
#pragma unroll
    for (int lev = 0; lev < T; lev++) {
        P[lev] = 0;
        const int from = flip ? T - 1 - lev : lev;
        for (int c = 0; c < 4; c++) P[lev] |= (uint32_t)sk_pack_shift<LAYOUT>(tab, from, c, lane, K) << (8 * c);
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
template <int T, int K, bool DNA, int LAYOUT>
__device__ __forceinline__ int sk_shift_of(const sk_tables &tab, const uint32_t (&P)[T], int lev, int c,
                                           uint32_t sel, int lane)
{
    if constexpr (DNA) {
        return sk_prmt(P[lev], sel);
    } else {
        const int x = sk_pack_shift<LAYOUT>(tab, lev, c, lane, K);
        return x & 0x80 ? x | (int)0xffffff00 : x;
    }
}

/* f with the sign bit of x (f > 0). */
__device__ __forceinline__ float sk_signed(float f, int x) { return __int_as_float(__float_as_int(f) ^ (x & (int)0x80000000)); }

/* y rotated by d (0 <= d < K) registers, d = bits 5-6 of x: out[k] = y[(k - d) mod K], as
 * log2(K) select stages (ROT layout). */
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

/* Level p's shuffled updates for one character: V[j..p] += sign * beta^(1 or 2) * shift(V[j..p-1])
 * for every start level j < min(J, p - 1). R: the BR variant (r); ignored by ROT. Reads see the
 * value before this character because levels go top-down. */
template <int T, int K, int J, int LAYOUT, int R>
__device__ __forceinline__ void sk_level(float (&N)[J == 1 ? T : T * (T + 1) / 2][K],
                                         float (&A)[J == 1 ? T : T * (T + 1) / 2][K], int p, int x, float sb,
                                         float sb2)
{
#pragma unroll
    for (int j = 0; j < J && j < p - 1; j++) {
        const int src = sk_vidx(T, j, p - 1), dst = sk_vidx(T, j, p);
        const bool counts = p - 1 - j == 1;
        float y[K];
        if constexpr (LAYOUT == SK_BR) {
#pragma unroll
            for (int k = 0; k < K; k++) {
                const int from = (k - R + K) % K;
                const float v = counts ? N[src][from] : N[src][from] + A[src][from];
                y[k] = __shfl_sync(0xffffffffu, v, k >= R ? x : x - 1);
            }
        } else {
#pragma unroll
            for (int k = 0; k < K; k++)
                y[k] = __shfl_sync(0xffffffffu, counts ? N[src][k] : N[src][k] + A[src][k], x);
            sk_rotate<K>(y, x);
        }
#pragma unroll
        for (int k = 0; k < K; k++) A[dst][k] = fmaf(counts ? sb2 : sb, y[k], A[dst][k]);
    }
    /* BR: the e_0 start V[p-1..p] of this level too. Bin h is register h mod K = R (known here)
     * of lane h / K, the lane whose source lane field is 0: one compare and one add instead of K
     * of each. Levels go top-down, so level p + 1 has read V[p-1..p] already. */
    if constexpr (LAYOUT == SK_BR)
        if (p - 1 < J && (x & 31) == 0) N[sk_vidx(T, p - 1, p)][R] += sk_signed(1.0f, x);
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

/* Runs the DP over codes[lo..hi) (rev: backwards; xor cmask) for start levels j < J (J = 1: whole
 * sketch; J = T: chunk), leaving in N the counts, scaled by beta^(p-j) where p - j >= 2. The
 * levels' shifts come from P (DNA), so a last piece's flipped levels are in P already. */
template <int T, int K, int J, bool DNA, int LAYOUT, bool WORD_LOOP = false>
__device__ __forceinline__ void sk_fast_dp(const sk_tables &tab, const uint32_t (&P)[T], const uint8_t *codes,
                                           int64_t lo, int64_t hi, bool rev, uint32_t cmask, int lane,
                                           float (&N)[J == 1 ? T : T * (T + 1) / 2][K])
{
    constexpr int NV = J == 1 ? T : T * (T + 1) / 2;
    float A[NV][K];
    sk_acc_clear(N, A);
    const float beta = 1.0f / (float)(hi - lo), beta2 = beta * beta;
    sk_stream<WORD_LOOP>(codes, lo, hi, rev, cmask, [&](int c) {
        if (c < 0) {
            sk_acc_fold(N, A);
            return;
        }
        const uint32_t sel = sk_dna_selector(c);
#pragma unroll
        for (int p = T; p >= 1; p--) {
            const int x = sk_shift_of<T, K, DNA, LAYOUT>(tab, P, p - 1, c, sel, lane);
            if (p >= 2) {
                const float sb = sk_signed(beta, x), sb2 = sk_signed(beta2, x);
                if constexpr (LAYOUT == SK_ROT) {
                    sk_level<T, K, J, SK_ROT, 0>(N, A, p, x, sb, sb2);
                } else {
                    const int r = (x >> 5) & 3;
                    if (K == 1 || r == 0) sk_level<T, K, J, SK_BR, 0>(N, A, p, x, sb, sb2);
                    else if (K == 2 || r == 1) sk_level<T, K, J, SK_BR, K >= 2 ? 1 : 0>(N, A, p, x, sb, sb2);
                    else if (K == 3 || r == 2) sk_level<T, K, J, SK_BR, K >= 3 ? 2 : 0>(N, A, p, x, sb, sb2);
                    else sk_level<T, K, J, SK_BR, K >= 4 ? 3 : 0>(N, A, p, x, sb, sb2);
                }
            }
            /* V[p-1..p] starts from e_0: one bin, h, gets the sign (BR: in sk_level, but for p = 1) */
            if (p - 1 < J && (LAYOUT != SK_BR || p == 1)) {
                const int m = x & 0x7f, dst = sk_vidx(T, p - 1, p);
                const float one = sk_signed(1.0f, x);
#pragma unroll
                for (int k = 0; k < K; k++)
                    if (m == k << 5) N[dst][k] += one;
            }
        }
    });
    sk_acc_fold(N, A);
}

/* ---------------- whole rows at D = 96: the rotation inside the FMAs ----------------
 * In the ROT layout a shifted level is K shuffles followed by a per-lane rotation by d of the K
 * received registers: out[k] = y[(k - d) mod K], log2(K) select stages on the integer pipe, the
 * busiest one. Written as A[k] += sum_m c_m y[(k - m) mod K] with c_m = sign scale [m == d], the
 * rotation moves to the float pipe (K^2 FMAs instead of K FMAs and 2K selects; K = 3 is the one
 * size where that pays), and each c_m is one byte permute of a packed word: when the level's scale
 * is a power of two whose float exponent is even, its bit pattern has only a top byte (sign and
 * exponent), so "sign scale or 0" for each of the 4 DNA codes fits in the 4 bytes of a word that
 * each lane computes once (SK_RF_* below), and prmt moves code c's byte to the top, zeros below.
 *
 * Fixed scales (rows are at most 2^20 characters here, and t <= 4): level 1 holds 2 x its counts
 * (2.0 has an even exponent, 1.0 has not), level 2 adds 2^-41 x shift(level 1), level p >= 3
 * 2^-21 x shift(level p - 1); so level p holds its count DP times 2^(2 - 21 p) (p >= 2), at most
 * C(2^20, 4) 2^-82 < 1 and at least 2^-82 once nonzero, well inside float's normal range. */
#define SK_RF_E 21               /* level p >= 2 holds its counts times 2^(2 - SK_RF_E p) */
#define SK_RF_TOP_COUNT 0x40u    /* top byte of 2.0f */
#define SK_RF_TOP_LEVEL2 0x2bu   /* top byte of 2^-41 (exponent field 86) */
#define SK_RF_TOP_LEVEL 0x35u    /* top byte of 2^-21 (exponent field 106) */

__host__ __device__ constexpr bool sk_rf_fits(int t, int k, bool dna) { return dna && k == 3 && t >= 2 && t <= 4; }

/* C[lev][m], byte c: the top byte of code c's coefficient for rotation m at level lev + 1 in
 * this lane (0 unless m is this lane's rotation d for that shift); level 1: of the count added
 * to register m (nonzero only in the lane and register of bin h). flip: a last piece's levels. */
template <int T, int K>
__device__ __forceinline__ void sk_rf_words(const sk_tables &tab, int lane, bool flip, uint32_t (&C)[T][K])
{
#pragma unroll
    for (int lev = 0; lev < T; lev++) {
        const int from = flip ? T - 1 - lev : lev;
        const uint32_t top = lev == 0 ? SK_RF_TOP_COUNT : lev == 1 ? SK_RF_TOP_LEVEL2 : SK_RF_TOP_LEVEL;
#pragma unroll
        for (int m = 0; m < K; m++) {
            uint32_t w = 0;
            for (int c = 0; c < 4; c++) {
                const int h = tab.hash[from][c], hq = h >> 5, hr = h & 31;
                int d = hq + (lane < hr);
                d = d >= K ? d - K : d;
                const bool on = d == m && (lev > 0 || lane == hr);
                const uint32_t sign = tab.sign[from][c] < 0.f ? 0x80u : 0u;
                if (on) w |= (top | sign) << (8 * c);
            }
            C[lev][m] = w;
        }
    }
}

/* The coefficient in word w for the code whose selector is sel3 (byte c to the top, zeros). */
__device__ __forceinline__ float sk_rf_coef(uint32_t w, uint32_t sel3) { return __int_as_float(sk_prmt(w, sel3)); }

/* sk_fast_dp's whole-sketch DP (J = 1, DNA, ROT layout) with the rotation in the FMAs. Leaves
 * level p's count DP times 2^(2 - SK_RF_E p) (p >= 2) or 2 (p = 1) in N[p - 1]. */
template <int T, int K, bool WORD_LOOP = false>
__device__ __forceinline__ void sk_rf_dp(const uint32_t (&P)[T], const uint32_t (&C)[T][K], const uint8_t *codes,
                                         int64_t lo, int64_t hi, bool rev, uint32_t cmask, float (&N)[T][K])
{
    float A[T][K];
    sk_acc_clear(N, A);
    sk_stream<WORD_LOOP>(codes, lo, hi, rev, cmask, [&](int c) {
        if (c < 0) {
            sk_acc_fold(N, A);
            return;
        }
        const uint32_t sel = sk_dna_selector(c), sel3 = (uint32_t)c * 0x1000u + 0x444u;
#pragma unroll
        for (int p = T; p >= 2; p--) {  /* top-down: each level reads the one below before it changes */
            const int x = sk_prmt(P[p - 1], sel);
            float y[K];
#pragma unroll
            for (int k = 0; k < K; k++)
                y[k] = __shfl_sync(0xffffffffu, p == 2 ? N[0][k] : N[p - 2][k] + A[p - 2][k], x);
#pragma unroll
            for (int m = 0; m < K; m++) {
                const float cm = sk_rf_coef(C[p - 1][m], sel3);
#pragma unroll
                for (int k = 0; k < K; k++) A[p - 1][k] = fmaf(cm, y[(k - m + K) % K], A[p - 1][k]);
            }
        }
#pragma unroll
        for (int k = 0; k < K; k++) N[0][k] += sk_rf_coef(C[0][k], sel3);  /* exact: counts of 2 */
    });
    sk_acc_fold(N, A);
}

/* Mean factor of sk_rf_dp's level r for a row of len characters. */
__device__ static inline double sk_rf_factor(int64_t len, int r)
{
    if (len < r) return 0.0;
    if (r == 1) return 0.5 / (double)len;
    double c = 1.0;  /* C(len, r) */
    for (int i = 0; i < r; i++) c = c * (double)(len - i) / (double)(i + 1);
    return ldexp(1.0, SK_RF_E * r - 2) / c;
}

/* What turns vector V[j..p] of a row of len characters into a mean: counts (p - j = 1) / len,
 * scaled counts len^r / C(len, r). */
__device__ static inline double sk_fast_factor(int64_t len, int r)
{
    return r == 1 ? 1.0 / (double)len : sk_mean_factor(len, r);
}

/* Writes a piece's vectors V[j..p] to its node (double, mean-scaled): a middle chunk's all of
 * them, a first (END, !tail) or last (END, tail) piece's t. RF: N came from sk_rf_dp. */
template <int T, int K, int LAYOUT, bool END, bool RF = false>
__device__ __forceinline__ void sk_write_node(double *node, const float (&N)[END ? T : T * (T + 1) / 2][K],
                                              int64_t len, bool tail, int lane)
{
    constexpr int D = 32 * K;
#pragma unroll
    for (int j = 0; j < T; j++)
#pragma unroll
        for (int p = j + 1; p <= T; p++) {
            /* which of N holds V[j..p]: sk_piece_vector spelled out; calling it here made the
             * node instance slower on the H100 (seed-homogeneous as two pieces 9.4 -> 7.6 Gbp/s) */
            int from;
            if constexpr (END) {  /* first piece: V[0..p]; last piece: level q = t - j is V[j..t] */
                if (tail ? p != T : j != 0) continue;
                from = tail ? T - j - 1 : p - 1;
            } else {
                from = sk_vidx(T, j, p);
            }
            const double f = RF ? sk_rf_factor(len, p - j) : sk_fast_factor(len, p - j);
#pragma unroll
            for (int k = 0; k < K; k++)
                node[(size_t)sk_vidx(T, j, p) * D + sk_bin<K, LAYOUT>(lane, k)] = (double)N[from][k] * f;
        }
}

/* MODE (sk_fast_mode): SK_NODES, the launch holds the pieces of split rows (DNA, t <= 4): middle
 * chunks run in the BR layout, first and last pieces (one vector per level, like whole rows) in
 * the ROT layout (rotation in the FMAs at D = 96), each with its own packed words (recomputed
 * when the kind of piece changes), both character loops rolled per word (sk_stream). SK_ENDS:
 * the same for a launch of first and last pieces only (rows cut in two): no chunk code, loops
 * unrolled, the registers of a whole-row instance. The other modes run whole rows in the ROT
 * layout only; without the chunk state (~2x the registers at t=4) they fit more warps per SM.
 * SK_ROWS: whole rows alone (rotation in the FMAs where sk_rf_fits); SK_ROWS_BESIDE: whole rows
 * that run concurrently with a pieces launch (rotation by selects). DNA: 4-letter alphabet, shift
 * parameters from the per-lane packed words. */
template <int T, int K, int MODE, bool DNA>
__global__ void __launch_bounds__(32 * SK_WARPS_PER_BLOCK,
                                  MODE == SK_NODES ? SK_NODE_BLOCKS_PER_SM
                                  : MODE == SK_ENDS && sk_rf_fits(T, K, DNA) ? SK_ENDS_BLOCKS_PER_SM
                                  : MODE == SK_ROWS && sk_rf_fits(T, K, DNA) ? SK_RF_BLOCKS_PER_SM : 1)
sk_fast_kernel(sk_tables tab, const uint8_t *__restrict__ codes, const sk_item *__restrict__ items, int n_items,
               int *counter, void *out, int out_double, double *nodes)
{
    const int lane = threadIdx.x & 31;
    constexpr int D = 32 * K;
    constexpr bool RF = sk_rf_fits(T, K, DNA);  /* whole rows, first/last pieces: rotation in the FMAs */
    uint32_t P[T];
    if constexpr ((MODE == SK_NODES || MODE == SK_ENDS) && DNA && T <= 4) {
        constexpr bool LOOP = MODE == SK_NODES;  /* sk_stream's WORD_LOOP: both DPs share the I-cache */
        int words = -1;  /* what P (and C) hold: 0 BR, 1 ROT, 2 ROT with the levels flipped */
        for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
            const sk_item w = items[it];
            const bool rev = (w.flags & SK_FLAG_REV) != 0;
            double *node = nodes + (size_t)w.out * sk_nvec(T) * D;
            if (MODE == SK_NODES && (w.flags & SK_FLAG_CHUNK)) {
                if (words != 0) sk_dna_words<T, K, SK_BR>(tab, lane, P, false), words = 0;
                float N[T * (T + 1) / 2][K];
                sk_fast_dp<T, K, T, true, SK_BR, true>(tab, P, codes, w.off, w.off + w.len, rev,
                                                       rev ? SK_COMPLEMENT : 0u, lane, N);
                sk_write_node<T, K, SK_BR, false>(node, N, w.len, false, lane);
            } else {
                /* first piece: the plain DP; last piece: backwards with the tables flipped. On the
                 * reverse-complement strand "backwards" is the other way round in the code buffer
                 * (the strand is read backwards already). */
                const bool tail = (w.flags & SK_FLAG_TAIL) != 0;
                if (words != 1 + tail) sk_dna_words<T, K, SK_ROT>(tab, lane, P, tail), words = 1 + tail;
                float N[T][K];
                if constexpr (RF) {
                    /* made per piece (pieces are long): not live while middle chunks run */
                    uint32_t C[T][K];
                    sk_rf_words<T, K>(tab, lane, tail, C);
                    sk_rf_dp<T, K, LOOP>(P, C, codes, w.off, w.off + w.len, rev != tail, rev ? SK_COMPLEMENT : 0u, N);
                } else {
                    sk_fast_dp<T, K, 1, true, SK_ROT, LOOP>(tab, P, codes, w.off, w.off + w.len, rev != tail,
                                                            rev ? SK_COMPLEMENT : 0u, lane, N);
                }
                sk_write_node<T, K, SK_ROT, true, RF>(node, N, w.len, tail, lane);
            }
        }
    } else {
        /* beside a pieces launch whole rows keep the select form: they only fill the SMs around
         * the pieces, and the FMA form's float work competes with the pieces' (docs/gpu.md) */
        constexpr bool RFW = RF && MODE == SK_ROWS;
        uint32_t C[RFW ? T : 1][RFW ? K : 1];
        if constexpr (DNA) sk_dna_words<T, K, SK_ROT>(tab, lane, P, false);
        if constexpr (RFW) sk_rf_words<T, K>(tab, lane, false, C);
        for (int it = sk_next_item(counter, lane); it < n_items; it = sk_next_item(counter, lane)) {
            const sk_item w = items[it];
            double res[K];
#pragma unroll
            for (int k = 0; k < K; k++) res[k] = 0.0;
            if (w.len >= T) {
                float N[T][K];
                const int strands = (w.flags & SK_FLAG_CANON) ? 2 : 1;
                const double f = (RFW ? sk_rf_factor(w.len, T) : sk_fast_factor(w.len, T)) / strands;
#pragma unroll 1
                for (int s = 0; s < strands; s++) {
                    if constexpr (RFW)
                        sk_rf_dp<T, K>(P, C, codes, w.off, w.off + w.len, s == 1, s == 1 ? SK_COMPLEMENT : 0u, N);
                    else
                        sk_fast_dp<T, K, 1, DNA, SK_ROT>(tab, P, codes, w.off, w.off + w.len, s == 1,
                                                         s == 1 ? SK_COMPLEMENT : 0u, lane, N);
#pragma unroll
                    for (int k = 0; k < K; k++) res[k] += (double)N[T - 1][k] * f;
                }
            }
#pragma unroll
            for (int k = 0; k < K; k++) {
                const size_t at = (size_t)w.out * D + sk_bin<K, SK_ROT>(lane, k);
                if (out_double) ((double *)out)[at] = res[k];
                else ((float *)out)[at] = (float)res[k];
            }
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
