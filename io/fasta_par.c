/* fasta_par.c: see fasta_par.h. Positions are absolute file offsets throughout; a chunk's buffer
 * holds the file bytes [base, have), base being a - 1 (to see whether a starts a line) or a. */
#include "fasta_par.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encode.h"
#include "io_error.h"
#include "seqio.h"

/* A slot is FREE, BUSY (a worker parses into it), DONE (parsed; the caller takes it in order), then
 * FREE again when the caller is done with it, or RELEASING until the copies from it are done. */
enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE, SLOT_RELEASING };
#define COPY_INLINE_BELOW 16384 /* smaller pieces are copied by the caller: a task would cost more */
enum { RUNNING = 99 };

typedef struct {
    size_t name_at, name_len;   /* in the chunk's names (NUL-terminated there) */
    size_t codes_at, n_codes;   /* in the chunk's codes */
    size_t raw;
} par_rec;

typedef struct {
    int state;                  /* SLOT_*; changed under the mutex */
    size_t index;               /* chunk number, set when a worker takes the slot */
    size_t a, b;                /* the range [a, b) */
    size_t base, have;          /* text holds the file bytes [base, have) */
    char *text;
    size_t text_cap;
    uint8_t *codes;             /* the lead's codes, then each record's, end to end */
    size_t codes_cap;
    size_t lead_end, lead_codes, lead_raw; /* lead: [a, lead_end), codes[0 .. lead_codes) */
    par_rec *recs;              /* records whose header line starts in [a, b) */
    size_t n_recs, recs_cap;
    char *names;
    size_t names_len, names_cap;
    size_t header_end;          /* end of the last header line starting here (after its '\n'); 0: none */
    int stop;                   /* 0: parsed up to b; '+': a '+' line ends it; -1: end of the file */
    int err;                    /* 0, or TSK_IO_SYSTEM with msg */
    char msg[256];
    size_t pending;             /* copies from this chunk not done yet */
} chunk;

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    size_t n;
    chunk *from;
} copy_task;

struct tsk_fasta_par {
    int fd;
    size_t start, size, range, n_chunks;
    char *display;
    uint8_t lut[256];
    int plain_dna;
    pthread_t *workers;
    int n_workers;
    chunk *slots;
    size_t n_slots;
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    size_t next_take;           /* next chunk a worker parses */
    size_t released;            /* chunks the caller is done with; slot of chunk i is i % n_slots */
    copy_task *tasks;           /* copies for the workers (tsk_fasta_par_copy): tasks[head..tail) */
    size_t task_head, task_tail, task_cap;
    size_t copies;              /* copies queued or running */
    size_t limit;               /* chunks from here on are not needed (an earlier one ends the parse) */
    int stop;
    /* the caller's side */
    chunk *cur;
    int lead_done;
    size_t rec_i;
    size_t skip_to;             /* bytes before this belong to a header line already handed out */
    char *name;                 /* the name of the last record of the chunks released */
    size_t name_len, name_cap;
    int64_t count;
    int final_rc;               /* RUNNING, then TSK_IO_EOF or the error, with final_msg */
    char final_msg[TSK_ERRLEN];
    uint8_t *scratch;
    size_t scratch_cap;
};

/* isspace() of the C locale: kseq (and fasta_fast.c) end the name at the first of these. */
static int name_end(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t n = 2 * *cap; /* what is needed at first (a range), twice as much when it grows */
    if (n < need) n = need;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

static void chunk_fail(chunk *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    c->err = TSK_IO_SYSTEM;
}

/* Makes the buffer hold the file bytes up to upto (at most the end of the file). */
static int read_upto(const tsk_fasta_par *p, chunk *c, size_t upto)
{
    if (upto > p->size) upto = p->size;
    if (upto <= c->have) return 0;
    if (reserve((void **)&c->text, &c->text_cap, upto - c->base, 1)) {
        chunk_fail(c, "out of memory");
        return -1;
    }
    while (c->have < upto) {
        ssize_t got = pread(p->fd, c->text + (c->have - c->base), upto - c->have, (off_t)c->have);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            chunk_fail(c, "read error: %s", strerror(errno));
            return -1;
        }
        if (got == 0) {
            chunk_fail(c, "read error: the file became shorter while it was read");
            return -1;
        }
        c->have += (size_t)got;
    }
    return 0;
}

