/* genome_keys.h: genome sketches: sampled sets of window fingerprints, and their distance.
 *
 * A genome sketch (docs/algorithm.md, "Genome sketches") is a set of 64-bit keys of the genome's
 * anchored windows (tsk_anchor_windows_below), stored sorted and unique. A window's key joins two
 * hashes:
 *
 *   - high bits: the hash of its anchor (the canonical k-mer at its centre, tsk_anchor_windows),
 *     which decides whether the window is sampled at all;
 *   - low TSK_GENOME_FP_BITS bits: a fingerprint of its exact, integer Tensor Sketch. The engine's
 *     row of the window (a whole-record sketch of its W codes, canonical: the mean of the sketch of
 *     the window and of its reverse complement) is S / C, S an integer vector and C = C(W, t)
 *     (twice that for canonical rows), because every bin is a signed count of t-tuples divided by
 *     their number. |S_r| <= C <= TSK_GENOME_MAX_SCALE, so round(row_r * C) recovers S_r exactly
 *     from a float32 or float64 row of either engine: h_D, with h_0 = seed and
 *     h_{r+1} = mix64(h_r XOR (r << 32 | (uint32) S_r)), mix64 the output function of SplitMix64,
 *     is the same bit for bit whichever engine (or precision) sketched the window.
 *
 * So a key's order is its anchor hash's order (to TSK_GENOME_FP_BITS bits), and "keys at or below
 * tau" (tau with its low bits all set) is "windows whose anchor hash is at most tau": a sample
 * that depends only on the window's letters (both strands alike), consistent across genomes as
 * FracMinHash's is.
 *
 * Size floor. A genome keeps the windows whose key is at most its threshold tau_g:
 *
 *   T    = floor((2^64 - 1) / scaled) | FP_MASK                  the scaled threshold
 *   s_g  = min(max(floor(4 L / (5 min_keys)), F), scaled)        its anchors' stride (L = its length,
 *                                                                F = floor_stride, at least 1)
 *   C_g  = floor((2^64 - 1) / s_g) | FP_MASK                     its candidates: anchors at stride s_g
 *   tau_g = C_g                                  when it has fewer than min_keys candidate keys
 *         = max(T, K_(min_keys) | FP_MASK)       else (K_(j) the j-th smallest candidate key)
 *
 * (min_keys 0: tau_g = T, s_g = scaled). A genome of L >= 5/4 min_keys scaled bases keeps about
 * L / scaled keys; a smaller one about min_keys, from about 5/4 min_keys candidates (the min_keys-th
 * smallest of them is then far inside them), but never more than one anchor in F: a genome under
 * 5/4 min_keys F bases keeps all its candidates, about L / F (F = 1: all its windows). Without F a
 * 20 kb phage kept 12,000 keys, a sketch 4.8 times its FASTA, and its sketching scanned every
 * window (docs/accuracy.md, "The size floor").
 * tau_g is a function of the stored keys, min_keys, F, scaled and L (tsk_genome_threshold): the same
 * formula over the stored keys as over the candidates, so a reader recomputes it. A pair is
 * compared below tau = min(tau_A, tau_B), where both sketches are complete samples:
 *
 *     A' = {a in A: a <= tau},  B' likewise;  |A' n B'| = |A n B| (a shared key is below both)
 *     f = (|A n B| / |A'| + |A n B| / |B'|) / 2,    distance = 1 - f^(1/W)      (symmetric)
 *     f = |Q n R| / |Q'|,                           distance = 1 - f^(1/W)      (containment of Q in R)
 *
 * A window survives a per-base divergence d with probability (1 - d)^W, so the distance estimates
 * 1 - ANI as Mash's distance does from shared k-mers; f = 0 (nothing shared, or an empty sketch)
 * gives 1. Both engines count |A n B| exactly (integers), |A'| and |B'| by tsk_genome_pair_sizes,
 * and the distance is computed from the counts by tsk_genome_pair_distance alone, so the engines
 * give the same bytes. */
#ifndef TSK_GENOME_KEYS_H
#define TSK_GENOME_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "key_search.h"
#include "tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest size floor (--min-keys). */
#define TSK_GENOME_MAX_MIN_KEYS INT64_C(1000000000)
/* The largest floor stride (--floor-stride), as --scaled's. */
#define TSK_GENOME_MAX_FLOOR_STRIDE (INT64_C(1) << 32)
/* The largest window a genome sketch takes. */
#define TSK_GENOME_MAX_WINDOW 64
/* The largest row scale 2 C(W, t) it takes: a float32 row value (|v| <= 1) is within half an ulp,
 * 2^-25, of S / scale, and scale * 2^-25 must stay below tsk_genome_key_of_row's 0.05 tolerance
 * (1.68e6; W = 64, t = 4: 1.27e6; W = 48, t = 5: 3.4e6 is refused, its float32 rows fail on
 * low-complexity windows). */
#define TSK_GENOME_MAX_SCALE 1.6e6

