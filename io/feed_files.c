/* feed_files.c: many --per-file inputs read by several threads, appended in input order (feed.h).
 *
 * Why: a list of thousands of gzipped genomes is bound by inflate, one thread per file at ~0.3-0.5
 * Gbp/s. Here `threads` workers each read whole files (tsk_feed_file into a private batch, where
 * a --per-file input is one record) a bounded number of files and bytes ahead. The caller's
 * thread appends each file's record to the shared batches in input order, swapping them exactly
 * where tsk_feed_file would: the batches, the rows and the first error are the same for any number
 * of threads. It only reserves the record's place; a worker copies the codes there (one thread
 * copying 5 GB of codes took 1.5 s of a 3 s run on the H100 machine, its 16 readers waiting). The
 * caller waits for those copies before a batch leaves (a swap, the end) and before its codes can
 * move (a reserve that does not fit). */
#include "feed.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io_error.h"
#include "seqio.h"

#define AHEAD_FILES_PER_THREAD 2
#define AHEAD_BYTES (INT64_C(1) << 31) /* codes read ahead of the file being appended */

typedef enum {
    SLOT_FREE,    /* no file, or its codes copied */
    SLOT_READING, /* a worker reads its file */
    SLOT_READ,    /* read (or failed: rc): the caller's turn */
    SLOT_COPY,    /* its codes wait to be copied to copy_to */
    SLOT_COPYING
} slot_state;

typedef struct {
    tsk_batcher b; /* the file's record (one, or none for a file without records) */
    slot_state state;
    int rc;
    uint8_t *copy_to;
    char err[512];
} file_slot;

typedef struct {
    const char *const *paths, *const *names;
    size_t n, window;
    file_slot *slots;
    size_t next_claim, next_out;
    int64_t ahead_bytes; /* codes of files read but not yet copied */
    int64_t copies;      /* slots in SLOT_COPY or SLOT_COPYING */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} files_state;

/* A private batch is never full before its first record, and a --per-file input is one record. */
static tsk_batcher *never_swap(void *ctx)
{
    (void)ctx;
    return NULL;
}

static int64_t slot_codes(const file_slot *slot) { return slot->b.n ? slot->b.offset[slot->b.n] : 0; }

/* A slot whose codes wait to be copied, or NULL. */
static file_slot *copy_to_do(files_state *s)
{
    for (size_t i = 0; i < s->window; i++)
        if (s->slots[i].state == SLOT_COPY) return &s->slots[i];
    return NULL;
}

static int can_claim(const files_state *s)
{
    /* the file being appended is always let through, so that the byte bound cannot stall */
    return s->next_claim < s->n && s->slots[s->next_claim % s->window].state == SLOT_FREE &&
           s->next_claim < s->next_out + s->window && (s->ahead_bytes <= AHEAD_BYTES || s->next_claim == s->next_out);
}