/* Reads on past the buffer's end (doubling what is read, so a huge header costs linear time). */
static int read_more(const tsk_fasta_par *p, chunk *c)
{
    size_t more = c->have - c->base;
    return read_upto(p, c, c->have + (more < 65536 ? 65536 : more));
}

static inline const char *at(const chunk *c, size_t pos) { return c->text + (pos - c->base); }

/* Sequence text from pos (a line start when at_line_start) up to the first line starting with
 * '>', '@' or '+' before lim: returns that line's position with *stop its first byte, else lim
 * with *stop 0. *newlines counts the '\n' in between. [pos, lim) must be in the buffer. These are
 * fasta_fast.c's (kseq's) rules: every line start is looked at, empty lines are skipped. */
static size_t walk(const chunk *c, size_t pos, size_t lim, int at_line_start, int *stop, size_t *newlines)
{
    const char *q = at(c, pos), *end = at(c, lim);
    size_t nl = 0;
    *stop = 0;
    if (!at_line_start) {
        const char *e = memchr(q, '\n', (size_t)(end - q));
        q = e ? e + 1 : end;
        nl += e != NULL;
    }
    while (q < end) {
        char ch = *q;
        if (ch == '>' || ch == '@' || ch == '+') {
            *stop = ch;
            break;
        }
        if (ch == '\n') {
            nl++;
            q++;
            continue;
        }
        const char *e = memchr(q, '\n', (size_t)(end - q));
        if (!e) {
            q = end;
            break;
        }
        nl++;
        q = e + 1;
    }
    *newlines = nl;
    return pos + (size_t)(q - at(c, pos));
}

/* Cleans [s, e) (in the buffer, with nl '\n' in it) into codes at *used. */
static void encode_span(const tsk_fasta_par *p, chunk *c, size_t s, size_t e, size_t nl, size_t *used,
                        size_t *n_codes, size_t *raw)
{
    const char *t = at(c, s);
    size_t n = tsk_encode_text(p->lut, p->plain_dna, t, e - s, c->codes + *used);
    *used += n;
    *n_codes = n;
    *raw = (e - s) - nl - tsk_count_byte(t, e - s, '\r');
}

