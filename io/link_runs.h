/* link_runs.h: cluster links sorted by (worse, better) rank, in memory or, past a memory budget, in
 * sorted runs on disk merged as they are read back (an external sort: docs/cluster.md, "How it
 * runs").
 *
 * Links are added in any order. While they fit the budget they stay in memory; when the buffer
 * fills, it is sorted and appended to one temporary file in TMPDIR (unlinked at once, so nothing
 * is left behind whatever happens). Reading merges the runs and the last buffer: the same
 * sequence whether or not anything was spilled. */
#ifndef TSK_LINK_RUNS_H
#define TSK_LINK_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/cluster.h"

typedef struct tsk_link_runs tsk_link_runs;

/* A store that holds about budget_bytes of links in memory (at least a few thousand links).
 * NULL with a message in err when memory runs out. */
tsk_link_runs *tsk_link_runs_open(size_t budget_bytes, char *err, size_t errlen);

/* Adds links[0..n). 0, or -1 with a message in err (a failed write of a run: "TMPDIR: ..."). */
int tsk_link_runs_add(tsk_link_runs *s, const tsk_cluster_link *links, int64_t n, char *err, size_t errlen);

/* Hands every link to fn in (worse, better) order, in chunks; fn returns 0 or -1 to stop. Returns
 * 0, or -1 with a message in err (fn's -1 too: then err says "stopped"). Once only. */
int tsk_link_runs_read(tsk_link_runs *s, int (*fn)(void *ctx, const tsk_cluster_link *l, int64_t n), void *ctx,
                       char *err, size_t errlen);

/* How many links were added, and how many runs went to disk. */
int64_t tsk_link_runs_count(const tsk_link_runs *s);
int64_t tsk_link_runs_spilled(const tsk_link_runs *s);

void tsk_link_runs_close(tsk_link_runs *s);

#endif
