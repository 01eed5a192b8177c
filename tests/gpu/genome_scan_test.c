/* genome_scan_test.c: the GPU genome scanner (gpu/genome_scan.h) against the CPU one
 * (cpu/genome_scan.h): for every contig of a batch, the same keys (each side sorted), for the
 * default parameters and others (t 3 D 7 W 24 k 8; t 5 D 16 W 30; D 32; D 33 and 64, two bins a
 * lane; t 8; anchor k 32; t 1 D 1 W 2), candidate bounds per contig and UINT64_MAX (every anchor a
 * candidate), random codes with planted repeats (copies and reverse-complement copies, across
 * contigs too), empty contigs and contigs shorter than k and than W, 10^4 tiny contigs, one contig
 * of 50 Mbp, a batch that does not start at code 0, and one scanner reused over batches of
 * different sizes. Without a usable GPU (CI) it checks that the engine says so cleanly. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/genome_keys.h"
#include "../../cpu/genome_scan.h"
#include "../../gpu/genome_scan.h"

static int have_gpu(void)
{
    char why[128] = "";
    return tsk_gpu_genome_scan_available(why, sizeof why);
}

#define NEED_GPU() do { if (!have_gpu()) cr_skip_test("no CUDA device"); } while (0)

static uint64_t next_rand(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static tsk_params genome_params(int t, int dim, int64_t w, int k, uint64_t seed)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = t;
    p.dim = dim;
    p.seed = seed;
    tsk_tables_draw(&p);
    p.canonical = 1;
    p.window = w;
    p.anchor_k = k;
    p.scaled = p.stride = 50;
    p.min_keys = 0;
    return p;
}

/* A batch of contigs: codes[offset[c] .. offset[c+1]), bound max_hash[c]. */
typedef struct {
    uint8_t *codes;
    int64_t *offset;
    uint64_t *max_hash;
    int64_t n;
} batch;

static void batch_free(batch *b)
{
    free(b->codes), free(b->offset), free(b->max_hash);
    memset(b, 0, sizeof *b);
}

/* Contigs of lengths len[0..n), starting at code `skip` of the buffer, random codes with planted
 * repeats over the whole buffer (so across contigs too); bounds: `bound`, or when it is 0 a
 * candidate bound of a stride from 1 to 97 per contig. */
