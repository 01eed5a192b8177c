/* sketch_short.c: the bin recurrence on sixteen lanes (sketch_short.h). */
#include "sketch_short.h"

#include <stdlib.h>
#include <string.h>

/* Sixteen int32 lanes: one level of the recurrence at D = 16. */
typedef int32_t lanes16 __attribute__((vector_size(64)));

/* r = x permuted: lane b of r is lane idx[b] of x (a macro: vectors passed to functions would change
 * the ABI). One vpermd with AVX-512 under GCC; clang (the fuzzing build) has no variable-index
 * shuffle builtin and takes the lanes one by one. */
#if defined(__clang__)
#define PERMUTE16(r, x, idx) \
    for (int b_ = 0; b_ < 16; b_++) (r)[b_] = (x)[(idx)[b_] & 15]
#else
#define PERMUTE16(r, x, idx) (r) = __builtin_shuffle((x), (idx))
#endif

/* rot[k][c] rotates a level by hash[k][c] (lane b takes lane (b - h) mod 16); neg[k][c] is
 * sign[k][c] as a mask, 0 or all ones: (r ^ m) - m is r or -r without a branch, whose outcome
 * the letters make a coin toss. */
struct tsk_short_tables {
    lanes16 rot[TSK_COUNT_MAX_T][4], neg[TSK_COUNT_MAX_T][4];
};

tsk_short_tables *tsk_short_tables_make(const tsk_params *p)
{
    if (p->alphabet != TSK_DNA || p->dim != 16 || p->t < 1 || p->t > TSK_COUNT_MAX_T) return NULL;
    tsk_short_tables *st = aligned_alloc(64, sizeof *st);
    if (!st) return NULL;
    memset(st, 0, sizeof *st);
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < 4; c++)
            for (int b = 0; b < 16; b++) {
                st->rot[k][c][b] = (b - p->hash[k][c] + 16) % 16;
                st->neg[k][c][b] = p->sign[k][c] < 0 ? -1 : 0;
            }
    return st;
}

void tsk_short_tables_free(tsk_short_tables *st) { free(st); }

/* One strand of x[0..n) (reverse: its reverse complement), level t added to acc[0..16). Level k
 * after a base c: T_k += sign_k(c) * rotate(T_{k-1}, hash_k(c)), k from t down to 1 so that each
 * level extends the tuples of the one below as it was before c. Any t; the genome defaults (t = 4,
 * both strands) take both_strand_sums_t4. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void strand_sums(const uint8_t *x, int64_t n, int reverse, int t, const tsk_short_tables *st, int32_t *acc)
{
    lanes16 lv[TSK_COUNT_MAX_T + 1];
    memset(lv, 0, sizeof lv);
    lv[0][0] = 1;
    for (int64_t i = 0; i < n; i++) {
        const int c = reverse ? 3 - (x[n - 1 - i] & 3) : x[i] & 3;
        for (int k = i + 1 < t ? (int)i + 1 : t; k >= 1; k--) {
            lanes16 r;
            PERMUTE16(r, lv[k - 1], st->rot[k - 1][c]);
            const lanes16 m = st->neg[k - 1][c];
            lv[k] += (r ^ m) - m;
        }
    }
    for (int b = 0; b < 16; b++) acc[b] += lv[t][b];
}

/* One level's step (dst += sign * rotate(src)) for letter c at level k (0-based). */
#define SHORT_STEP(dst, src, k, c)                          \
    do {                                                    \
        lanes16 r_;                                         \
        PERMUTE16(r_, (src), st->rot[(k)][(c)]);            \
        const lanes16 m_ = st->neg[(k)][(c)];               \
        (dst) += (r_ ^ m_) - m_;                            \
    } while (0)

/* strand_sums of both strands at t = 4 (the genome defaults), in one loop with the levels in
 * registers: with an array of levels indexed by a run-time k they lived on the stack, a store and
 * a load per step, and the two strands' chains now overlap. Every level is stepped from the first
 * base on: a level above the ones filled so far steps by a rotation of zeros, which adds nothing,
 * so the result is the same integers as two strand_sums calls. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static void both_strand_sums_t4(const uint8_t *x, int64_t n, const tsk_short_tables *st, int32_t *acc)
{
    const lanes16 one = {1};
    lanes16 f1 = {0}, f2 = {0}, f3 = {0}, f4 = {0}, r1 = {0}, r2 = {0}, r3 = {0}, r4 = {0};
    for (int64_t i = 0; i < n; i++) {
        const int cf = x[i] & 3, cr = 3 - (x[n - 1 - i] & 3);
        SHORT_STEP(f4, f3, 3, cf);
        SHORT_STEP(r4, r3, 3, cr);
        SHORT_STEP(f3, f2, 2, cf);
        SHORT_STEP(r3, r2, 2, cr);
        SHORT_STEP(f2, f1, 1, cf);
        SHORT_STEP(r2, r1, 1, cr);
        SHORT_STEP(f1, one, 0, cf);
        SHORT_STEP(r1, one, 0, cr);
    }
    for (int b = 0; b < 16; b++) acc[b] += f4[b] + r4[b];
}

void tsk_short_row(const tsk_params *p, const tsk_short_tables *st, const uint8_t *x, int64_t n, double *row)
{
    memset(row, 0, sizeof(double) * 16);
    if (n < p->t) return;
    int32_t acc[16] = {0};
    if (p->canonical && p->t == 4) {
        both_strand_sums_t4(x, n, st, acc);
    } else {
        strand_sums(x, n, 0, p->t, st, acc);
        if (p->canonical) strand_sums(x, n, 1, p->t, st, acc);
    }
    double tuples = 1.0;
    for (int i = 0; i < p->t; i++) tuples = tuples * (double)(n - i) / (double)(i + 1);
    const double denom = (p->canonical ? 2.0 : 1.0) * tuples;
    for (int b = 0; b < 16; b++) row[b] = (double)acc[b] / denom;
}
