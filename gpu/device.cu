/* device.cu: the CUDA devices (device.h). */
#include "device.h"
#include "host_pinned.h"

#include "cuda_util.cuh"

extern "C" int tsk_gpu_device_count(char *why, size_t whylen) { return tsk_cuda_device_count(why, whylen); }

extern "C" int tsk_gpu_any_exclusive(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 1; /* unknown: take the careful answer */
    }
    for (int d = 0; d < n; d++) {
        int mode = cudaComputeModeDefault;
        if (cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, d) != cudaSuccess || mode != cudaComputeModeDefault) {
            cudaGetLastError();
            return 1;
        }
    }
    return 0;
}

extern "C" void tsk_gpu_host_threads(int threads)
{
    if (threads > 0) tsk_pinned_set_threads(threads);
}
