/* test_genome_ani.c: the ANI/AF estimator of core/genome_ani.h on synthetic segment anchors of
 * planted identities: even, mosaic, pieces, self, unrelated, no segment, mixed rates, determinism,
 * and the hit counts against a brute-force O(n m) count.
 *
 * The synthetic anchors are tests/ani_synth.h's: ~47 anchors a segment at 2^-6, ~23 at 2^-7 as a 3 kb
 * segment of a 5 Mbp genome has at 1/128. The fits are the mixture's means over ~1,000 segments: with ~23 anchors a segment at
 * p = 0.95^16 = 0.44, the pooled a/n has sd sqrt(p (1 - p) / 23,000) = 0.0033, so the identity
 * I = p^(1/16) has sd 0.0033 I / (16 p) = 0.00045; the mixture's mean about twice that. The
 * tolerances (0.002, 0.003) are 2-4 of those sds: never flaky over the fixed seeds, yet a bias of
 * the estimator's size before the mixture (0.7-2 points) fails them. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/genome_ani.h"

#include "../ani_synth.h"

static tsk_ani_result pair_of(const synth *q, const synth *r, int rate_q, int rate_r)
{
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert(w);
    tsk_ani_genome gq = stored(q, rate_q), gr = stored(r, rate_r);
    tsk_ani_result res;
    cr_assert_eq(tsk_ani_pair(w, &gq, &gr, K, &res), 0);
    stored_free(&gq);
    stored_free(&gr);
    tsk_ani_work_free(w);
    return res;
}

Test(genome_ani, even_identity)
{
    uint64_t rng = 1;
    synth q = synth_random(&rng, 1000);
    double ident[1000];
    for (int s = 0; s < 1000; s++) ident[s] = 0.95;
    synth r = synth_relative(&rng, &q, ident);
    const tsk_ani_result res = pair_of(&q, &r, 7, 7);
    cr_expect(res.defined);
    /* reported on fastANI's scale: 1 + 1.025 ln 0.95 = 0.94742 */
    const double want = 1 + TSK_ANI_SCALE * log(0.95);
    cr_expect(fabs(res.ani - want) < 0.002, "planted 0.95 (%.5f reported), estimated %.5f", want, res.ani);
    cr_expect(res.af > 0.97 && res.af <= 1.0, "af %.4f", res.af);
    cr_expect(fabs(res.ani_q - want) < 0.002 && fabs(res.ani_r - want) < 0.002);
    cr_expect_float_eq(tsk_ani_distance(&res), (float)(1.0 - res.ani), 1e-9);
    synth_free(&q);
    synth_free(&r);
}

Test(genome_ani, mosaic)
{
    uint64_t rng = 2;
    synth q = synth_random(&rng, 1000);
    double ident[1000], planted = 0;
    for (int s = 0; s < 1000; s++) {
        ident[s] = s % 5 == 2 ? 0.90 : 0.99; /* 20 % of the segments at 0.90 */
        planted += (1 + TSK_ANI_SCALE * log(ident[s])) / 1000; /* fastANI's mean: of each segment's 1 + s ln I */
    }
    synth r = synth_relative(&rng, &q, ident);
    const tsk_ani_result res = pair_of(&q, &r, 7, 7);
    cr_expect(res.ani > planted - 0.003 && res.ani < planted + 0.003, "planted %.4f, estimated %.5f", planted, res.ani);
    /* the pooled estimate (before the mixture) would be ((0.8 0.99^16 + 0.2 0.9^16))^(1/16) = 0.978;
     * the mean identity itself, 0.972, is 0.0011 above the planted mean on this scale */
    synth_free(&q);
    synth_free(&r);
}

Test(genome_ani, piece_against_source)
{
    uint64_t rng = 3;
    synth src = synth_random(&rng, 1000);
    double ident[1000];
    for (int s = 0; s < 1000; s++) ident[s] = s < 250 ? 1.0 : -1; /* the first quarter, unchanged */
    synth piece = synth_relative(&rng, &src, ident);
    const tsk_ani_result res = pair_of(&piece, &src, 7, 7);
    cr_expect(res.defined);
    cr_expect(res.ani_q == 1.0 && res.af_q == 1.0, "piece -> source: %.5f %.4f", res.ani_q, res.af_q);
    cr_expect(res.ani_r > 0.998, "source -> piece ani %.5f", res.ani_r);
    cr_expect(res.af_r > 0.24 && res.af_r < 0.26, "source -> piece af %.4f", res.af_r);
    cr_expect(res.ani > 0.999, "ani %.5f", res.ani);
    cr_expect(res.af == 1.0, "the piece is the smaller genome, all aligned: af %.4f", res.af);
    synth_free(&src);
    synth_free(&piece);
}