/* NULL when p describes genome sketches that can be made (anchored, canonical DNA windows of at
 * most TSK_GENOME_MAX_WINDOW bases and TSK_GENOME_MAX_SCALE, scaled >= stride), else a static
 * message naming the parameter. */
const char *tsk_genome_params_check(const tsk_params *p);

/* Divisor that turns an integer sketch of a window into its row: C(W, t), doubled for canonical
 * rows. */
double tsk_genome_row_scale(const tsk_params *p);

/* Low bits of a key that come from the window's fingerprint (the rest: its anchor hash). */
#define TSK_GENOME_FP_BITS 24
#define TSK_GENOME_FP_MASK ((UINT64_C(1) << TSK_GENOME_FP_BITS) - 1)

/* The scaled threshold T (above). */
static inline uint64_t tsk_genome_max_key(const tsk_params *p)
{
    return UINT64_MAX / (uint64_t)p->scaled | TSK_GENOME_FP_MASK;
}

/* F of the size floor (above): floor_stride, or 1 where it is 0 (files of tsketch before it). */
static inline int64_t tsk_genome_floor_stride(const tsk_params *p) { return p->floor_stride > 1 ? p->floor_stride : 1; }

/* The anchors' stride s_g of a genome of length bases (above): scaled when min_keys is 0. */
int64_t tsk_genome_anchor_stride(const tsk_params *p, int64_t length);

/* Its candidate bound C_g: the windows whose anchor hash is at most this are the candidates
 * (tsk_anchor_windows_below's max_hash), and so are the keys at most this. */
uint64_t tsk_genome_candidate_limit(const tsk_params *p, int64_t length);

/* The least length whose s_g is scaled: ceil(5 min_keys scaled / 4) (0 without a floor; INT64_MAX
 * when 5 min_keys scaled passes it). A reader that knows a genome is at least this long need not
 * know how long. */
int64_t tsk_genome_floor_length(const tsk_params *p);

/* tau_g of a genome of length bases whose candidate (or stored) keys are keys[0..n), ascending. */
uint64_t tsk_genome_threshold(const tsk_params *p, int64_t length, const uint64_t *keys, int64_t n);

/* SplitMix64's output function: a bijection of 64-bit words with good avalanche. */
static inline uint64_t tsk_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* One step of the fingerprint chain: h_{r+1} = mix64(h_r XOR (r << 32 | (uint32) S_r)). */
static inline uint64_t tsk_genome_chain_step(uint64_t h, int r, uint32_t s)
{
    return tsk_mix64(h ^ ((uint64_t)(uint32_t)r << 32 | (uint64_t)s));
}

/* Fingerprint of the window whose integer sketch is s[0..dim) (the full 64 bits; a key keeps the
 * low TSK_GENOME_FP_BITS). */
uint64_t tsk_genome_key_of_sketch(const int32_t *s, int dim, uint64_t seed);

/* The key of a window: its anchor hash's high bits and its fingerprint's low bits. */
static inline uint64_t tsk_genome_key_join(uint64_t anchor_hash, uint64_t fingerprint)
{
    return (anchor_hash & ~TSK_GENOME_FP_MASK) | (fingerprint & TSK_GENOME_FP_MASK);
}

/* Key of the window whose row (float32 when elem_size is 4, float64 when 8) is row[0..p->dim)
 * and whose anchor hashes to anchor_hash: recovers the integer sketch (see above), fingerprints it
 * and joins the two. Returns 0 and sets *key, or -1 when a value is more than 0.05 away from an
 * integer after scaling, or that integer is beyond the scale, or NaN (not a window row of these
 * parameters: an engine fault, never rounding). */
int tsk_genome_key_of_row(const tsk_params *p, const void *row, size_t elem_size, uint64_t anchor_hash,
                          uint64_t *key);

/* tsk_genome_key_of_row for n rows at rows (each p->dim elements of elem_size bytes), the anchor
 * hashes anchors[0..n), into keys[0..n): the same keys, four rows' hash chains at a time (each
 * chain is 16 dependent mix64 rounds, so one row at a time waits on its multiplies). Returns -1,
 * or the index of the first row that is no integer sketch (keys from there on are not set). */
int64_t tsk_genome_keys_of_rows(const tsk_params *p, const void *rows, size_t elem_size, int64_t n,
                                const uint64_t *anchors, uint64_t *keys);

/* Sorts keys[0..n) ascending and removes repeats; returns the new count. */
int64_t tsk_genome_keys_sort_unique(uint64_t *keys, int64_t n);

/* Genome sketches to compare: item i's keys are keys[offset[i] .. offset[i+1]), strictly
 * ascending, all at most tau[i] (its threshold tau_g). tau NULL: every item's threshold is
 * UINT64_MAX (sets without a floor, where all thresholds are equal, may leave it out). */
typedef struct {
    int64_t n_items;
    const uint64_t *keys;
    const int64_t *offset;   /* n_items + 1 entries */
    const uint64_t *tau;     /* n_items entries, or NULL */
} tsk_key_sets;

