/* test_ordered_pipeline.c: src/ordered_pipeline.c. Jobs of random durations on many workers reach
 * the consumer in job order, a slot never holds two jobs at once and no more than n_slots are in
 * flight, and every way of ending a run (the last job, a failed job, a failed delivery, a stop, a
 * producer that ends early or fails) returns promptly with the documented code and deliveries.
 * A hang fails by the test's timeout. Threads only count what they see; the checks are made on the
 * test's own thread. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/ordered_pipeline.h"

#define MAX_SLOTS 64

/* Sleeps a pseudo-random 0..max_us microseconds, a function of (job, salt) alone. */
static void random_pause(int64_t job, uint64_t salt, int max_us)
{
    uint64_t x = (uint64_t)job * 0x9E3779B97F4A7C15ULL ^ salt;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ULL, x ^= x >> 29;
    const long us = max_us > 0 ? (long)(x % (uint64_t)(max_us + 1)) : 0;
    struct timespec ts = {0, us * 1000};
    if (us) nanosleep(&ts, NULL);
}

/* One tsk_ordered_run, and what it saw. */
typedef struct {
    int n_slots;
    int max_us;            /* each work sleeps up to this long */
    int64_t fail_job;      /* work of this job returns fail_rc (-1: none) */
    int fail_rc;
    int64_t fail_delivery; /* deliver of this job returns fail_rc (-1: none) */
    int64_t owner[MAX_SLOTS]; /* the job a slot holds, -1 when free */
    int64_t value[MAX_SLOTS];
    int in_flight, max_in_flight;
    int64_t max_job_worked;
    int64_t n_delivered, out_of_order, slot_clash, bad_value;
    int64_t workers_seen[64];
} run_log;

