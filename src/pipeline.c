/* pipeline.c: a reader thread fills batches (parse + clean, io/feed.c; for a plain FASTA file with
 * -p threads parsing beside it) while the engine sketches the previous one, and the rows of the
 * one before that go to the sink, in input order. See pipeline.h. */
#include "pipeline.h"

#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/tsk_knobs.h"
#include "../io/batcher.h"
#include "../cpu/sketch_counts.h"
#include "../io/feed.h"
#include "cli.h"
#include "engine.h"
#include "ordered_pipeline.h"
#include "progress_line.h"

#define NBUF 4           /* batches in flight: one written out, one sketching, two filling */
#define MAX_SHORT_WARNINGS 5

/* Seconds each side of the pipeline spent where (TSKETCH_TIMING=1 prints them): what bounds a run
 * is the stage the others wait for. */
typedef struct {
    double open, take, begin, wait, write;  /* main thread: engine open, waiting for a batch, ... */
    double release;                         /* waiting for a batch sink to let go of a row buffer */
    double first_parsed, first_begun;       /* when the first batch was parsed, and begun on an engine */
} stage_times;

/* The reader thread fills batch after batch, each a job of `order` in slot buf[job % NBUF]; the
 * main thread takes them in order, sketches and writes them, and gives them back. */
typedef struct {
    const tsk_sketch_job *job;
    tsk_batcher buf[NBUF];
    tsk_ordered order;
    int64_t cur;         /* the job the reader fills, -1 when it could take none (reader thread only) */
    int parse_threads;   /* threads that parse a plain FASTA file (parse_threads()) */
    int gpu_sized;       /* the next batches go to a GPU: fill them to its size (main thread sets it, atomic) */
    double reader_blocked; /* seconds the reader waited for a free batch (read after the join) */
} shared_state;

static int64_t batch_bases(int gpu);
static int64_t batch_records(int gpu);

/* The reader's next batch, sized for the engine that will take it: NULL when the main thread
 * stopped the run. */
static tsk_batcher *take_free(shared_state *s)
{
    const double t0 = tsk_seconds();
    s->cur = tsk_ordered_take(&s->order);
    s->reader_blocked += tsk_seconds() - t0;
    if (s->cur < 0) return NULL;
    tsk_batcher *b = &s->buf[tsk_ordered_slot(&s->order, s->cur)];
    const int gpu = __atomic_load_n(&s->gpu_sized, __ATOMIC_RELAXED);
    b->max_bases = batch_bases(gpu);
    b->max_records = batch_records(gpu);
    return b;
}

/* tsk_feed_opts callbacks: hand the batch being filled over, take a free one. */
static tsk_batcher *swap_batch(void *ctx)
{
    shared_state *s = ctx;
    tsk_ordered_done(&s->order, s->cur, 0);
    return take_free(s);
}

static int feed_stopped(void *ctx) { return tsk_ordered_stopped(&((shared_state *)ctx)->order); }

/* The reader's answer as an exit code, its message printed. */
static int read_result(int rc, const char *err)
{
    if (rc >= 0) return TSK_EXIT_OK;
    tsk_error("%s", err);
    return rc == TSK_IO_SYSTEM ? TSK_EXIT_RUNTIME : TSK_EXIT_INPUT;
}

/* --per-file with several inputs: the files read -p at a time (io/feed.h, tsk_feed_files), each
 * named as read_all names it. */
static int read_files_parallel(shared_state *s, const tsk_feed_opts *opts)
{
    const tsk_sketch_job *job = s->job;
    const size_t n = job->n_inputs;
    const char **paths = malloc(n * sizeof *paths), **names = malloc(n * sizeof *names);
    char **stems = calloc(n, sizeof *stems);
    int rc = paths && names && stems ? TSK_EXIT_OK : TSK_EXIT_RUNTIME;
    for (size_t f = 0; f < n && rc == TSK_EXIT_OK; f++) {
        const tsk_input *in = &job->inputs[f];
        paths[f] = in->path;
        names[f] = in->name ? in->name : job->per_file_name;
        if (!names[f] && !(names[f] = stems[f] = tsk_path_stem(in->path))) rc = TSK_EXIT_RUNTIME;
    }
    if (rc != TSK_EXIT_OK) {
        tsk_error("out of memory for the names of %zu inputs", n);
    } else {
        char err[TSK_ERRLEN];
        tsk_batcher *b = &s->buf[tsk_ordered_slot(&s->order, s->cur)];
        rc = read_result(tsk_feed_files(paths, names, n, job->threads, opts, &b, err, sizeof err), err);
    }
    for (size_t f = 0; stems && f < n; f++) free(stems[f]);
    free(stems);
    free(paths);
    free(names);
    return rc;
}

