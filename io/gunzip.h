/* gunzip.h: a whole gzip file decompressed in one go with libdeflate.
 *
 * Why: a list of thousands of gzipped genomes is bound by decompression (issue 16: 16 reader
 * threads busy all the time at ~110 MB/s each through htslib's zlib stream and kseq). libdeflate
 * decompresses a whole member about three times as fast as zlib's inflate, and the FASTA text
 * then goes through fasta_fast.c's parser instead of kseq. Only plain gzip (not BGZF, which htslib
 * already decompresses with libdeflate) of a bounded size takes this path; anything unusual
 * (corrupt or truncated data, trailing garbage, no libdeflate in the build) is left to htslib,
 * whose messages then say what is wrong. Knows no engine. */
#ifndef TSK_GUNZIP_H
#define TSK_GUNZIP_H

#include <stddef.h>

/* The largest compressed file this path takes, and the most text it makes of one (bigger ones
 * stream through htslib, in bounded memory): with --per-file -l, each of the -p reader threads
 * holds one file's text at a time, so 16 threads hold at most 16 x 1.06 GB, and a list of
 * bacterial genomes (1-2 MB each) a few dozen MB. */
#define TSK_GUNZIP_MAX_INPUT ((size_t)64 << 20)
#define TSK_GUNZIP_MAX_OUTPUT ((size_t)1 << 30)

/* Decompresses the regular file fd of size bytes (read from offset 0; fd stays open) when it is
 * plain gzip of at most TSK_GUNZIP_MAX_INPUT bytes, all of its members, making at most
 * TSK_GUNZIP_MAX_OUTPUT bytes (the trailer's ISIZE is only a first guess at the room). Returns 1 with *out
 * (malloc'd, the caller frees) and *out_len set; 0 when this path does not apply (not gzip, BGZF,
 * too big, corrupt, no libdeflate): read it another way; -1 when out of memory (errno ENOMEM). */
int tsk_gunzip_whole(int fd, size_t size, char **out, size_t *out_len);

/* 1 when the gzip member header at p[0..n) is BGZF's (an extra field with the 'BC' subfield). */
int tsk_gzip_is_bgzf(const unsigned char *p, size_t n);

#endif
