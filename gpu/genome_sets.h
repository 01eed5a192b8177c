/* genome_sets.h: the GPU engine for genome sketches, twin of cpu/genome_sets.h (same calls, same
 * values). */
#ifndef TSK_GPU_GENOME_SETS_H
#define TSK_GPU_GENOME_SETS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_gpu_genome_sets tsk_gpu_genome_sets;

/* NULL with a message when no GPU is usable or memory runs out. */
tsk_gpu_genome_sets *tsk_gpu_genome_sets_open(const tsk_key_sets *q, const tsk_key_sets *r, int device, char *err,
                                              size_t errlen);
void tsk_gpu_genome_sets_close(tsk_gpu_genome_sets *e);
const char *tsk_gpu_genome_sets_error(const tsk_gpu_genome_sets *e);

int tsk_gpu_genome_sets_block(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int64_t r0, int64_t nr, uint32_t *shared,
                              int64_t ld);
int tsk_gpu_genome_sets_topk(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, int k, tsk_genome_mode mode,
                             tsk_pair_filter filter, tsk_genome_pair *out);
int tsk_gpu_genome_sets_within(tsk_gpu_genome_sets *e, int64_t q0, int64_t nq, double min_share, tsk_genome_mode mode,
                               tsk_pair_filter filter, tsk_genome_pair **pairs, int64_t *n, int64_t *cap);

#ifdef __cplusplus
}
#endif
#endif