Test(genome_ani, self)
{
    uint64_t rng = 4;
    synth q = synth_random(&rng, 300);
    const tsk_ani_result res = pair_of(&q, &q, 7, 7);
    cr_expect(res.defined);
    cr_expect_eq(res.ani, 1.0);
    cr_expect_eq(res.af, 1.0);
    cr_expect_eq(tsk_ani_distance(&res), 0.0f);
    synth_free(&q);
}

Test(genome_ani, unrelated)
{
    uint64_t rng = 5;
    synth q = synth_random(&rng, 1700), r = synth_random(&rng, 1500);
    const tsk_ani_result res = pair_of(&q, &r, 7, 7);
    cr_expect(res.defined);
    cr_expect_eq(res.ani, 0.0);
    cr_expect_eq(res.af, 0.0);
    cr_expect_eq(tsk_ani_distance(&res), 1.0f);
    synth_free(&q);
    synth_free(&r);
}

Test(genome_ani, no_segment)
{
    uint64_t rng = 6;
    synth q = synth_random(&rng, 200), empty = {0, calloc(1, sizeof(int64_t)), malloc(sizeof(uint64_t))};
    tsk_ani_result res = pair_of(&q, &empty, 7, 6);
    cr_expect_eq(res.defined, 0);
    cr_expect_eq(res.ani, 0.0);
    cr_expect_eq(tsk_ani_distance(&res), 1.0f);
    res = pair_of(&empty, &q, 6, 7);
    cr_expect_eq(res.defined, 0);
    /* segments without anchors are no segments with anchors either */
    tsk_ani_work *w = tsk_ani_work_new();
    tsk_ani_genome gq = stored(&q, 7);
    const uint16_t zero[3] = {0, 0, 0};
    const tsk_ani_genome none = {.n_segments = 3, .n_anchors = 0, .rate_log2 = 7, .seg_count = zero,
                                 .hash = NULL, .length = 9000};
    cr_assert_eq(tsk_ani_pair(w, &gq, &none, K, &res), 0);
    cr_expect_eq(res.defined, 0);
    stored_free(&gq);
    tsk_ani_work_free(w);
    synth_free(&q);
    synth_free(&empty);
}

/* A genome at 2^-6 against one at 2^-8 compares the anchors both keep at 2^-8 on the 30 bits both
 * store: the same hits as both at 2^-8 (the values' 30 bits coincide by chance with 2^-30 a pair)
 * and the same estimate but for the chance of a match by accident, 4 x (R's anchors) / 2^32 instead
 * of R's anchors / 2^32 beside 2 L_R / 4^16 (1e-2 of it), which moves the fitted mean by
 * ~3e-5 (0.003 ANI points; tolerance 1e-4). */
Test(genome_ani, rates_meet_at_the_sparser)
{
    uint64_t rng = 7;
    synth q = synth_random(&rng, 800);
    double ident[800];
    for (int s = 0; s < 800; s++) ident[s] = s % 7 == 0 ? -1 : 0.93 + 0.01 * (s % 5);
    synth r = synth_relative(&rng, &q, ident);
    const tsk_ani_result a = pair_of(&q, &r, 6, 8), b = pair_of(&q, &r, 8, 8), c = pair_of(&q, &r, 8, 6);
    cr_expect(b.ani > 0.94 && b.ani < 0.96, "ani %.4f", b.ani);
    cr_expect(fabs(a.ani - b.ani) < 1e-4 && fabs(a.af - b.af) < 1e-4, "6 vs 8: %.6f %.6f, both at 8: %.6f %.6f", a.ani,
              a.af, b.ani, b.af);
    cr_expect(fabs(c.ani - b.ani) < 1e-4 && fabs(c.af - b.af) < 1e-4, "8 vs 6: %.6f %.6f, both at 8: %.6f %.6f", c.ani,
              c.af, b.ani, b.af);
    tsk_ani_work *w = tsk_ani_work_new();
    tsk_ani_genome q6 = stored(&q, 6), q8 = stored(&q, 8), r8 = stored(&r, 8);
    uint32_t n1[800], a1[800], m1[800], b1[800], n2[800], a2[800], m2[800], b2[800];
    cr_assert_eq(tsk_ani_segment_hits(w, &q6, &r8, n1, a1, m1, b1), 0);
    cr_assert_eq(tsk_ani_segment_hits(w, &q8, &r8, n2, a2, m2, b2), 0);
    cr_expect(memcmp(n1, n2, sizeof n1) == 0 && memcmp(a1, a2, sizeof a1) == 0);
    cr_expect(memcmp(m1, m2, (size_t)r.n_seg * sizeof *m1) == 0 && memcmp(b1, b2, (size_t)r.n_seg * sizeof *b1) == 0);
    tsk_ani_work_free(w);
    stored_free(&q6);
    stored_free(&q8);
    stored_free(&r8);
    synth_free(&q);
    synth_free(&r);
}

