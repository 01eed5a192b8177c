/* bgzf_stream.h: a stdio stream that writes BGZF (blocked gzip, through htslib).
 *
 * Text outputs named "*.gz" are compressed on the way out, so `-o pairs.tsv.gz` gives what its
 * name says; BGZF is gzip that `zcat`, Python's gzip and every gzip reader read, and that
 * `tabix`/`bgzip -b` can index. The stream is an ordinary FILE *: writers need not know. */
#ifndef TSK_BGZF_STREAM_H
#define TSK_BGZF_STREAM_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether path names a compressed output: it ends in ".gz". */
int tsk_path_wants_bgzf(const char *path);

/* A write-only stream over fd that BGZF-compresses what it is given; it takes fd over (fclose
 * closes it). fclose() writes the last block and the end-of-file marker and returns EOF, errno
 * set, if any write failed; the first failure fails every later write, and nothing is printed.
 * NULL (errno set) on failure; fd is then still open and untouched. */
FILE *tsk_bgzf_fdopen(int fd);

#ifdef __cplusplus
}
#endif
#endif
