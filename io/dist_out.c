/* dist_out.c: streaming distance writers (see dist_out.h). */
#include "dist_out.h"
#include "float_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "npy.h"

struct tsk_dist_out {
    tsk_dist_format fmt;
    const char *const *qn, *const *rn;
    int64_t n_query, n_ref;
    int64_t next_row;            /* matrix formats: the row expected next */
    tsk_atomic_file *main;       /* text formats */
    tsk_npy_writer *npy;
    float *matrix;               /* TSK_DIST_MATRIX */
    FILE *f;
    char *path;
    int ani_columns;             /* genome lines: "TAB ani TAB af" after the counts */
    int64_t name_room;           /* the longest ref and query names' bytes together, -1 not yet known */
};

int tsk_dist_format_parse(const char *s)
{
    static const char *const names[] = {"tsv", "phylip", "square", "npy"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) return i;
    return -1;
}

tsk_dist_out *tsk_dist_out_open(const char *path, tsk_dist_format fmt, const char *const *query_names,
                                int64_t n_query, const char *const *ref_names, int64_t n_ref, int header,
                                char *err, size_t errlen)
{
    if (!path) path = "-";
    if (fmt == TSK_DIST_NPY && !strcmp(path, "-")) {
        snprintf(err, errlen, "the npy format needs an output file (-o FILE)");
        return NULL;
    }
    tsk_dist_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        free(o);
        return NULL;
    }
    o->fmt = fmt;
    o->qn = query_names;
    o->rn = ref_names;
    o->name_room = -1;
    o->n_query = n_query;
    o->n_ref = n_ref;
    if (fmt == TSK_DIST_NPY) {
        if (!(o->npy = tsk_npy_open(path, n_query, n_ref, 4, err, errlen))) goto fail;
        return o;
    }
    if (!(o->main = tsk_atomic_open(path, err, errlen))) goto fail;
    o->f = tsk_atomic_stream(o->main);
    switch (fmt) {
    case TSK_DIST_TSV:
        if (header) fputs("reference\tquery\tdistance\n", o->f);
        break;
    case TSK_DIST_PHYLIP:
        fprintf(o->f, "\t%lld\n", (long long)n_query);
        break;
    case TSK_DIST_SQUARE:
        for (int64_t r = 0; r < n_ref; r++) {
            putc('\t', o->f);
            fputs(ref_names[r], o->f);
        }
        putc('\n', o->f);
        break;
    case TSK_DIST_NPY:
    case TSK_DIST_MATRIX:
        break;
    }
    return o;
fail:
    tsk_dist_out_abort(o);
    return NULL;
}

tsk_dist_out *tsk_dist_out_open_matrix(float *dst, int64_t n, char *err, size_t errlen)
{
    tsk_dist_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup("matrix in memory"))) {
        snprintf(err, errlen, "out of memory");
        free(o);
        return NULL;
    }
    o->fmt = TSK_DIST_MATRIX;
    o->matrix = dst;
    o->n_query = o->n_ref = n;
    return o;
}

/* Distances print with %.9g: enough digits to read back the exact float32 (tsk_float_g9 writes
 * printf's bytes, faster). b has room for 32. */
static size_t format_dist(char *b, float d) { return tsk_float_g9(b, d); }

static void put_dist(FILE *f, float d)
{
    char buf[32];
    fwrite(buf, 1, format_dist(buf, d), f);
}

static int write_line(FILE *f, const char *ref, const char *query, float dist)
{
    fputs(ref, f);
    putc('\t', f);
    fputs(query, f);
    putc('\t', f);
    put_dist(f, dist);
    return putc('\n', f) == EOF ? -1 : 0;
}

int tsk_dist_out_pair(tsk_dist_out *o, int64_t q, int64_t r, float dist)
{
    return write_line(o->f, o->rn[r], o->qn[q], dist);
}

/* One tsv line into b (room for it reserved by the caller); returns its length. */
static size_t format_line(char *b, const char *ref, const char *query, float dist)
{
    size_t a = strlen(ref), q = strlen(query);
    memcpy(b, ref, a);
    b[a] = '\t';
    memcpy(b + a + 1, query, q);
    b[a + 1 + q] = '\t';
    size_t at = a + q + 2;
    at += format_dist(b + at, dist);
    b[at++] = '\n';
    return at;
}

/* The names on pair p's line, or 0 when the pair has no line (an empty top-k slot, or farther
 * than max_dist); swap: the pair's query is the line's reference and the other way round. */
