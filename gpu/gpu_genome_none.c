/* gpu_genome_none.c: genome mode's GPU engine in a build without CUDA: never available. */
#include "gpu_genome.h"

#include <stdio.h>

tsk_gpu_genome *tsk_gpu_genome_open(const tsk_sketch_set *q, const tsk_sketch_set *r, const tsk_genome_opts *o,
                                    int device, char *err, size_t errlen)
{
    (void)q, (void)r, (void)o, (void)device;
    snprintf(err, errlen, "built without CUDA");
    return NULL;
}

void tsk_gpu_genome_close(tsk_gpu_genome *g) { (void)g; }

const char *tsk_gpu_genome_error(const tsk_gpu_genome *g)
{
    (void)g;
    return "built without CUDA";
}

int tsk_gpu_genome_block(tsk_gpu_genome *g, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    (void)g, (void)q0, (void)nq, (void)r0, (void)nr, (void)out, (void)ld;
    return -1;
}
