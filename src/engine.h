/* engine.h: the one --device policy (which engine, which GPUs: for sketches, genome scans and
 * distances alike), the one input-size estimate it decides by, and the sketch engine it opens,
 * hiding which one runs. */
#ifndef TSK_ENGINE_H
#define TSK_ENGINE_H

#include "../core/tsk_def.h"
#include "../gpu/gpu_sketch.h"
#include "sketch_opts.h"

struct tsk_gpu_start;

/* Which engine takes which batch (TSKETCH_SPLIT, a test knob): by readiness (the default), or
 * forced: every batch on the CPU, every batch on the GPU, or even batches on the CPU and odd ones
 * on the GPU. Forced splits other than cpu wait for the GPU. */
typedef enum { TSK_SPLIT_READY = 0, TSK_SPLIT_CPU, TSK_SPLIT_GPU, TSK_SPLIT_ALTERNATE } tsk_engine_split;

typedef struct {
    const tsk_params *params;
    int threads;
    tsk_device_kind kind;
    tsk_engine_split split;
    tsk_gpu_sketcher *gpu;        /* the GPU engine once it is open */
    struct tsk_gpu_start *start;  /* the GPU still opening on its thread (gpu_start.h), or NULL */
    int gpu_first;                /* auto on a large input: batches wait for the GPU (tsk_engine_gpu_first) */
    int64_t gpu_batches;          /* batches the GPU took (begin) */
    char name[96];                /* "CPU (2 threads)", "GPU (cuda:0)", "CPU (16 threads) and GPU (cuda:0)" */
    char cpu_name[48];
} tsk_engine;

/* Opens the engine --device asks for, for an input of about `bases` bases (-1: unknown) and `rows`
 * rows. cpu: the CPU engine. cuda: the GPU engine, opened on its own thread (its first buffers
 * sized for the input) while the reader goes on; a missing GPU is TSK_EXIT_NO_GPU. auto: with
 * gpu_first (tsk_engine_gpu_first, as the caller decided it) it opens and waits for the GPU as cuda
 * does; otherwise an input of known size runs on the CPU without touching CUDA (measured faster:
 * docs/performance.md, "--device auto"), and one of unknown size starts on the CPU while the GPU opens, which takes
 * the batches once it is ready. Without a usable GPU, auto runs on the CPU with a note. Returns a
 * TSK_EXIT_* code, message printed. */
int tsk_engine_open(tsk_engine *e, const tsk_params *p, const tsk_device_choice *d, int threads, int64_t bases,
                    int64_t rows, int gpu_first);

/* Whether --device d may end up on a GPU (cuda; auto where an NVIDIA driver is installed). Costs no
 * CUDA call: the pipeline chooses parse threads by it before the engine opens. */
int tsk_engine_may_use_gpu(const tsk_device_choice *d);

/* About how many bases the file at path holds, from its size: a gzip or BGZF file (by its name,
 * .gz or .bgz) counted 3.5 times its size, the ratio measured on real genomes (engine.c). -1 when
 * path is no regular file (stdin "-", a pipe: its size is unknown). A wrong guess costs time,
 * never results. */
int64_t tsk_engine_file_bases(const char *path);

/* tsk_engine_file_bases summed over the job's inputs, or -1 when one is no regular file. */
int64_t tsk_engine_input_bases(const tsk_sketch_job *job);

/* The GPU that scans genome sketches (sketch --genome) under --device: cuda[:N] the first device
 * named (0 for cuda), auto device 0 on an input of more than 150 Mbp a thread (of `threads`) where
 * a GPU may be (tsk_engine_may_use_gpu), never for --per-file; -1: the CPU threads scan. Whether
 * that GPU can take the job is the caller's to ask. */
int tsk_engine_genome_device(const tsk_sketch_job *job, int threads);

/* Whether the distance engines run on a GPU under --device d: cuda, or auto where CUDA counts a
 * usable device (gpu/device.h). */
int tsk_engine_dist_on_gpu(const tsk_device_choice *d);

