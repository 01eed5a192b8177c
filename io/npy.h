/* npy.h: NumPy .npy output (format version 1.0) for `export --format npy` and `dist -f npy`.
 *
 * A C-order 2-D array of little-endian float32 ('<f4') or float64 ('<f8') whose shape is known
 * up front. The header is written at open and the file sized at once, so rows can be appended in
 * order and blocks placed anywhere (tiles of a distance matrix, in any order, from any thread:
 * block writes are pwrite calls). Like every tsketch output it is written to "path.tmp.<pid>"
 * and renamed into place by tsk_npy_finish only. A path ending in ".gz" gets the same bytes
 * BGZF-compressed (np.load(gzip.open(path)) reads it): a stream, so its rows must come in order,
 * appended or as blocks of whole rows, each the next. */
#ifndef TSK_NPY_H
#define TSK_NPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_npy_writer tsk_npy_writer;

/* Creates the temporary file for a rows x cols array of elem_size-byte floats (4 or 8) and
 * writes its header. Returns NULL with a message ("d.npy: cannot create: ...") on failure. */
tsk_npy_writer *tsk_npy_open(const char *path, int64_t rows, int64_t cols, int elem_size, char *err, size_t errlen);

/* Byte offset of element (0, 0) in the file: the header length, a multiple of 64. */
int64_t tsk_npy_data_offset(const tsk_npy_writer *w);

/* Appends n_rows full rows (n_rows x cols values, row-major) after the rows appended so far.
 * 0, or -1 with a message (disk full, more rows than the shape). */
int tsk_npy_append(tsk_npy_writer *w, const void *values, int64_t n_rows, char *err, size_t errlen);

/* Writes a block of n_rows x n_cols values at (row, col): block row i is values + i * ld
 * elements (ld >= n_cols). Independent of the append position; thread-safe with respect to
 * other block writes to disjoint areas. 0, or -1 with a message. */
int tsk_npy_write_block(tsk_npy_writer *w, int64_t row, int64_t col, const void *values, int64_t n_rows,
                        int64_t n_cols, int64_t ld, char *err, size_t errlen);

/* Checks that at least rows x cols values were written (appended or in blocks), then renames the
 * file into place. Frees w. 0, or -1 with a message, the temporary file removed. */
int tsk_npy_finish(tsk_npy_writer *w, char *err, size_t errlen);

/* Removes the temporary file and frees w. NULL is fine. */
void tsk_npy_abort(tsk_npy_writer *w);

/* Writes n names, one per line, to path ("-" = stdout) through a temporary file renamed into
 * place. Row i of an .npy written alongside is named by line i. 0, or -1 with a message. */
int tsk_names_write(const char *path, const char *const *names, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
