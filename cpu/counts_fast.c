/* counts_fast.c: the tuple counts as the CPU engine computes them (sketch_counts.h, "engine form").
 *
 * Why the layout: appending letter c to every (k-1)-tuple adds level k-1 to the level-k counts of
 * the tuples ending in c. With the first letter least significant those are one contiguous run,
 * offset(k) + c 4^(k-1) .. + 4^(k-1), so a character adds 64 + 16 + 4 + 1 values at t=4 where the
 * sketch DP moves t D = 384 between bins (one core, t=4: about 4 times the DP's speed on AVX2).
 *
 * Why 32-bit blocks: a count of a block of TSK_COUNTS_BLOCK characters is at most C(512, 4) < 2^32,
 * so 8 counts fit a vector and are exact; each block then joins the double totals through the merge
 * formula (about 2.5 multiply-adds per character at t=4). Totals are exact integers below 2^53 and
 * take one double rounding per block beyond, as the GPU's count kernel does. */
#include "sketch_counts.h"

#include <stdlib.h>
#include <string.h>

#include "../core/tsk_knobs.h"

/* Level k's run for letter c gets level k-1 added (restrict: the two runs never overlap). */
static inline __attribute__((always_inline)) void add_run(uint32_t *restrict to, const uint32_t *restrict from,
                                                          int len)
{
    for (int j = 0; j < len; j++) to[j] += from[j];
}

/* One block's characters, counted from zero into cnt (engine layout, all levels), for a constant
 * t (always inlined into the switches below, so every run has a constant length). Plain C: any CPU. */
static inline __attribute__((always_inline)) void count_plain_t(const int t, const uint8_t *x, int64_t n,
                                                                uint32_t *cnt)
{
    memset(cnt, 0, sizeof(uint32_t) * (size_t)tsk_counts_size(t));
    cnt[0] = 1;
    for (int64_t i = 0; i < n; i++) {
        const int c = x[i] & 3;
        /* levels from the top down: level k reads level k-1 as it was before this character */
        if (t >= 4) add_run(cnt + 85 + c * 64, cnt + 21, 64);
        if (t >= 3) add_run(cnt + 21 + c * 16, cnt + 5, 16);
        if (t >= 2) add_run(cnt + 5 + c * 4, cnt + 1, 4);
        cnt[1 + c] += 1;
    }
}

/* fn(T, args) for the constant T equal to t (1..4; above 4 as 4): each kernel is compiled once per
 * level count, its loops over levels and runs unrolled */
#define BY_CONSTANT_T(fn, ...)                                                                               \
    switch (t) {                                                                                             \
    case 1: fn(1, __VA_ARGS__); break;                                                                       \
    case 2: fn(2, __VA_ARGS__); break;                                                                       \
    case 3: fn(3, __VA_ARGS__); break;                                                                       \
    default: fn(4, __VA_ARGS__); break;                                                                      \
    }

static void count_plain(int t, const uint8_t *x, int64_t n, uint32_t *cnt) { BY_CONSTANT_T(count_plain_t, x, n, cnt) }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define HAVE_COUNT_AVX2 1

