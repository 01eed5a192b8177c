/* genome_af.h: the aligned fraction of two genomes, estimated from their genome sketches
 * (docs/cluster.md, "The aligned fraction").
 *
 * A shared key is an identical window of W bases around an anchor k-mer; a key's bits above
 * TSK_GENOME_FP_BITS are its anchor's hash (genome_keys.h), so the same sketches also say which
 * anchors two genomes share. Below the pair's common threshold, with a the anchors they share, s
 * the windows (keys) they share and n the anchors of the genome with fewer keys (on equal key
 * counts, the fewer anchors):
 *
 *     I  = (s / a)^(1 / (W - k))      the identity: a window survives its anchor with I^(W - k)
 *     AF = min(1, (a / n) / I^k)      the share of n's anchors in aligned sequence: a / n ~ AF I^k
 *
 * W == k: AF = a / n (no identity to correct by). Nothing shared (s == 0): AF = 0. */
#ifndef TSK_GENOME_AF_H
#define TSK_GENOME_AF_H

#include <stdint.h>

#include "genome_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* AF of item i of q and item j of r (window W, anchors of anchor_k bases). */
double tsk_genome_aligned_fraction(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j, int64_t window,
                                   int anchor_k);

#ifdef __cplusplus
}
#endif
#endif
