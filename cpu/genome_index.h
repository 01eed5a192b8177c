/* genome_index.h: the CPU engine for genome sketches that costs what genomes share.
 *
 * cpu/genome_sets.h merges every pair's sorted key lists: O(|Q| + |R|) for every pair, so a
 * query costs the whole reference set however little it shares with it. This engine indexes the
 * reference keys once (key -> ascending reference ids) and answers a query by walking the posting
 * lists of its keys, counting per reference in a per-thread counter array and resetting only the
 * references it touched: a query costs its keys' lookups plus the postings it shares, not N.
 *
 * Its topk and within answer as tsk_cpu_genome_sets_topk and tsk_cpu_genome_sets_within do, bit for
 * bit (the same arguments, exact integer counts, sizes by tsk_genome_pair_sizes, the same double
 * share by tsk_genome_share, the same order and padding), and so as the GPU engine does.
 *
 * The index. A key is looked up by h = tsk_mix64(key), a bijection, so h stands for the key: the
 * top `bits` bits of h (16 at least) pick a bucket of 16 to 32 postings, a bucket lists its
 * distinct keys as (h's low 48 bits, field) in 10 bytes, and field is either the end of the key's
 * postings relative to the bucket's first posting, or, for a key of one reference only, that
 * reference itself (top bit set; no posting stored). So the index takes 10 bytes per distinct key,
 * 4 per posting of a key of several references, 16 per bucket: 7.6 bytes per key of bench's
 * synthetic genomes (1,000 of 10^4 keys: index + sketches 1.95 x the .tsk file). Lookups are
 * prefetched a few keys ahead. It is built in rounds of buckets (4 above 2^22 postings: the
 * temporary (h, reference) pairs take 4 bytes per posting), each round's postings scattered to
 * slices of buckets, each slice sorted by one thread (a counting sort by bucket, then by h). */
#ifndef TSK_CPU_GENOME_INDEX_H
#define TSK_CPU_GENOME_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* q and r are borrowed until close; q == r for one set against itself. */
typedef struct tsk_cpu_genome_index tsk_cpu_genome_index;

/* Builds the index of r's keys with threads OpenMP threads. NULL with err set (out of memory,
 * naming the sizes; more than 2^31 - 1 references). */
tsk_cpu_genome_index *tsk_cpu_genome_index_open(const tsk_key_sets *q, const tsk_key_sets *r, int threads, char *err,
                                                size_t errlen);
void tsk_cpu_genome_index_close(tsk_cpu_genome_index *e);

/* Why the last call failed ("" when none did). */
const char *tsk_cpu_genome_index_error(const tsk_cpu_genome_index *e);

/* Bytes the index holds (not counting the borrowed sketches). */
int64_t tsk_cpu_genome_index_bytes(const tsk_cpu_genome_index *e);

/* tsk_cpu_genome_sets_topk's contract: the k references of largest share for each query q0 ..
 * q0+nq-1 among those filter admits that share at least one key with it, best first, ties to
 * the smaller reference; out[i * k + j], padded with ref = -1. Returns 0, or -1 (bad arguments,
 * out of memory: tsk_cpu_genome_index_error says which). */
int tsk_cpu_genome_index_topk(tsk_cpu_genome_index *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                              tsk_pair_filter filter, tsk_genome_pair *out);

/* tsk_cpu_genome_sets_within's contract: every admitted pair of queries q0 .. q0+nq-1 with share >=
 * min_share, in (query, reference) order, into *pairs (grown as needed; *n their number). A
 * min_share of at most 0 admits pairs that share nothing too (every admitted pair), as the merge
 * engine's does: those queries cost N. Returns 0, or -1 (tsk_cpu_genome_index_error). */
int tsk_cpu_genome_index_within(tsk_cpu_genome_index *e, int64_t q0, int64_t nq, double min_share,
                                tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                                int64_t *cap);

/* The postings queries q0 .. q0+nq-1 walk: sum over their keys of the references holding the
 * key, i.e. the sum of |Q n R| over every pair (lookups only, no counting). -1 on bad arguments. */
