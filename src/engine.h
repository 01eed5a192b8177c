/* engine.h: picks the sketch engine (--device) and hides which one runs. */
#ifndef TSK_ENGINE_H
#define TSK_ENGINE_H

#include "../core/tsk_def.h"
#include "../gpu/gpu_sketch.h"
#include "pipeline.h"

typedef struct {
    const tsk_params *params;
    int threads;
    tsk_gpu_sketcher *gpu;   /* NULL: the CPU engine runs */
    char name[96];           /* "CPU (2 threads)", "GPU (cuda:0)" */
} tsk_engine;

/* Opens the engine --device asks for. auto: a working GPU if there is one (and D fits it), else
 * the CPU, with one note per process when a GPU was found but could not take the job (none for a
 * machine or build without a GPU). cuda: the GPU or TSK_EXIT_NO_GPU. Returns a TSK_EXIT_* code, message
 * printed. */
int tsk_engine_open(tsk_engine *e, const tsk_params *p, const tsk_device_choice *d, int threads);

/* Sketches a batch into out, in two halves so that the GPU computes batch k while the host writes
 * batch k-1: begin starts batch b, whose rows are in out once tsk_engine_wait(e, tag) returns; b
 * itself may be reused as soon as begin returns. Tags increase from call to call. The CPU engine
 * finishes in begin. Both return 0, or a TSK_EXIT_* code with the message printed. */
int tsk_engine_begin(tsk_engine *e, const tsk_batch *b, void *out, int64_t tag);
int tsk_engine_wait(tsk_engine *e, int64_t tag);

/* Bases per batch an engine wants: the CPU engine any size that overlaps reading (16 Mbp), a
 * GPU enough rows to give every SM several warps of equal work without splitting records (a
 * 16 Mbp batch of 70 kbp genomes is 230 rows: 2 per SM). */
int64_t tsk_engine_batch_bases(int gpu);

void tsk_engine_close(tsk_engine *e);

#endif
