/* pipeline.c: a reader thread fills batches (parse + clean) while the engine sketches the previous
 * one; results go to the sink in input order. See pipeline.h. */
#include "pipeline.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/batcher.h"
#include "cli.h"
#include "engine.h"

#define NBUF 3           /* batches in flight: one sketching, one filling, one spare */
/* Bases per batch: small enough that reading batch k+1 overlaps sketching batch k from the start
 * of a run and that the NBUF buffers are reused (warm pages) rather than first touched, large
 * enough that an engine's per-batch cost vanishes. A longer record still forms one batch. */
#define BATCH_BASES (INT64_C(1) << 24)
#define MAX_SHORT_WARNINGS 5

typedef struct {
    const tsk_sketch_job *job;
    tsk_batcher buf[NBUF];
    int filled[NBUF];    /* FIFO of filled batch indices */
    int n_filled, head;
    int is_free[NBUF];
    int reader_done, reader_rc, stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} shared_state;

/* Waits for a free batch; returns its index or -1 when the consumer stopped. */
static int take_free(shared_state *s)
{
    pthread_mutex_lock(&s->mu);
    int got = -1;
    while (!s->stop) {
        for (int i = 0; i < NBUF && got < 0; i++)
            if (s->is_free[i]) got = i;
        if (got >= 0) break;
        pthread_cond_wait(&s->cv, &s->mu);
    }
    if (got >= 0) s->is_free[got] = 0;
    pthread_mutex_unlock(&s->mu);
    return got;
}

