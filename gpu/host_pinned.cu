/* host_pinned.cu: page-locked host memory, mapped and touched on several threads, then registered
 * (host_pinned.h). */
#include "host_pinned.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "../core/tsk_knobs.h"

static size_t page_round(size_t n)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

size_t tsk_pinned_bytes(size_t n) { return page_round(std::max<size_t>(n, 1)); }

/* Runs fn(lo, hi) over [0, n) cut into up to nt slices (their length a multiple of align):
 * the first on this thread, the others on threads of their own, and returns when all are done.
 * Where no thread can be had, this thread does the slices nobody took. */
template <class F> static void on_slices(size_t n, size_t nt, size_t align, F fn)
{
    const size_t per = ((n + nt - 1) / nt + align - 1) / align * align;
    std::vector<std::thread> workers;
    size_t i = 1;
    try {
        for (; i < nt && i * per < n; i++) workers.emplace_back(fn, i * per, std::min(n, (i + 1) * per));
    } catch (...) {
        if (i * per < n) fn(i * per, n);
    }
    fn(0, std::min(n, per));
    for (std::thread &w : workers) w.join();
}

static unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/* Most threads that touch pages and that copy (tsk_pinned_set_threads, from -p). */
static std::atomic<unsigned> touch_threads{16}, copy_threads{16};

void tsk_pinned_set_threads(int threads)
{
    threads = std::max(1, threads);
    touch_threads = (unsigned)std::min(16, threads);
    const long long most = tsk_knobs_get()->copy_threads;
    copy_threads = (unsigned)std::min(most > 0 ? (int)most : 16, threads);
}

void tsk_pinned_copy(void *dst, const void *src, size_t n)
{
    const size_t slice = (size_t)8 << 20;
    const size_t nt =
        std::max<size_t>(1, std::min<size_t>(std::min(hardware_threads(), copy_threads.load()), (n + slice - 1) / slice));
    on_slices(n, nt, 1, [=](size_t lo, size_t hi) { memcpy((char *)dst + lo, (const char *)src + lo, hi - lo); });
}

/* Writes one byte of every page of [p, p + n), the pages split over up to touch_threads threads
 * (8 MB or more each): the kernel's first-touch work (a fault, a cleared page) then runs in
 * parallel. */
static void touch_pages(char *p, size_t n)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), slice = (size_t)8 << 20;
    const size_t nt = std::max<size_t>(1, std::min<size_t>(std::min(hardware_threads(), touch_threads.load()), n / slice));
    on_slices(n, nt, page, [=](size_t lo, size_t hi) {
        for (size_t o = lo; o < hi; o += page) ((volatile char *)p)[o] = 0;
    });
}

static char *map_anonymous(size_t n)
{
    void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : (char *)p;
}

/* The prefaulted region: [base + used, base + size) is still to be handed out. The toucher is
 * on the heap: a process may end while it runs (a GPU opening given up on), and a joinable
 * std::thread destroyed at exit would terminate the process. */
static struct {
    std::mutex mu;
    std::thread *toucher = nullptr;
    char *base = nullptr;
    size_t size = 0, used = 0;
} prefault;

/* With prefault.mu held: waits for the touching to end. */
static void prefault_wait()
{
    if (!prefault.toucher) return;
    prefault.toucher->join();
    delete prefault.toucher;
    prefault.toucher = nullptr;
}

void tsk_pinned_prefault(size_t bytes, int threads)
{
    tsk_pinned_set_threads(threads);
    std::lock_guard<std::mutex> lock(prefault.mu);
    if (prefault.base || bytes == 0) return;
    bytes = page_round(bytes);
    char *base = map_anonymous(bytes);
    if (!base) return;
    try {
        prefault.toucher = new std::thread(touch_pages, base, bytes);
    } catch (...) {
        munmap(base, bytes);
        return;
    }
    prefault.base = base;
    prefault.size = bytes;
    prefault.used = 0;
}

void tsk_pinned_prefault_release(void)
{
    std::lock_guard<std::mutex> lock(prefault.mu);
    prefault_wait();
    if (prefault.base && prefault.used < prefault.size)
        munmap(prefault.base + prefault.used, prefault.size - prefault.used);
    prefault.base = nullptr;
    prefault.size = prefault.used = 0;
}

/* n page-rounded bytes from the prefaulted region, or NULL when it has not that much left. */
static char *prefault_take(size_t n)
{
    std::lock_guard<std::mutex> lock(prefault.mu);
    if (!prefault.base || prefault.size - prefault.used < n) return nullptr;
    prefault_wait();
    char *p = prefault.base + prefault.used;
    prefault.used += n;
    return p;
}

cudaError_t tsk_pinned_alloc(size_t n, void **p, size_t *mapped)
{
    *p = nullptr;
    *mapped = 0;
    const size_t len = tsk_pinned_bytes(n);
    char *q = prefault_take(len);
    if (!q) {
        q = map_anonymous(len);
        if (q) touch_pages(q, len);
    }
    if (q) {
        if (cudaHostRegister(q, len, cudaHostRegisterPortable) == cudaSuccess) {
            *p = q;
            *mapped = len;
            return cudaSuccess;
        }
        cudaGetLastError();  /* refused (some systems do): cudaMallocHost's own pages instead */
        munmap(q, len);
    }
    return cudaMallocHost(p, n);
}

#define STAGE_HALF ((size_t)128 << 20) /* 16 slices of tsk_pinned_copy: its 16 threads each busy */
#define STAGE_DIRECT ((size_t)4 << 20)

cudaError_t tsk_stage_upload(tsk_upload_stage &s, void *dst, const void *src, size_t n, cudaStream_t st)
{
    if (n < STAGE_DIRECT) return cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, st);
    cudaError_t err = cudaSuccess;
    if (!s.buf) {
        if ((err = tsk_pinned_alloc(2 * STAGE_HALF, (void **)&s.buf, &s.mapped)) != cudaSuccess) {
            s.buf = nullptr;
            return err;
        }
        for (int h = 0; h < 2 && err == cudaSuccess; h++) err = cudaEventCreateWithFlags(&s.ev[h], cudaEventDisableTiming);
        if (err != cudaSuccess) return err;
    }
    int h = 0;
    for (size_t at = 0; at < n && err == cudaSuccess; at += STAGE_HALF, h ^= 1) {
        const size_t m = std::min(STAGE_HALF, n - at);
        char *half = s.buf + (size_t)h * STAGE_HALF;
        if ((err = cudaEventSynchronize(s.ev[h])) != cudaSuccess) break; /* the half's last copy is done */
        tsk_pinned_copy(half, (const char *)src + at, m);
        if ((err = cudaMemcpyAsync((char *)dst + at, half, m, cudaMemcpyHostToDevice, st)) == cudaSuccess)
            err = cudaEventRecord(s.ev[h], st);
    }
    return err;
}

void tsk_stage_free(tsk_upload_stage &s)
{
    for (cudaEvent_t &ev : s.ev)
        if (ev) cudaEventSynchronize(ev), cudaEventDestroy(ev), ev = nullptr;
    tsk_pinned_free(s.buf, s.mapped);
    s.buf = nullptr, s.mapped = 0;
}

void tsk_pinned_free(void *p, size_t mapped)
{
    if (!p) return;
    if (!mapped) {
        cudaFreeHost(p);
        return;
    }
    cudaHostUnregister(p);
    munmap(p, mapped);
}