/* Parses and cleans chunk c (its index set). On failure c->err and c->msg are set. */
static void fill(const tsk_fasta_par *p, chunk *c)
{
    c->a = p->start + c->index * p->range;
    c->b = c->a + p->range < p->size ? c->a + p->range : p->size;
    c->base = c->a > p->start ? c->a - 1 : c->a;
    c->have = c->base;
    c->n_recs = c->names_len = c->header_end = 0;
    c->lead_end = c->a;
    c->lead_codes = c->lead_raw = 0;
    c->stop = c->err = 0;
    if (reserve((void **)&c->codes, &c->codes_cap, p->range, 1)) {
        chunk_fail(c, "out of memory");
        return;
    }
    if (read_upto(p, c, c->b)) return;
    size_t used = 0, nl;
    int stop;
    /* The lead: the rest of the line a falls in (when a starts no line) and further sequence lines,
     * up to the first header or '+' line. It continues the record open at a. */
    int at_line_start = c->a == p->start || *at(c, c->a - 1) == '\n';
    size_t e = walk(c, c->a, c->b, at_line_start, &stop, &nl);
    encode_span(p, c, c->a, e, nl, &used, &c->lead_codes, &c->lead_raw);
    c->lead_end = e;
    while (stop == '>' || stop == '@') {
        size_t h = e; /* a header line starts here, in [a, b) */
        if (h + 1 == p->size) { /* kseq: a header character as the last byte is no record */
            stop = -1;
            break;
        }
        size_t j = h + 1;
        for (;;) { /* the name: up to the first isspace() (read on past b when needed) */
            if (j >= c->have) {
                if (j >= p->size) break;
                if (read_more(p, c)) return;
            }
            const char *q = at(c, j), *end = at(c, c->have);
            while (q < end && !name_end((unsigned char)*q)) q++;
            j += (size_t)(q - at(c, j));
            if (q < end) break;
        }
        size_t k; /* the sequence starts after the header line */
        if (j >= p->size) {
            k = p->size;
        } else if (*at(c, j) == '\n') {
            k = j + 1;
        } else {
            size_t s = j + 1;
            for (;;) {
                const char *q = s < c->have ? memchr(at(c, s), '\n', c->have - s) : NULL;
                if (q) {
                    k = s + (size_t)(q - at(c, s)) + 1;
                    break;
                }
                if (c->have >= p->size) {
                    k = p->size;
                    break;
                }
                s = c->have > s ? c->have : s;
                if (read_more(p, c)) return;
            }
        }
        size_t name_len = j - h - 1;
        if (reserve((void **)&c->recs, &c->recs_cap, c->n_recs + 1, sizeof *c->recs) ||
            reserve((void **)&c->names, &c->names_cap, c->names_len + name_len + 1, 1)) {
            chunk_fail(c, "out of memory");
            return;
        }
        par_rec *r = &c->recs[c->n_recs++];
        r->name_at = c->names_len;
        r->name_len = name_len;
        memcpy(c->names + c->names_len, at(c, h + 1), name_len);
        c->names[c->names_len + name_len] = '\0';
        c->names_len += name_len + 1;
        r->codes_at = used;
        r->n_codes = r->raw = 0;
        c->header_end = k;
        if (k >= c->b) { /* its text starts in a later range (as that range's lead) */
            stop = 0;
            break;
        }
        e = walk(c, k, c->b, 1, &stop, &nl);
        encode_span(p, c, k, e, nl, &used, &r->n_codes, &r->raw);
    }
    if (stop == 0 && c->b == p->size) stop = -1;
    c->stop = stop;
}

/* Workers copy first (the caller waits for copies before it hands a batch on), then parse the
 * next chunk when its slot is free; they stay until stopped, since copies may come to the end. */
static void *worker_main(void *arg)
{
    tsk_fasta_par *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (p->task_head < p->task_tail) {
            copy_task t = p->tasks[p->task_head++];
            if (p->task_head == p->task_tail) p->task_head = p->task_tail = 0;
            pthread_mutex_unlock(&p->mu);
            memcpy(t.dst, t.src, t.n);
            pthread_mutex_lock(&p->mu);
            if (--t.from->pending == 0 && t.from->state == SLOT_RELEASING) {
                t.from->state = SLOT_FREE;
                pthread_cond_signal(&p->work_cv);
            }
            if (--p->copies == 0) pthread_cond_signal(&p->done_cv);
            continue;
        }
        if (p->stop) break;
        size_t end = p->limit < p->n_chunks ? p->limit : p->n_chunks;
        chunk *c = &p->slots[p->next_take % p->n_slots];
        if (p->next_take >= end || c->state != SLOT_FREE) { /* nothing to do: wait for the caller */
            pthread_cond_wait(&p->work_cv, &p->mu);
            continue;
        }
        c->index = p->next_take++;
        c->state = SLOT_BUSY;
        pthread_mutex_unlock(&p->mu);
        fill(p, c);
        pthread_mutex_lock(&p->mu);
        c->state = SLOT_DONE;
        /* nothing after a '+' line or a failure is read by the sequential reader either */
        if ((c->stop == '+' || c->err) && c->index + 1 < p->limit) p->limit = c->index + 1;
        if (c->index == p->released) pthread_cond_signal(&p->done_cv); /* the one the caller awaits */
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void stop_workers(tsk_fasta_par *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_workers; i++) pthread_join(p->workers[i], NULL);
    p->n_workers = 0;
}

