/* link_runs.c: links sorted in memory or by sorted runs on disk (link_runs.h). */
#include "link_runs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_LINKS 16
#define CHUNK 65536             /* links handed to the reader at a time */
#define RADIX_FROM 65536        /* below this many links a comparison sort is quicker */

typedef struct {
    int64_t first, n;           /* links [first, first + n) of the temporary file */
} run;

struct tsk_link_runs {
    tsk_cluster_link *buf, *tmp;  /* the links in memory; tmp: the radix sort's other half */
    int64_t n, cap, total;
    int fd;                       /* the temporary file, -1 until the first spill */
    run *runs;
    int64_t n_runs, cap_runs;
    int64_t max_links;            /* the most links held in memory (the budget) */
};

static uint64_t key_of(const tsk_cluster_link *l) { return (uint64_t)l->worse << 32 | l->better; }

static int by_key(const void *pa, const void *pb)
{
    const uint64_t a = key_of(pa), b = key_of(pb);
    return (a > b) - (a < b);
}

/* Sorts l[0..n) by key: an LSD radix sort by 16-bit digits through tmp, skipping the digits all
 * links share (ranks below 65536 need two passes). */
static void sort_links(tsk_cluster_link *l, tsk_cluster_link *tmp, int64_t n)
{
    int64_t *count = n < RADIX_FROM ? NULL : malloc(65536 * sizeof *count);
    if (!count) { /* few links, or no memory for the counts */
        qsort(l, (size_t)n, sizeof *l, by_key);
        return;
    }
    tsk_cluster_link *src = l, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65536 * sizeof *count);
        for (int64_t i = 0; i < n; i++) count[key_of(&src[i]) >> shift & 0xFFFF]++;
        if (count[key_of(&src[0]) >> shift & 0xFFFF] == n) continue;
        int64_t at = 0;
        for (int d = 0; d < 65536; d++) {
            const int64_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (int64_t i = 0; i < n; i++) dst[count[key_of(&src[i]) >> shift & 0xFFFF]++] = src[i];
        tsk_cluster_link *t = src;
        src = dst, dst = t;
    }
    if (src != l) memcpy(l, src, (size_t)n * sizeof *l);
    free(count);
}

tsk_link_runs *tsk_link_runs_open(size_t budget_bytes, char *err, size_t errlen)
{
    tsk_link_runs *s = calloc(1, sizeof *s);
    int64_t cap = (int64_t)(budget_bytes / (2 * sizeof(tsk_cluster_link)));
    if (cap < MIN_LINKS) cap = MIN_LINKS;
    if (s) {
        s->fd = -1;
        s->max_links = cap;
        /* the buffer grows up to cap: small runs never take the whole budget */
        s->cap = cap < 4096 ? cap : 4096;
        s->buf = malloc((size_t)s->cap * sizeof *s->buf);
        s->tmp = malloc((size_t)s->cap * sizeof *s->tmp);
    }
    if (!s || !s->buf || !s->tmp) {
        snprintf(err, errlen, "out of memory holding the links");
        tsk_link_runs_close(s);
        return NULL;
    }
    return s;
}

void tsk_link_runs_close(tsk_link_runs *s)
{
    if (!s) return;
    if (s->fd >= 0) close(s->fd);
    free(s->buf);
    free(s->tmp);
    free(s->runs);
    free(s);
}

int64_t tsk_link_runs_count(const tsk_link_runs *s) { return s->total; }
int64_t tsk_link_runs_spilled(const tsk_link_runs *s) { return s->n_runs; }

static const char *temp_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

/* Writes all of p[0..bytes) at the end of fd. 0 or -1 (errno). */
static int write_all(int fd, const void *p, size_t bytes)
{
    const char *c = p;
    while (bytes) {
        const ssize_t w = write(fd, c, bytes);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        c += w, bytes -= (size_t)w;
    }
    return 0;
}

/* Sorts the buffer and appends it to the temporary file as a run. */
static int spill(tsk_link_runs *s, char *err, size_t errlen)
{
    if (s->fd < 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tsketch-links-XXXXXX", temp_dir());
        if ((s->fd = mkstemp(path)) < 0) {
            snprintf(err, errlen, "%s: cannot make a temporary file for the links: %s", temp_dir(), strerror(errno));
            return -1;
        }
        unlink(path);
    }
    if (s->n_runs == s->cap_runs) {
        const int64_t cap = s->cap_runs ? 2 * s->cap_runs : 16;
        run *r = realloc(s->runs, (size_t)cap * sizeof *r);
        if (!r) {
            snprintf(err, errlen, "out of memory holding the links");
            return -1;
        }
        s->runs = r, s->cap_runs = cap;
    }
    sort_links(s->buf, s->tmp, s->n);
    const int64_t first = s->n_runs ? s->runs[s->n_runs - 1].first + s->runs[s->n_runs - 1].n : 0;
    if (write_all(s->fd, s->buf, (size_t)s->n * sizeof *s->buf)) {
        snprintf(err, errlen, "%s: write failed (links spilled to disk): %s", temp_dir(), strerror(errno));
        return -1;
    }
    s->runs[s->n_runs++] = (run){first, s->n};
    s->n = 0;
    return 0;
}