Test(genome_ani, deterministic)
{
    uint64_t rng = 8;
    synth q = synth_random(&rng, 600);
    double ident[600];
    for (int s = 0; s < 600; s++) ident[s] = s % 9 == 0 ? -1 : s % 4 == 0 ? 0.8 : 0.96;
    synth r = synth_relative(&rng, &q, ident);
    const tsk_ani_result a = pair_of(&q, &r, 7, 7), b = pair_of(&q, &r, 7, 7);
    cr_expect(memcmp(&a, &b, sizeof a) == 0);
    /* anchors in another order within every segment: the same bytes */
    for (int64_t s = 0; s < r.n_seg; s++) {
        const int64_t lo = r.first[s], n = r.first[s + 1] - lo;
        for (int64_t j = n - 1; j > 0; j--) {
            const int64_t i = (int64_t)(splitmix64(&rng) % (uint64_t)(j + 1));
            const uint64_t t = r.h[lo + j];
            r.h[lo + j] = r.h[lo + i];
            r.h[lo + i] = t;
        }
    }
    const tsk_ani_result c = pair_of(&q, &r, 7, 7);
    cr_expect(memcmp(&a, &c, sizeof a) == 0, "shuffled: %.17g %.17g vs %.17g %.17g", a.ani, a.af, c.ani, c.af);
    /* one work reused across pairs of other sizes gives what fresh ones give */
    tsk_ani_work *w = tsk_ani_work_new();
    synth small = synth_random(&rng, 50);
    tsk_ani_genome gq = stored(&q, 7), gr = stored(&r, 7), gs = stored(&small, 6);
    tsk_ani_result d, e;
    cr_assert_eq(tsk_ani_pair(w, &gs, &gs, K, &e), 0);
    cr_assert_eq(tsk_ani_pair(w, &gq, &gr, K, &d), 0);
    cr_assert_eq(tsk_ani_pair(w, &gs, &gq, K, &e), 0);
    cr_expect(memcmp(&a, &d, sizeof a) == 0);
    stored_free(&gq);
    stored_free(&gr);
    stored_free(&gs);
    tsk_ani_work_free(w);
    synth_free(&small);
    synth_free(&q);
    synth_free(&r);
}

/* The sorted merge against a count of every pair of anchors, with repeated values inside and across
 * segments and two rates. */
