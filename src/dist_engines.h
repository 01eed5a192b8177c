/* dist_engines.h: a distance engine kind as a table of its calls (src/dist_run.c's engines: vector
 * rows and genome sketches, each on the CPU or a GPU; src/dist_shards.h's shards of genome sketches
 * over several of them). The engine is chosen once and every call goes through its table, so no
 * call site asks which engine it has. Each call returns 0, or -1 with the reason in error(). Calls
 * of the other item kind are NULL (block_sets on vector rows, ...). */
#ifndef TSK_DIST_ENGINES_H
#define TSK_DIST_ENGINES_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"
#include "../core/tsk_def.h"
#include "dist_run.h"

typedef struct {
    const char *what; /* "distance computation" or "genome distance computation", for the message */
    /* device: the lane's GPU (GPU kinds); threads: -p, or a CPU lane's share of it; peers: the GPU
     * genome engines it opens among as their member `member` (NULL: alone) */
    void *(*open)(const tsk_dist_items *it, int device, int threads, void *peers, int member, char *err, size_t errlen);
    /* genome kinds: an engine of references [r_lo, r_hi) only (reference ids stay the set's) */
    void *(*open_shard)(const tsk_dist_items *it, int64_t r_lo, int64_t r_hi, int device, int threads, char *err,
                        size_t errlen);
    void (*close)(void *e);
    const char *(*error)(const void *e);
    int (*block_rows)(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld);
    int (*topk_rows)(void *e, int64_t q0, int64_t nq, int k, tsk_pair_filter f, tsk_pair *out);
    int (*within_rows)(void *e, int64_t q0, int64_t nq, float max, tsk_pair_filter f, tsk_pair **p, int64_t *n,
                       int64_t *cap);
    int (*block_sets)(void *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared, int64_t ld);
    int (*topk_sets)(void *e, int64_t q0, int64_t nq, int k, tsk_genome_mode m, tsk_pair_filter f,
                     tsk_genome_pair *out);
    int (*within_sets)(void *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode m, tsk_pair_filter f,
                       tsk_genome_pair **p, int64_t *n, int64_t *cap);
} engine_calls;

#endif