void tsk_fasta_par_close(tsk_fasta_par *p)
{
    if (!p) return;
    stop_workers(p);
    for (size_t i = 0; i < p->n_slots; i++) {
        free(p->slots[i].text);
        free(p->slots[i].codes);
        free(p->slots[i].recs);
        free(p->slots[i].names);
    }
    free(p->slots);
    free(p->workers);
    free(p->tasks);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    if (p->fd >= 0) close(p->fd);
    free(p->display);
    free(p->name);
    free(p->scratch);
    free(p);
}

tsk_fasta_par *tsk_fasta_par_open(int fd, size_t start, size_t size, const uint8_t lut[256], int threads,
                                  size_t range_bytes, const char *display)
{
    tsk_fasta_par *p = calloc(1, sizeof *p);
    if (!p) {
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    p->fd = fd;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->start = start;
    p->size = size > start ? size : start + 1;
    p->range = range_bytes ? range_bytes : (size_t)TSK_FASTA_PAR_RANGE;
    p->n_chunks = (p->size - start + p->range - 1) / p->range;
    p->limit = SIZE_MAX;
    p->final_rc = RUNNING;
    memcpy(p->lut, lut, sizeof p->lut);
    p->plain_dna = tsk_lut_is_plain_dna(p->lut);
    if (threads < 1) threads = 1;
    if (threads > TSK_FASTA_PAR_MAX_THREADS) threads = TSK_FASTA_PAR_MAX_THREADS;
    if ((size_t)threads > p->n_chunks) threads = (int)p->n_chunks;
    /* Slots: every worker has one while the caller empties one, and workers can run ahead of a slow
     * chunk (a long header, a page fault) by a few ranges each. At the default range that is 2 MiB
     * of buffers per thread. */
    p->n_slots = 4 * (size_t)threads + 4;
    p->slots = calloc(p->n_slots, sizeof *p->slots);
    p->workers = calloc((size_t)threads, sizeof *p->workers);
    p->display = strdup(display);
    if (!p->slots || !p->workers || !p->display) {
        tsk_fasta_par_close(p);
        errno = ENOMEM;
        return NULL;
    }
    for (int i = 0; i < threads; i++) {
        int e = pthread_create(&p->workers[i], NULL, worker_main, p);
        if (e) {
            if (p->n_workers > 0) break; /* fewer workers still finish the file */
            tsk_fasta_par_close(p);
            errno = e;
            return NULL;
        }
        p->n_workers++;
    }
    return p;
}

static int finish(tsk_fasta_par *p, int rc, char *err, size_t errlen, const char *fmt, ...)
{
    p->final_rc = rc;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->final_msg, sizeof p->final_msg, fmt, ap);
        va_end(ap);
    }
    if (rc < 0) tsk_io_set_err(err, errlen, "%s", p->final_msg);
    /* nothing more is needed: let the workers go */
    stop_workers(p);
    return rc;
}

static chunk *take_chunk(tsk_fasta_par *p)
{
    chunk *c = &p->slots[p->released % p->n_slots];
    pthread_mutex_lock(&p->mu);
    while (!(c->state == SLOT_DONE && c->index == p->released)) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return c;
}

static void release_chunk(tsk_fasta_par *p)
{
    pthread_mutex_lock(&p->mu);
    chunk *c = &p->slots[p->released % p->n_slots];
    p->released++;
    if (c->pending) {
        c->state = SLOT_RELEASING; /* the last copy from it frees it */
    } else {
        c->state = SLOT_FREE;
        /* one slot more: one worker (waking them all per chunk costs more than a chunk at 16) */
        pthread_cond_signal(&p->work_cv);
    }
    pthread_mutex_unlock(&p->mu);
}