static int line_names(const tsk_dist_out *o, const tsk_pair *p, int swap, double max_dist, const char **ref,
                      const char **query)
{
    if (p->ref < 0 || !((double)p->dist <= max_dist)) return 0;
    *ref = o->rn[swap ? p->query : p->ref];
    *query = o->qn[swap ? p->ref : p->query];
    return 1;
}

#define LINE_EXTRA 40 /* 2 tabs, the distance (at most 15 characters with %.9g), newline, NUL */

/* Lines of items 0..n-1 written in order, formatted on up to `threads` threads (formatting, not
 * writing, bounds one thread). line_room(o, i, arg) bounds the bytes of item i's line (0: it has
 * none); line_format writes it into b and returns its length; line_prefetch (NULL: none) asks for
 * what item i's line will read, PREFETCH_AHEAD items before it is formatted. A top-k's lines name
 * neighbours all over the set: on 10^6 names each line's two loads (the name's pointer, then its
 * bytes) miss every cache, 0.65 of the 0.78 us a line took on one thread (bench/io/dist_out_bench). */
typedef size_t (*line_room_fn)(const tsk_dist_out *o, int64_t i, const void *arg);
typedef size_t (*line_format_fn)(const tsk_dist_out *o, int64_t i, const void *arg, char *b);
typedef void (*line_prefetch_fn)(const tsk_dist_out *o, int64_t i, const void *arg, int stage);

#define PREFETCH_AHEAD 16 /* lines: a name's bytes are asked for this far ahead, its pointer twice as far */

static int write_lines(tsk_dist_out *o, int64_t n, int threads, line_room_fn room, line_format_fn format,
                       line_prefetch_fn prefetch, const void *arg)
{
    if (n <= 0) return 0;
    int nt = threads < 1 ? 1 : threads;
    if (n < 4096 * (int64_t)nt) nt = (int)(n / 4096) + 1; /* a slice is worth a thread */
    char **buf = calloc((size_t)nt, sizeof *buf);
    size_t *len = calloc((size_t)nt, sizeof *len);
    int failed = !buf || !len;
    if (!failed) {
#pragma omp parallel for num_threads(nt) schedule(static, 1)
        for (int t = 0; t < nt; t++) {
            const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
            size_t cap = 0;
            for (int64_t i = lo; i < hi; i++) cap += room(o, i, arg);
            char *b = malloc(cap + 1);
            if (!b) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            size_t at = 0;
            for (int64_t i = lo; i < hi; i++) {
                if (prefetch) {
                    if (i + 2 * PREFETCH_AHEAD < hi) prefetch(o, i + 2 * PREFETCH_AHEAD, arg, 0);
                    if (i + PREFETCH_AHEAD < hi) prefetch(o, i + PREFETCH_AHEAD, arg, 1);
                }
                if (room(o, i, arg)) at += format(o, i, arg, b + at);
            }
            buf[t] = b;
            len[t] = at;
        }
    }
    for (int t = 0; !failed && t < nt; t++)
        if (len[t] && fwrite(buf[t], 1, len[t], o->f) != len[t]) failed = 1;
    for (int t = 0; buf && t < nt; t++) free(buf[t]);
    free(buf);
    free(len);
    return failed ? -1 : 0;
}

typedef struct {
    const tsk_pair *pairs;
    int swap;
    double max_dist;
} pair_lines;

#define NAME_ROOM_MAX 256 /* names up to this long together: a line's room without reading them */

/* The bytes the names of a line of reference r and query q take at most: the longest names' (no
 * name read), or theirs where names are long (find_name_room). */
static size_t names_room(const tsk_dist_out *o, int64_t r, int64_t q)
{
    return o->name_room >= 0 ? (size_t)o->name_room : strlen(o->rn[r]) + strlen(o->qn[q]);
}

static size_t pair_room(const tsk_dist_out *o, int64_t i, const void *arg)
{
    const pair_lines *a = arg;
    const tsk_pair *p = &a->pairs[i];
    if (p->ref < 0 || !((double)p->dist <= a->max_dist)) return 0;
    return names_room(o, a->swap ? p->query : p->ref, a->swap ? p->ref : p->query) + LINE_EXTRA;
}

/* The names of a line of reference r and query q, a stage of their loads ahead (write_lines'
 * line_prefetch): stage 0 their pointers, stage 1 their bytes. Inlined always: GCC takes a function
 * of prefetches alone for one without effects and drops the calls to it. */
static inline __attribute__((always_inline)) void prefetch_names(const tsk_dist_out *o, int64_t r, int64_t q, int stage)
{
    if (stage == 0) {
        __builtin_prefetch(&o->rn[r]);
        __builtin_prefetch(&o->qn[q]);
    } else {
        __builtin_prefetch(o->rn[r]);
        __builtin_prefetch(o->qn[q]);
    }
}

