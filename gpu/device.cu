/* device.cu: the CUDA devices (device.h). */
#include "device.h"
#include "host_pinned.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

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

extern "C" size_t tsk_gpu_free_bytes(int device)
{
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return free_b;
}

extern "C" void tsk_gpu_host_threads(int threads)
{
    if (threads > 0) tsk_pinned_set_threads(threads);
}

static struct {
    std::mutex mu;
    std::thread *t = nullptr;
    std::atomic<double> driver_at{0}, made_at[16] = {};
} warm;

/* tsk_cuda_make_contexts of one device, its times kept (the driver's: the first thread's) */
static void make_context_timed(int id)
{
    double driver_at = 0, made_at = 0, none = 0;
    tsk_cuda_make_contexts(&id, 1, &driver_at, &made_at);
    warm.driver_at.compare_exchange_strong(none, driver_at);
    if (made_at > 0 && id >= 0 && id < 16) warm.made_at[id] = made_at;
}

extern "C" void tsk_gpu_warm_start(const int *devices, int n)
{
    std::lock_guard<std::mutex> lock(warm.mu);
    if (warm.t) return;
    try {
        std::vector<int> ids(devices, devices + std::max(n, 0));
        /* the caller's own device count then waits for the driver's start here */
        warm.t = new std::thread([ids] {
            std::vector<int> all = ids;
            if (all.empty())
                for (int i = 0, count = tsk_cuda_device_count(nullptr, 0); i < count; i++) all.push_back(i);
            std::vector<std::thread> beside; /* each context is 0.2-0.4 s: the later ones beside the first */
            for (size_t i = 1; i < all.size(); i++) {
                try {
                    beside.emplace_back([id = all[i]] { make_context_timed(id); });
                } catch (...) { /* no thread: its engine makes that context */
                }
            }
            if (!all.empty()) make_context_timed(all[0]);
            for (std::thread &t : beside) t.join();
        });
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

extern "C" void tsk_gpu_warm_times(double *driver_at, double *made_at, int n)
{
    *driver_at = warm.driver_at;
    for (int d = 0; d < n; d++) made_at[d] = d < 16 ? warm.made_at[d].load() : 0;
}
