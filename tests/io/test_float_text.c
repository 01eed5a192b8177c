/* test_float_text.c: tsk_float_g9 writes printf's "%.9g" bytes (io/float_text.h): every third
 * float32 of the binades around 1 (where distances lie), every float near a power of ten, decimal
 * ties, the ends of its fast range, and random bit patterns of every exponent, each compared with
 * snprintf. An exhaustive run over every float32 is `bench/io/float_text_bench all`. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/float_text.h"

static float from_bits(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Floats of bit patterns [lo, hi) by step, both signs: how many differ from snprintf (the first
 * one reported). */
static long differing(uint64_t lo, uint64_t hi, uint64_t step)
{
    long bad = 0;
    for (uint64_t u = lo; u < hi; u += step)
        for (uint32_t sign = 0; sign <= 1; sign++) {
            const float v = from_bits((uint32_t)u | sign << 31);
            char fast[40], ref[40];
            memset(fast, 'x', sizeof fast);
            const size_t n = tsk_float_g9(fast, v);
            const int m = snprintf(ref, sizeof ref, "%.9g", (double)v);
            if ((int)n != m || strcmp(fast, ref)) {
                if (!bad) cr_log_error("bits %08x: '%s', printf '%s'", (unsigned)(u | sign << 31), fast, ref);
                bad++;
            }
        }
    return bad;
}

static uint32_t bits_of(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

Test(float_text, every_third_float_of_the_binade_below_one)
{
    cr_assert_eq(differing(bits_of(0.5f), bits_of(1.0f), 3), 0);
}

Test(float_text, every_third_float_of_the_binade_above_one)
{
    cr_assert_eq(differing(bits_of(1.0f) + 1, bits_of(2.0f), 3), 0);
}

Test(float_text, around_powers_of_ten)
{
    /* 2^14 floats on each side of every power of ten in the fast range and beyond it */
    long bad = 0;
    for (int e = -38; e <= 38; e++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", e);
        const uint32_t u = bits_of(strtof(s, NULL));
        bad += differing(u > 16384 ? u - 16384 : 0, (uint64_t)u + 16384, 1);
    }
    cr_assert_eq(bad, 0);
}

Test(float_text, decimal_ties_round_to_even)
{
    /* floats whose 10th significant digit is an exact 5: k / 2^n with few bits */
    long bad = 0;
    for (uint32_t m = 1; m < 4096; m++)
        for (int e = -30; e <= 20; e++) bad += differing(bits_of(ldexpf((float)m, e)), bits_of(ldexpf((float)m, e)) + 1, 1);
    cr_assert_eq(bad, 0);
}

Test(float_text, zero_infinities_nan_and_the_far_ends)
{
    const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, 1e30f, 1.17549435e-38f, 1e-45f,
                             3.40282347e38f, 9.99999944e-31f, 1.00000002e30f};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        cr_assert_eq(differing(bits_of(special[i]), (uint64_t)bits_of(special[i]) + 1, 1), 0);
}

Test(float_text, random_bit_patterns_of_every_exponent)
{
    /* a fixed stride through all 2^31 patterns of one sign (both signs are tried) */
    cr_assert_eq(differing(0, UINT64_C(1) << 31, 2039), 0);
}
