/* gpu_sketch_none.c: the GPU sketch API in a build without CUDA: no device is ever usable, so
 * `--device auto` runs the CPU engine and `--device cuda` exits 5. */
#include "gpu_sketch.h"

#include <stdio.h>

tsk_gpu_sketcher *tsk_gpu_sketcher_open(const tsk_params *p, const int *devices, int n_devices,
                                        char *err, size_t errlen)
{
    (void)p, (void)devices, (void)n_devices;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return NULL;
}

void tsk_gpu_sketcher_prefault(const tsk_params *p, int n_devices, int64_t bases, int64_t rows, int threads)
{
    (void)p, (void)n_devices, (void)bases, (void)rows, (void)threads;
}

int tsk_gpu_sketcher_reserve(tsk_gpu_sketcher *g, int64_t bases, int64_t rows, char *err, size_t errlen)
{
    (void)g, (void)bases, (void)rows;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return -1;
}

int tsk_gpu_max_dim(void) { return 0; }

int tsk_gpu_sketch(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, char *err, size_t errlen)
{
    (void)g, (void)b, (void)out;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return -1;
}

int tsk_gpu_sketch_begin(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, int64_t tag, char *err,
                         size_t errlen)
{
    (void)tag;
    return tsk_gpu_sketch(g, b, out, err, errlen);
}

int tsk_gpu_sketch_wait(tsk_gpu_sketcher *g, int64_t tag, char *err, size_t errlen)
{
    (void)g, (void)tag;
    snprintf(err, errlen, "this tsketch was built without CUDA");
    return -1;
}

void tsk_gpu_sketcher_close(tsk_gpu_sketcher *g) { (void)g; }

int tsk_gpu_sketcher_exclusive(const tsk_gpu_sketcher *g)
{
    (void)g;
    return 0;
}

void tsk_gpu_sketch_stats(const tsk_gpu_sketcher *g, double *kernel_ms, int64_t *bases)
{
    (void)g;
    if (kernel_ms) *kernel_ms = 0.0;
    if (bases) *bases = 0;
}

void tsk_gpu_sketch_host_times(const tsk_gpu_sketcher *g, tsk_gpu_host_times *t)
{
    (void)g;
    *t = (tsk_gpu_host_times){0};
}