/* Reads every input into batches (io/feed.c: in input order, with the same batches for every
 * thread count). Returns a TSK_EXIT_* code (message printed). */
static int read_all(shared_state *s)
{
    const tsk_sketch_job *job = s->job;
    char err[TSK_ERRLEN];
    tsk_feed_opts opts = {s->parse_threads, 0, swap_batch, feed_stopped, s};
    if (job->per_file && job->n_inputs > 1 && job->threads > 1) return read_files_parallel(s, &opts);
    for (size_t f = 0; f < job->n_inputs; f++) {
        const tsk_input *in = &job->inputs[f];
        char *stem = NULL;
        const char *file_name = NULL;
        if (job->per_file) {
            file_name = in->name ? in->name : job->per_file_name;
            if (!file_name && !(file_name = stem = tsk_path_stem(in->path))) {
                tsk_error("%s: out of memory", in->path);
                return TSK_EXIT_RUNTIME;
            }
        }
        tsk_batcher *b = &s->buf[tsk_ordered_slot(&s->order, s->cur)];
        int rc = tsk_feed_file(in->path, file_name, &opts, &b, err, sizeof err);
        free(stem);
        if (rc < 0) return read_result(rc, err);
        if (s->cur < 0 || tsk_ordered_stopped(&s->order)) return TSK_EXIT_OK;
    }
    return TSK_EXIT_OK;
}

/* The reader thread: every batch it fills is a job; a failure ends the run at the batch it was
 * filling (those before it are still sketched and written, as the main thread takes them). */
static void *reader_main(void *arg)
{
    shared_state *s = arg;
    const int rc = take_free(s) ? read_all(s) : TSK_EXIT_OK;
    if (s->cur < 0) return NULL; /* stopped by the main thread */
    if (rc != TSK_EXIT_OK) {
        tsk_ordered_done(&s->order, s->cur, rc);
    } else if (s->buf[tsk_ordered_slot(&s->order, s->cur)].n > 0) { /* the last batch */
        tsk_ordered_done(&s->order, s->cur, 0);
        tsk_ordered_end(&s->order, s->cur + 1);
    } else {
        tsk_ordered_end(&s->order, s->cur);
    }
    return NULL;
}

/* The main thread is done with batch `job` (and those before it): the reader may refill it. */
static void give_back(shared_state *s, int64_t job)
{
    tsk_batcher_reset(&s->buf[tsk_ordered_slot(&s->order, job)]);
    tsk_ordered_release(&s->order, job);
}

/* A count knob's value (core/tsk_knobs.h: 0 when unset), else fallback. */
static long long knob_or(long long knob, long long fallback) { return knob > 0 ? knob : fallback; }

/* Threads that parse a plain FASTA file (io/fasta_par.c; the output is the same for any number).
 * The CPU engine's count path (DNA whole records at t <= 4, 0.1-0.2 Gbp/s a thread) waits for the
 * host: it gets all -p threads. So does an input the GPU may take later (auto on an input of
 * unknown size): the CPU sketches it first. An input that goes to the GPU from the start gets three
 * quarters of them: the rest is left to the GPU's opening (the driver, touching the pinned
 * buffers) and then to the engine's host side (packing codes into pinned memory), which measured
 * faster on 16 cores (the 2.4 Gbp file 0.637 against 0.726 s, 1,000 gzipped genomes 1.640 against
 * 1.773: NEWS.md, 2026-11-25). The sketch DP (protein, t > 4, slide rows) is far slower
 * than one thread parses (1-2 GB/s), so more parse threads would only take cores from it: it is
 * read by one. TSKETCH_PARSE_THREADS=N overrides all of these (tests, benchmarks). */
static int parse_threads(const tsk_sketch_job *job, const tsk_params *engine_params, int gpu, int gpu_first)
{
    int n = 1;
    if (gpu_first) n = job->threads - job->threads / 4;
    else if (gpu || tsk_cpu_counts_used(engine_params)) n = job->threads;
    return (int)knob_or(tsk_knobs_get()->parse_threads, n > 0 ? n : 1);
}

