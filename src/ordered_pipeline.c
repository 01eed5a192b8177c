/* ordered_pipeline.c: numbered jobs to workers, back to one consumer in order (ordered_pipeline.h). */
#include "ordered_pipeline.h"

#include <errno.h>
#include <stdlib.h>

int tsk_ordered_init(tsk_ordered *o, int n_slots, int64_t n_jobs)
{
    *o = (tsk_ordered){.n_slots = n_slots > 0 ? n_slots : 1, .n_jobs = n_jobs < 0 ? INT64_MAX : n_jobs,
                       .failed_job = INT64_MAX};
    if (!(o->finished = malloc((size_t)o->n_slots * sizeof *o->finished))) return -1;
    for (int i = 0; i < o->n_slots; i++) o->finished[i] = -1;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->slot_free, NULL);
    pthread_cond_init(&o->job_done, NULL);
    return 0;
}

void tsk_ordered_free(tsk_ordered *o)
{
    if (!o->finished) return;
    free(o->finished);
    o->finished = NULL;
    pthread_cond_destroy(&o->job_done);
    pthread_cond_destroy(&o->slot_free);
    pthread_mutex_destroy(&o->mu);
}

/* Whether no more jobs will be taken (the caller holds mu). */
static int closed(const tsk_ordered *o)
{
    return o->stopped || o->failed_job != INT64_MAX || o->taken >= o->n_jobs;
}

int64_t tsk_ordered_take(tsk_ordered *o)
{
    pthread_mutex_lock(&o->mu);
    while (!closed(o) && o->taken >= o->released + o->n_slots) pthread_cond_wait(&o->slot_free, &o->mu);
    const int64_t job = closed(o) ? -1 : o->taken++;
    pthread_mutex_unlock(&o->mu);
    return job;
}

void tsk_ordered_done(tsk_ordered *o, int64_t job, int rc)
{
    pthread_mutex_lock(&o->mu);
    if (rc == 0) {
        o->finished[tsk_ordered_slot(o, job)] = job;
    } else if (job < o->failed_job) {
        o->failed_job = job;
        o->failed_rc = rc;
        pthread_cond_broadcast(&o->slot_free); /* the workers waiting for a slot take nothing now */
    }
    pthread_cond_broadcast(&o->job_done);
    pthread_mutex_unlock(&o->mu);
}

void tsk_ordered_end(tsk_ordered *o, int64_t n_jobs)
{
    pthread_mutex_lock(&o->mu);
    if (n_jobs < o->n_jobs) o->n_jobs = n_jobs;
    pthread_cond_broadcast(&o->slot_free);
    pthread_cond_broadcast(&o->job_done);
    pthread_mutex_unlock(&o->mu);
}

int64_t tsk_ordered_next(tsk_ordered *o)
{
    pthread_mutex_lock(&o->mu);
    int64_t job = -1;
    for (;;) {
        const int64_t d = o->delivered;
        if (o->stopped || d >= o->n_jobs || d >= o->failed_job) break;
        if (o->finished[tsk_ordered_slot(o, d)] == d) {
            job = o->delivered++;
            break;
        }
        pthread_cond_wait(&o->job_done, &o->mu);
    }
    pthread_mutex_unlock(&o->mu);
    return job;
}

void tsk_ordered_release(tsk_ordered *o, int64_t job)
{
    pthread_mutex_lock(&o->mu);
    if (job + 1 > o->released) o->released = job + 1;
    pthread_cond_broadcast(&o->slot_free);
    pthread_mutex_unlock(&o->mu);
}

void tsk_ordered_stop(tsk_ordered *o, int rc)
{
    pthread_mutex_lock(&o->mu);
    if (!o->stop_rc) o->stop_rc = rc;
    o->stopped = 1;
    pthread_cond_broadcast(&o->slot_free);
    pthread_cond_broadcast(&o->job_done);
    pthread_mutex_unlock(&o->mu);
}

int tsk_ordered_stopped(tsk_ordered *o)
{
    pthread_mutex_lock(&o->mu);
    const int stopped = o->stopped || o->failed_job != INT64_MAX;
    pthread_mutex_unlock(&o->mu);
    return stopped;
}

int tsk_ordered_rc(tsk_ordered *o)
{
    pthread_mutex_lock(&o->mu);
    const int rc = o->stop_rc ? o->stop_rc : o->failed_job != INT64_MAX ? o->failed_rc : 0;
    pthread_mutex_unlock(&o->mu);
    return rc;
}

/* ---- tsk_ordered_run ---- */

typedef struct {
    tsk_ordered *o;
    const tsk_ordered_steps *steps;
    int worker;
} worker_arg;

static void *worker_main(void *arg)
{
    const worker_arg *a = arg;
    for (int64_t job; (job = tsk_ordered_take(a->o)) >= 0;)
        tsk_ordered_done(a->o, job, a->steps->work(a->steps->ctx, a->worker, job, tsk_ordered_slot(a->o, job)));
    return NULL;
}

int tsk_ordered_run(int n_workers, int n_slots, int64_t n_jobs, const tsk_ordered_steps *steps)
{
    tsk_ordered o;
    if (n_workers < 1) n_workers = 1;
    pthread_t *th = malloc((size_t)n_workers * sizeof *th);
    worker_arg *args = malloc((size_t)n_workers * sizeof *args);
    if (!th || !args || tsk_ordered_init(&o, n_slots, n_jobs)) {
        free(th);
        free(args);
        errno = ENOMEM;
        return -1;
    }
    int started = 0, err = 0;
    for (; started < n_workers; started++) {
        args[started] = (worker_arg){&o, steps, started};
        if ((err = pthread_create(&th[started], NULL, worker_main, &args[started])) != 0) break;
    }
    int rc = 0;
    if (started < n_workers) { /* nothing delivered: the workers started stop at their next take */
        tsk_ordered_stop(&o, 0);
        rc = -1;
    }
    for (int64_t job; rc == 0 && (job = tsk_ordered_next(&o)) >= 0;) {
        rc = steps->deliver(steps->ctx, job, tsk_ordered_slot(&o, job));
        tsk_ordered_release(&o, job);
    }
    tsk_ordered_stop(&o, rc > 0 ? rc : 0); /* a failed deliver, or the end: either way the workers go */
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    if (rc == 0) rc = tsk_ordered_rc(&o);
    tsk_ordered_free(&o);
    free(th);
    free(args);
    if (rc < 0) errno = err;
    return rc;
}
