/* cuda_util.cuh: the host helpers every CUDA engine uses (C++, gpu/ only):
 *  - TSK_CUDA_CHECK, the check of a CUDA call: on failure it records the call, its file and line,
 *    the device and CUDA's message in the engine's error buffer and makes the function return -1
 *    (an engine reports errors to its caller and never ends the process);
 *  - tsk_cuda_device_count, the usable devices with one reason when there are none, and
 *    tsk_cuda_device_usable, the check of a device number an open call is given;
 *  - tsk_cuda_make_contexts, the driver's start and contexts made ahead of their use;
 *  - tsk_cuda_grow, the growth of a device scratch buffer (and tsk_cuda_grown_size, its rule);
 *  - tsk_cuda_entry, the guard of an extern "C" entry: no C++ exception may cross into C;
 *  - tsk_cuda_seconds, the monotonic clock the engines' timings (TSKETCH_TIMING) read. */
#ifndef TSK_GPU_CUDA_UTIL_CUH
#define TSK_GPU_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

/* Seconds of a monotonic clock, for the differences the engines' timings report. */
static inline double tsk_cuda_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Runs fn(), the body of an extern "C" entry named `entry`, and returns what it returns; an
 * exception from `new`, a std::vector or a std::thread (which would end the process if it crossed
 * into the C caller) becomes `failed`, with the reason in err: "out of host memory (ENTRY)" for
 * std::bad_alloc, "ENTRY: WHAT" for any other. */
template <class R, class F> static inline R tsk_cuda_entry(const char *entry, char *err, size_t errlen, R failed, F &&fn)
{
    try {
        return fn();
    } catch (const std::bad_alloc &) {
        if (err && errlen) snprintf(err, errlen, "out of host memory (%s)", entry);
    } catch (const std::exception &x) {
        if (err && errlen) snprintf(err, errlen, "%s: %s", entry, x.what());
    } catch (...) {
        if (err && errlen) snprintf(err, errlen, "%s: unexpected C++ exception", entry);
    }
    return failed;
}

/* Where a failed CUDA call is reported: the device it ran on and the engine's message buffer
 * (gpu_sketch.cu: the caller's err; gpu_dist.cu: the device context's; genome_sets.cu: the
 * engine's, which tsk_gpu_genome_sets_error returns). */
struct tsk_cuda_site {
    int dev;
    char *err;
    size_t errlen;
};

/* Writes "CUDA error on device D: MESSAGE (CALL, FILE:LINE)" to site.err, clears CUDA's last error
 * (a non-sticky error would otherwise be reported again by the next check) and returns -1. */
static inline int tsk_cuda_fail(const tsk_cuda_site &site, cudaError_t e, const char *call, const char *file,
                                int line)
{
    const char *base = strrchr(file, '/');
    if (site.err && site.errlen)
        snprintf(site.err, site.errlen, "CUDA error on device %d: %s (%s, %s:%d)", site.dev, cudaGetErrorString(e),
                 call, base ? base + 1 : file, line);
    cudaGetLastError();
    return -1;
}

/* Runs call (an expression giving a cudaError_t); on failure reports it at site (a tsk_cuda_site)
 * and returns -1 from the enclosing function. */
#define TSK_CUDA_CHECK(site, call)                                                                  \
    do {                                                                                            \
        const cudaError_t tsk_e_ = (call);                                                          \
        if (tsk_e_ != cudaSuccess) return tsk_cuda_fail((site), tsk_e_, #call, __FILE__, __LINE__); \
    } while (0)

/* The number of usable CUDA devices; 0 with the reason in why (when why is not NULL) where there is
 * no driver, an older one than this build needs, or no device. */
static inline int tsk_cuda_device_count(char *why, size_t whylen)
{
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return n;
    cudaGetLastError();
    if (why && whylen) {
        if (e == cudaErrorNoDevice || e == cudaSuccess) snprintf(why, whylen, "no CUDA device found");
        else if (e == cudaErrorInsufficientDriver)
            snprintf(why, whylen, "no usable CUDA driver (missing or older than CUDA 13)");
        else snprintf(why, whylen, "CUDA unavailable: %s", cudaGetErrorString(e));
    }
    return 0;
}

/* 0 when `device` names a usable CUDA device; else -1 with the reason in err. */
static inline int tsk_cuda_device_usable(int device, char *err, size_t errlen)
{
    const int count = tsk_cuda_device_count(err, errlen);
    if (count == 0) return -1;
    if (device < 0 || device >= count) {
        snprintf(err, errlen, "CUDA device %d does not exist (%d found)", device, count);
        return -1;
    }
    return 0;
}

/* Starts the driver (its device count) and makes the primary contexts of devices ids[0..n), on the
 * calling thread: for a thread that does it while other work runs (0.2-0.4 s). A device that does
 * not exist or fails is left alone, for the setup after it to report. When given, *driver_at and
 * made_at[i] receive when the driver had started and when ids[i]'s context was made
 * (tsk_cuda_seconds; made_at[i] is left as it is for a device that failed). */
static inline void tsk_cuda_make_contexts(const int *ids, int n, double *driver_at = nullptr,
                                          double *made_at = nullptr)
{
    const int count = tsk_cuda_device_count(nullptr, 0);
    if (driver_at) *driver_at = tsk_cuda_seconds();
    for (int i = 0; i < n; i++)
        if (ids[i] >= 0 && ids[i] < count && cudaSetDevice(ids[i]) == cudaSuccess && cudaFree(nullptr) == cudaSuccess &&
            made_at)
            made_at[i] = tsk_cuda_seconds();
    cudaGetLastError();
}

/* The size tsk_cuda_grow gives a buffer that needs `need` bytes: a quarter more, so that slowly
 * growing needs do not reallocate every call (cudaFree waits for the whole device), and at least
 * min_cap. */
static inline size_t tsk_cuda_grown_size(size_t need, size_t min_cap = 0) { return std::max(need + need / 4, min_cap); }

/* Makes the device buffer *p of *cap bytes hold at least need bytes; its contents are dropped when
 * it grows. With spare, it grows to tsk_cuda_grown_size(need, min_cap); without, to need exactly
 * (buffers whose size is already planned from free memory, or fixed). Never leaves *p NULL on
 * success (at least one byte). On failure *p is NULL, *cap 0, and the CUDA error is returned (still
 * set: TSK_CUDA_CHECK clears it). */
static inline cudaError_t tsk_cuda_grow(void **p, size_t *cap, size_t need, size_t min_cap = 0, bool spare = true)
{
    if (*p && *cap >= need) return cudaSuccess;
    cudaFree(*p);
    *p = nullptr;
    *cap = 0;
    const size_t size = std::max<size_t>(spare ? tsk_cuda_grown_size(need, min_cap) : std::max(need, min_cap), 1);
    const cudaError_t e = cudaMalloc(p, size);
    if (e == cudaSuccess) *cap = size;
    else *p = nullptr;
    return e;
}

#endif