/* Bases per batch: the engine's size; TSKETCH_BATCH_BASES=N overrides it (tests: many small
 * batches through the begin/wait overlap of tsk_pipeline_run). */
static int64_t batch_bases(int gpu)
{
    return knob_or(tsk_knobs_get()->batch_bases, tsk_engine_batch_bases(gpu));
}

/* Records per batch: the engine's number; TSKETCH_BATCH_RECORDS=N overrides it (benchmarks). */
static int64_t batch_records(int gpu)
{
    return knob_or(tsk_knobs_get()->batch_records, tsk_engine_batch_records(gpu));
}

/* The main thread's word on the size of the batches the reader fills next. */
static void set_gpu_sized(shared_state *s, int gpu) { __atomic_store_n(&s->gpu_sized, gpu, __ATOMIC_RELAXED); }

/* About how many bases and rows the job's inputs hold, from their sizes (tsk_engine_file_bases)
 * and the mean record length in the first 64 kB of the first input: what --device auto chooses
 * its engine by and the GPU's first buffers are sized for; bases is -1 when an input is no regular
 * file (stdin, a pipe). A wrong guess costs time, never results. */
static void estimate_input(const tsk_sketch_job *job, int64_t *bases, int64_t *rows)
{
    int64_t bytes = 0;
    int first_regular = 0, all_regular = 1; /* only a regular file may be read twice (a FIFO loses its start) */
    for (size_t f = 0; f < job->n_inputs; f++) {
        const int64_t b = tsk_engine_file_bases(job->inputs[f].path);
        if (b >= 0) {
            bytes += b;
            first_regular |= f == 0;
        } else {
            all_regular = 0;
        }
    }
    *bases = all_regular ? bytes : -1;
    int64_t records = 0, seen = 0;
    FILE *f = first_regular ? fopen(job->inputs[0].path, "rb") : NULL;
    if (f) {
        char buf[1 << 16];
        const size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        seen = (int64_t)n;
        for (size_t i = 0; i < n && !(n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b); i++)
            records += (buf[i] == '>' || buf[i] == '@') && (i == 0 || buf[i - 1] == '\n');
    }
    const int64_t mean = records > 0 ? seen / records : bytes;
    *rows = job->per_file ? (int64_t)job->n_inputs : bytes / (mean > 0 ? mean : 1) + 1;
    if (job->params.window > 0) *rows = bytes / job->params.stride + 1;
}

/* The TSKETCH_TIMING=1 report on stderr: one line, seconds since the pipeline started. */
static void print_times(const stage_times *st, double reader_blocked, const tsk_engine *e, double total,
                        int64_t bases, int64_t batches)
{
    double kernel_ms = 0.0;
    tsk_gpu_host_times h = {0};
    if (e->gpu) {
        tsk_gpu_sketch_stats(e->gpu, &kernel_ms, NULL);
        tsk_gpu_sketch_host_times(e->gpu, &h);
    }
    fprintf(stderr,
            "tsketch: timing: %.3f s for %.1f Mbp: engine open %.3f, waiting for parsed input %.3f, "
            "engine begin %.3f, waiting for the engine %.3f, writing rows %.3f, waiting for the writer %.3f; "
            "the reader waited %.3f for a free batch; the first batch parsed at %.3f, begun at %.3f\n",
            total, bases / 1e6, st->open, st->take, st->begin, st->wait, st->write, st->release, reader_blocked,
            st->first_parsed, st->first_begun);
    fprintf(stderr, "tsketch: timing: %lld batches, %lld on the GPU\n", (long long)batches, (long long)e->gpu_batches);
    if (e->gpu)
        fprintf(stderr,
                "tsketch: timing: GPU kernels %.3f; host: buffer growth %.3f (%lld parts grew one), codes into "
                "pinned memory %.3f, rows out of it %.3f, waiting for a slot %.3f\n",
                kernel_ms / 1e3, h.alloc_s, (long long)h.allocs, h.pack_s, h.unpack_s, h.slot_wait_s);
}

/* Hands a sketched batch's rows to the sink, in order: a record at a time, or the whole batch to
 * a batch sink. */
