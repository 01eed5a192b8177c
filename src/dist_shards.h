/* dist_shards.h: one reference set of genome sketches sharded over several engines (the GPUs of a
 * node, or CPU lanes in tests), answering as one engine does.
 *
 * Shard s holds references [bound[s], bound[s + 1]) (runs of about equal keys) on an engine of its
 * own, opened with the kind's open_shard: a GPU then holds 1/n of the keys and their index, which is
 * what lets n GPUs compare sets no one GPU holds. Every call of the group runs every shard's engine
 * on the same queries, side by side (a thread a shard), and merges exactly: a query's top-k lists
 * by tsk_genome_ranks_before (each shard's is exact within its references, so the best k of their
 * union is the one engine's), its threshold pairs shard after shard (each in reference order, the
 * shards in reference order), a block's counts each shard into its columns. So the bytes are those
 * of one engine over every reference. Each shard's engine is behind a lock of its own: two blocks
 * in flight (a run's two lanes) take turns on each GPU while one's lines are refined and written. */
#ifndef TSK_DIST_SHARDS_H
#define TSK_DIST_SHARDS_H

#include <stddef.h>

#include "dist_engines.h"

typedef struct tsk_dist_shards tsk_dist_shards;

/* Opens n >= 1 shards of the items' references with kind's open_shard, shard s on devices[s] with
 * `threads` host threads, side by side on threads of their own. NULL with err set (the failing
 * shard's reason, naming its device) when one fails or memory runs out. */
tsk_dist_shards *tsk_dist_shards_open(const engine_calls *kind, const tsk_dist_items *it, int n, const int *devices,
                                      int threads, char *err, size_t errlen);

/* The group's own calls (close, error, block_sets, topk_sets, within_sets): an engine of the
 * distance runner like any other. */
extern const engine_calls TSK_DIST_SHARDS;

/* Its shards, and shard s's engine and first reference (for timing lines). */
int tsk_dist_shards_count(const tsk_dist_shards *g);
void *tsk_dist_shards_engine(const tsk_dist_shards *g, int s);
int64_t tsk_dist_shards_bound(const tsk_dist_shards *g, int s);

#endif