static void pair_prefetch(const tsk_dist_out *o, int64_t i, const void *arg, int stage)
{
    const pair_lines *a = arg;
    const tsk_pair *p = &a->pairs[i];
    if (p->ref >= 0) prefetch_names(o, a->swap ? p->query : p->ref, a->swap ? p->ref : p->query, stage);
}

/* o->name_room, once: the longest names' bytes, or -1 kept when they are long (each line's own
 * room is read then). */
static void find_name_room(tsk_dist_out *o)
{
    if (o->name_room != -1) return;
    if (!o->rn || !o->qn) {
        o->name_room = -2;
        return;
    }
    size_t longest_r = 0, longest_q = 0;
    for (int64_t i = 0; i < o->n_ref; i++) {
        const size_t len = strlen(o->rn[i]);
        if (len > longest_r) longest_r = len;
    }
    for (int64_t i = 0; o->qn != o->rn && i < o->n_query; i++) {
        const size_t len = strlen(o->qn[i]);
        if (len > longest_q) longest_q = len;
    }
    if (o->qn == o->rn) longest_q = longest_r;
    o->name_room = longest_r + longest_q <= NAME_ROOM_MAX ? (int64_t)(longest_r + longest_q) : -2;
}

static size_t pair_format(const tsk_dist_out *o, int64_t i, const void *arg, char *b)
{
    const pair_lines *a = arg;
    const char *ref = "", *query = "";
    line_names(o, &a->pairs[i], a->swap, a->max_dist, &ref, &query);
    return format_line(b, ref, query, a->pairs[i].dist);
}

int tsk_dist_out_pairs(tsk_dist_out *o, const tsk_pair *pairs, int64_t n, int swap, double max_dist, int threads)
{
    const pair_lines arg = {pairs, swap, max_dist};
    if (n > 0) find_name_room(o);
    return write_lines(o, n, threads, pair_room, pair_format, pair_prefetch, &arg);
}

int tsk_dist_out_text(tsk_dist_out *o, const char *text)
{
    return o->f && fputs(text, o->f) != EOF ? 0 : -1;
}

/* n >= 0 in decimal into b (at most 19 digits, no NUL); returns its length. */
static size_t decimal(char *b, int64_t n)
{
    char d[20];
    size_t len = 0;
    do d[len++] = (char)('0' + n % 10);
    while ((n /= 10) > 0);
    for (size_t i = 0; i < len; i++) b[i] = d[len - 1 - i];
    return len;
}

/* A genome line into b (room reserved by the caller); returns its length. */
static size_t format_genome_line(const tsk_dist_out *o, char *b, const tsk_genome_line *l)
{
    size_t at = format_line(b, o->rn[l->ref], o->qn[l->query], l->dist) - 1; /* over its newline */
    b[at++] = '\t';
    at += decimal(b + at, l->shared);
    b[at++] = '\t';
    at += decimal(b + at, l->total);
    if (o->ani_columns) at += tsk_dist_format_ani(b + at, l->ani, l->af);
    b[at++] = '\n';
    return at;
}

size_t tsk_dist_format_ani(char *b, float ani, float af)
{
    if (isnan(ani) || isnan(af)) {
        memcpy(b, "\tNA\tNA", 7);
        return 6;
    }
    /* snprintf's %.2f / %.4f of the float's exact double value: the same text on every platform */
    return (size_t)snprintf(b, TSK_DIST_ANI_TEXT, "\t%.2f\t%.4f", 100.0 * (double)ani, (double)af);
}

double tsk_dist_af_as_written(float ani, float af)
{
    if (isnan(ani) || isnan(af)) return NAN;
    char b[TSK_DIST_ANI_TEXT];
    snprintf(b, sizeof b, "%.4f", (double)af);
    return strtod(b, NULL);
}

void tsk_dist_out_genome_ani(tsk_dist_out *o, int on) { o->ani_columns = on; }

static size_t genome_room(const tsk_dist_out *o, int64_t i, const void *arg)
{
    const tsk_genome_line *l = (const tsk_genome_line *)arg + i;
    return names_room(o, l->ref, l->query) + LINE_EXTRA + 48 + TSK_DIST_ANI_TEXT;
}

static void genome_prefetch(const tsk_dist_out *o, int64_t i, const void *arg, int stage)
{
    const tsk_genome_line *l = (const tsk_genome_line *)arg + i;
    prefetch_names(o, l->ref, l->query, stage);
}

static size_t genome_format(const tsk_dist_out *o, int64_t i, const void *arg, char *b)
{
    return format_genome_line(o, b, (const tsk_genome_line *)arg + i);
}