static batch make_batch(const int64_t *len, int64_t n, int64_t skip, uint64_t bound, uint64_t seed)
{
    batch b = {0};
    b.n = n;
    b.offset = malloc((size_t)(n + 1) * sizeof *b.offset);
    b.max_hash = malloc((size_t)(n > 0 ? n : 1) * sizeof *b.max_hash);
    b.offset[0] = skip;
    for (int64_t c = 0; c < n; c++) {
        b.offset[c + 1] = b.offset[c] + len[c];
        b.max_hash[c] = bound ? bound : UINT64_MAX / (uint64_t)(1 + (c * 7919) % 97) | TSK_GENOME_FP_MASK;
    }
    const int64_t total = b.offset[n];
    b.codes = malloc((size_t)(total > 0 ? total : 1));
    for (int64_t i = 0; i < total; i++) b.codes[i] = (uint8_t)(next_rand(&seed) & 3);
    const int64_t repeats = total / 2000 + 20;
    for (int64_t r = 0; r < repeats && total > 400; r++) {
        const int64_t l = 30 + (int64_t)(next_rand(&seed) % 170);
        const int64_t a = (int64_t)(next_rand(&seed) % (uint64_t)(total - l)),
                      d = (int64_t)(next_rand(&seed) % (uint64_t)(total - l));
        const int rev = next_rand(&seed) & 1;
        for (int64_t i = 0; i < l; i++) b.codes[d + i] = rev ? (uint8_t)(3 - b.codes[a + l - 1 - i]) : b.codes[a + i];
    }
    return b;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The GPU's keys of b = the CPU scanner's, contig by contig (both sorted). Returns the keys. */
static int64_t check_batch(const tsk_params *p, tsk_gpu_genome_scanner *g, const batch *b, const char *what)
{
    uint64_t *keys = NULL;
    int64_t cap = 0;
    int64_t *koff = malloc((size_t)(b->n + 1) * sizeof *koff);
    char err[256] = "";
    cr_assert_eq(tsk_gpu_genome_scan_batch(g, b->codes, b->offset, b->max_hash, b->n, &keys, &cap, koff, err, sizeof err),
                 0, "%s: %s", what, err);
    cr_assert_eq(koff[0], 0, "%s: key_offset[0] = %lld", what, (long long)koff[0]);
    tsk_genome_scanner *s = tsk_genome_scanner_new(p);
    cr_assert(s);
    tsk_key_vec v = {0};
    for (int64_t c = 0; c < b->n; c++) {
        const int64_t len = b->offset[c + 1] - b->offset[c];
        v.n = 0;
        cr_assert_eq(tsk_genome_scan(s, b->codes + b->offset[c], len, 0, len, b->max_hash[c], &v), 0);
        const int64_t got = koff[c + 1] - koff[c];
        cr_assert_eq(got, v.n, "%s (t=%d D=%d W=%lld k=%d): contig %lld of %lld bases: %lld keys, the CPU gives %lld",
                     what, p->t, p->dim, (long long)p->window, p->anchor_k, (long long)c, (long long)len,
                     (long long)got, (long long)v.n);
        if (got == 0) continue;
        qsort(keys + koff[c], (size_t)got, sizeof *keys, cmp_u64);
        qsort(v.keys, (size_t)v.n, sizeof *v.keys, cmp_u64);
        for (int64_t j = 0; j < got; j++)
            cr_assert_eq(keys[koff[c] + j], v.keys[j],
                         "%s (t=%d D=%d W=%lld k=%d): contig %lld: sorted key %lld: %016llx, the CPU gives %016llx", what,
                         p->t, p->dim, (long long)p->window, p->anchor_k, (long long)c, (long long)j,
                         (unsigned long long)keys[koff[c] + j], (unsigned long long)v.keys[j]);
    }
    const int64_t total = koff[b->n];
    tsk_key_vec_free(&v);
    tsk_genome_scanner_free(s);
    free(keys);
    free(koff);
    return total;
}

static tsk_gpu_genome_scanner *open_or_fail(const tsk_params *p)
{
    char err[256] = "";
    tsk_gpu_genome_scanner *g = tsk_gpu_genome_scanner_open(p, 0, err, sizeof err);
    cr_assert(g, "open (t=%d D=%d W=%lld k=%d): %s", p->t, p->dim, (long long)p->window, p->anchor_k, err);
    return g;
}

/* Mixed lengths: every length 0..69 (empty, shorter than k, than W, just the window), then
 * longer ones up to 30 kbp. */
static int64_t mixed_lengths(int64_t *len, uint64_t seed)
{
    int64_t n = 0;
    for (int64_t l = 0; l < 70; l++) len[n++] = l;
    for (int i = 0; i < 40; i++) len[n++] = 70 + (int64_t)(next_rand(&seed) % 30000);
    for (int i = 0; i < 20; i++) len[n++] = (int64_t)(next_rand(&seed) % 200);
    return n;
}

static void check_params(int t, int dim, int64_t w, int k, uint64_t seed)
{
    const tsk_params p = genome_params(t, dim, w, k, seed);
    cr_assert_null(tsk_genome_params_check(&p), "bad test parameters");
    tsk_gpu_genome_scanner *g = open_or_fail(&p);
    int64_t len[200];
    const int64_t n = mixed_lengths(len, seed);
    batch b = make_batch(len, n, 0, 0, seed);
    cr_assert_gt(check_batch(&p, g, &b, "per-contig bounds"), 0);
    batch_free(&b);
    b = make_batch(len, n, 0, UINT64_MAX, seed + 1);
    check_batch(&p, g, &b, "every anchor a candidate");
    batch_free(&b);
    b = make_batch(len, n, 0, UINT64_MAX / 50 | TSK_GENOME_FP_MASK, seed + 2);
    check_batch(&p, g, &b, "scaled 50");
    batch_free(&b);
    tsk_gpu_genome_scanner_close(g);
}

Test(gpu_genome_scan, unavailable_is_clean)
{
    char why[128] = "", err[256] = "";
    tsk_params p = genome_params(4, 16, 20, 16, 1);
    if (tsk_gpu_genome_scan_available(why, sizeof why)) {
        tsk_gpu_genome_scanner *g = tsk_gpu_genome_scanner_open(&p, 0, err, sizeof err);
        cr_assert(g, "%s", err);
        tsk_gpu_genome_scanner_close(g);
        return;
    }
    cr_assert_neq(why[0], '\0', "a reason is given when no GPU is usable");
    cr_assert_null(tsk_gpu_genome_scanner_open(&p, 0, err, sizeof err));
    cr_assert_neq(err[0], '\0', "open says why it failed");
    tsk_gpu_genome_scanner_close(NULL);
}

Test(gpu_genome_scan, refuses_what_it_does_not_take)
{
    NEED_GPU();
    char err[256] = "";
    tsk_params p = genome_params(9, 16, 20, 16, 1);
    cr_assert_null(tsk_gpu_genome_scanner_open(&p, 0, err, sizeof err));
    cr_assert_neq(err[0], '\0');
    p = genome_params(4, 65, 20, 16, 1);
    err[0] = '\0';
    cr_assert_null(tsk_gpu_genome_scanner_open(&p, 0, err, sizeof err));
    cr_assert_neq(err[0], '\0');
    p = genome_params(4, 16, 20, 16, 1);
    err[0] = '\0';
    cr_assert_null(tsk_gpu_genome_scanner_open(&p, 999, err, sizeof err));
    cr_assert_neq(err[0], '\0');
}

Test(gpu_genome_scan, default_parameters, .timeout = 300)
{
    NEED_GPU();
    check_params(4, 16, 20, 16, 0x5EED);
}

Test(gpu_genome_scan, other_parameters, .timeout = 600)
{
    NEED_GPU();
    const struct { int t, dim; int64_t w; int k; } cases[] = {
        {3, 7, 24, 8},   /* D not a power of two */
        {5, 16, 30, 16}, /* t 5 */
        {4, 32, 20, 16}, /* D 32: one bin a lane, the whole warp */
        {4, 16, 32, 32}, /* anchor k 32 (window start = anchor start) */
        {4, 16, 40, 32}, /* anchor k 32 in a longer window */
        {2, 33, 20, 12}, /* two bins a lane, the second one mostly idle */
        {8, 64, 20, 16}, /* the largest t and D */
        {6, 48, 24, 10},
        {1, 1, 2, 2},    /* the smallest */
        {4, 16, 64, 16}, /* the longest window */
        {3, 5, 12, 12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_params(cases[i].t, cases[i].dim, cases[i].w, cases[i].k, 99 + i);
}

Test(gpu_genome_scan, many_tiny_contigs, .timeout = 300)
{
    NEED_GPU();
    const tsk_params p = genome_params(4, 16, 20, 16, 7);
    tsk_gpu_genome_scanner *g = open_or_fail(&p);
    enum { N = 10000 };
    int64_t *len = malloc(N * sizeof *len);
    uint64_t seed = 3;
    for (int i = 0; i < N; i++) len[i] = (int64_t)(next_rand(&seed) % 80);
    batch b = make_batch(len, N, 0, UINT64_MAX, 11);
    cr_assert_gt(check_batch(&p, g, &b, "10^4 tiny contigs, every anchor"), 0);
    batch_free(&b);
    b = make_batch(len, N, 0, 0, 12);
    check_batch(&p, g, &b, "10^4 tiny contigs, per-contig bounds");
    batch_free(&b);
    free(len);
    tsk_gpu_genome_scanner_close(g);
}

Test(gpu_genome_scan, edge_batches, .timeout = 300)
{
    NEED_GPU();
    const tsk_params p = genome_params(4, 16, 20, 16, 8);
    tsk_gpu_genome_scanner *g = open_or_fail(&p);
    char err[256] = "";
    /* no contigs */
    int64_t off0 = 0, koff[3] = {-1, -1, -1};
    uint64_t *keys = NULL;
    int64_t cap = 0;
    cr_assert_eq(tsk_gpu_genome_scan_batch(g, NULL, &off0, NULL, 0, &keys, &cap, koff, err, sizeof err), 0, "%s", err);
    cr_assert_eq(koff[0], 0);
    /* only contigs too short for a window */
    const int64_t short_len[] = {0, 5, 19, 0, 16};
    batch b = make_batch(short_len, 5, 0, UINT64_MAX, 1);
    cr_assert_eq(check_batch(&p, g, &b, "too short"), 0);
    batch_free(&b);
    /* a batch that starts at code 1001 of its buffer; then large, small and large again on one scanner */
    const int64_t some[] = {3000, 0, 45, 20, 21, 100000, 7};
    b = make_batch(some, 7, 1001, 0, 2);
    check_batch(&p, g, &b, "offset[0] = 1001");
    batch_free(&b);
    const int64_t big[] = {3000000, 1000000};
    b = make_batch(big, 2, 0, UINT64_MAX / 7 | TSK_GENOME_FP_MASK, 3);
    check_batch(&p, g, &b, "4 Mbp");
    batch_free(&b);
    const int64_t one[] = {500};
    b = make_batch(one, 1, 0, UINT64_MAX, 4);
    check_batch(&p, g, &b, "one contig of 500");
    batch_free(&b);
    b = make_batch(big, 2, 0, UINT64_MAX, 5);
    check_batch(&p, g, &b, "4 Mbp, every anchor");
    batch_free(&b);
    free(keys);
    tsk_gpu_genome_scanner_close(g);
}

Test(gpu_genome_scan, one_contig_of_50_mbp, .timeout = 600)
{
    NEED_GPU();
    const tsk_params p = genome_params(4, 16, 20, 16, 9);
    tsk_gpu_genome_scanner *g = open_or_fail(&p);
    const int64_t len[] = {50000000};
    batch b = make_batch(len, 1, 0, UINT64_MAX / 500 | TSK_GENOME_FP_MASK, 21);
    cr_assert_gt(check_batch(&p, g, &b, "50 Mbp, scaled 500"), 50000);
    b.max_hash[0] = UINT64_MAX / 20 | TSK_GENOME_FP_MASK;
    check_batch(&p, g, &b, "50 Mbp, scaled 20");
    batch_free(&b);
    tsk_gpu_genome_scanner_close(g);
}
