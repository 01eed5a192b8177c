/* device_none.c: the CUDA devices (device.h) of a build without CUDA: none, so `--device auto`
 * runs the CPU engines and `--device cuda` exits 5. */
#include "device.h"

#include <stdio.h>

int tsk_gpu_device_count(char *why, size_t whylen)
{
    if (why && whylen) snprintf(why, whylen, "this tsketch was built without CUDA");
    return 0;
}

int tsk_gpu_any_exclusive(void) { return 0; }

size_t tsk_gpu_free_bytes(int device)
{
    (void)device;
    return 0;
}

void tsk_gpu_host_threads(int threads) { (void)threads; }

void tsk_gpu_warm_start(const int *devices, int n) { (void)devices, (void)n; }

void tsk_gpu_warm_wait(void) {}

void tsk_gpu_warm_times(double *driver_at, double *made_at, int n)
{
    *driver_at = 0;
    for (int d = 0; d < n; d++) made_at[d] = 0;
}