Test(genome_ani, hits_against_brute_force)
{
    uint64_t rng = 9;
    synth q = synth_random(&rng, 120);
    double ident[120];
    for (int s = 0; s < 120; s++) ident[s] = s % 6 == 0 ? -1 : 0.9;
    synth r = synth_relative(&rng, &q, ident);
    const uint64_t repeat = q.h[5] >> 1; /* below 2^57: kept at either rate */
    for (int64_t j = 0; j < 40; j++) q.h[j * 37 % q.first[q.n_seg]] = repeat;
    for (int64_t j = 0; j < 10; j++) r.h[j * 53 % r.first[r.n_seg]] = repeat;
    tsk_ani_genome gq = stored(&q, 6), gr = stored(&r, 7);
    uint32_t nq[120], aq[120], nr[120], ar[120];
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert_eq(tsk_ani_segment_hits(w, &gq, &gr, nq, aq, nr, ar), 0);
    /* naive: both cut to rate 7 (h < 2^57), compared on the bits both store, 26 .. 57 */
    for (int side = 0; side < 2; side++) {
        const synth *x = side ? &r : &q, *y = side ? &q : &r;
        const uint32_t *n = side ? nr : nq, *a = side ? ar : aq;
        for (int64_t s = 0; s < x->n_seg; s++) {
            uint32_t cn = 0, ca = 0;
            for (int64_t i = x->first[s]; i < x->first[s + 1]; i++) {
                if (x->h[i] >= UINT64_C(1) << 57) continue;
                cn++;
                int hit = 0;
                for (int64_t j = 0; j < y->first[y->n_seg] && !hit; j++)
                    hit = y->h[j] < UINT64_C(1) << 57 && (y->h[j] >> 26) == (x->h[i] >> 26);
                ca += hit;
            }
            cr_expect_eq(n[s], cn, "side %d segment %lld: %u anchors, naive %u", side, (long long)s, n[s], cn);
            cr_expect_eq(a[s], ca, "side %d segment %lld: %u hits, naive %u", side, (long long)s, a[s], ca);
        }
    }
    tsk_ani_work_free(w);
    stored_free(&gq);
    stored_free(&gr);
    synth_free(&q);
    synth_free(&r);
}

Test(genome_ani, rate_of_a_length)
{
    cr_expect_eq(tsk_ani_rate_log2(0), 6);
    cr_expect_eq(tsk_ani_rate_log2((int64_t)TSK_ANI_MAX_ANCHORS << 6), 6);
    cr_expect_eq(tsk_ani_rate_log2(((int64_t)TSK_ANI_MAX_ANCHORS << 6) + 1), 7);
    cr_expect_eq(tsk_ani_rate_log2(5000000), 7);
    cr_expect_eq(tsk_ani_rate_log2(10000000), 8);
}

/* One query for many pairs (tsk_ani_work_query, then tsk_ani_pair_query) gives the bytes of a fresh
 * tsk_ani_pair for each, with references denser, sparser and as dense as the query (the cut and
 * the shift in the lookup), in any order, and nothing of one pair left in the next (the hits'
 * stamps). */
Test(genome_ani, one_query_many_pairs_same_bytes)
{
    uint64_t rng = 10;
    synth q = synth_random(&rng, 500), other = synth_random(&rng, 300);
    double ident[500];
    for (int s = 0; s < 500; s++) ident[s] = s % 8 == 0 ? -1 : 0.9 + 0.02 * (s % 4);
    synth r = synth_relative(&rng, &q, ident);
    tsk_ani_genome gq = stored(&q, 7);
    tsk_ani_genome refs[5] = {stored(&r, 6), stored(&r, 8), stored(&r, 7), stored(&other, 7), stored(&q, 6)};
    tsk_ani_work *w = tsk_ani_work_new(), *fresh = tsk_ani_work_new();
    cr_assert_eq(tsk_ani_work_query(w, &gq), 0);
    cr_assert_eq(tsk_ani_work_current_query(w), &gq);
    const int order[8] = {0, 1, 2, 3, 4, 2, 0, 1};
    for (int t = 0; t < 8; t++) {
        tsk_ani_result a, b;
        cr_assert_eq(tsk_ani_pair_query(w, &refs[order[t]], K, &a), 0);
        tsk_ani_work_free(fresh);
        fresh = tsk_ani_work_new();
        cr_assert_eq(tsk_ani_pair(fresh, &gq, &refs[order[t]], K, &b), 0);
        cr_expect(order[t] == 3 ? a.ani == 0 : a.ani > 0.9, "reference %d: ANI %.6f", order[t], a.ani);
        cr_expect(memcmp(&a, &b, sizeof a) == 0, "reference %d: %.17g vs %.17g", order[t], a.ani, b.ani);
    }
    tsk_ani_work_free(w);
    tsk_ani_work_free(fresh);
    stored_free(&gq);
    for (int t = 0; t < 5; t++) stored_free(&refs[t]);
    synth_free(&q);
    synth_free(&r);
    synth_free(&other);
}

/* A pair both ways round: tsk_ani_pair(r, q) is tsk_ani_result_swap of tsk_ani_pair(q, r), byte for
 * byte, with the window's means, at even and mixed rates, when the genomes have as many segments
 * (the pair's AF is then the query's direction's) and when not, and when unrelated. */