typedef struct {
    const tsk_sketch_job *job;
    tsk_record_sink sink;
    void *ctx;
    const tsk_batch_sink *batch;  /* or NULL */
    size_t row_bytes;
    int64_t records, bases, short_records, empty_names;
} writer;

/* Writes batch b's rows (in rows); a batch sink sets *ticket (see tsk_batch_sink). */
static int write_batch(writer *w, const tsk_batcher *b, const char *rows, int64_t *ticket)
{
    int rc = TSK_EXIT_OK;
    for (int64_t r = 0; r < b->n; r++) {
        const tsk_record_info *info = &b->info[r];
        if (info->clean_len < w->job->params.t && w->short_records++ < MAX_SHORT_WARNINGS)
            tsk_warn("%s: record '%s' has %lld usable character%s, fewer than t=%d, the tuple length (-k %d): its "
                     "sketch is zero",
                     info->source, info->name, (long long)info->clean_len, info->clean_len == 1 ? "" : "s",
                     w->job->params.t, w->job->params.t);
        if (!info->name[0] && w->empty_names++ < MAX_SHORT_WARNINGS)
            tsk_warn("%s: record %lld has an empty name", info->source, (long long)(w->records + r + 1));
        if (!w->batch && rc == TSK_EXIT_OK)
            rc = w->sink(w->ctx, info, rows + (size_t)b->row_offset[r] * w->row_bytes);
        w->bases += info->clean_len;
    }
    if (w->batch) rc = w->batch->add(w->batch->ctx, b->info, b->n, rows, ticket);
    w->records += b->n;
    return rc;
}

/* Waits until the batch sink lets go of the rows of *ticket (then 0). */
static int release_rows(writer *w, int64_t *ticket, stage_times *st)
{
    if (!w->batch || *ticket <= 0) return TSK_EXIT_OK;
    const double t0 = tsk_seconds();
    const int rc = w->batch->wait(w->batch->ctx, *ticket);
    *ticket = 0;
    st->release += tsk_seconds() - t0;
    return rc;
}

/* The progress line, rewritten after every batch (its last state holds the run's true totals). */
static void show_progress(tsk_progress *p, const writer *w, const tsk_engine *e)
{
    tsk_progress_show(p, 1, "tsketch: %lld record%s, %.1f Mbp sketched (%s)", (long long)w->records,
                      w->records == 1 ? "" : "s", w->bases / 1e6, e->name);
}

/* Waits for the engine's batch tag, then writes batch b's rows (in out) to the sink. */
static int wait_and_write(tsk_engine *e, int64_t tag, writer *w, const tsk_batcher *b, const void *out,
                          int64_t *ticket, stage_times *st)
{
    const double t0 = tsk_seconds();
    int rc = tsk_engine_wait(e, tag);
    const double t1 = tsk_seconds();
    st->wait += t1 - t0;
    if (rc == TSK_EXIT_OK) rc = write_batch(w, b, out, ticket);
    st->write += tsk_seconds() - t1;
    return rc;
}

static void free_batchers(tsk_batcher *bufs)
{
    for (int k = 0; k < NBUF; k++) tsk_batcher_free(&bufs[k]);
}

/* Frees batches (the array and what its batchers hold), on its own thread. */
static void *free_batches(void *arg)
{
    free_batchers(arg);
    free(arg);
    return NULL;
}

/* Frees the NBUF batches at bufs; when their codes take 64 MB or more (a GPU run's: ~1 GB), on a
 * thread of its own that nobody waits for: unmapping a GPU run's batch buffers took 0.04 s on the
 * H100 machine, between the last rows and the output's rename (NEWS.md, 2026-11-25).
 * Should the process end first, the kernel unmaps the rest as it would have anyway. */
static void free_batches_soon(tsk_batcher *bufs)
{
    size_t bytes = 0;
    for (int k = 0; k < NBUF; k++) bytes += bufs[k].codes_cap;
    tsk_batcher *copy = bytes >= ((size_t)64 << 20) ? malloc(NBUF * sizeof *copy) : NULL;
    if (copy) {
        memcpy(copy, bufs, NBUF * sizeof *copy);
        if (tsk_start_detached(free_batches, copy) == 0) return;
        free(copy);
    }
    free_batchers(bufs);
}

