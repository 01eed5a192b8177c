/* write_queue.c: see write_queue.h. */
#include "write_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "atomic_file.h"
#include "crc32.h"

#define QUEUE_SLOTS 16
#define PIECE ((size_t)1 << 20)  /* bytes checksummed, then written, at a time */

typedef struct {
    const void *p;
    size_t n;
} span;

struct tsk_write_queue {
    int fd;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    span slots[QUEUE_SLOTS];
    int64_t pushed, done;  /* spans queued / written (or given up) so far */
    int stopping;
    int err;               /* errno of the first failed write */
    uint32_t crc;          /* of the bytes written so far (the thread's, read after the join) */
    uint64_t bytes;
};

int tsk_write_checksummed(int fd, const void *p, size_t n, uint32_t *crc)
{
    for (size_t at = 0; at < n; at += PIECE) {
        const unsigned char *piece = (const unsigned char *)p + at;
        const size_t len = n - at < PIECE ? n - at : PIECE;
        *crc = tsk_crc32(*crc, piece, len);
        if (tsk_write_all(fd, piece, len) != 0) return errno ? errno : EIO;
    }
    return 0;
}

static void *queue_main(void *arg)
{
    tsk_write_queue *q = arg;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (q->done == q->pushed && !q->stopping) pthread_cond_wait(&q->cv, &q->mu);
        if (q->done == q->pushed) break;
        const span s = q->slots[q->done % QUEUE_SLOTS];
        int err = q->err;
        pthread_mutex_unlock(&q->mu);
        if (!err) {
            err = tsk_write_checksummed(q->fd, s.p, s.n, &q->crc);
            q->bytes += s.n;
        }
        pthread_mutex_lock(&q->mu);
        if (err && !q->err) q->err = err;
        q->done++;
        pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

tsk_write_queue *tsk_write_queue_start(int fd)
{
    tsk_write_queue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->fd = fd;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    if (pthread_create(&q->thread, NULL, queue_main, q) != 0) {
        pthread_mutex_destroy(&q->mu);
        pthread_cond_destroy(&q->cv);
        free(q);
        return NULL;
    }
    return q;
}

int64_t tsk_write_queue_push(tsk_write_queue *q, const void *p, size_t n)
{
    pthread_mutex_lock(&q->mu);
    while (q->pushed - q->done >= QUEUE_SLOTS) pthread_cond_wait(&q->cv, &q->mu);
    q->slots[q->pushed % QUEUE_SLOTS] = (span){p, n};
    const int64_t ticket = ++q->pushed;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return ticket;
}

int tsk_write_queue_wait(tsk_write_queue *q, int64_t ticket)
{
    pthread_mutex_lock(&q->mu);
    while (q->done < ticket && q->done < q->pushed) pthread_cond_wait(&q->cv, &q->mu);
    const int err = q->err;
    pthread_mutex_unlock(&q->mu);
    return err;
}

int tsk_write_queue_stop(tsk_write_queue *q, uint32_t *crc, uint64_t *bytes)
{
    if (!q) return 0;
    pthread_mutex_lock(&q->mu);
    q->stopping = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    if (crc) *crc = q->crc;
    if (bytes) *bytes = q->bytes;
    const int err = q->err;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
    return err;
}