Test(genome_ani, swapped_pair_same_bytes)
{
    uint64_t rng = 11;
    synth q = synth_random(&rng, 400), other = synth_random(&rng, 400);
    double even[400], gapped[400];
    for (int s = 0; s < 400; s++) {
        even[s] = s < 120 ? 0.5 : 0.93 + 0.01 * (s % 5); /* as many segments; a fifth or so unrelated */
        gapped[s] = s % 7 == 0 ? -1 : 0.95;
    }
    synth same_n = synth_relative(&rng, &q, even), fewer = synth_relative(&rng, &q, gapped);
    const synth *partner[3] = {&same_n, &fewer, &other};
    const int rates[4][2] = {{7, 7}, {6, 7}, {7, 6}, {8, 6}};
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert_eq(tsk_ani_work_set_window(w, 20), 0);
    int uneven_af = 0;
    for (int p = 0; p < 3; p++)
        for (int t = 0; t < 4; t++) {
            tsk_ani_genome a = stored(&q, rates[t][0]), b = stored(partner[p], rates[t][1]);
            tsk_ani_result ab, ba, swapped;
            cr_assert_eq(tsk_ani_pair(w, &a, &b, K, &ab), 0);
            cr_assert_eq(tsk_ani_pair(w, &b, &a, K, &ba), 0);
            tsk_ani_result_swap(&a, &b, &ab, &swapped);
            cr_expect(memcmp(&swapped, &ba, sizeof ba) == 0, "partner %d rates %d/%d: %.17g %.17g vs %.17g %.17g", p,
                      rates[t][0], rates[t][1], swapped.ani, swapped.af, ba.ani, ba.af);
            cr_expect(p == 2 ? ab.ani == 0 : ab.ani > 0.9, "partner %d: ANI %.6f", p, ab.ani);
            uneven_af += p == 0 && ab.af != ba.af;
            stored_free(&a);
            stored_free(&b);
        }
    cr_expect(uneven_af > 0, "as many segments: the pair's AF follows the query (the case the swap must take)");
    tsk_ani_work_free(w);
    synth_free(&q);
    synth_free(&other);
    synth_free(&same_n);
    synth_free(&fewer);
}

/* The level from the keys near identity (tsk_ani_level_from_keys), on results made by hand. */
static double point_mass(double a, int window) /* a mass at a split over the grid entries around it */
{
    const double lo = floor(a * 100) / 100, hi = lo + 0.01, lw = pow(lo, window), hw = pow(hi, window);
    return ((hi - a) * lw + (a - lo) * hw) * 100;
}

/* fastANI's scale, as the estimator reports identities */
static double reported(double identity) { return 1 + TSK_ANI_SCALE * log(identity); }

/* a result whose directions both read identity (reported on fastANI's scale) */
static tsk_ani_result near_identity(double identity, double m_excess)
{
    tsk_ani_result r = {0};
    r.defined = 1;
    r.ani_q = r.ani_r = r.ani = reported(identity);
    r.af_q = r.af_r = r.af = 1;
    r.m_q = r.m_r = point_mass(identity, 20) + m_excess;
    return r;
}