/* Copies first (the caller may wait for them), then reads the next file; ends at stop. */
static void *worker_main(void *arg)
{
    files_state *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        file_slot *c = copy_to_do(s);
        if (c) {
            c->state = SLOT_COPYING;
            pthread_mutex_unlock(&s->mu);
            memcpy(c->copy_to, c->b.codes, (size_t)slot_codes(c));
            pthread_mutex_lock(&s->mu);
            s->ahead_bytes -= slot_codes(c);
            c->state = SLOT_FREE;
            s->copies--;
            pthread_cond_broadcast(&s->cv);
            continue;
        }
        if (s->stop) break;
        if (!can_claim(s)) {
            pthread_cond_wait(&s->cv, &s->mu);
            continue;
        }
        const size_t f = s->next_claim++;
        file_slot *slot = &s->slots[f % s->window];
        slot->state = SLOT_READING;
        pthread_mutex_unlock(&s->mu);
        tsk_batcher_reset(&slot->b);
        tsk_batcher *b = &slot->b;
        const tsk_feed_opts one = {1, 0, never_swap, NULL, NULL};
        const int rc = tsk_feed_file(s->paths[f], s->names[f], &one, &b, slot->err, sizeof slot->err);
        pthread_mutex_lock(&s->mu);
        slot->rc = rc;
        slot->state = SLOT_READ;
        s->ahead_bytes += slot_codes(slot);
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Waits until every reserved place has its codes. */
static void wait_copies(files_state *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->copies > 0) pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

/* Appends the record of a read slot to *cur (swapping a full batch first, as tsk_feed_file does
 * before a record) and hands its codes to the workers (or frees the slot when it has none).
 * Returns TSK_IO_EOF to go on (or, with *cur NULL, to stop), else an error. */
static int append_file(files_state *s, const tsk_feed_opts *o, file_slot *slot, const char *path, tsk_batcher **cur,
                       char *err, size_t errlen)
{
    const tsk_batcher *fb = &slot->b;
    uint8_t *at = NULL;
    int rc = TSK_IO_EOF;
    if (fb->n > 0) {
        tsk_batcher *b = *cur;
        const tsk_record_info *r = &fb->info[0];
        if (tsk_batcher_full(b)) {
            wait_copies(s);
            b = *cur = o->swap(o->ctx);
        }
        if (b && !tsk_batcher_codes_fit(b, (size_t)r->clean_len)) wait_copies(s); /* its codes may move */
        if (b && !(at = tsk_batcher_add_later(b, fb->strings + fb->string_at[0], fb->strings + fb->string_at[1],
                                               (size_t)r->clean_len, (size_t)r->raw_len, 0))) {
            tsk_io_set_err(err, errlen, "%s: out of memory", path);
            rc = TSK_IO_SYSTEM;
        }
    }
    pthread_mutex_lock(&s->mu);
    if (at && slot_codes(slot) > 0) {
        slot->copy_to = at;
        slot->state = SLOT_COPY;
        s->copies++;
    } else {
        s->ahead_bytes -= slot_codes(slot);
        slot->state = SLOT_FREE;
    }
    s->next_out++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int tsk_feed_files(const char *const *paths, const char *const *names, size_t n, int threads,
                   const tsk_feed_opts *o, tsk_batcher **cur, char *err, size_t errlen)
{
    if (threads < 1) threads = 1;
    if ((size_t)threads > n) threads = (int)n;
    files_state s = {paths, names, n, (size_t)threads * AHEAD_FILES_PER_THREAD, NULL, 0, 0, 0, 0, 0,
                     PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    pthread_t *workers = malloc((size_t)threads * sizeof *workers);
    s.slots = calloc(s.window, sizeof *s.slots);
    if (!workers || !s.slots) {
        free(workers);
        free(s.slots);
        tsk_io_set_err(err, errlen, "%s: out of memory", n ? paths[0] : "input");
        return TSK_IO_SYSTEM;
    }
    for (size_t i = 0; i < s.window; i++) tsk_batcher_init(&s.slots[i].b, &(*cur)->params);
    int started = 0;
    while (started < threads && pthread_create(&workers[started], NULL, worker_main, &s) == 0) started++;
    int rc = TSK_IO_EOF;
    if (started == 0) {
        tsk_io_set_err(err, errlen, "cannot start a reader thread");
        rc = TSK_IO_SYSTEM;
    }
    for (size_t f = 0; f < n && rc == TSK_IO_EOF && *cur && started > 0; f++) {
        file_slot *slot = &s.slots[f % s.window];
        pthread_mutex_lock(&s.mu);
        while (slot->state != SLOT_READ) pthread_cond_wait(&s.cv, &s.mu);
        pthread_mutex_unlock(&s.mu);
        if (slot->rc < 0) {
            rc = slot->rc;
            tsk_io_set_err(err, errlen, "%s", slot->err);
        } else {
            rc = append_file(&s, o, slot, paths[f], cur, err, errlen);
        }
        if (rc == TSK_IO_EOF && o->stopped && o->stopped(o->ctx)) break;
    }
    wait_copies(&s); /* the last batch's codes, before the caller takes it */
    pthread_mutex_lock(&s.mu);
    s.stop = 1;
    pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    for (int i = 0; i < started; i++) pthread_join(workers[i], NULL);
    for (size_t i = 0; i < s.window; i++) tsk_batcher_free(&s.slots[i].b);
    free(s.slots);
    free(workers);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.cv);
    return rc;
}
