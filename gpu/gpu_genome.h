/* gpu_genome.h: genome mode (`tsketch dist --genome`) on a CUDA GPU. Twin of
 * tsk_genome_distance_block (cpu/genome_dist.h): the same nearest-row searches, summed in the same
 * order in double, and the same summaries (core/genome_summary.c), so the distances are the CPU
 * engine's bit for bit. The GPU does the all-rows x all-rows searches of every pair of a block
 * (na x nb x D per direction), the host the summaries (O(rows) per pair).
 * Not on the GPU: chords (tsk_genome_opts.chord; open fails and the caller uses the CPU). */
#ifndef TSK_GPU_GENOME_H
#define TSK_GPU_GENOME_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_summary.h"
#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_gpu_genome tsk_gpu_genome;

/* Prepares genome distances between the items of q and of r (the same pointer: one set against
 * itself) on device `device`, uploading both sets' rows. Both sets must outlive the context.
 * Returns NULL with a message when there is no usable device, the dimension is above 1024, chords
 * are asked for, or memory runs out. */
tsk_gpu_genome *tsk_gpu_genome_open(const tsk_sketch_set *q, const tsk_sketch_set *r, const tsk_genome_opts *o,
                                    int device, char *err, size_t errlen);
void tsk_gpu_genome_close(tsk_gpu_genome *g);

/* Why the last call on g failed. */
const char *tsk_gpu_genome_error(const tsk_gpu_genome *g);

/* tsk_genome_distance_block's contract: out[i * ld + j] = distance(q0 + i, r0 + j) as float, 0 on
 * the diagonal of one set against itself. Returns 0 or -1 (tsk_gpu_genome_error says why). */
int tsk_gpu_genome_block(tsk_gpu_genome *g, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld);

#ifdef __cplusplus
}
#endif
#endif
