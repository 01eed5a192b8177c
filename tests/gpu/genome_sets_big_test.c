/* genome_sets_big_test.c: the GPU genome-sketch engine with one index part of more than 2^30
 * postings, the size at which int positions broke (120,000 genomes: "an illegal instruction" in
 * dist and cluster). Made from a synthetic key set, no file.
 *
 * Reference j holds the K consecutive integers from j * STEP (as keys: shifted past the
 * fingerprint bits), so references j and j' share exactly max(0, K - |j - j'| * STEP) keys: every
 * count, top-k list and threshold answer is known without a second engine. With N = 100,000 and
 * K = 11,500 the part holds 1.15e9 postings (2^30 = 1.07e9), so queries at both ends of the set
 * walk postings on either side of 2^30.
 *
 * Needs a GPU that holds that part (about 40 GB) and 10 GB of host memory; skipped otherwise (CI). Under
 * compute-sanitizer memcheck (bench/gpu.sh) it checks every access of those kernels too. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../gpu/genome_sets.h"
#include "../../gpu/device.h"

#define N INT64_C(100000)
#define K INT64_C(11500)
#define STEP INT64_C(1000)
#define SHIFT 20 /* keys: integers above 20 fingerprint-like low bits */

static int64_t planted_shared(int64_t a, int64_t b)
{
    const int64_t d = a > b ? a - b : b - a, s = K - d * STEP;
    return s > 0 ? s : 0;
}

typedef struct {
    tsk_key_sets s;
    uint64_t *keys;
    int64_t *offset;
} big_sets;

static big_sets make(void)
{
    big_sets b = {{0}, malloc((size_t)(N * K) * sizeof(uint64_t)), malloc((size_t)(N + 1) * sizeof(int64_t))};
    cr_assert(b.keys && b.offset, "host memory for %lld keys", (long long)(N * K));
    for (int64_t j = 0; j < N; j++) {
        b.offset[j] = j * K;
        for (int64_t t = 0; t < K; t++) b.keys[j * K + t] = (uint64_t)(j * STEP + t) << SHIFT;
    }
    b.offset[N] = N * K;
    b.s = (tsk_key_sets){N, b.keys, b.offset, NULL};
    return b;
}

/* The planted top-k of query q (one set against itself, self excluded): nearest first, the
 * smaller reference first at equal distance. */
static void planted_topk(int64_t q, int k, tsk_genome_pair *out)
{
    int n = 0;
    for (int64_t d = 1; n < k && d * STEP < K; d++)
        for (int side = -1; side <= 1 && n < k; side += 2) {
            const int64_t r = q + side * d;
            if (r < 0 || r >= N) continue;
            const int64_t s = planted_shared(q, r);
            out[n++] = (tsk_genome_pair){q, r, s, tsk_genome_share(s, K, K, TSK_GENOME_SYMMETRIC)};
        }
    while (n < k) out[n++] = (tsk_genome_pair){q, -1, 0, 0.0};
}

Test(gpu_genome_sets_big, one_part_past_2_to_the_30_postings, .timeout = 900)
{
    char why[128] = "";
    if (tsk_gpu_device_count(why, sizeof why) <= 0) cr_skip_test("no CUDA device");
    big_sets b = make();
    char err[256] = "";
    tsk_gpu_genome_sets *g = tsk_gpu_genome_sets_open(&b.s, &b.s, 0, NULL, 0, err, sizeof err);
    cr_assert_not_null(g, "open: %s", err);
    int64_t parts = 0, largest = 0;
    tsk_gpu_genome_sets_layout(g, &parts, &largest);
    if (parts != 1) {
        tsk_gpu_genome_sets_close(g), free(b.keys), free(b.offset);
        cr_skip_test("device 0 holds %lld postings a part, not all %lld", (long long)largest, (long long)(N * K));
    }

    /* top-10 of queries at the start, the middle (postings around 2^30 are those of reference
     * 2^30 / K = 93,368) and the end */
    const int k = 10;
    const int64_t firsts[] = {0, 93360, N - 16};
    tsk_genome_pair got[16 * 10], want[10];
    for (int f = 0; f < 3; f++) {
        cr_assert_eq(tsk_gpu_genome_sets_topk(g, firsts[f], 16, k, TSK_GENOME_SYMMETRIC, TSK_PAIRS_NOT_SELF, got), 0,
                     "top-k: %s", tsk_gpu_genome_sets_error(g));
        for (int64_t i = 0; i < 16; i++) {
            planted_topk(firsts[f] + i, k, want);
            for (int j = 0; j < k; j++) {
                const tsk_genome_pair *a = &got[i * k + j], *w = &want[j];
                cr_expect(a->query == w->query && a->ref == w->ref && a->shared == w->shared && a->share == w->share,
                          "query %lld place %d: ref %lld shared %lld, planted ref %lld shared %lld",
                          (long long)w->query, j, (long long)a->ref, (long long)a->shared, (long long)w->ref,
                          (long long)w->shared);
            }
        }
    }

    /* counts of the last queries against the last references: postings past 2^30 */
    enum { NQ = 8, NR = 40 };
    uint32_t counts[NQ * NR];
    cr_assert_eq(tsk_gpu_genome_sets_block(g, N - NQ, NQ, N - NR, NR, counts, NR), 0, "block: %s",
                 tsk_gpu_genome_sets_error(g));
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NR; j++)
            cr_expect_eq(counts[i * NR + j], (uint32_t)planted_shared(N - NQ + i, N - NR + j), "count %d %d", i, j);

    /* within a share of one half: the references at most 5 steps away (5,000 of 11,500 keys lost) */
    tsk_genome_pair *pairs = NULL;
    int64_t n = 0, cap = 0;
    cr_assert_eq(tsk_gpu_genome_sets_within(g, N - 12, 12, 0.5, TSK_GENOME_SYMMETRIC, TSK_PAIRS_ALL, &pairs, &n, &cap),
                 0, "within: %s", tsk_gpu_genome_sets_error(g));
    int64_t at = 0;
    for (int64_t q = N - 12; q < N; q++)
        for (int64_t r = q - 5; r <= q + 5 && r < N; r++) {
            cr_assert_lt(at, n, "within: %lld pairs, more planted", (long long)n);
            cr_expect(pairs[at].query == q && pairs[at].ref == r && pairs[at].shared == planted_shared(q, r),
                      "within pair %lld: %lld %lld, planted %lld %lld", (long long)at, (long long)pairs[at].query,
                      (long long)pairs[at].ref, (long long)q, (long long)r);
            at++;
        }
    cr_expect_eq(at, n, "within: %lld pairs, %lld planted", (long long)n, (long long)at);
    free(pairs);
    tsk_gpu_genome_sets_close(g);
    free(b.keys);
    free(b.offset);
}
