/* device.cu: the CUDA devices (device.h). */
#include "device.h"
#include "host_pinned.h"

#include <mutex>
#include <thread>

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

static struct {
    std::mutex mu;
    std::thread *t = nullptr;
} warm;

extern "C" void tsk_gpu_warm_start(int device)
{
    std::lock_guard<std::mutex> lock(warm.mu);
    if (warm.t) return;
    try {
        /* the caller's own device count then waits for the driver's start here */
        warm.t = new std::thread([device] { tsk_cuda_make_contexts(&device, 1); });
    } catch (...) {
        warm.t = nullptr; /* no thread: the engine makes the context */
    }
}

extern "C" void tsk_gpu_warm_wait(void)
{
    std::lock_guard<std::mutex> lock(warm.mu);
    if (!warm.t) return;
    warm.t->join();
    delete warm.t;
    warm.t = nullptr;
}