void tsk_fasta_par_copy(tsk_fasta_par *p, const uint8_t *codes, size_t n, uint8_t *dst)
{
    chunk *c = p->cur;
    if (n < COPY_INLINE_BELOW || !c || codes < c->codes || codes >= c->codes + c->codes_cap) {
        if (n) memcpy(dst, codes, n); /* small, or the caller's scratch (re-cleaned lead) */
        return;
    }
    pthread_mutex_lock(&p->mu);
    if (p->task_tail == p->task_cap) {
        copy_task *grown;
        size_t cap = p->task_cap ? 2 * p->task_cap : 64;
        grown = realloc(p->tasks, cap * sizeof *grown);
        if (!grown) { /* no room for a task: copy here */
            pthread_mutex_unlock(&p->mu);
            memcpy(dst, codes, n);
            return;
        }
        p->tasks = grown;
        p->task_cap = cap;
    }
    p->tasks[p->task_tail++] = (copy_task){codes, dst, n, c};
    c->pending++;
    p->copies++;
    pthread_cond_signal(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
}

void tsk_fasta_par_sync(tsk_fasta_par *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->copies > 0) pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int tsk_fasta_par_next(tsk_fasta_par *p, tsk_fasta_piece *piece, char *err, size_t errlen)
{
    for (;;) {
        if (p->final_rc != RUNNING) {
            if (p->final_rc < 0) tsk_io_set_err(err, errlen, "%s", p->final_msg);
            return p->final_rc;
        }
        if (!p->cur) {
            if (p->released >= p->n_chunks) /* not reached: the last chunk ends with stop -1 */
                return finish(p, TSK_IO_EOF, err, errlen, NULL);
            p->cur = take_chunk(p);
            p->lead_done = 0;
            p->rec_i = 0;
            if (p->cur->err)
                return finish(p, p->cur->err, err, errlen, "%s: %s", p->display, p->cur->msg);
        }
        chunk *c = p->cur;
        if (!p->lead_done) {
            p->lead_done = 1;
            const uint8_t *codes = c->codes;
            size_t n = c->lead_codes, raw = c->lead_raw;
            if (p->skip_to > c->a) { /* the lead begins inside a header line handed out before */
                n = raw = 0;
                if (p->skip_to < c->lead_end) {
                    size_t len = c->lead_end - p->skip_to;
                    if (reserve((void **)&p->scratch, &p->scratch_cap, len, 1))
                        return finish(p, TSK_IO_SYSTEM, err, errlen, "%s: out of memory", p->display);
                    const char *t = at(c, p->skip_to);
                    n = tsk_encode_text(p->lut, p->plain_dna, t, len, p->scratch);
                    raw = tsk_count_raw(t, len);
                    codes = p->scratch;
                }
            }
            if (n || raw) {
                *piece = (tsk_fasta_piece){p->name, p->name_len, codes, n, raw, 0};
                return TSK_IO_RECORD;
            }
        }
        if (p->rec_i < c->n_recs) {
            /* the name stays in the chunk while it is held; copied when the chunk goes (below) */
            const par_rec *r = &c->recs[p->rec_i++];
            p->count++;
            *piece = (tsk_fasta_piece){c->names + r->name_at, r->name_len, c->codes + r->codes_at, r->n_codes,
                                       r->raw, 1};
            return TSK_IO_RECORD;
        }
        /* the chunk is handed out; its last record goes on in the next chunks' leads */
        if (c->n_recs) {
            const par_rec *r = &c->recs[c->n_recs - 1];
            if (reserve((void **)&p->name, &p->name_cap, r->name_len + 1, 1))
                return finish(p, TSK_IO_SYSTEM, err, errlen, "%s: out of memory", p->display);
            memcpy(p->name, c->names + r->name_at, r->name_len + 1);
            p->name_len = r->name_len;
        }
        if (c->header_end > p->skip_to) p->skip_to = c->header_end;
        int stop = c->stop;
        p->cur = NULL;
        release_chunk(p);
        if (stop == '+') {
            return finish(p, TSK_IO_BAD, err, errlen, "%s: record '%s': FASTQ '+' line in a FASTA file", p->display,
                          p->name ? p->name : "");
        }
        if (stop == -1) {
            if (p->count == 0) return finish(p, TSK_IO_BAD, err, errlen, "%s: no records", p->display);
            return finish(p, TSK_IO_EOF, err, errlen, NULL);
        }
    }
}

