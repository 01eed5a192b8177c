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
/* A shard: the engine answers for references [r_lo, r_hi) of r only, as
 * tsk_gpu_genome_sets_open_shard does (distance runs sharded over CPU lanes, to test the merge of
 * shards without a GPU). */
tsk_cpu_genome_sets *tsk_cpu_genome_sets_open_shard(const tsk_key_sets *q, const tsk_key_sets *r, int64_t r_lo,
                                                    int64_t r_hi, int threads, char *err, size_t errlen);
void tsk_cpu_genome_sets_close(tsk_cpu_genome_sets *e);

/* Why the last call on e failed (bad arguments, out of memory), as tsk_gpu_genome_sets_error says
 * it for the GPU twin. */
const char *tsk_cpu_genome_sets_error(const tsk_cpu_genome_sets *e);

/* The calls below return 0, or -1 with the reason in tsk_cpu_genome_sets_error. */

/* shared[i * ld + j] = |query q0+i n reference r0+j|. */
int tsk_cpu_genome_sets_block(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                              uint32_t *shared, int64_t ld);

/* The k references of largest share for each query q0 .. q0+nq-1 among those that filter admits
 * (TSK_PAIRS_ALL or TSK_PAIRS_NOT_SELF) and that share at least one key with it (a genome sharing
 * nothing is at distance 1: no neighbour), best first, ties to the smaller reference index;
 * out[i * k + j]; a query with fewer such references pads with ref = -1. */
int tsk_cpu_genome_sets_topk(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out);

/* Appends rows[0..nq) (rows[i] holds counts[i] pairs, malloc'd) to *pairs (grown as needed; *n
 * their number so far) unless failed, and frees every row either way: the per-query results of a
 * threshold call, gathered in query order (the merge and index engines). Returns 1 when failed or
 * memory ran out, else 0. */
int tsk_genome_pair_rows_join(tsk_genome_pair **rows, const int64_t *counts, int64_t nq, int failed,
                              tsk_genome_pair **pairs, int64_t *n, int64_t *cap);

/* Every admitted pair of queries q0 .. q0+nq-1 with share >= min_share, in (query, reference) order, into *pairs (grown as needed; *n set to their
 * number). filter: any tsk_pair_filter. */
int tsk_cpu_genome_sets_within(tsk_cpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                               int64_t *cap);

/* |query i of q n reference j of r|, by the engine's merge (vectorised where the CPU can): for a
 * caller that needs a few pairs' counts without an engine (cluster's member distances). */
int64_t tsk_cpu_genome_shared(const tsk_key_sets *q, int64_t i, const tsk_key_sets *r, int64_t j);

#ifdef __cplusplus
}
#endif
#endif