int64_t tsk_cpu_genome_index_walk(const tsk_cpu_genome_index *e, int64_t q0, int64_t nq);

/* ---- choosing an engine ----
 *
 * Costs, in nanoseconds of one core, of one call over nq queries of nq_keys keys in all against
 * nr references of nr_keys keys (walked: the sum of |Q n R| over those pairs, by
 * tsk_genome_walk_estimate before an index exists or tsk_cpu_genome_index_walk after):
 *
 *   merge  = M_PAIR nq nr + M_KEY (nq nr_keys + nr nq_keys)       every pair's merge
 *   index  = I_BUILD nr_keys + I_LOOKUP nq_keys + I_POST walked + I_TOUCH touched
 *
 * touched (pairs sharing a key) is at most min(walked, nq nr). The constants are one core of the
 * 2-core development machine, fitted with bench/cpu/genome_index_bench.c (bench/README.md): its
 * synthetic genomes (N 1,000, KEYS 10^4: model 1.5 s index, 24 s merge; measured 1.54 s and 25 s)
 * and its `share` sweep, where every query shares a fraction F of its keys with every reference.
 * A lookup misses the caches (prefetched), a posting is a counter increment; so the index costs
 * less whenever walked < (M_KEY / I_POST) (nq nr_keys + nr nq_keys), i.e. unless nearly every
 * key of every genome is in every other: measured merge / index (build included) at N 1,000, 2,000
 * keys: 13.6 at F 0.05, 3.7 at 0.5, 2.0 at 0.8, 0.76 at 1 (identical genomes). Counters of more
 * references than the L2 holds (N beyond ~10^5) make I_POST larger. Not yet understood: I_LOOKUP
 * holds for indexes up to 140 MB (2,000 genomes: 67 ns a lookup on a loaded core), but on the
 * development VM an index of 650 MB (10^4 genomes) took about 1.7 us a lookup; the device
 * machine's numbers decide (page walks? with MADV_HUGEPAGE the run did not end in 300 s there,
 * defrag being madvise: compaction, probably). */
#define TSK_GENOME_COST_M_PAIR 30.0
#define TSK_GENOME_COST_M_KEY 1.25
#define TSK_GENOME_COST_I_BUILD 90.0
#define TSK_GENOME_COST_I_LOOKUP 25.0
#define TSK_GENOME_COST_I_POST 2.5
#define TSK_GENOME_COST_I_TOUCH 15.0

static inline double tsk_genome_merge_cost(int64_t nq, int64_t nq_keys, int64_t nr, int64_t nr_keys)
{
    return TSK_GENOME_COST_M_PAIR * (double)nq * (double)nr +
           TSK_GENOME_COST_M_KEY * ((double)nq * (double)nr_keys + (double)nr * (double)nq_keys);
}

/* built: whether the index exists already (its build is then no cost of this call). */
static inline double tsk_genome_index_cost(int64_t nq, int64_t nq_keys, int64_t nr, int64_t nr_keys, double walked,
                                           int built)
{
    double touched = (double)nq * (double)nr;
    if (walked < touched) touched = walked;
    return (built ? 0.0 : TSK_GENOME_COST_I_BUILD * (double)nr_keys) + TSK_GENOME_COST_I_LOOKUP * (double)nq_keys +
           TSK_GENOME_COST_I_POST * walked + TSK_GENOME_COST_I_TOUCH * touched;
}

/* walked of queries q0 .. q0+nq-1 against every reference, estimated without an index: the exact
 * sum over `samples` queries spread evenly over them and up to 512 references spread evenly over
 * r (each pair merged as the merge engine would), scaled to nq and to r. -1 on bad arguments. */
double tsk_genome_walk_estimate(const tsk_key_sets *q, int64_t q0, int64_t nq, const tsk_key_sets *r, int samples,
                                int threads);

#ifdef __cplusplus
}
#endif
#endif