Test(genome_ani, level_from_keys)
{
    /* above TSK_ANI_KEYS_HIGH, no spread beyond the grid's: each direction is (shared / n)^(1/W) */
    tsk_ani_result r = near_identity(0.995, 0);
    tsk_ani_level_from_keys(&r, 9800, 10000, 9900, 20);
    cr_expect_float_eq(r.ani_q, reported(pow(0.98, 1.0 / 20)), 1e-12, "q %.10f", r.ani_q);
    cr_expect_float_eq(r.ani_r, reported(pow(9800.0 / 9900, 1.0 / 20)), 1e-12, "r %.10f", r.ani_r);
    cr_expect_float_eq(r.ani, (r.ani_q + r.ani_r) / 2, 1e-15);
    cr_expect_eq(r.af, 1.0, "AF stays the anchors'");
    /* the keys over an aligned fraction: (c / AF)^(1/W) */
    r = near_identity(0.995, 0);
    r.af_q = 0.5;
    tsk_ani_level_from_keys(&r, 4900, 10000, 4900, 20);
    cr_expect_float_eq(r.ani_q, reported(pow(0.98, 1.0 / 20)), 1e-12, "q over half of it: %.10f", r.ani_q);
    cr_expect_float_eq(r.ani_r, 1.0, 1e-12, "r wholly contained: %.10f", r.ani_r);
    /* spread beyond the grid's (uneven divergence) comes off the keys' identity */
    r = near_identity(0.995, 0.01);
    tsk_ani_level_from_keys(&r, 9800, 10000, 10000, 20);
    const double spread = pow(point_mass(0.995, 20) + 0.01, 1.0 / 20) - pow(point_mass(0.995, 20), 1.0 / 20);
    cr_expect(spread > 0.0004);
    cr_expect_float_eq(r.ani, reported(pow(0.98, 1.0 / 20) - spread), 1e-12, "%.10f", r.ani);
    /* halfway up the ramp: halfway between the anchors and the keys */
    r = near_identity(exp((0.985 - 1) / TSK_ANI_SCALE), 0); /* reads 0.985 */
    tsk_ani_level_from_keys(&r, 9900, 10000, 10000, 20);
    cr_expect_float_eq(r.ani, (0.985 + reported(pow(0.99, 1.0 / 20))) / 2, 1e-12, "%.10f", r.ani);
    /* the keys never make an identity above 1 */
    r = near_identity(0.999, 0);
    r.af_q = r.af_r = 0.9;
    tsk_ani_level_from_keys(&r, 10000, 10000, 10000, 20);
    cr_expect_eq(r.ani, 1.0);
    /* left as they are: below the ramp, not defined, without m, unrelated, no shared key */
    const tsk_ani_result cases[] = {near_identity(0.97, 0), near_identity(0.979999, 0), near_identity(0.995, 0),
                                    near_identity(0.995, 0), near_identity(0.995, 0)};
    for (int i = 0; i < 5; i++) {
        tsk_ani_result c = cases[i], before;
        if (i == 2) c.defined = 0;
        if (i == 3) c.m_q = 0;
        if (i == 4) c.ani = 0, c.af = 0;
        before = c;
        tsk_ani_level_from_keys(&c, i == 1 ? 0 : 9800, 10000, 10000, 20);
        cr_expect(memcmp(&c, &before, sizeof c) == 0, "case %d changed", i);
    }
}

/* The work's m: the mean of I^W over the aligned weight, from the fitted mixture. */
Test(genome_ani, window_mean)
{
    uint64_t rng = 11;
    synth q = synth_random(&rng, 400);
    double ident[400];
    for (int s = 0; s < 400; s++) ident[s] = s % 4 ? 0.999 : 0.97; /* a quarter of it at 0.97 */
    synth r = synth_relative(&rng, &q, ident);
    tsk_ani_genome gq = stored(&q, 6), gr = stored(&r, 6);
    tsk_ani_work *w = tsk_ani_work_new();
    tsk_ani_result plain, with_m;
    cr_assert_eq(tsk_ani_pair(w, &gq, &gr, K, &plain), 0);
    cr_expect(plain.m_q == 0 && plain.m_r == 0, "no window: no m");
    cr_assert_eq(tsk_ani_work_set_window(w, 20), 0);
    cr_assert_eq(tsk_ani_pair(w, &gq, &gr, K, &with_m), 0);
    cr_expect(with_m.ani == plain.ani && with_m.af == plain.af, "the window changes nothing else");
    /* m is a mean of I^20 over the fitted mixture: at least the 20th power of its mean (Jensen), by a
     * clear margin for this spread, at most the mean itself; and near the planted 0.75 * 0.999^20 +
     * 0.25 * 0.97^20 = 0.871 (the fit smears the 0.999 segments towards the grid's 0.99: ani_q
     * 0.9885 against the planted 0.9918, m 0.813) */
    const double planted = 0.75 * pow(0.999, 20) + 0.25 * pow(0.97, 20);
    cr_expect(with_m.m_q > pow(with_m.ani_q, 20) + 0.005 && with_m.m_q < with_m.ani_q, "m_q %.4f, ani_q %.5f",
              with_m.m_q, with_m.ani_q);
    cr_expect(fabs(with_m.m_q - planted) < 0.08, "m_q %.4f, planted %.4f", with_m.m_q, planted);
    cr_expect_eq(tsk_ani_work_set_window(w, 65), -1);
    tsk_ani_work_free(w);
    stored_free(&gq), stored_free(&gr);
    synth_free(&q), synth_free(&r);
}

