/* test_kernel: every kernel of the count DP (portable, AVX2, AVX-512, whichever this CPU has, and
 * the one picked automatically) gives the same bits as the generic kernel (the plain loop on the
 * doubled-row layout, which the SIMD kernels replaced without changing a bit) on random inputs:
 * chunk levels for one and for all start levels, float and double counts, many t and D (multiples
 * of 8 or 16 and not, fixed-D instances and generic ones), lengths across rescale points; and slide
 * rows, incremental (removal on the padded layout) and recomputed. The golden tests check that the
 * generic kernel computes the sketch; this one, that the fast ones compute the same bits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "golden.h"
#include "sketch_dp.h"

static const tsk_cpu_kernel kernels[] = {TSK_KERNEL_AUTO, TSK_KERNEL_PORTABLE, TSK_KERNEL_AVX2, TSK_KERNEL_AVX512};
static const char *const kernel_names[] = {"auto", "portable", "avx2", "avx512"};

static tsk_params params(int t, int dim, tsk_alphabet alphabet, uint64_t seed)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = t;
    p.dim = dim;
    p.alphabet = alphabet;
    p.seed = seed;
    tsk_tables_draw(&p);
    cr_assert_null(tsk_params_check(&p));
    return p;
}

/* Chunk levels of codes[0..q) by the generic kernel and by kernel k: whether all bits agree. */
static int levels_agree(const tsk_params *p, const uint8_t *codes, int64_t q, int starts, int in_double,
                        tsk_cpu_kernel k)
{
    const size_t values = (size_t)levels_rows(p->t, starts) * (size_t)p->dim;
    double *want = malloc(values * sizeof *want), *got = malloc(values * sizeof *got);
    cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_GENERIC), 0);
    void *s1 = aligned_alloc(64, tsk_cpu_chunk_scratch(p, starts));
    tsk_cpu_chunk_levels(p, codes, q, starts, in_double, s1, want);
    cr_assert_eq(tsk_cpu_kernel_force(k), 0);
    void *s2 = aligned_alloc(64, tsk_cpu_chunk_scratch(p, starts));
    memset(got, 0x5a, values * sizeof *got);
    tsk_cpu_chunk_levels(p, codes, q, starts, in_double, s2, got);
    const int same = memcmp(want, got, values * sizeof *got) == 0;
    cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_AUTO), 0);
    free(want);
    free(got);
    free(s1);
    free(s2);
    return same;
}

Test(kernel, chunk_levels_bit_identical_to_generic, .timeout = 240)
{
    const int dims[] = {8, 16, 24, 32, 40, 64, 96, 128, 136, 256, 5, 33, 100};
    const int ts[] = {1, 2, 3, 4, 5, 7, 16};
    const int64_t lens[] = {0, 1, 3, 63, 64, 65, 700, 2100};
    unsigned seed = 1;
    int runs = 0;
    for (size_t a = 0; a < sizeof dims / sizeof *dims; a++)
        for (size_t b = 0; b < sizeof ts / sizeof *ts; b++) {
            const int t = ts[b], dim = dims[a];
            const tsk_alphabet alphabet = (a + b) % 3 == 0 ? TSK_PROTEIN : TSK_DNA;
            const tsk_params p = params(t, dim, alphabet, 1000u + seed);
            const int64_t q = lens[(a + 3 * b) % (sizeof lens / sizeof *lens)];
            uint8_t *x = test_random_codes(q, tsk_alphabet_size(alphabet), seed++);
            for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
                if (tsk_cpu_kernel_force(kernels[k])) continue; /* not on this CPU */
                for (int starts = 1; starts <= t; starts += t > 1 ? t - 1 : 1)
                    for (int in_double = 0; in_double < 2; in_double++) {
                        cr_expect(levels_agree(&p, x, q, starts, in_double, kernels[k]),
                                  "kernel %s differs: t=%d D=%d q=%lld starts=%d double=%d alphabet=%d",
                                  kernel_names[k], t, dim, (long long)q, starts, in_double, (int)alphabet);
                        runs++;
                    }
            }
            free(x);
        }
    cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_AUTO), 0);
    cr_assert_geq(runs, 2 * 13 * 7); /* at least auto and portable */
}

Test(kernel, long_chunk_the_engine_uses)
{
    /* t=4 D=96 on a whole chunk, the default workload: float counts, one and all starts */
    const tsk_params p = params(4, 96, TSK_DNA, 7);
    const int64_t q = TSK_CPU_CHUNK;
    uint8_t *x = test_random_codes(q, 4, 99);
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        if (tsk_cpu_kernel_force(kernels[k])) continue;
        cr_expect(levels_agree(&p, x, q, 1, 0, kernels[k]), "kernel %s differs (starts 1)", kernel_names[k]);
        cr_expect(levels_agree(&p, x, q, 4, 0, kernels[k]), "kernel %s differs (starts 4)", kernel_names[k]);
    }
    cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_AUTO), 0);
    free(x);
}

Test(kernel, slide_rows_bit_identical_to_generic, .timeout = 120)
{
    const int cfg[][5] = {
        /* t, D, window, stride, canonical */
        {4, 96, 500, 50, 1}, {3, 32, 60, 1, 0}, {4, 24, 300, 3, 0}, {5, 33, 90, 9, 0},
        {2, 8, 20, 1, 1},    {6, 64, 400, 1, 0}, {4, 128, 1000, 300, 0},
    };
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        tsk_params p = params(cfg[c][0], cfg[c][1], TSK_DNA, 31u + (unsigned)c);
        p.window = cfg[c][2];
        p.stride = cfg[c][3];
        p.canonical = cfg[c][4];
        const int64_t n = 3000;
        uint8_t *x = test_random_codes(n, 4, 5u + (unsigned)c);
        const int64_t rows = tsk_rows_for_length(&p, n);
        const size_t bytes = (size_t)rows * (size_t)p.dim * sizeof(double);
        double *want = malloc(bytes), *got = malloc(bytes);
        for (int mode = TSK_SLIDE_RECOMPUTE; mode <= TSK_SLIDE_INCREMENTAL; mode++) {
            cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_GENERIC), 0);
            cr_assert_eq(tsk_cpu_slide_rows(&p, x, n, 0, rows, (tsk_slide_mode)mode, TSK_DOUBLE, want), 0);
            for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
                if (tsk_cpu_kernel_force(kernels[k])) continue;
                memset(got, 0x5a, bytes);
                cr_assert_eq(tsk_cpu_slide_rows(&p, x, n, 0, rows, (tsk_slide_mode)mode, TSK_DOUBLE, got), 0);
                cr_expect_eq(memcmp(want, got, bytes), 0, "kernel %s differs: t=%d D=%d w=%d s=%d canonical=%d mode=%d",
                             kernel_names[k], cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][3], cfg[c][4], mode);
            }
            cr_assert_eq(tsk_cpu_kernel_force(TSK_KERNEL_AUTO), 0);
        }
        free(want);
        free(got);
        free(x);
    }
}
