/* host_pinned.h: page-locked host memory for the GPU engines, made the fast way (C++, gpu/ only).
 *
 * cudaMallocHost maps, clears and pins its pages on one thread: 0.14 s for 256 MB, 0.44 s for
 * 1 GB on the H100 machine, where each first touch of a page is a costly fault. Touching the same
 * pages from 16 threads takes 0.027 s for 256 MB, and cudaHostRegister of pages already there
 * 0.017 s (NEWS.md, 2026-11-25). The touching needs no CUDA, so it can also run while
 * the driver starts (tsk_pinned_prefault): the engine's first buffers are then ready when the
 * context is.
 *
 * C++ only, called inside the engines' extern "C" entries: what may throw here (a std::thread or
 * a mutex that cannot be had; no thread of its own lets an exception out) is caught by the entry's
 * guard (cuda_util.cuh, tsk_cuda_entry), which returns the engine's error code with the reason. */
#ifndef TSK_HOST_PINNED_H
#define TSK_HOST_PINNED_H

#include <cuda_runtime.h>
#include <stddef.h>

/* The most threads the helpers below run (the engine's -p): pages are touched on at most
 * min(threads, 16) and copies made on at most min(threads, 16) (TSKETCH_COPY_THREADS: another most).
 * Until it is called: 16 and 16. 16 copying threads an upload rather than 8 took 4-8 % off a
 * cluster and a top-10 of 10^5 genome sketches on one H200 of the x2 at -p 32 (two uploads at
 * once: the keys' and the anchors'), 7 % off the cluster on both, and nothing off the top-10. */
void tsk_pinned_set_threads(int threads);

/* Starts mapping and touching `bytes` of memory on up to `threads` threads of its own (at most
 * 16; tsk_pinned_set_threads(threads) as well) and returns at once; no CUDA call.
 * tsk_pinned_alloc hands the region out from the front, as long as it lasts. A second call while
 * a region is still there does nothing. */
void tsk_pinned_prefault(size_t bytes, int threads);

/* The bytes of the prefaulted region that tsk_pinned_alloc(n) takes (n rounded up to pages). */
size_t tsk_pinned_bytes(size_t n);

/* Unmaps what is left of the prefaulted region (waits for its touching first). */
void tsk_pinned_prefault_release(void);

/* n bytes of page-locked host memory, usable by every device: from the prefaulted region when
 * enough of it is left, else mapped and touched here on several threads; registered with
 * cudaHostRegister (falling back to cudaMallocHost where registering is refused). *mapped is
 * what tsk_pinned_free needs back (0 for cudaMallocHost's memory). */
cudaError_t tsk_pinned_alloc(size_t n, void **p, size_t *mapped);

/* Frees what tsk_pinned_alloc gave (p may be NULL). */
void tsk_pinned_free(void *p, size_t mapped);

/* memcpy through up to 16 threads (tsk_pinned_set_threads), for the large copies into and out of
 * pinned memory (a sketch part's codes, up to 128 MB, and its rows): one thread copies ~5-10
 * GB/s, which at the kernels' speed would make the copy, not the GPU, the bound. Slices of 8 MB
 * or more. */
void tsk_pinned_copy(void *dst, const void *src, size_t n);

/* Uploads of pageable memory (a mapped .tsk's keys and anchors) through two pinned halves: one is
 * filled by tsk_pinned_copy on the -p threads while the other's copy to the device runs. The
 * driver copies pageable memory on one thread at ~5 GB/s, so that a 10^5-genome file's 19 GB of
 * keys and anchors took ~4 s to go up. Made at the first large upload, freed by tsk_stage_free. */
struct tsk_upload_stage {
    char *buf = nullptr;
    size_t mapped = 0;
    cudaEvent_t ev[2] = {nullptr, nullptr};
};

/* dst (device memory) <- n bytes of src on stream st: copies under 4 MB straight, larger ones
 * through the stage. Returns when the last part is queued (src may be reused then); the first
 * CUDA error. */
cudaError_t tsk_stage_upload(tsk_upload_stage &s, void *dst, const void *src, size_t n, cudaStream_t st);

/* Waits for the stage's copies and frees it. */
void tsk_stage_free(tsk_upload_stage &s);

#endif
