/* engine.c: engine choice (see engine.h). */
#include "engine.h"

#include <stdio.h>
#include <string.h>

#include "../cpu/cpu_sketch.h"
#include "../io/seqio.h"
#include "cli.h"

static void use_cpu(tsk_engine *e)
{
    e->gpu = NULL;
    snprintf(e->name, sizeof e->name, "CPU (%d thread%s)", e->threads, e->threads > 1 ? "s" : "");
}

int tsk_engine_open(tsk_engine *e, const tsk_params *p, const tsk_device_choice *d, int threads)
{
    memset(e, 0, sizeof *e);
    e->params = p;
    e->threads = threads;
    if (d->kind == TSK_DEVICE_CPU) {
        use_cpu(e);
        return TSK_EXIT_OK;
    }
    char why[256] = "", err[TSK_ERRLEN] = "";
    int count = tsk_gpu_device_count(why, sizeof why);
    const int found = count; /* count drops to 0 below when the GPU cannot take the job */
    int devices[16], n = 0;
    if (count > 0 && d->kind == TSK_DEVICE_CUDA && d->n_devices > 0) {
        for (int i = 0; i < d->n_devices; i++) {
            if (d->devices[i] >= count) {
                tsk_error("--device: cuda:%d does not exist (%d CUDA device%s)", d->devices[i], count,
                          count > 1 ? "s" : "");
                return TSK_EXIT_NO_GPU;
            }
            devices[n++] = d->devices[i];
        }
    } else if (count > 0) {
        n = d->kind == TSK_DEVICE_CUDA ? (count < 16 ? count : 16) : 1; /* auto: one device */
        for (int i = 0; i < n; i++) devices[i] = i;
    }
    if (count > 0 && p->dim > tsk_gpu_max_dim()) {
        snprintf(why, sizeof why, "D=%d exceeds the GPU engine's maximum %d", p->dim, tsk_gpu_max_dim());
        count = 0;
    }
    if (count > 0) {
        e->gpu = tsk_gpu_sketcher_open(p, devices, n, err, sizeof err);
        if (e->gpu) {
            int len = snprintf(e->name, sizeof e->name, "GPU (cuda:%d", devices[0]);
            for (int i = 1; i < n && len < (int)sizeof e->name - 8; i++)
                len += snprintf(e->name + len, sizeof e->name - (size_t)len, ",%d", devices[i]);
            snprintf(e->name + len, sizeof e->name - (size_t)len, ")");
            return TSK_EXIT_OK;
        }
        snprintf(why, sizeof why, "%s", err);
    }
    if (d->kind == TSK_DEVICE_CUDA) {
        tsk_error("--device cuda: no usable GPU: %s", why);
        return TSK_EXIT_NO_GPU;
    }
    use_cpu(e);
    /* Only a GPU that is there but cannot take the job is news; a machine or build without one is
     * the normal CPU case, and one note per process is enough (dist may sketch several groups). */
    static int noted;
    if (found > 0 && !noted++) tsk_note("GPU not used (%s); sketching on the %s", why, e->name);
    return TSK_EXIT_OK;
}

/* The GPU engine's answer as an exit code, its message printed. */
static int gpu_result(int rc, const char *err)
{
    if (rc == 0) return TSK_EXIT_OK;
    tsk_error("GPU sketch failed: %s", err);
    return TSK_EXIT_RUNTIME;
}

int tsk_engine_begin(tsk_engine *e, const tsk_batch *b, void *out, int64_t tag)
{
    if (e->gpu) {
        char err[TSK_ERRLEN];
        return gpu_result(tsk_gpu_sketch_begin(e->gpu, b, out, tag, err, sizeof err), err);
    }
    if (tsk_cpu_sketch(e->params, b, out, e->threads)) {
        tsk_error("out of memory while sketching");
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

int tsk_engine_wait(tsk_engine *e, int64_t tag)
{
    if (!e->gpu) return TSK_EXIT_OK;
    char err[TSK_ERRLEN];
    return gpu_result(tsk_gpu_sketch_wait(e->gpu, tag, err, sizeof err), err);
}

void tsk_engine_close(tsk_engine *e)
{
    if (e->gpu) tsk_gpu_sketcher_close(e->gpu);
    e->gpu = NULL;
}

int64_t tsk_engine_batch_bases(int gpu)
{
    return gpu ? INT64_C(1) << 28 : INT64_C(1) << 24;
}
