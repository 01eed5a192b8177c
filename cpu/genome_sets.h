/* genome_sets.h: the CPU engine for genome sketches (sorted key sets, core/genome_keys.h).
 *
 * It counts the keys two sketches share by merging their sorted lists, O(|A| + |B|) per pair,
 * pairs spread over the OpenMP threads; top-k and threshold queries rank pairs by the share f of
 * core/genome_keys.h. Its twin gpu/genome_sets.h answers the same calls with the same values: the
 * counts are exact integers and both rank by the same double f, ties to the smaller reference. */
#ifndef TSK_CPU_GENOME_SETS_H
#define TSK_CPU_GENOME_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* q and r are borrowed until close; q == r for one set against itself. */
typedef struct tsk_cpu_genome_sets tsk_cpu_genome_sets;

tsk_cpu_genome_sets *tsk_cpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int threads, char *err,
                                              size_t errlen);
void tsk_cpu_genome_sets_close(tsk_cpu_genome_sets *e);

/* shared[i * ld + j] = |query q0+i n reference r0+j|. Returns 0, or -1 on bad arguments. */
int tsk_cpu_genome_sets_block(const tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                              uint32_t *shared, int64_t ld);

/* The k references of largest share for each query q0 .. q0+nq-1 among those that filter admits
 * (TSK_PAIRS_ALL or TSK_PAIRS_NOT_SELF) and that share at least one key with it (a genome sharing
 * nothing is at distance 1: no neighbour), best first, ties to the smaller reference index;
 * out[i * k + j]; a query with fewer such references pads with ref = -1.
 * Returns 0, or -1 (bad arguments, out of memory). */
int tsk_cpu_genome_sets_topk(const tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out);

/* Every admitted pair of queries q0 .. q0+nq-1 with share >= min_share, in (query, reference) order, into *pairs (grown as needed; *n set to their
 * number). filter: any tsk_pair_filter. Returns 0, or -1 (out of memory). */
int tsk_cpu_genome_sets_within(const tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                               int64_t *cap);

/* Whether filter admits the pair (q, r) (global indices). */
static inline int tsk_pair_admitted(tsk_pair_filter f, int64_t q, int64_t r)
{
    switch (f) {
    case TSK_PAIRS_UPPER: return r > q;
    case TSK_PAIRS_UPPER_SELF: return r >= q;
    case TSK_PAIRS_NOT_SELF: return r != q;
    default: return 1;
    }
}

#ifdef __cplusplus
}
#endif
#endif
