/* sketch_dp.c: one record's whole sketch on the CPU: the count DP of sketch_kernel.h over chunks,
 * and the split formula that joins chunks (see sketch_dp.h). */
#include "sketch_dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tsk_knobs.h"

double tsk_binom_frexp(int64_t n, int d, int *e)
{
    *e = 0;
    if (n < d) return 0.0;
    double m = 1.0;
    int ex = 0;
    for (int i = 1; i <= d; i++) {
        int k;
        m = frexp(m * ((double)(n - d + i) / (double)i), &k);
        ex += k;
    }
    *e = ex;
    return m;
}

/* The kernel choice: forced (tsk_cpu_kernel_force, or TSKETCH_CPU_KERNEL=portable|avx2|avx512 in
 * the environment, for benches: portable is GENERIC, the kernel AUTO runs without AVX2; the 16-byte
 * PORTABLE kernel is tsk_cpu_kernel_force's only), else AUTO. Relaxed atomics: a plain int read by
 * every thread, set before sketching. */
static int kernel_forced = -1; /* -1: not yet read from the environment */

static int kernel_available(tsk_cpu_kernel k)
{
    switch (k) {
    case TSK_KERNEL_AUTO:
    case TSK_KERNEL_GENERIC:
    case TSK_KERNEL_PORTABLE: return 1;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    case TSK_KERNEL_AVX2: return __builtin_cpu_supports("avx2");
    case TSK_KERNEL_AVX512: return __builtin_cpu_supports("avx512f");
#endif
    default: return 0;
    }
}

static tsk_cpu_kernel kernel_forced_now(void)
{
    int k = __atomic_load_n(&kernel_forced, __ATOMIC_RELAXED);
    if (k >= 0) return (tsk_cpu_kernel)k;
    switch (tsk_knobs_get()->cpu_kernel) {
    case TSK_KNOB_PORTABLE: k = TSK_KERNEL_GENERIC; break;
    case TSK_KNOB_AVX2: k = TSK_KERNEL_AVX2; break;
    case TSK_KNOB_AVX512: k = TSK_KERNEL_AVX512; break;
    default: k = TSK_KERNEL_AUTO; break;
    }
    if (!kernel_available((tsk_cpu_kernel)k)) k = TSK_KERNEL_AUTO; /* a kernel this CPU lacks: AUTO */
    __atomic_store_n(&kernel_forced, k, __ATOMIC_RELAXED);
    return (tsk_cpu_kernel)k;
}

int tsk_cpu_kernel_force(tsk_cpu_kernel k)
{
    if ((int)k < 0 || k > TSK_KERNEL_AVX512 || !kernel_available(k)) return -1;
    __atomic_store_n(&kernel_forced, (int)k, __ATOMIC_RELAXED);
    return 0;
}

/* AUTO takes the padded layout only with AVX2 or better: the 16-byte kernel is slower than the
 * compiler-vectorized generic loop at D = 96 (13 vs 19.5 Mbp/s on SSE4.2: performance.md "Sketching: CPU engine"). */
int counts_padded(int dim)
{
    const tsk_cpu_kernel forced = kernel_forced_now();
    if (dim % 8 != 0 || forced == TSK_KERNEL_GENERIC) return 0;
    return forced != TSK_KERNEL_AUTO || kernel_available(TSK_KERNEL_AVX2);
}

tsk_cpu_kernel tsk_cpu_kernel_used(int dim, int in_double)
{
    if (!counts_padded(dim)) return TSK_KERNEL_GENERIC;
    const tsk_cpu_kernel forced = kernel_forced_now();
    /* AVX-512 holds 16 floats, which D must be a multiple of; every other width divides 8 */
    const int fits512 = in_double || dim % 16 == 0;
    if (forced == TSK_KERNEL_AVX512 && !fits512) return TSK_KERNEL_AVX2;
    if (forced != TSK_KERNEL_AUTO) return forced;
    if (fits512 && kernel_available(TSK_KERNEL_AVX512)) return TSK_KERNEL_AVX512;
    return TSK_KERNEL_AVX2;
}

#define REAL float
#define KFN(name) name##_f
#include "sketch_kernel.h"
#undef REAL
#undef KFN

#define REAL double
#define KFN(name) name##_d
#include "sketch_kernel.h"
#undef REAL
#undef KFN