int tsk_dist_out_genome_lines(tsk_dist_out *o, const tsk_genome_line *lines, int64_t n, int threads)
{
    if (n > 0) find_name_room(o);
    return write_lines(o, n, threads, genome_room, genome_format, genome_prefetch, lines);
}

int tsk_dist_out_rows(tsk_dist_out *o, int64_t q0, int64_t nq, const float *d, int64_t ld)
{
    if (q0 != o->next_row || q0 + nq > o->n_query) return -1;
    if (o->fmt == TSK_DIST_MATRIX) {
        for (int64_t i = 0; i < nq; i++) {
            memcpy(o->matrix + (q0 + i) * o->n_ref, d + i * ld, (size_t)(q0 + i) * sizeof *d);
            o->matrix[(q0 + i) * o->n_ref + q0 + i] = 0;
        }
        o->next_row += nq;
        return 0;
    }
    if (o->fmt == TSK_DIST_NPY) {
        char err[256];
        if (nq > 0 && tsk_npy_write_block(o->npy, q0, 0, d, nq, o->n_ref, ld, err, sizeof err)) return -1;
        o->next_row += nq;
        return 0;
    }
    for (int64_t i = 0; i < nq; i++) {
        const float *row = d + i * ld;
        int64_t q = q0 + i;
        switch (o->fmt) {
        case TSK_DIST_PHYLIP:
        case TSK_DIST_SQUARE: {
            int64_t cols = o->fmt == TSK_DIST_PHYLIP ? q : o->n_ref;
            fputs(o->qn[q], o->f);
            for (int64_t r = 0; r < cols; r++) {
                putc('\t', o->f);
                put_dist(o->f, row[r]);
            }
            if (putc('\n', o->f) == EOF) return -1;
            continue;
        }
        default:
            return -1;
        }
    }
    o->next_row += nq;
    return 0;
}

double tsk_dist_out_estimate(tsk_dist_format fmt, int64_t n_lines_or_rows, int64_t n_ref, double mean_name_len)
{
    double n = (double)n_lines_or_rows;
    switch (fmt) {
    case TSK_DIST_TSV: return n * (2 * mean_name_len + 13);
    case TSK_DIST_PHYLIP: return n * (mean_name_len + 1) + n * n / 2 * 11;
    case TSK_DIST_SQUARE: return n * (mean_name_len + 1 + 11 * (double)n_ref);
    case TSK_DIST_NPY:
    case TSK_DIST_MATRIX: return 128 + n * 4 * (double)n_ref;
    }
    return 0;
}

/* "<path><suffix>", malloc'd. */
static char *suffixed(const char *path, const char *suffix)
{
    size_t len = strlen(path) + strlen(suffix) + 1;
    char *p = malloc(len);
    if (p) snprintf(p, len, "%s%s", path, suffix);
    return p;
}

int tsk_dist_out_finish(tsk_dist_out *o, char *err, size_t errlen)
{
    if (o->fmt != TSK_DIST_TSV && o->next_row != o->n_query) {
        snprintf(err, errlen, "%s: internal error: %lld of %lld matrix rows written", o->path,
                 (long long)o->next_row, (long long)o->n_query);
        tsk_dist_out_abort(o);
        return -1;
    }
    int rc = 0;
    if (o->fmt == TSK_DIST_MATRIX) {
        /* nothing to move into place */
    } else if (o->fmt == TSK_DIST_NPY) {
        rc = tsk_npy_finish(o->npy, err, errlen);
        o->npy = NULL;
        int matrix_in_place = rc == 0;
        /* The names files come after the matrix: a matrix without its names is no result. */
        char *names = suffixed(o->path, ".names"), *ref_names = suffixed(o->path, ".ref.names");
        if (!names || !ref_names) {
            snprintf(err, errlen, "%s: out of memory", o->path);
            rc = -1;
        }
        if (!rc) rc = tsk_names_write(names, (const char *const *)o->qn, (size_t)o->n_query, err, errlen);
        if (!rc && o->rn != o->qn)
            rc = tsk_names_write(ref_names, (const char *const *)o->rn, (size_t)o->n_ref, err, errlen);
        if (rc && matrix_in_place) remove(o->path);
        free(names);
        free(ref_names);
    } else {
        rc = tsk_atomic_commit(o->main, err, errlen);
        o->main = NULL;
    }
    tsk_dist_out_abort(o);
    return rc;
}

void tsk_dist_out_abort(tsk_dist_out *o)
{
    if (!o) return;
    tsk_atomic_abort(o->main);
    tsk_npy_abort(o->npy);
    free(o->path);
    free(o);
}
