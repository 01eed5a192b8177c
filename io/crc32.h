/* crc32.h: the CRC-32 of zlib (the .tsk checksum) at memory speed.
 *
 * zlib's crc32 runs at 2-3 GB/s, which made checksumming a million rows (384 MB) a third of a
 * second of writing a .tsk and as much of opening one; libdeflate's (carry-less multiply, the
 * same values) runs at 12 GB/s. htslib links libdeflate already; without it zlib's is used. */
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

#ifdef __cplusplus
}
#endif
#endif