/* The GPUs distance lanes run on, into devices[0..max): those --device names (cuda:N, cuda:0,1),
 * every device for cuda and cuda:all, the first for auto (a host with one GPU runs cuda:all as
 * cuda:0). Returns their number, or -1 with the reason in err when a device named does not exist
 * (checked before any work, though a small run opens only the first). */
int tsk_engine_dist_devices(const tsk_device_choice *d, int max, int *devices, char *err, size_t errlen);

/* Starts the driver and the distance GPUs' contexts while the inputs load (gpu/device.h,
 * tsk_gpu_warm_start): auto's first GPU, or every GPU cuda names (a large run opens lanes on them
 * all, dist_run.c; a small one leaves the later contexts unused); none for cpu. A command that
 * called it calls tsk_engine_dist_warm_end before it returns, whatever happened (exit must not tear
 * CUDA down under a context being made). */
void tsk_engine_dist_warm(const tsk_device_choice *d);
void tsk_engine_dist_warm_end(void);

/* Whether every batch of an input of about `bases` bases (-1: unknown) in about `rows` rows, sketched
 * with the engine's parameters p (windows: slide or anchored rows), should wait for the GPU rather
 * than run on the CPU: --device cuda, or auto with a GPU likely and an input the GPU finishes
 * sooner despite its 0.3-0.5 s start. For whole records on the CPU's count path (DNA, t <= 4) that
 * is more than 40 Mbp a thread (640 Mbp at -p 16) for records of 2 kbp and more; on the sketch DP
 * 1.5e9 / (t D) bases a thread, within 2-25 Mbp (42 Mbp at -p 16 for t=6, D=96); shorter records
 * need more, their rows costing both engines alike (2.2 Gbp of 150-base reads at -p 16 on the count
 * path). Slide rows: the DP's rule by their cost a base (--slide: 7.8 Mbp a thread). Anchored
 * windows: more than 25 Mbp a thread. Measured break-evens: docs/performance.md, "--device auto". */
int tsk_engine_gpu_first(const tsk_device_choice *d, const tsk_params *p, int windows, int64_t bases, int64_t rows,
                         int threads);

/* Whether the batch begun next would run on the GPU (never waits): the pipeline sizes batches by it. */
int tsk_engine_gpu_ready(tsk_engine *e);

/* Sketches a batch into out, in two halves so that the GPU computes batch k while the host writes
 * batch k-1: begin starts batch b on the engine its turn goes to, whose rows are in out once
 * tsk_engine_wait(e, tag) returns; b itself may be reused as soon as begin returns. Tags increase
 * from call to call. The CPU engine finishes in begin. Both return 0, or a TSK_EXIT_* code with
 * the message printed. */
int tsk_engine_begin(tsk_engine *e, const tsk_batch *b, void *out, int64_t tag);
int tsk_engine_wait(tsk_engine *e, int64_t tag);

/* Bases per batch an engine wants: the CPU engine any size that overlaps reading (16 Mbp), a
 * GPU enough rows to give every SM several warps of equal work without splitting records (a
 * 16 Mbp batch of 70 kbp genomes is 230 rows: 2 per SM). */
int64_t tsk_engine_batch_bases(int gpu);

/* Records per batch an engine wants. The CPU engine: 16,384, so that a batch of short reads is
 * small too (2.5 Mbp of 150 bp reads, 6 MB of rows): the first batch is parsed sooner and the
 * last one's rows written sooner, with nothing to overlap them (a million reads, H100 machine,
 * -p 16: 0.286 s against 0.331 s for batches of 16 Mbp, NEWS.md 2026-11-25). A GPU: 262,144, as
 * many as it sketches at once. */
int64_t tsk_engine_batch_records(int gpu);

/* Closes the engine. The GPU engine is not torn down (0.1-0.4 s of freeing pinned memory and CUDA
 * teardown after the last row is written): it is left to the process's end, as is a GPU still
 * opening (gpu_start.h, tsk_gpu_start_pending). */
void tsk_engine_close(tsk_engine *e);

#endif
