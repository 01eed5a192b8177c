/* vec_dist.h: the arithmetic of l2 and cosine distances between vector sketches, one definition
 * for the host and the device (cpu/cpu_dist.c and gpu/dist_kernels.cu call these very functions),
 * so both engines print the same bytes for every pair, on every path (#42).
 *
 * A distance is a sum of squared differences S = sum (s_a a_e - s_b b_e)^2 with s = 1 for l2 and
 * s = 1/|x| (float64 norm, rounded to float) for cosine; l2 = sqrt(S), cosine = 1 - cos = S / 2
 * (clamped to [0, 2]; 1 when either vector is zero). Summing differences of the scaled vectors keeps
 * full relative accuracy for near-identical sketches, where the expansion |a|^2 + |b|^2 - 2ab (or
 * (|a - b|^2 - (|a| - |b|)^2) / 2|a||b|) cancels to noise, and it is one order of operations that
 * every engine can follow:
 *  - scaling: x_e = fl(a_e * s_a), one float32 product (tsk_vd_scale);
 *  - sets whose items have equal row counts (tiled paths): the elements in order, chunks of
 *    TSK_VD_CHUNK, each chunk summed in float32 with one FMA per element, fmaf(d, d, acc) with
 *    d = fl(x_e - y_e) (tsk_vd_step), the chunk sums added in float64 from 0 in order;
 *  - pairs of unequal row counts (slide sketches): tsk_vd_pair_sum, 16 float32 lanes per chunk
 *    with a product and an addition each (no FMA), the lanes added in order, the chunks in float64.
 * Products and sums are written so no compiler contracts them: __fmul_rn/__fadd_rn/__fsub_rn on
 * the device (nvcc contracts a*b+c by default), plain operators on the host, where C17 (ISO mode)
 * and cpu/meson.build's -ffp-contract=off keep them apart. FMAs are explicit (fmaf, or the SIMD
 * kernels' fmadd on the CPU: one rounding, like fmaf). */
#ifndef TSK_VEC_DIST_H
#define TSK_VEC_DIST_H

#include <math.h>
#include <stdint.h>

#include "tsk_def.h" /* TSK_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

/* Elements summed in float32 before the sum is carried in float64: bounds the rounding error of
 * long (slide) vectors. */
#define TSK_VD_CHUNK 128

#ifdef __CUDA_ARCH__
#define TSK_VD_MUL(a, b) __fmul_rn((a), (b))
#define TSK_VD_ADD(a, b) __fadd_rn((a), (b))
#define TSK_VD_SUB(a, b) __fsub_rn((a), (b))
#else
#define TSK_VD_MUL(a, b) ((a) * (b))
#define TSK_VD_ADD(a, b) ((a) + (b))
#define TSK_VD_SUB(a, b) ((a) - (b))
#endif

/* The cosine scale of a vector of squared norm n2 (float64): 1/|x| rounded to float, 0 for a zero
 * vector (which marks it: its distances are 1). */
static inline TSK_HOST_DEVICE float tsk_vd_inv_norm(double n2) { return n2 > 0 ? (float)(1.0 / sqrt(n2)) : 0.0f; }

/* Squared norm of x[0..len) in float64, the elements in order (products of floats are exact in
 * float64, so an FMA would give the same sum). */
static inline TSK_HOST_DEVICE double tsk_vd_norm2(const float *x, int64_t len)
{
    double acc = 0;
    for (int64_t e = 0; e < len; e++) acc += (double)x[e] * x[e];
    return acc;
}

/* One element scaled for the sums: fl(x * s). */
static inline TSK_HOST_DEVICE float tsk_vd_scale(float x, float s) { return TSK_VD_MUL(x, s); }

/* One step of a tiled chunk sum: acc + (x - y)^2 with one rounding of the FMA. */
static inline TSK_HOST_DEVICE float tsk_vd_step(float acc, float x, float y)
{
    float d = TSK_VD_SUB(x, y);
    return fmaf(d, d, acc);
}

/* The distance printed for a sum S (float64: chunk sums carried). zero: cosine of a zero vector. */
static inline TSK_HOST_DEVICE float tsk_vd_finish(double sum, int cosine, int zero)
{
    if (!cosine) return (float)sqrt(sum);
    if (zero) return 1.0f;
    double c = sum * 0.5;
    return (float)(c < 0 ? 0 : c > 2 ? 2 : c);
}

/* tsk_vd_finish of a sum of one chunk (len <= TSK_VD_CHUNK), from its float32 value: l2 takes
 * sqrtf, which equals (float)sqrt((double)s) (a float64 square root rounded to float is the
 * correctly rounded float root: 53 >= 2 * 24 + 2 bits), and is cheaper on the device. */
static inline TSK_HOST_DEVICE float tsk_vd_finish_chunk(float sum, int cosine, int zero)
{
    if (!cosine) return sqrtf(sum);
    return tsk_vd_finish((double)sum, 1, zero);
}

/* S of a pair of unequal row counts over len elements: a scaled by sa, b by sb (1 for l2). */
static inline TSK_HOST_DEVICE double tsk_vd_pair_sum(const float *a, float sa, const float *b, float sb, int64_t len)
{
    double sum = 0;
    for (int64_t e0 = 0; e0 < len; e0 += TSK_VD_CHUNK) {
        int64_t end = len - e0 < TSK_VD_CHUNK ? len : e0 + TSK_VD_CHUNK;
        float acc[16] = {0};
        int64_t e = e0;
        for (; e + 16 <= end; e += 16)
            for (int j = 0; j < 16; j++) {
                float x = TSK_VD_SUB(TSK_VD_MUL(a[e + j], sa), TSK_VD_MUL(b[e + j], sb));
                acc[j] = TSK_VD_ADD(acc[j], TSK_VD_MUL(x, x));
            }
        for (int j = 0; e < end; e++, j++) {
            float x = TSK_VD_SUB(TSK_VD_MUL(a[e], sa), TSK_VD_MUL(b[e], sb));
            acc[j] = TSK_VD_ADD(acc[j], TSK_VD_MUL(x, x));
        }
        float s = 0;
        for (int j = 0; j < 16; j++) s = TSK_VD_ADD(s, acc[j]);
        sum += s;
    }
    return sum;
}

#ifdef __cplusplus
}
#endif
#endif
