/* write_queue.h: a thread that writes spans of memory to a file, in order, checksumming them.
 *
 * The .tsk writer hands it whole batches of rows (tens of MB), so that copying them into the page
 * cache overlaps sketching the next batch instead of following it. The memory of a span stays the
 * caller's: it must stay unchanged until tsk_write_queue_wait says the span is written. */
#ifndef TSK_WRITE_QUEUE_H
#define TSK_WRITE_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsk_write_queue tsk_write_queue;

/* Writes p[0..n) to fd at its offset, 1 MB at a time, each piece added to *crc just before it is
 * written: the kernel's copy into the page cache then reads it from the CPU's cache instead of
 * memory (a million rows, 41 MB writes: ~1,000 perf samples of that copy in one write, ~200 in
 * pieces). Returns 0 or an errno. */
int tsk_write_checksummed(int fd, const void *p, size_t n, uint32_t *crc);

/* Starts the thread that writes to fd at its current offset. NULL when memory or threads run out.
 * The file's disk writes are left to the kernel: starting them early (sync_file_range) or dropping
 * a replaced file's cached pages (POSIX_FADV_DONTNEED, which writes dirty ones first) made a run
 * that replaced the previous run's 450 MB .tsk wait for the disk: 0.54-0.67 s against 0.32-0.37 s
 * for a new file (H100 machine, 1M reads; NEWS.md, 2026-11-23). What ext4 would flush
 * in a rename over an existing file (auto_da_alloc) atomic_file.c avoids by unlinking it first. */
tsk_write_queue *tsk_write_queue_start(int fd);

/* Queues p[0..n) after everything queued before and returns its ticket (1, 2, ...: increasing).
 * Waits while many spans are queued already. */
int64_t tsk_write_queue_push(tsk_write_queue *q, const void *p, size_t n);

/* Waits until the span of ticket (and every one before) is written or given up. Returns 0, or the
 * errno of the first write that failed (the spans after it are not written). */
int tsk_write_queue_wait(tsk_write_queue *q, int64_t ticket);

/* Waits for every span, stops the thread and frees q (NULL is fine). *crc (when crc is not NULL)
 * receives the CRC-32 of all the bytes written; *bytes their number. Returns 0 or an errno as
 * tsk_write_queue_wait. */
int tsk_write_queue_stop(tsk_write_queue *q, uint32_t *crc, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