int64_t tsk_cpu_chunk_length(const tsk_params *p)
{
    int64_t by_dim = 16 * (int64_t)p->dim;
    return by_dim > TSK_CPU_CHUNK ? by_dim : TSK_CPU_CHUNK;
}

int tsk_cpu_counts_in_double(const tsk_params *p, tsk_precision prec)
{
    return prec == TSK_DOUBLE || tsk_cpu_chunk_length(p) > TSK_CPU_CHUNK;
}

size_t tsk_cpu_chunk_scratch(const tsk_params *p, int starts)
{
    /* either layout, whatever kernel is forced later */
    const int ld = (2 * p->dim + COUNTS_PAD + 15) / 16 * 16;
    size_t bytes = (size_t)counts_rows(p->t, starts) * (size_t)ld * sizeof(double);
    return (bytes + 63) / 64 * 64;
}

void tsk_cpu_chunk_levels(const tsk_params *p, const uint8_t *codes, int64_t q, int starts, int in_double,
                          void *scratch, double *levels)
{
    const int t = p->t, dim = p->dim;
    if (in_double) {
        counts_d k;
        counts_init_d(&k, t, dim, starts, scratch);
        kernel_consume_d(&k, p, codes, q);
        for (int j = 0; j < starts; j++)
            for (int d = 0; d <= t - j; d++) counts_mean_d(&k, j, d, levels + (size_t)levels_index(t, j, j + d) * dim);
    } else {
        counts_f k;
        counts_init_f(&k, t, dim, starts, scratch);
        kernel_consume_f(&k, p, codes, q);
        for (int j = 0; j < starts; j++)
            for (int d = 0; d <= t - j; d++) counts_mean_f(&k, j, d, levels + (size_t)levels_index(t, j, j + d) * dim);
    }
}

void tsk_cpu_combine(const tsk_params *p, int64_t m, int64_t q, const double *state_u, const double *levels_v,
                     double *out)
{
    const int t = p->t, dim = p->dim;
    memset(out, 0, (size_t)(t + 1) * (size_t)dim * sizeof *out);
    for (int pp = 0; pp <= t; pp++) {
        double *o = out + (size_t)pp * dim;
        for (int j = 0; j <= pp; j++) {
            const double w = tsk_split_weight(m, q, j, pp);
            if (w == 0.0) continue;
            const double *u = state_u + (size_t)j * dim;
            if (j == pp) { /* V[p..p] = e_0 */
                for (int l = 0; l < dim; l++) o[l] += w * u[l];
                continue;
            }
            const double *v = levels_v + (size_t)levels_index(t, j, pp) * dim;
            for (int a = 0; a < dim; a++) {
                if (u[a] == 0.0) continue;
                const double wa = w * u[a];
                /* o[(a + l) mod D] += wa * v[l]: two contiguous slices */
                for (int l = 0; l < dim - a; l++) o[a + l] += wa * v[l];
                for (int l = dim - a; l < dim; l++) o[a + l - dim] += wa * v[l];
            }
        }
    }
}

int tsk_cpu_record_sketch(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t chunk, int in_double,
                          double *out)
{
    const int t = p->t, dim = p->dim;
    if (n < t) {
        memset(out, 0, (size_t)dim * sizeof *out);
        return 0;
    }
    const size_t state_bytes = (size_t)(t + 1) * (size_t)dim * sizeof(double);
    const int starts = n <= chunk ? 1 : t;
    void *scratch = aligned_alloc(64, tsk_cpu_chunk_scratch(p, starts));
    double *levels = malloc((size_t)levels_rows(t, starts) * (size_t)dim * sizeof(double));
    double *state = malloc(state_bytes), *next = malloc(state_bytes);
    int rc = -1;
    if (!scratch || !levels || !state || !next) goto done;
    for (int64_t m = 0; m < n; m += chunk) {
        const int64_t q = n - m < chunk ? n - m : chunk;
        if (m == 0) {
            tsk_cpu_chunk_levels(p, codes, q, 1, in_double, scratch, levels);
            memcpy(state, levels, state_bytes);
        } else {
            tsk_cpu_chunk_levels(p, codes + m, q, t, in_double, scratch, levels);
            tsk_cpu_combine(p, m, q, state, levels, next);
            double *swap = state;
            state = next;
            next = swap;
        }
    }
    memcpy(out, state + (size_t)t * dim, (size_t)dim * sizeof *out);
    rc = 0;
done:
    free(scratch);
    free(levels);
    free(state);
    free(next);
    return rc;
}