/* Room for one more link: the buffer grows to the budget, then spills. */
static int make_room(tsk_link_runs *s, char *err, size_t errlen)
{
    if (s->n < s->cap) return 0;
    if (s->cap < s->max_links) {
        int64_t cap = 2 * s->cap;
        if (cap > s->max_links) cap = s->max_links;
        tsk_cluster_link *b = realloc(s->buf, (size_t)cap * sizeof *b);
        if (b) s->buf = b;
        tsk_cluster_link *t = b ? realloc(s->tmp, (size_t)cap * sizeof *t) : NULL;
        if (t) s->tmp = t;
        if (b && t) {
            s->cap = cap;
            return 0;
        }
        /* the machine has less than the budget: spill what is held */
    }
    return spill(s, err, errlen);
}

int tsk_link_runs_add(tsk_link_runs *s, const tsk_cluster_link *links, int64_t n, char *err, size_t errlen)
{
    for (int64_t i = 0; i < n; i++) {
        if (make_room(s, err, errlen)) return -1;
        s->buf[s->n++] = links[i];
    }
    s->total += n;
    return 0;
}

/* ---- reading: a k-way merge of the runs and the buffer ---- */

typedef struct {
    tsk_cluster_link *buf;  /* the run's next links (for the buffer: the buffer itself) */
    int64_t at, have;       /* buf[at..have) not yet merged */
    int64_t next, end;      /* the run's links still on disk: [next, end) of the file */
} source;

/* Refills src from the file. 0, or -1 (errno). */
static int refill(int fd, source *src, int64_t cap)
{
    int64_t n = src->end - src->next < cap ? src->end - src->next : cap;
    size_t got = 0, want = (size_t)n * sizeof *src->buf;
    while (got < want) {
        const ssize_t r = pread(fd, (char *)src->buf + got, want - got, (off_t)(src->next * (int64_t)sizeof *src->buf) + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;
            return -1;
        }
        got += (size_t)r;
    }
    src->next += n;
    src->at = 0, src->have = n;
    return 0;
}

static int source_less(const source *a, const source *b)
{
    return key_of(&a->buf[a->at]) < key_of(&b->buf[b->at]);
}

static void sift_down(source **heap, int64_t n, int64_t i)
{
    for (;;) {
        int64_t least = i, l = 2 * i + 1, r = l + 1;
        if (l < n && source_less(heap[l], heap[least])) least = l;
        if (r < n && source_less(heap[r], heap[least])) least = r;
        if (least == i) return;
        source *t = heap[i];
        heap[i] = heap[least], heap[least] = t;
        i = least;
    }
}

static int merge(tsk_link_runs *s, int (*fn)(void *, const tsk_cluster_link *, int64_t), void *ctx, char *err,
                 size_t errlen)
{
    const int64_t k = s->n_runs + 1;
    int64_t per_run = s->max_links / k;
    per_run = per_run < 64 ? 64 : per_run > CHUNK ? CHUNK : per_run;
    source *src = calloc((size_t)k, sizeof *src);
    source **heap = calloc((size_t)k, sizeof *heap);
    tsk_cluster_link *out = malloc(CHUNK * sizeof *out), *bufs = malloc((size_t)(k - 1) * (size_t)per_run * sizeof *bufs);
    int rc = src && heap && out && (bufs || k == 1) ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory merging the links");
    int64_t n_heap = 0;
    for (int64_t i = 0; i < k && !rc; i++) {
        if (i < s->n_runs) {
            src[i] = (source){bufs + i * per_run, 0, 0, s->runs[i].first, s->runs[i].first + s->runs[i].n};
            if (refill(s->fd, &src[i], per_run)) {
                snprintf(err, errlen, "%s: cannot read back the links: %s", temp_dir(), strerror(errno));
                rc = -1;
            }
        } else {
            src[i] = (source){s->buf, 0, s->n, 0, 0}; /* the buffer, sorted by the caller */
        }
        if (!rc && src[i].have > 0) heap[n_heap++] = &src[i];
    }
    for (int64_t i = n_heap / 2 - 1; i >= 0 && !rc; i--) sift_down(heap, n_heap, i);
    int64_t n_out = 0;
    while (n_heap > 0 && !rc) {
        source *top = heap[0];
        out[n_out++] = top->buf[top->at++];
        if (top->at == top->have && top->next < top->end && refill(s->fd, top, per_run)) {
            snprintf(err, errlen, "%s: cannot read back the links: %s", temp_dir(), strerror(errno));
            rc = -1;
            break;
        }
        if (top->at == top->have) heap[0] = heap[--n_heap];
        sift_down(heap, n_heap, 0);
        if (n_out == CHUNK) {
            if (fn(ctx, out, n_out)) {
                snprintf(err, errlen, "stopped");
                rc = -1;
            }
            n_out = 0;
        }
    }
    if (!rc && n_out && fn(ctx, out, n_out)) {
        snprintf(err, errlen, "stopped");
        rc = -1;
    }
    free(src);
    free(heap);
    free(out);
    free(bufs);
    return rc;
}

int tsk_link_runs_read(tsk_link_runs *s, int (*fn)(void *ctx, const tsk_cluster_link *l, int64_t n), void *ctx,
                       char *err, size_t errlen)
{
    sort_links(s->buf, s->tmp, s->n);
    if (s->n_runs == 0) {
        for (int64_t at = 0; at < s->n; at += CHUNK)
            if (fn(ctx, s->buf + at, s->n - at < CHUNK ? s->n - at : CHUNK)) {
                snprintf(err, errlen, "stopped");
                return -1;
            }
        return 0;
    }
    return merge(s, fn, ctx, err, errlen);
}