static int log_work(void *ctx, int worker, int64_t job, int slot)
{
    run_log *l = ctx;
    const int now = __atomic_add_fetch(&l->in_flight, 1, __ATOMIC_SEQ_CST);
    int seen = __atomic_load_n(&l->max_in_flight, __ATOMIC_SEQ_CST);
    while (now > seen && !__atomic_compare_exchange_n(&l->max_in_flight, &seen, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    int64_t top = __atomic_load_n(&l->max_job_worked, __ATOMIC_SEQ_CST);
    while (job > top && !__atomic_compare_exchange_n(&l->max_job_worked, &top, job, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
    if (worker >= 0 && worker < 64) __atomic_add_fetch(&l->workers_seen[worker], 1, __ATOMIC_SEQ_CST);
    int64_t free_slot = -1;
    if (!__atomic_compare_exchange_n(&l->owner[slot], &free_slot, job, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        __atomic_add_fetch(&l->slot_clash, 1, __ATOMIC_SEQ_CST);
    random_pause(job, 0x5eed, l->max_us);
    l->value[slot] = job * 7 + 1;
    if (job == l->fail_job) {
        __atomic_store_n(&l->owner[slot], -1, __ATOMIC_SEQ_CST); /* a failed job is never delivered */
        __atomic_sub_fetch(&l->in_flight, 1, __ATOMIC_SEQ_CST);
        return l->fail_rc;
    }
    return 0;
}

static int log_deliver(void *ctx, int64_t job, int slot)
{
    run_log *l = ctx;
    if (job != l->n_delivered) l->out_of_order++;
    if (__atomic_load_n(&l->owner[slot], __ATOMIC_SEQ_CST) != job) l->slot_clash++;
    if (l->value[slot] != job * 7 + 1) l->bad_value++;
    l->n_delivered++;
    __atomic_store_n(&l->owner[slot], -1, __ATOMIC_SEQ_CST);
    __atomic_sub_fetch(&l->in_flight, 1, __ATOMIC_SEQ_CST);
    return job == l->fail_delivery ? l->fail_rc : 0;
}

static run_log new_log(int n_slots, int max_us)
{
    run_log l;
    memset(&l, 0, sizeof l);
    l.n_slots = n_slots;
    l.max_us = max_us;
    l.fail_job = l.fail_delivery = -1;
    l.max_job_worked = -1;
    for (int i = 0; i < MAX_SLOTS; i++) l.owner[i] = -1;
    return l;
}

static int run(run_log *l, int workers, int64_t n_jobs)
{
    const tsk_ordered_steps steps = {log_work, log_deliver, l};
    return tsk_ordered_run(workers, l->n_slots, n_jobs, &steps);
}

Test(ordered_pipeline, order_kept_under_random_durations, .timeout = 60)
{
    const int workers[] = {1, 2, 7, 16, 32};
    const int slots[] = {1, 2, 3, 8, 64};
    for (size_t w = 0; w < sizeof workers / sizeof *workers; w++)
        for (size_t s = 0; s < sizeof slots / sizeof *slots; s++) {
            run_log l = new_log(slots[s], 200);
            const int64_t n = 600;
            cr_assert_eq(run(&l, workers[w], n), 0, "%d workers, %d slots", workers[w], slots[s]);
            cr_expect_eq(l.n_delivered, n, "%d workers, %d slots: every job delivered", workers[w], slots[s]);
            cr_expect_eq(l.out_of_order, 0, "%d workers, %d slots: in job order", workers[w], slots[s]);
            cr_expect_eq(l.bad_value, 0, "%d workers, %d slots: each job's own result", workers[w], slots[s]);
            cr_expect_eq(l.slot_clash, 0, "%d workers, %d slots: a slot holds one job", workers[w], slots[s]);
            cr_expect_leq(l.max_in_flight, slots[s], "%d workers, %d slots: at most n_slots in flight (%d)",
                          workers[w], slots[s], l.max_in_flight);
            int64_t total = 0;
            for (int i = 0; i < workers[w]; i++) total += l.workers_seen[i];
            cr_expect_eq(total, n, "%d workers, %d slots: each job worked once", workers[w], slots[s]);
        }
}

/* The slots, not the workers, bound what is held: a slow consumer with many fast workers. */
static int slow_deliver(void *ctx, int64_t job, int slot)
{
    random_pause(job, 0xd11, 300);
    return log_deliver(ctx, job, slot);
}

Test(ordered_pipeline, slots_bound_what_is_held, .timeout = 60)
{
    run_log l = new_log(3, 0);
    const tsk_ordered_steps steps = {log_work, slow_deliver, &l};
    cr_assert_eq(tsk_ordered_run(16, 3, 400, &steps), 0);
    cr_expect_eq(l.n_delivered, 400);
    cr_expect_eq(l.out_of_order, 0);
    cr_expect_leq(l.max_in_flight, 3, "in flight %d", l.max_in_flight);
    cr_expect_geq(l.max_in_flight, 2, "the workers ran ahead of the consumer (%d in flight)", l.max_in_flight);
}

Test(ordered_pipeline, a_failed_job_ends_the_run_after_the_jobs_before_it, .timeout = 60)
{
    const int workers[] = {1, 4, 16};
    for (size_t w = 0; w < sizeof workers / sizeof *workers; w++)
        for (int rep = 0; rep < 5; rep++) {
            run_log l = new_log(4, 100);
            l.fail_job = 250;
            l.fail_rc = 7;
            cr_assert_eq(run(&l, workers[w], 1000), 7, "%d workers: the failed job's code", workers[w]);
            cr_expect_eq(l.n_delivered, 250, "%d workers: exactly the jobs before it delivered (%lld)", workers[w],
                         (long long)l.n_delivered);
            cr_expect_eq(l.out_of_order, 0);
            cr_expect_lt(l.max_job_worked, 250 + 4, "%d workers: no job taken past the slots (job %lld)", workers[w],
                         (long long)l.max_job_worked);
        }
}

Test(ordered_pipeline, the_lowest_failed_job_wins, .timeout = 60)
{
    /* every job from 100 on fails: whichever fails first in time, the run ends at 100 */
    for (int rep = 0; rep < 10; rep++) {
        tsk_ordered o;
        cr_assert_eq(tsk_ordered_init(&o, 256, 200), 0); /* room for every job: takes never wait */
        for (int64_t j = 0; j < 108; j++) cr_assert_eq(tsk_ordered_take(&o), j);
        for (int64_t j = 107; j >= 0 && j >= 100 - rep; j--) tsk_ordered_done(&o, j, j >= 100 ? (int)(j - 90) : 0);
        for (int64_t j = 0; j < 100 - rep; j++) tsk_ordered_done(&o, j, 0);
        for (int64_t j = 0; j < 100; j++) {
            cr_assert_eq(tsk_ordered_next(&o), j);
            tsk_ordered_release(&o, j);
        }
        cr_expect_eq(tsk_ordered_next(&o), -1);
        cr_expect_eq(tsk_ordered_take(&o), -1, "nothing taken after a failure");
        cr_expect_eq(tsk_ordered_rc(&o), 10);
        tsk_ordered_free(&o);
    }
}

Test(ordered_pipeline, a_failed_delivery_stops_the_workers, .timeout = 60)
{
    run_log l = new_log(6, 50);
    l.fail_delivery = 99;
    l.fail_rc = 9;
    cr_assert_eq(run(&l, 12, 100000), 9);
    cr_expect_eq(l.n_delivered, 100);
    cr_expect_lt(l.max_job_worked, 100 + 6, "job %lld worked", (long long)l.max_job_worked);
}

Test(ordered_pipeline, no_jobs, .timeout = 10)
{
    run_log l = new_log(2, 0);
    cr_assert_eq(run(&l, 4, 0), 0);
    cr_expect_eq(l.n_delivered, 0);
}

/* ---- the calls one by one: a producer that does not know how many jobs there are ---- */

typedef struct {
    tsk_ordered *o;
    int64_t last;   /* the producer fills jobs below this, then ends (or fails at it) */
    int fail_rc;    /* nonzero: job `last` fails with it instead of an end */
    int64_t filled[8];
    int64_t took_after_stop;
} producer;

static void *producer_main(void *arg)
{
    producer *p = arg;
    for (;;) {
        const int64_t j = tsk_ordered_take(p->o);
        if (j < 0) return NULL; /* stopped */
        if (j == p->last) {
            if (p->fail_rc) tsk_ordered_done(p->o, j, p->fail_rc);
            else tsk_ordered_end(p->o, j); /* took one more than there is: dropped */
            return NULL;
        }
        random_pause(j, 0xfeed, 100);
        p->filled[tsk_ordered_slot(p->o, j)] = j;
        tsk_ordered_done(p->o, j, 0);
    }
}

static int64_t consume(tsk_ordered *o, const producer *p, int64_t *bad)
{
    int64_t n = 0;
    for (int64_t j; (j = tsk_ordered_next(o)) >= 0; n++) {
        if (j != n || p->filled[tsk_ordered_slot(o, j)] != j) ++*bad;
        random_pause(j, 0xc0de, 50);
        tsk_ordered_release(o, j);
    }
    return n;
}

Test(ordered_pipeline, a_producer_ends_the_run, .timeout = 30)
{
    for (int64_t last = 0; last < 40; last += 13) {
        tsk_ordered o;
        cr_assert_eq(tsk_ordered_init(&o, 3, -1), 0);
        producer p = {.o = &o, .last = last};
        pthread_t th;
        cr_assert_eq(pthread_create(&th, NULL, producer_main, &p), 0);
        int64_t bad = 0;
        const int64_t n = consume(&o, &p, &bad);
        pthread_join(th, NULL);
        cr_expect_eq(n, last, "jobs 0 .. %lld delivered (%lld)", (long long)last - 1, (long long)n);
        cr_expect_eq(bad, 0);
        cr_expect_eq(tsk_ordered_rc(&o), 0);
        tsk_ordered_free(&o);
    }
}

Test(ordered_pipeline, a_producer_fails, .timeout = 30)
{
    tsk_ordered o;
    cr_assert_eq(tsk_ordered_init(&o, 3, -1), 0);
    producer p = {.o = &o, .last = 20, .fail_rc = 3};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, producer_main, &p), 0);
    int64_t bad = 0;
    const int64_t n = consume(&o, &p, &bad);
    pthread_join(th, NULL);
    cr_expect_eq(n, 20, "the jobs before the failed one (%lld)", (long long)n);
    cr_expect_eq(bad, 0);
    cr_expect_eq(tsk_ordered_rc(&o), 3);
    tsk_ordered_free(&o);
}

Test(ordered_pipeline, a_stop_wakes_a_producer_waiting_for_a_slot, .timeout = 10)
{
    tsk_ordered o;
    cr_assert_eq(tsk_ordered_init(&o, 2, -1), 0);
    producer p = {.o = &o, .last = INT64_MAX};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, producer_main, &p), 0);
    cr_assert_eq(tsk_ordered_next(&o), 0); /* held, never released: the producer fills job 1 and waits */
    cr_assert_eq(tsk_ordered_next(&o), 1);
    cr_expect(!tsk_ordered_stopped(&o));
    tsk_ordered_stop(&o, 5);
    pthread_join(th, NULL); /* a hang here fails by the timeout */
    cr_expect(tsk_ordered_stopped(&o));
    cr_expect_eq(tsk_ordered_next(&o), -1);
    cr_expect_eq(tsk_ordered_take(&o), -1);
    cr_expect_eq(tsk_ordered_rc(&o), 5);
    tsk_ordered_stop(&o, 6);
    cr_expect_eq(tsk_ordered_rc(&o), 5, "the first stop's code is kept");
    tsk_ordered_free(&o);
}

Test(ordered_pipeline, release_frees_every_slot_up_to_the_job, .timeout = 10)
{
    tsk_ordered o;
    cr_assert_eq(tsk_ordered_init(&o, 3, 10), 0);
    for (int64_t j = 0; j < 3; j++) {
        cr_assert_eq(tsk_ordered_take(&o), j);
        tsk_ordered_done(&o, j, 0);
    }
    cr_assert_eq(tsk_ordered_next(&o), 0);
    cr_assert_eq(tsk_ordered_next(&o), 1);
    tsk_ordered_release(&o, 1); /* jobs 0 and 1 at once: two slots free */
    cr_expect_eq(tsk_ordered_take(&o), 3);
    cr_expect_eq(tsk_ordered_take(&o), 4);
    tsk_ordered_done(&o, 4, 0);
    cr_expect_eq(tsk_ordered_next(&o), 2);
    tsk_ordered_done(&o, 3, 0);
    cr_expect_eq(tsk_ordered_next(&o), 3, "job 3, not 4 that finished first");
    cr_expect_eq(tsk_ordered_next(&o), 4);
    tsk_ordered_free(&o);
}
