/* gpu_start.c: the GPU sketch engine opened on its own thread (gpu_start.h). */
#include "gpu_start.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/device.h"
#include "cli.h"

struct tsk_gpu_start {
    tsk_params params; /* copies: the thread may outlive the caller's */
    tsk_device_choice device;
    int64_t bases, rows;
    int threads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, abandoned;
    /* the outcome */
    tsk_gpu_sketcher *gpu;
    int no_device;
    char name[96], why[TSK_ERRLEN];
};

static int pending; /* abandoned openings still running, engines and contexts left to the exit (atomic) */
static int undetachable; /* of those: openings still running, engines on a device in an exclusive mode */

/* The devices of --device (cuda: all of them or those named, auto: the first) and the engine on
 * them, or why not. */
static void open_gpu(tsk_gpu_start *s)
{
    const tsk_device_choice *d = &s->device;
    char why[256] = "", err[TSK_ERRLEN] = "";
    int count = tsk_gpu_device_count(why, sizeof why);
    int devices[16], n = 0;
    if (count > 0 && d->kind == TSK_DEVICE_CUDA && d->n_devices > 0) {
        for (int i = 0; i < d->n_devices; i++) {
            if (d->devices[i] >= count) {
                snprintf(s->why, sizeof s->why, "--device: cuda:%d does not exist (%d CUDA device%s)", d->devices[i],
                         count, count > 1 ? "s" : "");
                s->no_device = 1;
                return;
            }
            devices[n++] = d->devices[i];
        }
    } else if (count > 0) {
        n = d->kind == TSK_DEVICE_CUDA ? (count < 16 ? count : 16) : 1;
        for (int i = 0; i < n; i++) devices[i] = i;
    }
    if (count > 0 && s->params.dim > tsk_gpu_max_dim()) {
        snprintf(why, sizeof why, "D=%d exceeds the GPU engine's maximum %d", s->params.dim, tsk_gpu_max_dim());
        count = 0;
    }
    if (count > 0) {
        /* the pinned buffers' pages are touched while the context is made (gpu_sketch.h) */
        tsk_gpu_sketcher_prefault(&s->params, n, s->bases, s->rows, s->threads);
        s->gpu = tsk_gpu_sketcher_open(&s->params, devices, n, err, sizeof err);
        if (s->gpu && tsk_gpu_sketcher_reserve(s->gpu, s->bases, s->rows, err, sizeof err)) {
            tsk_gpu_sketcher_close(s->gpu);
            s->gpu = NULL;
        }
        if (s->gpu) {
            int len = snprintf(s->name, sizeof s->name, "GPU (cuda:%d", devices[0]);
            for (int i = 1; i < n && len < (int)sizeof s->name - 8; i++)
                len += snprintf(s->name + len, sizeof s->name - (size_t)len, ",%d", devices[i]);
            snprintf(s->name + len, sizeof s->name - (size_t)len, ")");
            return;
        }
        snprintf(why, sizeof why, "%s", err);
    }
    snprintf(s->why, sizeof s->why, "%s", why);
}

static void start_free(tsk_gpu_start *s)
{
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static void *start_main(void *arg)
{
    tsk_gpu_start *s = arg;
    open_gpu(s);
    pthread_mutex_lock(&s->mu);
    s->done = 1;
    const int abandoned = s->abandoned;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (abandoned) {
        tsk_gpu_sketcher_close(s->gpu);
        start_free(s);
        __atomic_sub_fetch(&undetachable, 1, __ATOMIC_SEQ_CST);
        __atomic_sub_fetch(&pending, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

tsk_gpu_start *tsk_gpu_start_open(const tsk_params *p, const tsk_device_choice *d, int64_t bases, int64_t rows,
                                  int threads)
{
    tsk_gpu_start *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->params = *p;
    s->device = *d;
    s->bases = bases;
    s->rows = rows;
    s->threads = threads;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (tsk_start_detached(start_main, s)) {
        start_free(s);
        return NULL;
    }
    return s;
}

int tsk_gpu_start_done(tsk_gpu_start *s)
{
    pthread_mutex_lock(&s->mu);
    const int done = s->done;
    pthread_mutex_unlock(&s->mu);
    return done;
}

tsk_gpu_sketcher *tsk_gpu_start_take(tsk_gpu_start *s, char *name, size_t namelen, char *why, size_t whylen,
                                     int *no_device)
{
    pthread_mutex_lock(&s->mu);
    while (!s->done) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    tsk_gpu_sketcher *gpu = s->gpu;
    snprintf(name, namelen, "%s", s->name);
    snprintf(why, whylen, "%s", s->why);
    *no_device = s->no_device;
    start_free(s);
    return gpu;
}

void tsk_gpu_start_abandon(tsk_gpu_start *s)
{
    pthread_mutex_lock(&s->mu);
    const int done = s->done;
    if (!done) {
        s->abandoned = 1;
        __atomic_add_fetch(&pending, 1, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&undetachable, 1, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&s->mu);
    if (done) {
        tsk_gpu_sketcher_close(s->gpu);
        start_free(s);
    }
}

void tsk_gpu_leave(tsk_gpu_sketcher *g)
{
    if (!g) return;
    __atomic_add_fetch(&pending, 1, __ATOMIC_SEQ_CST);
    if (tsk_gpu_sketcher_exclusive(g)) __atomic_add_fetch(&undetachable, 1, __ATOMIC_SEQ_CST);
}

int tsk_gpu_start_pending(void) { return __atomic_load_n(&pending, __ATOMIC_SEQ_CST); }

void tsk_gpu_context_left(void)
{
    __atomic_add_fetch(&pending, 1, __ATOMIC_SEQ_CST);
    if (tsk_gpu_any_exclusive()) __atomic_add_fetch(&undetachable, 1, __ATOMIC_SEQ_CST);
}

int tsk_gpu_start_detachable(void) { return __atomic_load_n(&undetachable, __ATOMIC_SEQ_CST) == 0; }
