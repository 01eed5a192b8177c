/* crc32.h: the CRC-32 of zlib (the .tsk checksum) at memory speed.
 *
 * zlib's crc32 runs at 2-3 GB/s, which made checksumming a million rows (384 MB) a third of a
 * second of writing a .tsk and as much of opening one; libdeflate's (carry-less multiply, the
 * same values) runs at 12 GB/s. htslib links libdeflate already; without it zlib's is used.
 * Opening a file of gigabytes is still bound by one core's CRC (and by mapping its pages), so the
 * checksum of a large buffer is also computed on several threads, chunk by chunk, the chunks'
 * CRCs joined in order (crc32_combine): the same value as the serial one. */
#ifndef TSK_CRC32_H
#define TSK_CRC32_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CRC of crc's bytes followed by p[0..n) (crc = 0 to start), as zlib's crc32 computes it. */
uint32_t tsk_crc32(uint32_t crc, const void *p, size_t n);

/* The CRC of a's bytes followed by b's bytes, b being len_b bytes long (zlib's crc32_combine). */
uint32_t tsk_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b);

/* Bytes of one chunk of tsk_crc32_threads: large enough that joining the chunks' CRCs (a few
 * microseconds each) and handing them out costs nothing next to checksumming them. */
#define TSK_CRC32_CHUNK ((size_t)4 << 20)
/* Bytes a visitor is shown at a time: they are still in the core's cache after their CRC. */
#define TSK_CRC32_BLOCK ((size_t)256 << 10)

/* tsk_crc32(crc, p, n) computed on up to `threads` threads (OpenMP; 1 or less: the calling thread
 * alone), TSK_CRC32_CHUNK bytes a chunk: the same value for every thread count. */
uint32_t tsk_crc32_threads(uint32_t crc, const void *p, size_t n, int threads);

/* Called on every block of p (TSK_CRC32_BLOCK bytes, the last one shorter) right after its CRC,
 * on the thread that computed it, blocks of one chunk in order, chunks in any order and at the
 * same time: block starts at p + offset, len bytes. */
typedef void (*tsk_crc32_visitor)(void *ctx, size_t offset, const unsigned char *block, size_t len);

/* tsk_crc32_threads, showing every block to visit (NULL: none) while it is in cache, so a second
 * look at the bytes (a check of their values) costs no second pass over memory. */
uint32_t tsk_crc32_threads_visit(uint32_t crc, const void *p, size_t n, int threads, tsk_crc32_visitor visit,
                                 void *ctx);

#ifdef __cplusplus
}
#endif
#endif
