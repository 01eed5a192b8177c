/* test_genome_scan: the CPU genome scanner (cpu/genome_scan.h) against the row route it replaces:
 * windows placed by tsk_anchor_windows_below, each sketched by the plain double DP of docs/spec.md
 * (tsk_cpu_sketch_reference, canonical: the mean of both strands) and keyed from that row by
 * tsk_genome_key_of_row. Same keys, bit for bit, in the same order, for the default parameters and
 * for other t, D, W, anchor k, seeds, drawn tables, pieces of any size, repeats and short contigs;
 * and the window counts against tuples enumerated one by one. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/genome_keys.h"
#include "cpu_sketch.h"
#include "genome_scan.h"

static uint64_t next_rand(uint64_t *s)
{
    *s += UINT64_C(0x9E3779B97F4A7C15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Random codes with planted repeats (copies of earlier stretches, some reverse complemented), so
 * that windows repeat and keys collide as in real genomes. */
static uint8_t *random_codes(int64_t n, uint64_t seed)
{
    uint8_t *c = malloc((size_t)n);
    for (int64_t i = 0; i < n; i++) c[i] = (uint8_t)(next_rand(&seed) & 3);
    for (int r = 0; r < 20 && n > 400; r++) {
        const int64_t len = 50 + (int64_t)(next_rand(&seed) % 150);
        const int64_t a = (int64_t)(next_rand(&seed) % (uint64_t)(n - len)), b = (int64_t)(next_rand(&seed) % (uint64_t)(n - len));
        const int rev = next_rand(&seed) & 1;
        for (int64_t i = 0; i < len; i++) c[b + i] = rev ? (uint8_t)(3 - c[a + len - 1 - i]) : c[a + i];
    }
    return c;
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

/* The keys of the row route, in window order. */
static int64_t row_keys(const tsk_params *p, const uint8_t *codes, int64_t n, uint64_t max_hash, uint64_t **keys)
{
    const int64_t m = tsk_anchor_windows_below(p, codes, n, max_hash, NULL, NULL, 0);
    int64_t *starts = malloc((size_t)(m + 1) * sizeof *starts);
    uint64_t *hashes = malloc((size_t)(m + 1) * sizeof *hashes);
    *keys = malloc((size_t)(m + 1) * sizeof **keys);
    tsk_anchor_windows_below(p, codes, n, max_hash, starts, hashes, m);
    tsk_params whole = *p; /* a window's row is a whole-record sketch of its codes */
    whole.window = whole.stride = 0;
    whole.anchor_k = 0;
    whole.canonical = 0;
    double *fw = malloc((size_t)p->dim * sizeof *fw), *bw = malloc((size_t)p->dim * sizeof *bw);
    uint8_t *rc = malloc((size_t)p->window);
    for (int64_t j = 0; j < m; j++) {
        const uint8_t *x = codes + starts[j];
        tsk_cpu_sketch_reference(&whole, x, p->window, fw);
        tsk_revcomp_codes(x, (size_t)p->window, rc);
        tsk_cpu_sketch_reference(&whole, rc, p->window, bw);
        for (int r = 0; r < p->dim; r++) fw[r] = (fw[r] + bw[r]) / 2;
        cr_assert_eq(tsk_genome_key_of_row(p, fw, 8, hashes[j], &(*keys)[j]), 0, "window %lld is no integer sketch",
                     (long long)j);
    }
    free(starts), free(hashes), free(fw), free(bw), free(rc);
    return m;
}

/* The scanner's keys of codes in pieces of piece positions (0: one piece), with the anchor loop
 * kernel (an empty vector when this CPU lacks it). */
static tsk_key_vec scan_keys(const tsk_params *p, const uint8_t *codes, int64_t n, uint64_t max_hash, int64_t piece,
                             tsk_genome_scan_kernel kernel)
{
    tsk_genome_scanner *s = tsk_genome_scanner_new(p);
    cr_assert(s);
    if (tsk_genome_scanner_use_kernel(s, kernel)) {
        tsk_genome_scanner_free(s);
        return (tsk_key_vec){0};
    }
    tsk_key_vec v = {0};
    if (piece <= 0) piece = n + 1;
    for (int64_t a = 0; a < n; a += piece) cr_assert_eq(tsk_genome_scan(s, codes, n, a, a + piece, max_hash, &v), 0);
    tsk_genome_scanner_free(s);
    return v;
}

static void check_same(const tsk_params *p, int64_t n, uint64_t seed, uint64_t max_hash, int64_t piece)
{
    uint8_t *codes = random_codes(n, seed);
    uint64_t *want;
    const int64_t m = row_keys(p, codes, n, max_hash, &want);
    for (int kernel = TSK_GENOME_SCAN_PORTABLE; kernel <= TSK_GENOME_SCAN_AVX512; kernel++) {
        tsk_genome_scanner *probe = tsk_genome_scanner_new(p);
        const int runs = tsk_genome_scanner_use_kernel(probe, (tsk_genome_scan_kernel)kernel) == 0;
        tsk_genome_scanner_free(probe);
        if (!runs) continue; /* this CPU (or anchor k) has no such kernel */
        tsk_key_vec got = scan_keys(p, codes, n, max_hash, piece, (tsk_genome_scan_kernel)kernel);
        cr_assert_eq(got.n, m, "kernel %d t=%d D=%d W=%lld k=%d n=%lld piece=%lld: %lld keys, the rows give %lld", kernel,
                     p->t, p->dim, (long long)p->window, p->anchor_k, (long long)n, (long long)piece, (long long)got.n,
                     (long long)m);
        for (int64_t j = 0; j < m; j++)
            cr_assert_eq(got.keys[j], want[j], "kernel %d t=%d D=%d W=%lld: key %lld differs", kernel, p->t, p->dim,
                         (long long)p->window, (long long)j);
        tsk_key_vec_free(&got);
    }
    free(want);
    free(codes);
}

Test(genome_scan, default_parameters_match_the_rows)
{
    const tsk_params p = genome_params(4, 16, 20, 16, 0x5EED);
    for (int64_t piece = 0; piece <= 1000; piece += 333) check_same(&p, 20000, 1, UINT64_MAX / 50, piece);
    check_same(&p, 20000, 2, UINT64_MAX, 0); /* every position an anchor */
}

Test(genome_scan, other_parameters_match_the_rows)
{
    const struct { int t, dim; int64_t w; int k; } cases[] = {
        {2, 16, 20, 16}, {3, 7, 24, 8}, {4, 32, 20, 12}, {5, 16, 30, 16}, {1, 3, 2, 2}, {4, 96, 20, 16},
        {6, 16, 64, 32}, {4, 1, 20, 16}, {4, 16, 50, 24}, {4, 16, 50, 26}, {3, 16, 40, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tsk_params p = genome_params(cases[i].t, cases[i].dim, cases[i].w, cases[i].k, 99 + i);
        check_same(&p, 5000, 10 + i, UINT64_MAX / 20, 0);
        check_same(&p, 5000, 10 + i, UINT64_MAX / 20, 97);
    }
}

Test(genome_scan, short_contigs_and_pieces_past_the_end)
{
    const tsk_params p = genome_params(4, 16, 20, 16, 7);
    for (int64_t n = 0; n < 60; n++) check_same(&p, n, 100 + (uint64_t)n, UINT64_MAX, 0);
    for (int64_t n = 0; n < 60; n++) check_same(&p, n, 200 + (uint64_t)n, UINT64_MAX, 5);
    /* a piece that starts beyond the last anchor adds nothing */
    uint8_t *codes = random_codes(100, 3);
    tsk_genome_scanner *s = tsk_genome_scanner_new(&p);
    tsk_key_vec v = {0};
    cr_assert_eq(tsk_genome_scan(s, codes, 100, 95, 200, UINT64_MAX, &v), 0);
    cr_assert_eq(v.n, 0);
    tsk_key_vec_free(&v);
    tsk_genome_scanner_free(s);
    free(codes);
}

/* Counts by enumerating every index tuple of a window (and of its reverse complement). */
static void brute_counts(const tsk_params *p, const uint8_t *x, int w, int64_t *out)
{
    memset(out, 0, (size_t)p->dim * sizeof *out);
    for (int strand = 0; strand < 2; strand++) {
        uint8_t y[64];
        for (int i = 0; i < w; i++) y[i] = strand ? (uint8_t)(3 - x[w - 1 - i]) : x[i];
        int idx[8];
        for (int i = 0; i < p->t; i++) idx[i] = i;
        for (;;) {
            int bin = 0, sign = 1;
            for (int j = 0; j < p->t; j++) {
                bin = (bin + p->hash[j][y[idx[j]]]) % p->dim;
                sign *= p->sign[j][y[idx[j]]];
            }
            out[bin] += sign;
            int j = p->t - 1;
            while (j >= 0 && idx[j] == w - p->t + j) j--;
            if (j < 0) break;
            idx[j]++;
            for (int q = j + 1; q < p->t; q++) idx[q] = idx[q - 1] + 1;
        }
    }
}

/* Which anchor loops this CPU runs (the other tests skip a kernel it lacks): said on stderr, so a log
 * shows whether the AVX-512 loop was checked. */
Test(genome_scan, kernels_this_cpu_runs)
{
    const tsk_params p = genome_params(4, 16, 20, 16, 1);
    tsk_genome_scanner *s = tsk_genome_scanner_new(&p);
    cr_assert_eq(tsk_genome_scanner_use_kernel(s, TSK_GENOME_SCAN_PORTABLE), 0, "the portable loop runs anywhere");
    fprintf(stderr, "genome scan kernels checked: portable%s\n",
            tsk_genome_scanner_use_kernel(s, TSK_GENOME_SCAN_AVX512) == 0 ? ", avx512" : " (no AVX-512 here)");
    tsk_genome_scanner_free(s);
}

Test(genome_scan, window_counts_are_the_tuple_counts)
{
    const struct { int t, dim, w; } cases[] = {{4, 16, 20}, {3, 5, 12}, {5, 16, 16}, {1, 4, 6}, {2, 40, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tsk_params p = genome_params(cases[i].t, cases[i].dim, cases[i].w, 2, 5 + i);
        tsk_genome_scanner *s = tsk_genome_scanner_new(&p);
        uint8_t *x = random_codes(cases[i].w, 40 + i);
        int32_t got[64];
        int64_t want[64];
        tsk_genome_window_counts(s, x, cases[i].w, got);
        brute_counts(&p, x, cases[i].w, want);
        for (int r = 0; r < p.dim; r++) cr_assert_eq(got[r], want[r], "case %zu bin %d", i, r);
        tsk_genome_scanner_free(s);
        free(x);
    }
}

/* ---- segment anchors (core/genome_ani.h) ---- */

/* The definition, brute force: every canonical k-mer of the contig, hashed as the anchors are
 * (SplitMix64 output of (k-mer XOR seed) + gamma), with hash <= bound; its segment when it lies
 * wholly in a full segment, else loose. */
static int64_t brute_anchors(const tsk_params *p, const uint8_t *x, int64_t n, uint64_t bound, int64_t first_segment,
                             int64_t *seg, uint64_t *hash)
{
    const int k = p->anchor_k;
    const int64_t seg_end = n / TSK_ANI_SEGMENT * TSK_ANI_SEGMENT;
    int64_t m = 0;
    for (int64_t at = 0; at + k <= n; at++) {
        const int inside = at + k <= seg_end && at / TSK_ANI_SEGMENT == (at + k - 1) / TSK_ANI_SEGMENT;
        uint64_t fw = 0, rc = 0;
        for (int i = 0; i < k; i++) {
            fw = (fw << 2) | x[at + i];
            rc = (rc << 2) | (uint64_t)(3 - x[at + k - 1 - i]);
        }
        uint64_t state = (fw < rc ? fw : rc) ^ p->seed;
        const uint64_t h = next_rand(&state);
        if (h > bound) continue;
        seg[m] = inside ? first_segment + at / TSK_ANI_SEGMENT : TSK_ANCHOR_LOOSE;
        hash[m++] = h;
    }
    return m;
}

/* Anchors of a contig scanned in pieces of `piece` (0: whole) with kernel, keys or not. */
static void check_anchors(const tsk_params *p, int64_t n, uint64_t seed, uint64_t key_bound, uint64_t ani_bound,
                          int64_t piece, int with_keys)
{
    uint8_t *codes = random_codes(n, seed);
    int64_t *want_seg = malloc((size_t)(n + 1) * sizeof *want_seg);
    uint64_t *want_hash = malloc((size_t)(n + 1) * sizeof *want_hash);
    const int64_t m = brute_anchors(p, codes, n, ani_bound, 7, want_seg, want_hash);
    uint64_t *want_keys = NULL;
    const int64_t mk = row_keys(p, codes, n, key_bound, &want_keys);
    for (int kernel = TSK_GENOME_SCAN_PORTABLE; kernel <= TSK_GENOME_SCAN_AVX512; kernel++) {
        tsk_genome_scanner *s = tsk_genome_scanner_new(p);
        if (tsk_genome_scanner_use_kernel(s, (tsk_genome_scan_kernel)kernel)) {
            tsk_genome_scanner_free(s);
            continue;
        }
        tsk_anchor_vec a = {0};
        tsk_key_vec keys = {0};
        const tsk_anchor_request req = {ani_bound, 7, &a};
        const int64_t step = piece > 0 ? piece : n + 1;
        for (int64_t at = 0; at < n; at += step)
            cr_assert_eq(tsk_genome_scan_with_anchors(s, codes, n, at, at + step, key_bound, with_keys ? &keys : NULL,
                                                      &req), 0);
        cr_assert_eq(a.n, m, "kernel %d n=%lld piece=%lld: %lld anchors, the definition %lld", kernel, (long long)n,
                     (long long)piece, (long long)a.n, (long long)m);
        for (int64_t j = 0; j < m; j++) {
            cr_assert_eq(a.segment[j], want_seg[j], "kernel %d: anchor %lld's segment", kernel, (long long)j);
            cr_assert_eq(a.hash[j], want_hash[j], "kernel %d: anchor %lld's hash", kernel, (long long)j);
        }
        /* the keys are those of a scan without anchors */
        cr_assert_eq(keys.n, with_keys ? mk : 0, "kernel %d: %lld keys, the rows give %lld", kernel, (long long)keys.n,
                     (long long)mk);
        for (int64_t j = 0; j < keys.n; j++) cr_assert_eq(keys.keys[j], want_keys[j]);
        tsk_anchor_vec_free(&a);
        tsk_key_vec_free(&keys);
        tsk_genome_scanner_free(s);
    }
    free(want_keys);
    free(want_seg);
    free(want_hash);
    free(codes);
}

Test(genome_scan, segment_anchors_are_the_definition)
{
    const tsk_params p = genome_params(4, 16, 20, 16, 0x5EED);
    /* tails, a contig under one segment, exactly two; pieces across segment borders; the k-mers
     * across a border and in a tail are loose */
    const int64_t lengths[] = {0, 15, 2999, 3000, 3015, 6000, 10007, 20000};
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        for (int64_t piece = 0; piece <= 3001; piece += 1000) {
            check_anchors(&p, lengths[i], 40 + i, UINT64_MAX / 50, UINT64_MAX >> 6, piece, 1);
            check_anchors(&p, lengths[i], 40 + i, UINT64_MAX / 500, UINT64_MAX >> 3, piece, 0);
        }
    /* a key bound above the anchors' and both equal */
    check_anchors(&p, 9000, 5, UINT64_MAX / 10, UINT64_MAX >> 8, 0, 1);
    check_anchors(&p, 9000, 6, UINT64_MAX >> 6, UINT64_MAX >> 6, 777, 1);
    const tsk_params q = genome_params(3, 7, 24, 8, 3);
    check_anchors(&q, 7000, 8, UINT64_MAX / 20, UINT64_MAX >> 6, 500, 1);
}