/* The same with AVX2 intrinsics, written out because the compiler's own vectors of these loops
 * spill through general registers. Levels 1-3 stay in registers (one 128-bit, two and eight 256-bit
 * ones), updated under masks of the letter; only the top level lives in memory, at an address that
 * depends on the letter, and is never loaded by another level: loading level 3 from memory after
 * such stores made the CPU's memory disambiguation guess wrong and replay (a third of the speed). */
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
count_avx2_t(const int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    _Alignas(32) static const uint32_t one_hot[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    /* quarter[c][q]: all ones when q = c: level 3's quarter q (registers 2q, 2q+1) gets level 2 */
    _Alignas(32) static const uint32_t quarter[4][4][8] = {
        {{~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u}, {0}, {0}, {0}},
        {{0}, {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u}, {0}, {0}},
        {{0}, {0}, {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u}, {0}},
        {{0}, {0}, {0}, {~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u}}};
    /* half[c][h]: all ones where letter c extends level 1 into half h of level 2 (4 values each) */
    _Alignas(32) static const uint32_t half[4][2][8] = {
        {{~0u, ~0u, ~0u, ~0u, 0, 0, 0, 0}, {0}},
        {{0, 0, 0, 0, ~0u, ~0u, ~0u, ~0u}, {0}},
        {{0}, {~0u, ~0u, ~0u, ~0u, 0, 0, 0, 0}},
        {{0}, {0, 0, 0, 0, ~0u, ~0u, ~0u, ~0u}}};
    _Alignas(32) uint32_t l4[256];
    /* named registers, not arrays: GCC stores and reloads arrays of vectors after every update */
    __m128i l1 = _mm_setzero_si128();
    __m256i l2a = _mm256_setzero_si256(), l2b = l2a;
    __m256i l30 = l2a, l31 = l2a, l32 = l2a, l33 = l2a, l34 = l2a, l35 = l2a, l36 = l2a, l37 = l2a;
    if (t >= 3) memset(l4, 0, sizeof l4); /* level 4, or level 3 when it is the top */
    for (int64_t i = 0; i < n; i++) {
        const int c = x[i] & 3;
        if (t >= 4) {
            __m256i *to = (__m256i *)(l4 + 64 * c);
#define L4_ADD(j, v) _mm256_store_si256(to + j, _mm256_add_epi32(_mm256_load_si256(to + j), v))
            L4_ADD(0, l30), L4_ADD(1, l31), L4_ADD(2, l32), L4_ADD(3, l33);
            L4_ADD(4, l34), L4_ADD(5, l35), L4_ADD(6, l36), L4_ADD(7, l37);
#undef L4_ADD
        }
        if (t == 3) { /* the top level: only ever added to, so memory is fine */
            __m256i *to = (__m256i *)(l4 + 16 * c);
            _mm256_store_si256(to, _mm256_add_epi32(_mm256_load_si256(to), l2a));
            _mm256_store_si256(to + 1, _mm256_add_epi32(_mm256_load_si256(to + 1), l2b));
        }
        if (t >= 4) {
            const __m256i *m = (const __m256i *)quarter[c];
#define L3_ADD(q, lo, hi)                                                                                    \
    lo = _mm256_add_epi32(lo, _mm256_and_si256(l2a, _mm256_load_si256(m + q))),                               \
    hi = _mm256_add_epi32(hi, _mm256_and_si256(l2b, _mm256_load_si256(m + q)))
            L3_ADD(0, l30, l31), L3_ADD(1, l32, l33), L3_ADD(2, l34, l35), L3_ADD(3, l36, l37);
#undef L3_ADD
        }
        if (t >= 2) {
            const __m256i both = _mm256_broadcastsi128_si256(l1);
            l2a = _mm256_add_epi32(l2a, _mm256_and_si256(both, _mm256_load_si256((const __m256i *)half[c][0])));
            l2b = _mm256_add_epi32(l2b, _mm256_and_si256(both, _mm256_load_si256((const __m256i *)half[c][1])));
        }
        l1 = _mm_add_epi32(l1, _mm_load_si128((const __m128i *)one_hot[c]));
    }
    cnt[0] = 1;
    _mm_storeu_si128((__m128i *)(cnt + 1), l1);
    __m256i *lv = (__m256i *)(cnt + 5);
    if (t >= 2) _mm256_storeu_si256(lv, l2a), _mm256_storeu_si256(lv + 1, l2b);
    lv = (__m256i *)(cnt + 21);
    if (t == 3) memcpy(lv, l4, 64 * sizeof *l4);
    if (t >= 4) {
        _mm256_storeu_si256(lv, l30), _mm256_storeu_si256(lv + 1, l31), _mm256_storeu_si256(lv + 2, l32);
        _mm256_storeu_si256(lv + 3, l33), _mm256_storeu_si256(lv + 4, l34), _mm256_storeu_si256(lv + 5, l35);
        _mm256_storeu_si256(lv + 6, l36), _mm256_storeu_si256(lv + 7, l37);
    }
    if (t >= 4) memcpy(cnt + 85, l4, sizeof l4);
}

__attribute__((target("avx2"))) static void count_avx2(int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    BY_CONSTANT_T(count_avx2_t, x, n, cnt)
}
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define HAVE_COUNT_AVX512 1

/* The same with 512-bit registers: level 3 is four registers, one per letter's run, so a letter adds
 * level 2 to one of them under a mask from a table, and the top level is four load-add-stores
 * instead of eight: about half the vector operations and stores of the AVX2 kernel per character
 * (one core of the H200 machine's Xeon: 180-213 against 147-156 Mbp/s for the engine). */
__attribute__((target("avx512f"))) static inline __attribute__((always_inline)) void
count_avx512_t(const int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    _Alignas(16) static const uint32_t one_hot[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    /* run[c][q]: all lanes when q = c (level 3's register q is letter q's run), none otherwise */
    static const __mmask16 run[4][4] = {
        {0xFFFF, 0, 0, 0}, {0, 0xFFFF, 0, 0}, {0, 0, 0xFFFF, 0}, {0, 0, 0, 0xFFFF}};
    /* lanes 4c .. 4c+3 of level 2: the tuples that letter c extends from level 1 */
    static const __mmask16 quad[4] = {0x000F, 0x00F0, 0x0F00, 0xF000};
    _Alignas(64) uint32_t l4[256];
    __m128i l1 = _mm_setzero_si128();
    __m512i l2 = _mm512_setzero_si512();
    __m512i l30 = l2, l31 = l2, l32 = l2, l33 = l2;
    if (t >= 3) memset(l4, 0, sizeof l4); /* level 4, or level 3 when it is the top */
    for (int64_t i = 0; i < n; i++) {
        const int c = x[i] & 3;
        if (t >= 4) {
            __m512i *to = (__m512i *)(l4 + 64 * c);
            _mm512_store_si512(to, _mm512_add_epi32(_mm512_load_si512(to), l30));
            _mm512_store_si512(to + 1, _mm512_add_epi32(_mm512_load_si512(to + 1), l31));
            _mm512_store_si512(to + 2, _mm512_add_epi32(_mm512_load_si512(to + 2), l32));
            _mm512_store_si512(to + 3, _mm512_add_epi32(_mm512_load_si512(to + 3), l33));
            l30 = _mm512_mask_add_epi32(l30, run[c][0], l30, l2);
            l31 = _mm512_mask_add_epi32(l31, run[c][1], l31, l2);
            l32 = _mm512_mask_add_epi32(l32, run[c][2], l32, l2);
            l33 = _mm512_mask_add_epi32(l33, run[c][3], l33, l2);
        }
        if (t == 3) { /* the top level: only ever added to, so memory is fine */
            __m512i *to = (__m512i *)(l4 + 16 * c);
            _mm512_store_si512(to, _mm512_add_epi32(_mm512_load_si512(to), l2));
        }
        if (t >= 2) l2 = _mm512_mask_add_epi32(l2, quad[c], l2, _mm512_broadcast_i32x4(l1));
        l1 = _mm_add_epi32(l1, _mm_load_si128((const __m128i *)one_hot[c]));
    }
    cnt[0] = 1;
    _mm_storeu_si128((__m128i *)(cnt + 1), l1);
    if (t >= 2) _mm512_storeu_si512(cnt + 5, l2);
    if (t == 3) memcpy(cnt + 21, l4, 64 * sizeof *l4);
    if (t >= 4) {
        _mm512_storeu_si512(cnt + 21, l30), _mm512_storeu_si512(cnt + 37, l31);
        _mm512_storeu_si512(cnt + 53, l32), _mm512_storeu_si512(cnt + 69, l33);
        memcpy(cnt + 85, l4, sizeof l4);
    }
}

__attribute__((target("avx512f"))) static void count_avx512(int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    BY_CONSTANT_T(count_avx512_t, x, n, cnt)
}
#endif

int tsk_counts_kernel_available(tsk_counts_kernel k)
{
    switch (k) {
    case TSK_COUNTS_KERNEL_PLAIN: return 1;
#ifdef HAVE_COUNT_AVX2
    case TSK_COUNTS_KERNEL_AVX2: return __builtin_cpu_supports("avx2");
#endif
#ifdef HAVE_COUNT_AVX512
    case TSK_COUNTS_KERNEL_AVX512: return __builtin_cpu_supports("avx512f");
#endif
    default: return 0;
    }
}

void tsk_counts_block_with(tsk_counts_kernel k, int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    switch (k) {
#ifdef HAVE_COUNT_AVX2
    case TSK_COUNTS_KERNEL_AVX2: count_avx2(t, x, n, cnt); return;
#endif
#ifdef HAVE_COUNT_AVX512
    case TSK_COUNTS_KERNEL_AVX512: count_avx512(t, x, n, cnt); return;
#endif
    default: count_plain(t, x, n, cnt); return;
    }
}

/* The kernel the engine runs: the widest this CPU has, or TSKETCH_COUNTS_KERNEL=portable|avx2|avx512
 * (benches and tests; portable is the plain kernel; a kernel the CPU lacks falls back to the widest
 * it has). All give the same integers. */
static tsk_counts_kernel engine_kernel(void)
{
    static int chosen = -1;
    int k = __atomic_load_n(&chosen, __ATOMIC_RELAXED);
    if (k < 0) {
        const tsk_knob_kernel want = tsk_knobs_get()->counts_kernel;
        k = TSK_COUNTS_KERNEL_PLAIN;
        for (int w = TSK_COUNTS_KERNEL_AVX512; w > TSK_COUNTS_KERNEL_PLAIN; w--)
            if (tsk_counts_kernel_available((tsk_counts_kernel)w)) {
                k = w;
                break;
            }
        if (want == TSK_KNOB_PORTABLE) k = TSK_COUNTS_KERNEL_PLAIN;
        if (want == TSK_KNOB_AVX2 && tsk_counts_kernel_available(TSK_COUNTS_KERNEL_AVX2))
            k = TSK_COUNTS_KERNEL_AVX2;
        if (want == TSK_KNOB_AVX512 && tsk_counts_kernel_available(TSK_COUNTS_KERNEL_AVX512))
            k = TSK_COUNTS_KERNEL_AVX512;
        __atomic_store_n(&chosen, k, __ATOMIC_RELAXED);
    }
    return (tsk_counts_kernel)k;
}

static void count_block(int t, const uint8_t *x, int64_t n, uint32_t *cnt)
{
    tsk_counts_block_with(engine_kernel(), t, x, n, cnt);
}

/* u <- u v (engine layout, in place): level k of uv is sum_j u_j (x) v_(k-j), the first j letters
 * from u; levels from t down, so the u_j (j < k) read are still u's. Every value of level k takes its
 * products in the order j = 0, 1, .., k-1, each a multiply then an add (ISO C: no contraction into
 * a fused multiply-add), so the vector forms below, which only put independent values side by side,
 * give the same bits as one value at a time, beyond 2^53 too. */
static inline __attribute__((always_inline)) void merge_t(const int t, double *u, const double *v)
{
    for (int k = t; k >= 1; k--) {
        for (int j = 0; j < k; j++) {
            double *restrict o = u + tsk_counts_offset(k);
            const double *restrict uj = u + tsk_counts_offset(j);
            const double *restrict vr = v + tsk_counts_offset(k - j);
            const int nj = 1 << (2 * j), nr = 1 << (2 * (k - j));
            /* index of a tuple = index of its first j letters + 4^j x index of the rest */
            if (nj == 1) {
                const double a = uj[0];
                for (int s = 0; s < nr; s++) o[s] += a * vr[s];
            } else {
                for (int s = 0; s < nr; s++) {
                    const double w = vr[s];
                    for (int q = 0; q < nj; q++) o[s * nj + q] += uj[q] * w;
                }
            }
        }
    }
}

static void merge_plain(int t, double *u, const double *v) { BY_CONSTANT_T(merge_t, u, v) }
#ifdef HAVE_COUNT_AVX2
__attribute__((target("avx2"))) static void merge_avx2(int t, double *u, const double *v)
{
    BY_CONSTANT_T(merge_t, u, v)
}
#endif
#ifdef HAVE_COUNT_AVX512
__attribute__((target("avx512f"))) static void merge_avx512(int t, double *u, const double *v)
{
    BY_CONSTANT_T(merge_t, u, v)
}
#endif

void tsk_counts_merge_with(tsk_counts_kernel k, int t, double *u, const double *v)
{
    switch (k) {
#ifdef HAVE_COUNT_AVX2
    case TSK_COUNTS_KERNEL_AVX2: merge_avx2(t, u, v); return;
#endif
#ifdef HAVE_COUNT_AVX512
    case TSK_COUNTS_KERNEL_AVX512: merge_avx512(t, u, v); return;
#endif
    default: merge_plain(t, u, v); return;
    }
}

void tsk_counts_merge(int t, double *u, const double *v) { tsk_counts_merge_with(engine_kernel(), t, u, v); }

void tsk_counts_scan_engine(int t, const uint8_t *codes, int64_t n, double *state)
{
    const int size = tsk_counts_size(t);
    uint32_t cnt[341];
    double block[341];
    if (n <= 0) { /* the empty string's state; otherwise the first block writes every value */
        memset(state, 0, sizeof(double) * (size_t)size);
        state[0] = 1.0;
    }
    for (int64_t at = 0; at < n; at += TSK_COUNTS_BLOCK) {
        const int64_t m = n - at < TSK_COUNTS_BLOCK ? n - at : TSK_COUNTS_BLOCK;
        count_block(t, codes + at, m, cnt);
        double *to = at == 0 ? state : block;
        for (int i = 0; i < size; i++) to[i] = (double)cnt[i];
        if (at > 0) tsk_counts_merge(t, state, block);
    }
}

/* Index of tau (first letter most significant) in the engine layout: its digits reversed. */
static int engine_index(int t, uint32_t tau)
{
    int r = 0;
    for (int k = 0; k < t; k++, tau >>= 2) r = (r << 2) | (int)(tau & 3u);
    return r;
}

void tsk_counts_to_plain(int t, const double *engine, double *plain)
{
    for (int k = 0; k <= t; k++)
        for (uint32_t tau = 0; tau < 1u << (2 * k); tau++)
            plain[tsk_counts_offset(k) + (int)tau] = engine[tsk_counts_offset(k) + engine_index(k, tau)];
}

void tsk_counts_map_init(const tsk_params *p, tsk_counts_map *m)
{
    m->t = p->t;
    m->dim = p->dim;
    m->canonical = p->canonical;
    for (uint32_t tau = 0; tau < 1u << (2 * p->t); tau++) {
        int bin, sign;
        tsk_tuple_hash(p, tau, &bin, &sign);
        m->bin[tau] = bin;
        m->sign[tau] = (double)sign;
        m->at[tau] = (uint16_t)engine_index(p->t, tau);
        m->at_rc[tau] = (uint16_t)engine_index(p->t, tsk_tuple_revcomp(p->t, tau));
    }
}

/* The operations of tsk_counts_row in its order, with the hashes looked up: the same bits. */
void tsk_counts_row_engine(const tsk_counts_map *m, const double *state, int64_t n, double *row)
{
    const int t = m->t;
    memset(row, 0, sizeof(double) * (size_t)m->dim);
    if (n < t) return;
    double tuples = 1.0;
    for (int i = 0; i < t; i++) tuples = tuples * (double)(n - i) / (double)(i + 1);
    const double scale = (m->canonical ? 0.5 : 1.0) / tuples;
    const double *top = state + tsk_counts_offset(t);
    for (int tau = 0; tau < 1 << (2 * t); tau++) {
        row[m->bin[tau]] += m->sign[tau] * top[m->at[tau]] * scale;
        if (m->canonical) row[m->bin[tau]] += m->sign[tau] * top[m->at_rc[tau]] * scale;
    }
}