static int run(const tsk_sketch_job *job, tsk_record_sink sink, void *ctx, const tsk_batch_sink *batch_sink)
{
    /* genome sketches are tsk_genome_sketch_run's (src/genome_sketch.h): a caller's mistake */
    assert(job->params.scaled == 0 && "genome jobs go to tsk_genome_sketch_run");
    if (job->params.scaled > 0) {
        tsk_error("internal error: a genome sketch job (scaled %lld) given to the sketch pipeline",
                  (long long)job->params.scaled);
        return TSK_EXIT_USAGE;
    }
    int names_rc = tsk_sketch_job_check_names(job);
    if (names_rc == TSK_EXIT_OK) names_rc = tsk_sketch_job_check_name_chars(job);
    if (names_rc != TSK_EXIT_OK) return names_rc;
    const int gpu = tsk_engine_may_use_gpu(&job->device);
    /* anchored windows reach the engine as records of their own (io/batcher.h) */
    tsk_params engine_params = job->params;
    if (engine_params.anchor_k > 0) engine_params.window = engine_params.stride = engine_params.anchor_k = 0;
    int64_t est_bases, est_rows;
    estimate_input(job, &est_bases, &est_rows);
    shared_state s;
    memset(&s, 0, sizeof s);
    s.job = job;
    if (tsk_ordered_init(&s.order, NBUF, -1)) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    /* auto: whether every batch waits for the GPU (engine.h); anchored windows reach the engine as
     * records of their own, but are windows all the same */
    const int windows = job->params.window > 0 || job->params.anchor_k > 0;
    s.gpu_sized = tsk_engine_gpu_first(&job->device, &engine_params, windows, est_bases, est_rows, job->threads);
    s.parse_threads = parse_threads(job, &engine_params, gpu, s.gpu_sized);
    for (int i = 0; i < NBUF; i++) {
        tsk_batcher_init(&s.buf[i], &job->params);
        /* the engine's size (tsk_engine_batch_bases): 16 Mbp for the CPU engine, small enough that
         * reading batch k+1 overlaps sketching batch k from the start; more for a GPU, which needs
         * many records at once. A longer record still forms one batch. */
        s.buf[i].max_bases = batch_bases(s.gpu_sized);
        s.buf[i].max_records = batch_records(s.gpu_sized);
    }
    pthread_t reader;
    if (pthread_create(&reader, NULL, reader_main, &s)) {
        tsk_error("cannot start the reader thread");
        free_batchers(s.buf);
        tsk_ordered_free(&s.order);
        return TSK_EXIT_RUNTIME;
    }
    stage_times st = {0};
    const double t_start = tsk_seconds();
    tsk_engine engine;
    int rc = tsk_engine_open(&engine, &engine_params, &job->device, job->threads, est_bases, est_rows, s.gpu_sized);
    st.open = tsk_seconds() - t_start;
    if (rc) {
        tsk_ordered_stop(&s.order, 0);
        pthread_join(reader, NULL);
        free_batchers(s.buf);
        tsk_ordered_free(&s.order);
        return rc;
    }

    tsk_progress progress;
    tsk_progress_start(&progress, 1, 0);
    const size_t elem = job->params.precision == TSK_DOUBLE ? sizeof(double) : sizeof(float);
    writer w = {job, sink, ctx, batch_sink, (size_t)job->params.dim * elem, 0, 0, 0, 0};
    /* Batch k is begun on the engine before batch k-1 is written out, so the GPU sketches while
     * the host writes (the CPU engine finishes in begin); two row buffers alternate. A batch sink
     * writes batch k-1 on its own thread while batch k sketches and k+1 begins: three rotate. */
    enum { MAX_OUT = 3 };
    const int n_out = batch_sink ? 3 : 2;
    void *out[MAX_OUT] = {NULL, NULL, NULL};
    size_t out_cap[MAX_OUT] = {0, 0, 0};
    int64_t ticket[MAX_OUT] = {0, 0, 0};  /* a batch sink still reads out[k] until its ticket */
    int64_t seq = 0, batch_no, pending = -1; /* seq: the batches begun; batch_no: a job of s.order */
    double t0 = tsk_seconds();
    /* after a failure the reader is stopped before any batch is given back: the engine may still
     * read the pending one */
    while (rc == TSK_EXIT_OK && (batch_no = tsk_ordered_next(&s.order)) >= 0) {
        const double t_taken = tsk_seconds();
        st.take += t_taken - t0;
        if (seq == 0) st.first_parsed = t_taken - t_start;
        tsk_batch batch = tsk_batcher_batch(&s.buf[tsk_ordered_slot(&s.order, batch_no)]);
        if (batch.n_records < 0) {
            tsk_error("out of memory for the anchored windows of a batch");
            tsk_ordered_stop(&s.order, 0);
            rc = TSK_EXIT_RUNTIME;
            break;
        }
        const int side = (int)(seq % n_out);
        size_t need = (size_t)batch.row_offset[batch.n_records] * w.row_bytes;
        rc = release_rows(&w, &ticket[side], &st);
        if (rc == TSK_EXIT_OK && need > out_cap[side]) {
            free(out[side]);
            out_cap[side] = need + need / 4;
            if (!(out[side] = malloc(out_cap[side] ? out_cap[side] : 1))) {
                tsk_error("out of memory for %zu bytes of sketches", out_cap[side]);
                out_cap[side] = 0;
                rc = TSK_EXIT_RUNTIME;
            }
        }
        t0 = tsk_seconds();
        if (rc == TSK_EXIT_OK) rc = tsk_engine_begin(&engine, &batch, out[side], seq);
        const double t_begun = tsk_seconds();
        st.begin += t_begun - t0;
        if (seq == 0) st.first_begun = t_begun - t_start;
        set_gpu_sized(&s, tsk_engine_gpu_ready(&engine));
        if (rc != TSK_EXIT_OK) {
            tsk_ordered_stop(&s.order, 0);
            break;
        }
        if (pending >= 0) {
            const int prev = (int)((seq - 1) % n_out);
            rc = wait_and_write(&engine, seq - 1, &w, &s.buf[tsk_ordered_slot(&s.order, pending)], out[prev],
                                &ticket[prev], &st);
            show_progress(&progress, &w, &engine);
            give_back(&s, pending);
        }
        pending = batch_no;
        seq++;
        t0 = tsk_seconds();
    }
    if (pending >= 0) {  /* the last batch; after a failure only wait, so nothing writes into out */
        const int prev = (int)((seq - 1) % n_out);
        if (rc == TSK_EXIT_OK)
            rc = wait_and_write(&engine, seq - 1, &w, &s.buf[tsk_ordered_slot(&s.order, pending)], out[prev],
                                &ticket[prev], &st);
        else
            tsk_engine_wait(&engine, seq - 1);
        give_back(&s, pending);
        show_progress(&progress, &w, &engine);
        tsk_progress_end(&progress, 1);
    }
    tsk_ordered_stop(&s.order, 0);
    pthread_join(reader, NULL);
    /* a batch sink may still read the last rows: none of them may be freed before it is done */
    for (int k = 0; k < n_out; k++) {
        const int released = release_rows(&w, &ticket[(seq + k) % n_out], &st);
        if (rc == TSK_EXIT_OK) rc = released;
    }
    if (rc == TSK_EXIT_OK) rc = tsk_ordered_rc(&s.order);
    if (tsk_timing_wanted()) print_times(&st, s.reader_blocked, &engine, tsk_seconds() - t_start, w.bases, seq);
    if (rc == TSK_EXIT_OK && w.short_records > MAX_SHORT_WARNINGS)
        tsk_warn("%lld records in all were shorter than t=%d, the tuple length (-k %d)", (long long)w.short_records,
                 job->params.t, job->params.t);
    const double t_free = tsk_seconds();
    for (int k = 0; k < n_out; k++) free(out[k]);
    free_batches_soon(s.buf);
    tsk_ordered_free(&s.order);
    const double t_close = tsk_seconds();
    tsk_engine_close(&engine);
    if (tsk_timing_wanted())
        fprintf(stderr, "tsketch: timing: buffers freed %.3f, engine close %.3f\n", t_close - t_free,
                tsk_seconds() - t_close);
    return rc;
}

int tsk_pipeline_run(const tsk_sketch_job *job, tsk_record_sink sink, void *ctx)
{
    return run(job, sink, ctx, NULL);
}

int tsk_pipeline_run_batches(const tsk_sketch_job *job, const tsk_batch_sink *sink)
{
    return run(job, NULL, NULL, sink);
}
