/* test_split: the split formula (chunks combined with tsk_split_weight) against the direct DP and
 * brute force, for many chunk lengths including the boundaries 1, t-1, t and t+1. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sketch.h"
#include "golden.h"
#include "sketch_dp.h"

static tsk_params params(int t, int dim, tsk_alphabet a)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = t;
    p.dim = dim;
    p.alphabet = a;
    tsk_tables_draw(&p);
    return p;
}

/* Closed form of docs/spec.md over all index tuples (tiny n only). */
static void brute(const tsk_params *p, const uint8_t *x, int n, double *out)
{
    memset(out, 0, (size_t)p->dim * sizeof *out);
    if (n < p->t) return;
    int idx[TSK_MAX_T];
    for (int k = 0; k < p->t; k++) idx[k] = k;
    double count = 0;
    for (;;) {
        int s = 1, r = 0;
        for (int k = 0; k < p->t; k++) {
            s *= p->sign[k][x[idx[k]]];
            r = (r + p->hash[k][x[idx[k]]]) % p->dim;
        }
        out[r] += s;
        count++;
        int k = p->t - 1;
        while (k >= 0 && idx[k] == n - p->t + k) k--;
        if (k < 0) break;
        idx[k]++;
        for (int m = k + 1; m < p->t; m++) idx[m] = idx[m - 1] + 1;
    }
    for (int l = 0; l < p->dim; l++) out[l] /= count;
}

Test(split, brute_force_equals_reference_and_engine)
{
    const int cases[][3] = {{1, 5, 0}, {2, 7, 0}, {3, 16, 0}, {4, 9, 0}, {3, 11, 1}, {5, 13, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tsk_params p = params(cases[c][0], cases[c][1], cases[c][2] ? TSK_PROTEIN : TSK_DNA);
        const int n = 14;
        uint8_t *x = test_random_codes(n, tsk_alphabet_size(p.alphabet), 7u + (unsigned)c);
        double want[64], ref[64], got[64];
        brute(&p, x, n, want);
        tsk_cpu_sketch_reference(&p, x, n, ref);
        cr_expect_leq(test_rel_err(ref, want, p.dim), 1e-14, "reference vs brute, case %zu", c);
        for (int chunk = 1; chunk <= n + 1; chunk++) {
            cr_assert_eq(tsk_cpu_record_sketch(&p, x, n, chunk, 1, got), 0);
            cr_expect_leq(test_rel_err(got, want, p.dim), 1e-13, "case %zu chunk %d", c, chunk);
        }
        free(x);
    }
}

Test(split, chunked_equals_direct_dp_in_double)
{
    for (int t = 1; t <= 6; t++) {
        tsk_params p = params(t, 24 + t, TSK_DNA);
        const int64_t n = 600;
        uint8_t *x = test_random_codes(n, 4, 99u + (unsigned)t);
        double ref[64], got[64];
        tsk_cpu_sketch_reference(&p, x, n, ref);
        const int64_t chunks[] = {1, t > 1 ? t - 1 : 1, t, t + 1, 7, 64, 97, 299, 300, 599};
        for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
            cr_assert_eq(tsk_cpu_record_sketch(&p, x, n, chunks[k], 1, got), 0);
            double e = test_rel_err(got, ref, p.dim);
            cr_expect_leq(e, 1e-12, "t=%d chunk=%lld: %.3g", t, (long long)chunks[k], e);
        }
        free(x);
    }
}

Test(split, long_t_and_protein)
{
    tsk_params p = params(16, 40, TSK_DNA), q = params(5, 50, TSK_PROTEIN);
    uint8_t *x = test_random_codes(700, 4, 5u), *y = test_random_codes(700, 20, 6u);
    double ref[64], got[64];
    tsk_cpu_sketch_reference(&p, x, 700, ref);
    for (int64_t chunk = 15; chunk <= 350; chunk += 67) {
        cr_assert_eq(tsk_cpu_record_sketch(&p, x, 700, chunk, 1, got), 0);
        cr_expect_leq(test_rel_err(got, ref, p.dim), 1e-12, "t=16 chunk %lld", (long long)chunk);
    }
    tsk_cpu_sketch_reference(&q, y, 700, ref);
    for (int64_t chunk = 1; chunk <= 700; chunk = chunk * 3 + 1) {
        cr_assert_eq(tsk_cpu_record_sketch(&q, y, 700, chunk, 1, got), 0);
        cr_expect_leq(test_rel_err(got, ref, q.dim), 1e-12, "protein chunk %lld", (long long)chunk);
    }
    free(x);
    free(y);
}