/* tsk_ani_repeats by brute force: per segment, its anchors whose stored value another segment
 * holds, at most TSK_ANI_REPEAT_CAP. */
static int64_t repeats_brute(const tsk_ani_genome *g)
{
    int64_t total = 0, at = 0;
    for (int64_t s = 0; s < g->n_segments; s++) {
        int64_t here = 0;
        for (uint32_t j = 0; j < g->seg_count[s]; j++) {
            const uint32_t v = g->hash[at + j];
            int64_t other = 0, b = 0;
            for (int64_t t = 0; t < g->n_segments && !other; b += g->seg_count[t], t++)
                for (uint32_t u = 0; t != s && u < g->seg_count[t]; u++) other |= g->hash[b + u] == v;
            here += other;
        }
        total += here < TSK_ANI_REPEAT_CAP ? here : TSK_ANI_REPEAT_CAP;
        at += g->seg_count[s];
    }
    return total;
}

/* A skewed genome (tests/ani_synth.h's synth_skew: 5 % of its anchors from 20,000 values) and a
 * quarter of it, unchanged: the source's other segments meet the piece's pool values by chance
 * (0.07 hits a segment, where random sequence of the piece's length gives 0.02; the Blochmannia
 * genome of FINDINGS.md, 0.12), and the source's repeats with itself measure that rate. Counted, the
 * pair reads the piece's 100 %; taken as random sequence (repeats 0), chance hits read as aligned
 * segments at ~80 % and pull the source's direction down. */
Test(genome_ani, chance_hits_of_a_skewed_genome)
{
    uint64_t rng = 12;
    synth src = synth_random(&rng, 1000);
    synth_skew(&rng, &src, 20000, 0.05);
    double ident[1000];
    for (int s = 0; s < 1000; s++) ident[s] = s < 250 ? 1.0 : -1;
    synth piece = synth_relative(&rng, &src, ident);
    tsk_ani_genome gs = stored(&src, 6), gp = stored(&piece, 6);
    int64_t rep_s = -1, rep_p = -1;
    gs.repeats = &rep_s, gp.repeats = &rep_p;
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert(w);
    tsk_ani_result counted, random_rate;
    cr_assert_eq(tsk_ani_pair(w, &gp, &gs, K, &counted), 0);
    cr_expect_eq(rep_s, repeats_brute(&gs), "source: %ld repeats, brute force %ld", (long)rep_s, (long)repeats_brute(&gs));
    cr_expect_eq(rep_p, repeats_brute(&gp), "piece: %ld repeats, brute force %ld", (long)rep_p, (long)repeats_brute(&gp));
    cr_expect(rep_s > 200, "the pool recurs: %ld", (long)rep_s);
    /* the work's query (sorted) and a genome sorted apart count alike: the piece was the query
     * above, and is not in a fresh work */
    tsk_ani_work *apart = tsk_ani_work_new();
    cr_assert(apart);
    int64_t again = -1;
    gp.repeats = &again;
    cr_expect_eq(tsk_ani_repeats(apart, &gp), rep_p);
    tsk_ani_work_free(apart);
    int64_t none_s = 0, none_p = 0;
    gs.repeats = &none_s, gp.repeats = &none_p;
    cr_assert_eq(tsk_ani_pair(w, &gp, &gs, K, &random_rate), 0);
    cr_expect(counted.ani > 0.998 && counted.af == 1.0, "piece against source: ANI %.5f AF %.4f", counted.ani, counted.af);
    cr_expect(random_rate.ani < counted.ani - 0.002, "at random sequence's chance rate: ANI %.5f (counted %.5f)",
              random_rate.ani, counted.ani);
    cr_expect(counted.af_r > 0.24 && counted.af_r < 0.26, "source -> piece AF %.4f", counted.af_r);
    tsk_ani_work_free(w);
    stored_free(&gs);
    stored_free(&gp);
    synth_free(&src);
    synth_free(&piece);
}

/* Loose anchors (core/genome_ani.h): a segment anchor of Q hits a loose anchor of R only where R's
 * segments cover less than TSK_ANI_MIN_COVER of it (a draft of short contigs), and Q's loose
 * anchors serve R's segments alike; loose anchors count in no segment, and the repeats count them
 * as a segment of their own. Counts checked exactly (tsk_ani_segment_hits, tsk_ani_repeats). */
