/* npy.c: streaming and tiled .npy writer (see npy.h). The format: the 6 bytes "\x93NUMPY",
 * version 1.0, a little-endian uint16 header length, then a Python dict literal padded with spaces
 * and ended by '\n' so that the data start at a multiple of 64 bytes. */
#include "npy.h"
#include "io_error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "bgzf_stream.h"

#define NPY_ALIGN 64

struct tsk_npy_writer {
    int fd;
    tsk_atomic_file *gz;       /* a path ending in ".gz": the array BGZF-compressed, rows in order */
    char *path, *tmp_path;
    int64_t rows, cols;
    int elem;
    int64_t header_len;
    int64_t appended;          /* rows appended so far */
    int64_t written;           /* values written by appends and blocks (atomic) */
};

static void npy_free(tsk_npy_writer *w)
{
    free(w->path);
    free(w);
}

/* A compressed array ("x.npy.gz": what numpy reads with np.load(gzip.open(path))) is a stream:
 * the header, then the rows in order, through a BGZF stream as every .gz output of tsketch. */
static tsk_npy_writer *open_compressed(tsk_npy_writer *w, const char *header, int header_len, char *err,
                                       size_t errlen)
{
    w->fd = -1;
    if (!(w->gz = tsk_atomic_open(w->path, err, errlen))) {
        npy_free(w);
        return NULL;
    }
    if (fwrite(header, 1, (size_t)header_len, tsk_atomic_stream(w->gz)) != (size_t)header_len) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
        tsk_npy_abort(w);
        return NULL;
    }
    return w;
}

/* Appends n bytes to a compressed array. 0, or -1 with a message. */
static int gz_write(tsk_npy_writer *w, const void *p, size_t n, char *err, size_t errlen)
{
    if (n && fwrite(p, 1, n, tsk_atomic_stream(w->gz)) != n) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
        return -1;
    }
    return 0;
}

tsk_npy_writer *tsk_npy_open(const char *path, int64_t rows, int64_t cols, int elem_size, char *err, size_t errlen)
{
    if (rows < 0 || cols < 0 || (elem_size != 4 && elem_size != 8) ||
        (cols && rows > INT64_MAX / cols / elem_size)) {
        tsk_io_set_err(err, errlen, "%s: invalid array shape (%" PRId64 ", %" PRId64 ") of %d-byte values", path, rows, cols, elem_size);
        return NULL;
    }
    tsk_npy_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    w->rows = rows;
    w->cols = cols;
    w->elem = elem_size;

    char header[256];
    int dict = snprintf(header + 10, sizeof header - 10, "{'descr': '<f%d', 'fortran_order': False, 'shape': (%" PRId64
                        ", %" PRId64 "), }", elem_size, rows, cols);
    int total = 10 + dict + 1;
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memcpy(header, "\x93NUMPY\x01\x00", 8);
    header[8] = (char)((total - 10) & 0xFF);
    header[9] = (char)((total - 10) >> 8);
    memset(header + 10 + dict, ' ', (size_t)(total - 10 - dict - 1));
    header[total - 1] = '\n';
    w->header_len = total;

    if (tsk_path_wants_bgzf(path)) return open_compressed(w, header, total, err, errlen);
    w->fd = tsk_tmp_create(path, 1, &w->tmp_path, err, errlen);
    if (w->fd < 0) {
        npy_free(w);
        return NULL;
    }
    /* Sized at once: blocks may land anywhere, and a full disk shows up early for filesystems
     * that reserve (else at the first write). */
    if (tsk_write_all(w->fd, header, (size_t)total) != 0 ||
        ftruncate(w->fd, (off_t)(total + rows * cols * elem_size)) != 0) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", path, strerror(errno));
        tsk_npy_abort(w);
        return NULL;
    }
    return w;
}

int64_t tsk_npy_data_offset(const tsk_npy_writer *w) { return w->header_len; }

