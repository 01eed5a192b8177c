/* atomic_file.h: output files that appear whole or not at all.
 *
 * Every file tsketch writes goes to "path.tmp.<pid>" beside its final name and is renamed into
 * place only when complete, so a failed or interrupted run never leaves a partial output that a
 * workflow manager would take for a finished one. Used by the .tsk and .npy writers and available
 * for text outputs (distance tables, names files). */
#ifndef TSK_ATOMIC_FILE_H
#define TSK_ATOMIC_FILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- low level: a temporary file descriptor (used by tsk_file.c and npy.c) ---- */

/* Creates "path.tmp.<pid>" (O_EXCL, mode 0666 & ~umask, opened read-write) and registers it for
 * tsk_tmp_unlink_all. On success returns the fd and sets *tmp_path (malloc'd); on failure -1
 * with "path: cannot create: <reason>". A path that exists and is neither a regular file nor a
 * directory (/dev/null, /dev/full, a FIFO), or "-" for standard output, is written in place
 * instead, with *tmp_path = NULL: directly when seeks is 0; when seeks is 1 (the writer uses
 * pwrite or lseek) through an unlinked temporary file in $TMPDIR that tsk_tmp_commit copies to it
 * in one sequential pass. */
int tsk_tmp_create(const char *path, int seeks, char **tmp_path, char *err, size_t errlen);

/* 1 when a and b name the same regular file (device and inode: hard and symbolic links too);
 * 0 otherwise, also when either does not exist or is "-". */
int tsk_same_file(const char *a, const char *b);

/* Closes fd and renames tmp_path to path (then unregisters and frees tmp_path). On failure the
 * temporary file is removed and -1 returned with a message naming path. */
int tsk_tmp_commit(int fd, char *tmp_path, const char *path, char *err, size_t errlen);

/* How many files tsk_tmp_commit replaced whose last reference is still held: a replaced output of
 * 1 MB or more is opened before it is unlinked, so that freeing its pages (0.1 s for a million
 * reads' 448 MB) happens at the last close, at the process's end, where a detached exit takes it
 * off the caller's wait (src/detached_exit.h). */
int tsk_tmp_held_count(void);

/* Closes fd (if >= 0), removes tmp_path, unregisters and frees it. NULL is fine. */
void tsk_tmp_discard(int fd, char *tmp_path);

/* Removes every temporary file still registered. Async-signal-safe: meant for a SIGINT/SIGTERM
 * handler in the CLI, before it re-raises the signal. */
void tsk_tmp_unlink_all(void);

/* write(2)/pwrite(2) of all n bytes, retrying short writes and EINTR. 0 or -1 (errno set). */
int tsk_write_all(int fd, const void *buf, size_t n);
int tsk_pwrite_all(int fd, const void *buf, size_t n, long long offset);

/* ---- high level: a stdio stream for text outputs ---- */

typedef struct tsk_atomic_file tsk_atomic_file;

/* Opens a temporary file for path, or stdout when path is "-". A path ending in ".gz" gets a
 * BGZF-compressing stream (bgzf_stream.h). NULL with a message on failure. */
tsk_atomic_file *tsk_atomic_open(const char *path, char *err, size_t errlen);
FILE *tsk_atomic_stream(tsk_atomic_file *f);
/* Flushes, checks for write errors (disk full) and renames into place; frees f. 0 or -1. */
int tsk_atomic_commit(tsk_atomic_file *f, char *err, size_t errlen);
/* Removes the temporary file and frees f. NULL is fine. */
void tsk_atomic_abort(tsk_atomic_file *f);

#ifdef __cplusplus
}
#endif
#endif
