/* gpu_sketch.h: the CUDA sketch engine. Twin of cpu/cpu_sketch.h: same function, same batch
 * layout, same output. Compiled only when nvcc is found (meson option); without a usable GPU or
 * driver every call reports "unavailable" and the caller falls back to the CPU engine. */
#ifndef TSK_GPU_SKETCH_H
#define TSK_GPU_SKETCH_H

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_gpu_sketcher tsk_gpu_sketcher;

/* Prepares devices[0..n_devices) for sketching with p (tables uploaded, streams and pinned
 * buffers made). Returns NULL with a message when a device cannot be used. */
tsk_gpu_sketcher *tsk_gpu_sketcher_open(const tsk_params *p, const int *devices, int n_devices,
                                        char *err, size_t errlen);

/* Starts getting the host side of those buffers ready on up to `threads` threads of its own
 * (also the most that later pinned allocations touch pages with) and returns at once: no CUDA
 * call, so src/ calls it once the driver has found a device, before tsk_gpu_sketcher_open, and
 * the touching of the pages (the bulk of pinning them) runs while the context is made
 * (gpu/host_pinned.h). Same sizes as tsk_gpu_sketcher_reserve with the same arguments, for an
 * engine on n_devices devices; that call, or closing the engine, unmaps what is left over. */
void tsk_gpu_sketcher_prefault(const tsk_params *p, int n_devices, int64_t bases, int64_t rows, int threads);

/* Makes the buffers that the first batches of an input of about `bases` bases and `rows` rows
 * need, so that sketching does not stop to allocate them (cudaMalloc and pinned memory take tens
 * of milliseconds; src/ calls this on the thread that opens the engine). Estimates only: a batch
 * that needs more grows its buffers as before. Returns 0 or -1 with a message. */
int tsk_gpu_sketcher_reserve(tsk_gpu_sketcher *g, int64_t bases, int64_t rows, char *err, size_t errlen);

/* Largest D the GPU kernels accept. */
int tsk_gpu_max_dim(void);

/* Same contract as tsk_cpu_sketch: all rows of batch b into host memory out. Returns 0 or -1
 * with a message. Batches larger than device memory are processed in parts. */
int tsk_gpu_sketch(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, char *err, size_t errlen);

/* The same in two halves, so that the host works on one batch while the GPU sketches the next:
 * begin queues all of batch b (it returns once every part is handed to a stream; the last ones may
 * still run), wait returns when the rows of every batch begun with a tag <= tag are in their out
 * buffers. b may be reused once begin returns; out must stay valid until wait. Tags increase from
 * call to call. After a failure nothing is left running. Returns 0 or -1 with a message. */
int tsk_gpu_sketch_begin(tsk_gpu_sketcher *g, const tsk_batch *b, void *out, int64_t tag, char *err,
                         size_t errlen);
int tsk_gpu_sketch_wait(tsk_gpu_sketcher *g, int64_t tag, char *err, size_t errlen);

void tsk_gpu_sketcher_close(tsk_gpu_sketcher *g);

/* 1 when one of the engine's devices is in an exclusive compute mode (one context at a time on
 * it: another process cannot open it until this one's context is gone). */
int tsk_gpu_sketcher_exclusive(const tsk_gpu_sketcher *g);

/* For benchmarks: milliseconds the devices spent in sketch kernels (CUDA events around each
 * part's kernels, copies excluded) and bases sketched, summed since open. */
void tsk_gpu_sketch_stats(const tsk_gpu_sketcher *g, double *kernel_ms, int64_t *bases);

/* Where the host's side of the engine spent its time since open, in seconds (TSKETCH_TIMING):
 * growing device and pinned buffers (allocs: how many parts had to grow a buffer), copying codes
 * into pinned memory (and rows out of it), and waiting for a slot's earlier part to finish before
 * reusing it. */
typedef struct {
    double alloc_s, pack_s, unpack_s, slot_wait_s;
    int64_t allocs;
} tsk_gpu_host_times;
void tsk_gpu_sketch_host_times(const tsk_gpu_sketcher *g, tsk_gpu_host_times *t);

#ifdef __cplusplus
}
#endif
#endif
