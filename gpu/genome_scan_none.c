/* genome_scan_none.c: the GPU genome scanner in a build without CUDA: never available. */
#include "genome_scan.h"

#include <stdio.h>

int tsk_gpu_genome_scan_available(char *why, size_t whylen)
{
    if (why && whylen) snprintf(why, whylen, "built without CUDA");
    return 0;
}

tsk_gpu_genome_scanner *tsk_gpu_genome_scanner_open(const tsk_params *p, int device, char *err, size_t errlen)
{
    (void)p, (void)device;
    if (err && errlen) snprintf(err, errlen, "built without CUDA");
    return NULL;
}

void tsk_gpu_genome_scanner_close(tsk_gpu_genome_scanner *g) { (void)g; }

int tsk_gpu_genome_scan_batch(tsk_gpu_genome_scanner *g, const uint8_t *codes, const int64_t *offset,
                              const uint64_t *max_hash, int64_t n_contigs, uint64_t **keys, int64_t *keys_cap,
                              int64_t *key_offset, char *err, size_t errlen)
{
    (void)g, (void)codes, (void)offset, (void)max_hash, (void)n_contigs, (void)keys, (void)keys_cap, (void)key_offset;
    if (err && errlen) snprintf(err, errlen, "built without CUDA");
    return -1;
}