static void hand_over(shared_state *s, int i)
{
    pthread_mutex_lock(&s->mu);
    s->filled[(s->head + s->n_filled) % NBUF] = i;
    s->n_filled++;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void reader_finish(shared_state *s, int rc)
{
    pthread_mutex_lock(&s->mu);
    s->reader_done = 1;
    s->reader_rc = rc;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static int reader_stopped(shared_state *s)
{
    pthread_mutex_lock(&s->mu);
    int stop = s->stop;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

/* Reads every input into batches. Returns a TSK_EXIT_* code (message printed). */
static int read_all(shared_state *s, int *cur)
{
    const tsk_sketch_job *job = s->job;
    char err[TSK_ERRLEN];
    for (size_t f = 0; f < job->n_inputs; f++) {
        const tsk_input *in = &job->inputs[f];
        int code;
        tsk_reader *r = tsk_reader_open(in->path, &code, err, sizeof err);
        if (!r) {
            tsk_error("%s", err);
            return code == TSK_IO_SYSTEM ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
        }
        char *stem = NULL;
        const char *file_name = NULL;
        if (job->per_file) {
            file_name = in->name ? in->name : job->per_file_name;
            if (!file_name) file_name = stem = tsk_path_stem(in->path);
        }
        tsk_seq_record rec;
        int rc, first = 1;
        size_t text_len;
        while ((rc = tsk_reader_next_text(r, &rec, &text_len, err, sizeof err)) == TSK_IO_RECORD) {
            tsk_batcher *b = &s->buf[*cur];
            /* A --per-file sketch is one record: only start a new batch between files. */
            if ((first || !job->per_file) && tsk_batcher_full(b)) {
                hand_over(s, *cur);
                if ((*cur = take_free(s)) < 0) break;
                b = &s->buf[*cur];
            }
            const char *name = job->per_file ? file_name : rec.name;
            if (tsk_batcher_add_text(b, name, in->path, rec.seq, text_len, rec.len, job->per_file && !first)) {
                tsk_error("%s: out of memory", in->path);
                rc = TSK_IO_SYSTEM;
                break;
            }
            first = 0;
            if (reader_stopped(s)) break;
        }
        free(stem);
        tsk_reader_close(r);
        if (rc < 0) {
            if (rc != TSK_IO_SYSTEM || err[0]) tsk_error("%s", err);
            return rc == TSK_IO_SYSTEM ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
        }
        if (*cur < 0 || reader_stopped(s)) return TSK_EXIT_OK;
    }
    return TSK_EXIT_OK;
}

static void *reader_main(void *arg)
{
    shared_state *s = arg;
    int cur = take_free(s);
    int rc = cur < 0 ? TSK_EXIT_OK : read_all(s, &cur);
    if (rc == TSK_EXIT_OK && cur >= 0 && s->buf[cur].n > 0) hand_over(s, cur);
    reader_finish(s, rc);
    return NULL;
}

/* Next filled batch, or -1 when the reader is done (its rc then tells how). */
static int take_filled(shared_state *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->n_filled == 0 && !s->reader_done) pthread_cond_wait(&s->cv, &s->mu);
    int i = -1;
    if (s->n_filled > 0) {
        i = s->filled[s->head];
        s->head = (s->head + 1) % NBUF;
        s->n_filled--;
    }
    pthread_mutex_unlock(&s->mu);
    return i;
}

static void give_back(shared_state *s, int i)
{
    tsk_batcher_reset(&s->buf[i]);
    pthread_mutex_lock(&s->mu);
    s->is_free[i] = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void stop_reader(shared_state *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

int tsk_pipeline_run(const tsk_sketch_job *job, tsk_record_sink sink, void *ctx)
{
    tsk_engine engine;
    int rc = tsk_engine_open(&engine, &job->params, &job->device, job->threads);
    if (rc) return rc;

    shared_state s;
    memset(&s, 0, sizeof s);
    s.job = job;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    for (int i = 0; i < NBUF; i++) {
        tsk_batcher_init(&s.buf[i], &job->params);
        s.buf[i].max_bases = BATCH_BASES;
        s.is_free[i] = 1;
    }
    pthread_t reader;
    if (pthread_create(&reader, NULL, reader_main, &s)) {
        tsk_error("cannot start the reader thread");
        tsk_engine_close(&engine);
        return TSK_EXIT_RUNTIME;
    }

    const int progress = !tsk_quiet && isatty(STDERR_FILENO);
    const size_t elem = job->params.precision == TSK_DOUBLE ? sizeof(double) : sizeof(float);
    const size_t row_bytes = (size_t)job->params.dim * elem;
    void *out = NULL;
    size_t out_cap = 0;
    int64_t records = 0, bases = 0, short_records = 0;
    int i;
    while (rc == TSK_EXIT_OK && (i = take_filled(&s)) >= 0) {
        tsk_batcher *b = &s.buf[i];
        tsk_batch batch = tsk_batcher_batch(b);
        size_t need = (size_t)batch.row_offset[batch.n_records] * row_bytes;
        if (need > out_cap) {
            free(out);
            out_cap = need + need / 4;
            if (!(out = malloc(out_cap ? out_cap : 1))) {
                tsk_error("out of memory for %zu bytes of sketches", out_cap);
                rc = TSK_EXIT_RUNTIME;
                break;
            }
        }
        rc = tsk_engine_sketch(&engine, &batch, out);
        for (int64_t r = 0; rc == TSK_EXIT_OK && r < batch.n_records; r++) {
            const tsk_record_info *info = &b->info[r];
            if (info->clean_len < job->params.t && short_records++ < MAX_SHORT_WARNINGS)
                tsk_warn("%s: record '%s' has %lld usable character%s, fewer than t=%d: its sketch is zero",
                         info->source, info->name, (long long)info->clean_len, info->clean_len == 1 ? "" : "s",
                         job->params.t);
            rc = sink(ctx, info, (const char *)out + (size_t)batch.row_offset[r] * row_bytes);
            bases += info->clean_len;
        }
        records += batch.n_records;
        if (progress)
            fprintf(stderr, "\rtsketch: %lld records, %.1f Mbp sketched (%s)", (long long)records, bases / 1e6,
                    engine.name);
        give_back(&s, i);
    }
    if (progress) fputc('\n', stderr);
    stop_reader(&s);
    pthread_join(reader, NULL);
    if (rc == TSK_EXIT_OK) rc = s.reader_rc;
    if (rc == TSK_EXIT_OK && short_records > MAX_SHORT_WARNINGS)
        tsk_warn("%lld records in all were shorter than t=%d", (long long)short_records, job->params.t);
    free(out);
    for (int k = 0; k < NBUF; k++) tsk_batcher_free(&s.buf[k]);
    pthread_mutex_destroy(&s.mu);
    pthread_cond_destroy(&s.cv);
    tsk_engine_close(&engine);
    return rc;
}