static inline int64_t tsk_key_set_size(const tsk_key_sets *s, int64_t i) { return s->offset[i + 1] - s->offset[i]; }

/* |Q'| and |R'| of query i of q and reference j of r: their keys at most min(tau_i, tau_j) (a
 * binary search in the one whose threshold is larger; none when the thresholds are equal). */
static inline void tsk_genome_pair_sizes(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j,
                                         int64_t *n_query, int64_t *n_ref)
{
    *n_query = tsk_key_set_size(q, i);
    *n_ref = tsk_key_set_size(r, j);
    const uint64_t tq = q->tau ? q->tau[i] : UINT64_MAX, tr = r->tau ? r->tau[j] : UINT64_MAX;
    if (tr < tq) *n_query = tsk_keys_at_most(q->keys + q->offset[i], *n_query, tr);
    else if (tq < tr) *n_ref = tsk_keys_at_most(r->keys + r->offset[j], *n_ref, tq);
}

/* |A n B| of two strictly ascending key lists, by a plain merge (O(na + nb)): the oracle both
 * engines' tests compare with. */
int64_t tsk_genome_shared_naive(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb);

/* The two distances above. */
typedef enum { TSK_GENOME_SYMMETRIC = 0, TSK_GENOME_CONTAINMENT = 1 } tsk_genome_mode;

/* f of a pair: the share of fingerprints it has in common (symmetric: mean of both containments;
 * containment: of the query's); n_query and n_ref are the pair's sizes (tsk_genome_pair_sizes). Computed in double with plain IEEE operations (two divisions, a sum
 * and a halving; no fused multiply-add), so a GPU engine that ranks pairs by it ranks them as the
 * CPU does. 0 when either sketch is empty. */
static inline double tsk_genome_share(int64_t shared, int64_t n_query, int64_t n_ref, tsk_genome_mode m)
{
    if (n_query <= 0 || (m == TSK_GENOME_SYMMETRIC && n_ref <= 0)) return 0.0;
    const double sq = (double)shared / (double)n_query;
    if (m == TSK_GENOME_CONTAINMENT) return sq;
    const double sr = (double)shared / (double)n_ref;
    return (sq + sr) * 0.5;
}

/* The "total" printed beside the shared count: the union |Q' u R'| (symmetric) or |Q'| (containment);
 * n_query and n_ref are the pair's sizes (tsk_genome_pair_sizes). */
static inline int64_t tsk_genome_total(int64_t shared, int64_t n_query, int64_t n_ref, tsk_genome_mode m)
{
    return m == TSK_GENOME_CONTAINMENT ? n_query : n_query + n_ref - shared;
}

/* distance = 1 - f^(1/W) as float; 1 when f is 0, 0 when f is 1. */
float tsk_genome_key_distance(double share, int64_t window);

/* The distance of query i of q and reference j of r that share `shared` keys: their sizes
 * (tsk_genome_pair_sizes), the share f under mode m and tsk_genome_key_distance with window W.
 * The one way from an engine's count to a distance, for every command and engine. total (NULL:
 * not wanted) gets the pair's tsk_genome_total. */
float tsk_genome_pair_distance(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j, int64_t shared,
                               tsk_genome_mode m, int64_t window, int64_t *total);

/* The smallest share whose distance can be <= max_dist, less a margin: engines keep pairs with
 * share >= this and the caller applies max_dist to tsk_genome_key_distance exactly. */
double tsk_genome_share_floor(double max_dist, int64_t window);

/* One pair of a top-k or threshold query of genome sketches. Top-k order: larger share first,
 * ties by smaller ref index; an entry with ref < 0 pads a query with fewer than k references. */
typedef struct {
    int64_t query;
    int64_t ref;
    int64_t shared;
    double share;
} tsk_genome_pair;

/* Whether a ranks before b in top-k order: the larger share, then the smaller reference. Both
 * engines' one order. */
static inline TSK_HOST_DEVICE int tsk_genome_ranks_before(const tsk_genome_pair *a, const tsk_genome_pair *b)
{
    return a->share > b->share || (a->share == b->share && a->ref < b->ref);
}

/* Whether items [i0, i0 + n) are all items of s: the engines' check of a call's arguments. */
static inline int tsk_key_sets_holds(const tsk_key_sets *s, int64_t i0, int64_t n)
{
    return i0 >= 0 && n >= 0 && i0 <= s->n_items && n <= s->n_items - i0;
}

/* One pair's line of genome distances (the dist commands print "ref TAB query TAB dist TAB shared
 * TAB total", the shared and total fingerprint counts after the distance, as Mash prints shared
 * hashes; with --ani also "TAB ani TAB af"): indices into the query and reference sets, the counts,
 * the distance, and the pair's ANI (a fraction) and aligned fraction from its segment anchors
 * (genome_ani.h), both NAN where there is no estimate (no anchors, or --containment). */
typedef struct {
    int64_t query, ref;
    int64_t shared, total;
    float dist;
    float ani, af;
} tsk_genome_line;

#ifdef __cplusplus
}
#endif
#endif
