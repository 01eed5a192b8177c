/* cuda_util.cuh: host helpers that the CUDA engines share (the device check of an open call, the
 * growth rule of scratch buffers). */
#ifndef TSK_GPU_CUDA_UTIL_CUH
#define TSK_GPU_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>

/* 0 when `device` names a usable CUDA device; else -1 with the reason in err. */
static inline int tsk_cuda_device_usable(int device, char *err, size_t errlen)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        snprintf(err, errlen, "no usable CUDA device");
        return -1;
    }
    if (device < 0 || device >= count) {
        snprintf(err, errlen, "CUDA device %d does not exist (%d found)", device, count);
        return -1;
    }
    return 0;
}

/* Grows a device buffer to at least need bytes (contents dropped), with a quarter to spare so
 * that slowly growing needs do not reallocate every call. */
static inline cudaError_t tsk_cuda_grow(void **p, size_t *cap, size_t need)
{
    if (*cap >= need) return cudaSuccess;
    cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    need += need / 4;
    cudaError_t e = cudaMalloc(p, need);
    if (e == cudaSuccess) *cap = need;
    return e;
}

#endif
