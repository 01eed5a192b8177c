/* genome_sets.h: the GPU engine for genome sketches (sorted key sets, core/genome_keys.h).
 *
 * Twin of cpu/genome_sets.h: the same calls with the same values. The shared counts are exact
 * integers and pairs are ranked by the same double share f (tsk_genome_share's operations, IEEE
 * rounding, no fused multiply-add), ties to the smaller reference, so top-k lists, thresholded
 * pairs and count blocks equal the CPU engine's bit for bit.
 *
 * How (docs/gpu.md, "Genome sketches"): an inverted index of the reference keys on the device
 * (every (key, reference) pair sorted by key, references ascending within a key); each query is one
 * CUDA block that walks its keys' postings and counts per reference in shared memory (references
 * in chunks when they do not fit), then reduces top-k or the threshold on the device from the exact
 * counts: only survivors come back. A reference set whose index does not fit in device memory is
 * indexed in parts, one after the other, per call. */
#ifndef TSK_GPU_GENOME_SETS_H
#define TSK_GPU_GENOME_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

/* q and r are borrowed until close; q == r for one set against itself. */
typedef struct tsk_gpu_genome_sets tsk_gpu_genome_sets;

/* Engines of the same references opened at once on several GPUs (a distance run's lanes): for
 * the index of every reference made at the open, the keys as stored are cut into 8n shares of
 * about equal keys; each member uploads the next share no member took until none is left, then
 * copies the others' from the GPUs that took them (NVLink where they have it, else through the
 * host; gpu/peer_group.cuh), so that n GPUs upload the keys once between them. Each then sorts its
 * own index, the one a lone engine makes. A member's open waits for the others' shares and copies
 * (a share whose member fails is uploaded from the host). Made before the members open; freed
 * after every member's engine is closed. */
typedef struct tsk_gpu_genome_sets_peers tsk_gpu_genome_sets_peers;
tsk_gpu_genome_sets_peers *tsk_gpu_genome_sets_peers_new(const tsk_key_sets *r, int n_members);
/* Member `member` will not open (its lane did not start). */
void tsk_gpu_genome_sets_peers_leave(tsk_gpu_genome_sets_peers *p, int member);
void tsk_gpu_genome_sets_peers_free(tsk_gpu_genome_sets_peers *p);

/* Indexes r on device `device` (uploads both sets' keys); peers: NULL, or the engines it opens
 * among, as their member `member`. Returns NULL with a message when there is no usable device or
 * memory runs out. */
tsk_gpu_genome_sets *tsk_gpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int device,
                                              tsk_gpu_genome_sets_peers *peers, int member, char *err, size_t errlen);
/* A shard of r on device `device`: the engine indexes and answers for references [r_lo, r_hi) only
 * (reference ids stay r's), so that GPUs that each hold a shard of a reference set no one GPU holds
 * answer every query between them (a distance run's shards: top-k lists merged by
 * tsk_genome_ranks_before, threshold pairs of a query concatenated shard after shard). Blocks
 * asked of it lie within the shard. Returns NULL with a message as tsk_gpu_genome_sets_open. */
tsk_gpu_genome_sets *tsk_gpu_genome_sets_open_shard(const tsk_key_sets *q, const tsk_key_sets *r, int64_t r_lo,
                                                    int64_t r_hi, int device, char *err, size_t errlen);
void tsk_gpu_genome_sets_close(tsk_gpu_genome_sets *e);

/* The free device memory an engine needs to index references [r_lo, r_hi) of r in one part, at
 * its open (with less it indexes them in parts, again on every call). */
int64_t tsk_gpu_genome_sets_bytes(const tsk_key_sets *r, int64_t r_lo, int64_t r_hi);

/* Why the last call on e failed. */
const char *tsk_gpu_genome_sets_error(const tsk_gpu_genome_sets *e);

/* The calls below have tsk_cpu_genome_sets_*'s contracts (cpu/genome_sets.h) and return 0, or -1
 * with the reason in tsk_gpu_genome_sets_error (bad arguments, a CUDA error, out of memory). */

/* shared[i * ld + j] = |query q0+i n reference r0+j|. */
int tsk_gpu_genome_sets_block(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr,
                              uint32_t *shared, int64_t ld);

/* The k references of largest share for each query q0 .. q0+nq-1 that filter admits and that share
 * a key with it, best first, ties to the smaller reference; out[i * k + j], padded with ref = -1. */
int tsk_gpu_genome_sets_topk(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out);

/* Every admitted pair of queries q0 .. q0+nq-1 with share >= min_share, in (query, reference)
 * order, into *pairs (grown as needed; *n set to their number). */
int tsk_gpu_genome_sets_within(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, double min_share,
                               tsk_genome_mode mode, tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n,
                               int64_t *cap);

/* Caps, for tests of the blocked paths and for tuning (0 = chosen from device memory and shared
 * memory): the postings of one reference index part, and the references counted at once by one
 * CUDA block. Call right after open; a cap on postings re-indexes per call when it splits r. */
void tsk_gpu_genome_sets_set_limits(tsk_gpu_genome_sets *e, int64_t max_part_keys, int64_t max_chunk_refs);

/* How the reference set is indexed: its parts, and the postings of the largest (for tests). */
void tsk_gpu_genome_sets_layout(const tsk_gpu_genome_sets *e, int64_t *n_parts, int64_t *largest_part);

/* Where the seconds of the open went (TSKETCH_TIMING): its setup before the index (the device's
 * context, waited for where another thread makes it; the references' sizes and thresholds), then
 * the index's buffers, the keys from the host (its own shares among peers), the peers' shares
 * copied and the wait until every peer had its copies, and the sort. Those of the index are zeros
 * for a reference set indexed in parts, call by call. */
typedef struct {
    double setup_s, alloc_s, upload_s, peers_s, index_s;
    int members; /* the peers it opened among (1: alone) */
} tsk_gpu_genome_sets_times;
void tsk_gpu_genome_sets_timing(const tsk_gpu_genome_sets *e, tsk_gpu_genome_sets_times *t);

#ifdef __cplusplus
}
#endif
#endif
