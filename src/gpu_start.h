/* gpu_start.h: the GPU sketch engine opened on a thread of its own (issue 16).
 *
 * Making a CUDA context and the engine's first buffers takes 0.3-0.5 s, far longer than reading
 * and sketching a small input on the CPU. src/engine.c starts the opening at once and keeps going
 * without it: a batch goes to the GPU once it is ready. An input that is done before that never
 * waits for it, and the process then ends without tearing CUDA down (tsk_gpu_start_pending). */
#ifndef TSK_GPU_START_H
#define TSK_GPU_START_H

#include "../gpu/gpu_sketch.h"
#include "sketch_opts.h"

typedef struct tsk_gpu_start tsk_gpu_start;

/* Starts opening the GPU engine for p on the devices d names (auto: the first one), its first
 * buffers sized for about `bases` bases and `rows` rows and their pages touched on up to `threads`
 * threads (-p). Returns NULL when no thread could be started. */
tsk_gpu_start *tsk_gpu_start_open(const tsk_params *p, const tsk_device_choice *d, int64_t bases, int64_t rows,
                                  int threads);

/* Whether the opening has finished, one way or the other (never waits). */
int tsk_gpu_start_done(tsk_gpu_start *s);

/* What the opening gave once it is done (waits for it), and frees s: the engine, with its name in
 * name ("GPU (cuda:0)"); or NULL with the reason in why, and *no_device set when --device named a
 * device that does not exist (an error even where a missing GPU is not). */
tsk_gpu_sketcher *tsk_gpu_start_take(tsk_gpu_start *s, char *name, size_t namelen, char *why, size_t whylen,
                                     int *no_device);

/* Gives up on an opening that may still run, without waiting: the thread closes what it made when
 * it finishes. */
void tsk_gpu_start_abandon(tsk_gpu_start *s);

/* Leaves an open GPU engine, all its work waited for, to the end of the process instead of closing
 * it: freeing its pinned buffers and CUDA's teardown at exit take 0.1-0.4 s after the last row. */
void tsk_gpu_leave(tsk_gpu_sketcher *g);

/* For a command whose GPU engines are closed (dist): the CUDA context they leave is the exit's to
 * take down, as an engine's left with tsk_gpu_leave. */
void tsk_gpu_context_left(void);

/* Openings given up on that still run, and engines left: the process must then end with _exit
 * (src/detached_exit.h), which skips the CUDA runtime's teardown (it would race with an opening,
 * and only costs time otherwise). */
int tsk_gpu_start_pending(void);

/* 0 when an opening still runs (it could not be left to another process mid-way) or an engine left
 * holds a device in an exclusive compute mode (the next job could not open that device until the
 * context is gone), else 1: what is pending may then be released after the exit (detached_exit.h). */
int tsk_gpu_start_detachable(void);

#endif
