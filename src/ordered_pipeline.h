/* ordered_pipeline.h: numbered jobs done by workers and handed to one consumer strictly in job
 * order, with at most n_slots jobs in flight (the idea of minimap2's kt_pipeline, cut to what
 * tsketch needs: one step that runs in parallel, one that runs in order).
 *
 * Jobs are numbered 0, 1, 2, ... and job j lives in slot j % n_slots, a buffer of the caller's own,
 * from the moment a worker takes it until the consumer releases it. A worker may take job j only
 * once job j - n_slots has been released, so what is held stays bounded by the slots however far
 * the fastest worker runs ahead of the slowest. Every wait sleeps on a condition variable.
 *
 *   worker threads (any number)                the consumer (one thread)
 *   while ((j = tsk_ordered_take(o)) >= 0)     while ((j = tsk_ordered_next(o)) >= 0) {
 *       tsk_ordered_done(o, j,                     rc = use(&slot[tsk_ordered_slot(o, j)]);
 *           fill(&slot[tsk_ordered_slot(o, j)]));  tsk_ordered_release(o, j);
 *                                                  if (rc) { tsk_ordered_stop(o, rc); break; }
 *                                              }
 *                                              if (!rc) rc = tsk_ordered_rc(o);
 *
 * tsk_ordered_run does exactly that with n worker threads of its own.
 *
 * Errors. A job done with a nonzero code ends the run at that job: no later job is taken, the
 * consumer still receives every job before it, then tsk_ordered_next returns -1 and tsk_ordered_rc
 * the job's code (the lowest failed job's, when several fail). What the consumer saw before a
 * failure is thus the same for any number of workers. tsk_ordered_stop ends the run at once (the
 * consumer failed, or wants no more): takes and nexts return -1 from then on, and a long job may
 * poll tsk_ordered_stopped to give up early.
 *
 * A producer that does not know in advance how many jobs there are (a reader of files) is a worker
 * that takes job after job as its input goes on, and ends the run with tsk_ordered_end. */
#ifndef TSK_ORDERED_PIPELINE_H
#define TSK_ORDERED_PIPELINE_H

#include <pthread.h>
#include <stdint.h>

/* The shared state of one run. Its fields are the module's: use the calls below. */
typedef struct {
    int n_slots;
    int64_t n_jobs;       /* jobs of the run: INT64_MAX while unknown (tsk_ordered_end) */
    int64_t taken;        /* jobs handed to workers: 0 .. taken-1 */
    int64_t delivered;    /* jobs handed to the consumer */
    int64_t released;     /* jobs whose slots the consumer let go of */
    int64_t failed_job;   /* the lowest job done with a nonzero code (INT64_MAX: none) */
    int failed_rc;        /* its code */
    int stopped, stop_rc; /* tsk_ordered_stop was called, and its code */
    int64_t *finished;    /* per slot: the job last done in it, -1 at first */
    pthread_mutex_t mu;
    pthread_cond_t slot_free, job_done; /* the workers wait on the first, the consumer on the second */
} tsk_ordered;

/* Starts a run of n_jobs jobs (n_jobs < 0: unknown until tsk_ordered_end) in n_slots >= 1 slots.
 * Returns 0, or -1 when out of memory. */
int tsk_ordered_init(tsk_ordered *o, int n_slots, int64_t n_jobs);
/* Frees what init allocated; no thread may be using o any more. */
void tsk_ordered_free(tsk_ordered *o);

/* The slot of job j. */
static inline int tsk_ordered_slot(const tsk_ordered *o, int64_t job) { return (int)(job % o->n_slots); }

/* Worker: the next job, once its slot is free; -1 when there is none to take (every job taken,
 * the run ended, failed or stopped). */
int64_t tsk_ordered_take(tsk_ordered *o);
/* Worker: job j is finished, with code rc (0: the consumer may have it; nonzero: the run ends at j). */
void tsk_ordered_done(tsk_ordered *o, int64_t job, int rc);
/* Producer: the run holds jobs 0 .. n_jobs-1; a job taken at or after n_jobs is dropped unused. */
void tsk_ordered_end(tsk_ordered *o, int64_t n_jobs);

/* Consumer: the next job in order, once it is done; -1 when there is none (all delivered, or the
 * run failed at this job, or was stopped). The consumer may hold several jobs before it releases
 * them. */
int64_t tsk_ordered_next(tsk_ordered *o);
/* Consumer: done with job j and every job before it: their slots go back to the workers. */
void tsk_ordered_release(tsk_ordered *o, int64_t job);

/* Anyone: ends the run now, waking every wait; rc (0 for none) is kept for tsk_ordered_rc unless
 * an earlier stop gave one. */
void tsk_ordered_stop(tsk_ordered *o, int rc);
/* Whether the run was stopped or failed: a worker deep in a long job may give up. */
int tsk_ordered_stopped(tsk_ordered *o);
/* The run's code once the consumer is through: tsk_ordered_stop's, else the failed job's, else 0. */
int tsk_ordered_rc(tsk_ordered *o);

/* The two steps of tsk_ordered_run, each returning 0 or a positive code that ends the run. work
 * runs on worker `worker` (0 .. n_workers-1, each a thread of its own) and fills slot `slot` with
 * job `job`; deliver runs on the calling thread, job after job in order. */
typedef struct {
    int (*work)(void *ctx, int worker, int64_t job, int slot);
    int (*deliver)(void *ctx, int64_t job, int slot);
    void *ctx;
} tsk_ordered_steps;

/* Runs jobs 0 .. n_jobs-1 on n_workers threads with n_slots slots, delivering them in order on the
 * calling thread. Returns 0, the code that ended the run (a work's, in job order, or a deliver's),
 * or -1 when a worker thread could not be started or memory ran out (errno says why; then nothing
 * was delivered). */
int tsk_ordered_run(int n_workers, int n_slots, int64_t n_jobs, const tsk_ordered_steps *steps);

#endif