Test(split, float_counts_within_1e5_at_the_engine_chunk)
{
    tsk_params p = params(4, 96, TSK_DNA);
    const int64_t n = 300000;
    uint8_t *x = test_random_codes(n, 4, 3u);
    double ref[96], got[96];
    tsk_cpu_record_sketch(&p, x, n, n, 1, ref); /* direct DP in double */
    const int64_t chunks[] = {n, 65536, TSK_CPU_CHUNK, 4096, 1000};
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        cr_assert_eq(tsk_cpu_record_sketch(&p, x, n, chunks[k], 0, got), 0);
        double e = test_rel_err(got, ref, p.dim);
        cr_log_info("float counts, n=%lld chunk=%lld: %.2e", (long long)n, (long long)chunks[k], e);
        if (chunks[k] <= TSK_CPU_CHUNK) cr_expect_leq(e, 1e-5, "chunk %lld: %.3g", (long long)chunks[k], e);
    }
    /* the longest record the engine sketches directly in float, and the shortest it chunks */
    for (int64_t len = TSK_CPU_CHUNK; len <= TSK_CPU_CHUNK + 1; len++) {
        tsk_cpu_record_sketch(&p, x, len, len, 1, ref);
        cr_assert_eq(tsk_cpu_record_sketch(&p, x, len, TSK_CPU_CHUNK, 0, got), 0);
        double e = test_rel_err(got, ref, p.dim);
        cr_log_info("float counts, n=%lld chunk=%d: %.2e", (long long)len, TSK_CPU_CHUNK, e);
        cr_expect_leq(e, 1e-5, "n %lld: %.3g", (long long)len, e);
    }
    free(x);
}

Test(split, weights_are_a_distribution)
{
    const int64_t lens[][2] = {{0, 5}, {5, 0}, {1, 1}, {3, 100}, {100000000, 65536}, {7, 7}};
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
        for (int pp = 0; pp <= 16; pp++) {
            if (pp > lens[k][0] + lens[k][1]) continue;
            double sum = 0;
            for (int j = 0; j <= pp; j++) sum += tsk_split_weight(lens[k][0], lens[k][1], j, pp);
            cr_expect_float_eq(sum, 1.0, 1e-13, "m=%lld q=%lld p=%d", (long long)lens[k][0], (long long)lens[k][1], pp);
        }
}

/* The backward DP of a split row's last piece: V[j..t] equals the forward sketch with the tables of
 * levels j+1..t, and combining a forward first piece with a backward last piece gives the whole
 * sketch (all the GPU engine does for a row cut in two). */
Test(split, backward_dp_gives_suffix_vectors)
{
    const int cases[][3] = {{1, 5, 0}, {2, 7, 0}, {3, 16, 0}, {4, 96, 0}, {3, 11, 1}, {6, 13, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        tsk_params p = params(cases[c][0], cases[c][1], cases[c][2] ? TSK_PROTEIN : TSK_DNA);
        const int t = p.t, dim = p.dim, n = 57;
        uint8_t *x = test_random_codes(n, tsk_alphabet_size(p.alphabet), 31u + (unsigned)c);
        double *suffix = malloc((size_t)t * dim * sizeof *suffix), *want = malloc((size_t)dim * sizeof *want);
        for (int len = 0; len <= n; len += (len < 8 ? 1 : 7)) {
            tsk_cpu_suffix_reference(&p, x, len, suffix);
            for (int j = 0; j < t; j++) {
                tsk_params q = p;  /* levels j+1..t only */
                q.t = t - j;
                for (int k = 0; k < q.t; k++) {
                    memcpy(q.hash[k], p.hash[j + k], sizeof q.hash[k]);
                    memcpy(q.sign[k], p.sign[j + k], sizeof q.sign[k]);
                }
                tsk_cpu_sketch_reference(&q, x, len, want);
                cr_expect_leq(test_rel_err(suffix + (size_t)j * dim, want, dim), 1e-13, "case %zu len %d j %d", c, len, j);
            }
        }
        /* first piece forward (V[0..j] = sketch of levels 1..j), last piece backward */
        double *whole = malloc((size_t)dim * sizeof *whole), *got = calloc((size_t)dim, sizeof *got);
        double *head = malloc((size_t)dim * sizeof *head), *conv = malloc((size_t)dim * sizeof *conv);
        tsk_cpu_sketch_reference(&p, x, n, whole);
        const int m = 23;
        tsk_cpu_suffix_reference(&p, x + m, n - m, suffix);
        for (int j = 0; j <= t; j++) {
            if (j == 0) {
                memset(head, 0, (size_t)dim * sizeof *head);
                head[0] = 1.0;
            } else {
                tsk_params q = p;
                q.t = j;
                tsk_cpu_sketch_reference(&q, x, m, head);
            }
            const double *tail = j < t ? suffix + (size_t)j * dim : NULL;
            for (int l = 0; l < dim; l++) {
                double s = 0;
                for (int r = 0; r < dim; r++) s += head[r] * (tail ? tail[(l - r + dim) % dim] : (l == r));
                conv[l] = s;
            }
            const double w = tsk_split_weight(m, n - m, j, t);
            for (int l = 0; l < dim; l++) got[l] += w * conv[l];
        }
        cr_expect_leq(test_rel_err(got, whole, dim), 1e-13, "case %zu: first + last piece", c);
        free(whole), free(got), free(head), free(conv), free(suffix), free(want), free(x);
    }
}
