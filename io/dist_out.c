/* dist_out.c: streaming distance writers (see dist_out.h). */
#include "dist_out.h"

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
    FILE *f;
    char *path;
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
        break;
    }
    return o;
fail:
    tsk_dist_out_abort(o);
    return NULL;
}

/* Distances print with %.9g: enough digits to read back the exact float32. */
static void put_dist(FILE *f, float d)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%.9g", (double)d);
    fwrite(buf, 1, (size_t)n, f);
}

int tsk_dist_out_pair(tsk_dist_out *o, int64_t q, int64_t r, float dist)
{
    fputs(o->rn[r], o->f);
    putc('\t', o->f);
    fputs(o->qn[q], o->f);
    putc('\t', o->f);
    put_dist(o->f, dist);
    return putc('\n', o->f) == EOF ? -1 : 0;
}

int tsk_dist_out_rows(tsk_dist_out *o, int64_t q0, int64_t nq, const float *d, int64_t ld)
{
    if (q0 != o->next_row || q0 + nq > o->n_query) return -1;
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
    case TSK_DIST_NPY: return 128 + n * 4 * (double)n_ref;
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
    int rc;
    if (o->fmt == TSK_DIST_NPY) {
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