int tsk_npy_append(tsk_npy_writer *w, const void *values, int64_t n_rows, char *err, size_t errlen)
{
    if (n_rows < 0 || n_rows > w->rows - w->appended) {
        tsk_io_set_err(err, errlen, "%s: %" PRId64 " rows appended to an array of %" PRId64 " rows after %" PRId64,
                w->path, n_rows, w->rows, w->appended);
        return -1;
    }
    size_t n = (size_t)(n_rows * w->cols * w->elem);
    if (w->gz) {
        if (gz_write(w, values, n, err, errlen)) return -1;
    } else if (tsk_pwrite_all(w->fd, values, n, w->header_len + w->appended * w->cols * w->elem) != 0) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
        return -1;
    }
    w->appended += n_rows;
    __atomic_fetch_add(&w->written, n_rows * w->cols, __ATOMIC_RELAXED);
    return 0;
}

int tsk_npy_write_block(tsk_npy_writer *w, int64_t row, int64_t col, const void *values, int64_t n_rows,
                        int64_t n_cols, int64_t ld, char *err, size_t errlen)
{
    if (row < 0 || col < 0 || n_rows < 0 || n_cols < 0 || ld < n_cols || row > w->rows - n_rows ||
        col > w->cols - n_cols) {
        tsk_io_set_err(err, errlen, "%s: block of %" PRId64 " x %" PRId64 " at (%" PRId64 ", %" PRId64
                ") outside the %" PRId64 " x %" PRId64 " array", w->path, n_rows, n_cols, row, col, w->rows, w->cols);
        return -1;
    }
    const char *src = values;
    size_t line = (size_t)(n_cols * w->elem);
    if (w->gz) { /* a stream: whole rows, each block the next */
        if (row != w->appended || col != 0 || (n_cols != w->cols && n_rows > 0)) {
            tsk_io_set_err(err, errlen, "%s: a compressed array is written in order: block at (%" PRId64 ", %" PRId64
                           ") after %" PRId64 " rows", w->path, row, col, w->appended);
            return -1;
        }
        for (int64_t i = 0; i < n_rows; i++)
            if (gz_write(w, src + (size_t)(i * ld * w->elem), line, err, errlen)) return -1;
        w->appended += n_rows;
        __atomic_fetch_add(&w->written, n_rows * n_cols, __ATOMIC_RELAXED);
        return 0;
    }
    for (int64_t i = 0; i < n_rows && line; i++) {
        int64_t off = w->header_len + ((row + i) * w->cols + col) * w->elem;
        if (tsk_pwrite_all(w->fd, src + (size_t)(i * ld * w->elem), line, off) != 0) {
            tsk_io_set_err(err, errlen, "%s: write failed: %s", w->path, strerror(errno));
            return -1;
        }
    }
    __atomic_fetch_add(&w->written, n_rows * n_cols, __ATOMIC_RELAXED);
    return 0;
}

int tsk_npy_finish(tsk_npy_writer *w, char *err, size_t errlen)
{
    int64_t written = __atomic_load_n(&w->written, __ATOMIC_RELAXED);
    if (written < w->rows * w->cols) {
        tsk_io_set_err(err, errlen, "%s: incomplete array (%" PRId64 " of %" PRId64 " values written)", w->path, written,
                w->rows * w->cols);
        tsk_npy_abort(w);
        return -1;
    }
    int rc = w->gz ? tsk_atomic_commit(w->gz, err, errlen) : tsk_tmp_commit(w->fd, w->tmp_path, w->path, err, errlen);
    w->gz = NULL;
    npy_free(w);
    return rc;
}

void tsk_npy_abort(tsk_npy_writer *w)
{
    if (!w) return;
    if (w->gz) tsk_atomic_abort(w->gz);
    else tsk_tmp_discard(w->fd, w->tmp_path);
    npy_free(w);
}

int tsk_names_write(const char *path, const char *const *names, size_t n, char *err, size_t errlen)
{
    tsk_atomic_file *f = tsk_atomic_open(path, err, errlen);
    if (!f) return -1;
    FILE *fp = tsk_atomic_stream(f);
    for (size_t i = 0; i < n; i++) {
        fputs(names[i], fp);
        putc('\n', fp);
    }
    return tsk_atomic_commit(f, err, errlen);
}
