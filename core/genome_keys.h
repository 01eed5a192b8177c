/* genome_keys.h: genome sketches: sampled sets of window fingerprints, and their distance.
 *
 * A genome sketch (docs/algorithm.md, "Genome sketches") is the set of 64-bit keys of the genome's
 * anchored windows (tsk_anchor_windows) whose key falls at or below UINT64_MAX / scaled, stored
 * sorted and unique. A window's key is a hash of its exact, integer Tensor Sketch:
 *
 *   - the engine's row of the window (a whole-record sketch of its W codes, canonical: the mean of
 *     the sketch of the window and of its reverse complement) is S / C, S an integer vector and
 *     C = C(W, t) (twice that for canonical rows), because every bin is a signed count of
 *     t-tuples divided by their number. |S_r| <= C <= TSK_GENOME_MAX_SCALE, so round(row_r * C)
 *     recovers S_r exactly from a float32 or float64 row of either engine: the key is the same
 *     bit for bit whichever engine (or precision) sketched the window;
 *   - key = h_D, with h_0 = seed and h_{r+1} = mix64(h_r XOR (r << 32 | (uint32) S_r)), mix64 the
 *     output function of SplitMix64 (a bijection).
 *
 * Anchors sit where the sequence puts them and the key depends only on the window's letters (both
 * strands alike), so the kept set is consistent across genomes, as FracMinHash's is: a window two
 * genomes share is kept in both or in neither, and |A n B| / |A| estimates the share of A's
 * windows that B has. A window survives a per-base divergence d with probability (1 - d)^W, so
 *
 *     f = (|A n B| / |A| + |A n B| / |B|) / 2,    distance = 1 - f^(1/W)      (symmetric)
 *     f = |Q n R| / |Q|,                          distance = 1 - f^(1/W)      (containment of Q in R)
 *
 * estimate 1 - ANI as Mash's distance does from shared k-mers; f = 0 (nothing shared, or an empty
 * sketch) gives 1. Both engines count |A n B| exactly (integers) and the distance is computed from
 * the counts by tsk_genome_key_distance alone, so the engines give the same bytes. */
#ifndef TSK_GENOME_KEYS_H
#define TSK_GENOME_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* The largest key a sketch keeps: (UINT64_MAX / scaled) * stride (anchors keep 1 in stride). */
static inline uint64_t tsk_genome_max_key(const tsk_params *p)
{
    return UINT64_MAX / (uint64_t)p->scaled * (uint64_t)p->stride;
}

/* Key of the window whose integer sketch is s[0..dim). */
uint64_t tsk_genome_key_of_sketch(const int32_t *s, int dim, uint64_t seed);

/* Key of the window whose row (float32 when elem_size is 4, float64 when 8) is row[0..p->dim):
 * recovers the integer sketch (see above) and hashes it. Returns 0 and sets *key, or -1 when a
 * value is more than 0.05 away from an integer after scaling (not a window row of these
 * parameters: an engine fault, never rounding). */
int tsk_genome_key_of_row(const tsk_params *p, const void *row, size_t elem_size, uint64_t *key);

/* Sorts keys[0..n) ascending and removes repeats; returns the new count. */
int64_t tsk_genome_keys_sort_unique(uint64_t *keys, int64_t n);

/* Genome sketches to compare: item i's keys are keys[offset[i] .. offset[i+1]), strictly
 * ascending. */
typedef struct {
    int64_t n_items;
    const uint64_t *keys;
    const int64_t *offset;   /* n_items + 1 entries */
} tsk_key_sets;

static inline int64_t tsk_key_set_size(const tsk_key_sets *s, int64_t i) { return s->offset[i + 1] - s->offset[i]; }

/* |A n B| of two strictly ascending key lists, by merging: the reference both engines' tests
 * compare with (O(na + nb)). */
int64_t tsk_genome_shared_ref(const uint64_t *a, int64_t na, const uint64_t *b, int64_t nb);

/* The two distances above. */
typedef enum { TSK_GENOME_SYMMETRIC = 0, TSK_GENOME_CONTAINMENT = 1 } tsk_genome_mode;

/* f of a pair: the share of fingerprints it has in common (symmetric: mean of both containments;
 * containment: of the query's). Computed in double with plain IEEE operations (two divisions, a sum
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

/* The "total" printed beside the shared count: the union |Q u R| (symmetric) or |Q| (containment). */
static inline int64_t tsk_genome_total(int64_t shared, int64_t n_query, int64_t n_ref, tsk_genome_mode m)
{
    return m == TSK_GENOME_CONTAINMENT ? n_query : n_query + n_ref - shared;
}

/* distance = 1 - f^(1/W) as float; 1 when f is 0, 0 when f is 1. */
float tsk_genome_key_distance(double share, int64_t window);

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

#ifdef __cplusplus
}
#endif
#endif