Test(genome_ani, loose_anchors_looked_up_in_drafts_of_short_contigs)
{
    /* Q: one segment of 40 anchors 100..139, then 5 loose 500..504. R: two segments (anchors 200..209
     * and 100..119, Q's first 20), then 25 loose: Q's 120..139 and 500..504 */
    uint32_t hq[45], hr[55];
    for (int i = 0; i < 40; i++) hq[i] = 100 + (uint32_t)i;
    for (int i = 0; i < 5; i++) hq[40 + i] = 500 + (uint32_t)i;
    for (int i = 0; i < 10; i++) hr[i] = 200 + (uint32_t)i;
    for (int i = 0; i < 20; i++) hr[10 + i] = 100 + (uint32_t)i;
    for (int i = 0; i < 20; i++) hr[30 + i] = 120 + (uint32_t)i;
    for (int i = 0; i < 5; i++) hr[50 + i] = 500 + (uint32_t)i;
    const uint16_t cq[1] = {40}, cr[2] = {10, 20};
    tsk_ani_genome q = {.n_segments = 1, .n_anchors = 40, .n_loose = 5, .rate_log2 = 7, .seg_count = cq, .hash = hq,
                        .length = 3200};
    /* R of 6 kb in 2 segments: covered, its loose anchors left out; of 20 kb: looked up */
    tsk_ani_genome r = {.n_segments = 2, .n_anchors = 30, .n_loose = 25, .rate_log2 = 7, .seg_count = cr, .hash = hr,
                        .length = 6000};
    tsk_ani_work *w = tsk_ani_work_new();
    cr_assert(w);
    uint32_t n_q[1], a_q[1], n_r[2], a_r[2];
    cr_assert_eq(tsk_ani_loose_used(&q), 0, "Q's one segment covers 3,000 of its 3,200 bases");
    cr_assert_eq(tsk_ani_loose_used(&r), 0);
    cr_assert_eq(tsk_ani_segment_hits(w, &q, &r, n_q, a_q, n_r, a_r), 0);
    cr_expect(n_q[0] == 40 && a_q[0] == 20, "covered R: Q's segment hits R's segments only (%u of %u)", a_q[0], n_q[0]);
    cr_expect(n_r[0] == 10 && a_r[0] == 0 && n_r[1] == 20 && a_r[1] == 20);
    r.length = 20000;
    cr_assert_eq(tsk_ani_loose_used(&r), 25);
    cr_assert_eq(tsk_ani_segment_hits(w, &q, &r, n_q, a_q, n_r, a_r), 0);
    cr_expect(n_q[0] == 40 && a_q[0] == 40, "draft R: its loose anchors too (%u of %u)", a_q[0], n_q[0]);
    cr_expect(n_r[1] == 20 && a_r[1] == 20, "R's segments unchanged: Q's loose anchors left out (Q covered)");
    /* as the query sorted once, the other way round */
    cr_assert_eq(tsk_ani_segment_hits(w, &r, &q, n_r, a_r, n_q, a_q), 0);
    cr_expect(a_q[0] == 40 && a_r[1] == 20 && a_r[0] == 0);
    /* Q short of its segments: R's segment anchors find Q's loose ones (none here share a value) */
    q.length = 10000;
    cr_assert_eq(tsk_ani_loose_used(&q), 5);
    cr_assert_eq(tsk_ani_segment_hits(w, &q, &r, n_q, a_q, n_r, a_r), 0);
    cr_expect(a_q[0] == 40 && a_r[0] == 0 && a_r[1] == 20);
    /* repeats: none of Q's values recurs; R's loose anchors (120..139, 500..504) hold none of its
     * segments' values until one is made 205 */
    cr_expect_eq(tsk_ani_repeats(w, &q), 0);
    hr[50] = 205; /* now a loose anchor of R repeats its first segment's 205 */
    int64_t rep = -1;
    r.repeats = &rep;
    cr_expect_eq(tsk_ani_repeats(w, &r), 1, "a segment anchor whose value is loose elsewhere recurs");
    r.length = 6000, rep = -1;
    cr_expect_eq(tsk_ani_repeats(w, &r), 0, "... but not when the loose anchors are left out");
    tsk_ani_work_free(w);
}
