/* gpu_dist_none.c: the GPU distance API in a build without CUDA. Reports zero devices and refuses
 * every context with a clear reason, so src/ needs no #ifdefs and falls back to the CPU engine. */
#include <stdio.h>

#include "gpu_dist.h"

static const char no_cuda[] = "this tsketch was built without CUDA";

tsk_gpu_dist *tsk_gpu_dist_open(const tsk_sketch_set *query, const tsk_sketch_set *ref, tsk_metric m,
                                const int *devices, int n_devices, int threads, char *err, size_t errlen)
{
    (void)query, (void)ref, (void)m, (void)devices, (void)n_devices, (void)threads;
    if (err && errlen) snprintf(err, errlen, "no usable GPU: %s", no_cuda);
    return NULL;
}

void tsk_gpu_dist_close(tsk_gpu_dist *d) { (void)d; }

const char *tsk_gpu_dist_error(const tsk_gpu_dist *d)
{
    (void)d;
    return no_cuda;
}

void tsk_gpu_dist_open_times(const tsk_gpu_dist *d, double *passes_s, double *devices_s)
{
    (void)d;
    *passes_s = *devices_s = 0;
}

int tsk_gpu_dist_block(tsk_gpu_dist *d, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out, int64_t ld)
{
    (void)d, (void)q0, (void)nq, (void)r0, (void)nr, (void)out, (void)ld;
    return -1;
}

int tsk_gpu_dist_topk(tsk_gpu_dist *d, int64_t q0, int64_t nq, int k, tsk_pair_filter filter, tsk_pair *out)
{
    (void)d, (void)q0, (void)nq, (void)k, (void)filter, (void)out;
    return -1;
}

int tsk_gpu_dist_within(tsk_gpu_dist *d, int64_t q0, int64_t nq, float max_dist, tsk_pair_filter filter,
                        tsk_pair **pairs, int64_t *n_pairs, int64_t *cap)
{
    (void)d, (void)q0, (void)nq, (void)max_dist, (void)filter, (void)pairs, (void)n_pairs, (void)cap;
    return -1;
}

void tsk_gpu_dist_set_limits(tsk_gpu_dist *d, int64_t max_ref_items, int64_t max_query_items)
{
    (void)d, (void)max_ref_items, (void)max_query_items;
}
