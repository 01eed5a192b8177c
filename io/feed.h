/* feed.h: one input file -> its records appended to batches, in input order.
 *
 * The loop that turns a reader's records into batches, with the batcher's grouping rules (a batch
 * is handed over when full, before a record, never inside one; with --per-file all records of the
 * file are one record, and a batch is only handed over before a file). It takes the parallel FASTA
 * parser's pieces (already cleaned) and the sequential reader's records (cleaned on append) alike,
 * so the caller (src/pipeline.c) knows neither and the batches are the same for every thread
 * count. Knows no engine: full batches go to a callback. */
#ifndef TSK_FEED_H
#define TSK_FEED_H

#include <stddef.h>

#include "batcher.h"

typedef struct {
    int threads;          /* parse threads for a regular uncompressed FASTA file (<= 1: one) */
    size_t range_bytes;   /* bytes per parallel parse range (0: the default; tests use tiny ones) */
    /* Hands over the full batch last returned (or given) and returns an empty one, or NULL to stop
     * reading (the consumer gave up). */
    tsk_batcher *(*swap)(void *ctx);
    /* Optional: nonzero when reading should stop now (asked every 1024 records or pieces). */
    int (*stopped)(void *ctx);
    void *ctx;
} tsk_feed_opts;

/* Reads path ("-" = stdin) into *cur, swapping it for an empty batch whenever it is full before a
 * record. Each record's source is path; its name is its own, or name for all of them when name is
 * given (--per-file: one record of the whole file). Returns TSK_IO_EOF when the file is read or
 * reading was stopped (*cur is NULL when swap said stop), else TSK_IO_BAD or TSK_IO_SYSTEM with the
 * reader's message ("x.fa: no such file", "x.fa: record 'r2': FASTQ '+' line in a FASTA file"). */
int tsk_feed_file(const char *path, const char *name, const tsk_feed_opts *opts, tsk_batcher **cur, char *err,
                  size_t errlen);

/* tsk_feed_file for each of paths[0..n) in turn, with --per-file names names[i] (each file one
 * record), the files read by `threads` threads a few files ahead and appended in input order: the
 * same batches, rows and first error as the loop over tsk_feed_file, for any thread count. For
 * many small gzipped files, where one thread's inflate is the bound. opts->threads is not used
 * (each file is read by one thread). */
int tsk_feed_files(const char *const *paths, const char *const *names, size_t n, int threads,
                   const tsk_feed_opts *opts, tsk_batcher **cur, char *err, size_t errlen);

#endif
