/* crc32.c: see crc32.h. */
#include "crc32.h"

#include <stdlib.h>
#include <zlib.h>

#if TSK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

uint32_t tsk_crc32(uint32_t crc, const void *p, size_t n)
{
#if TSK_HAVE_LIBDEFLATE
    return libdeflate_crc32(crc, p, n);
#else
    const unsigned char *b = p;
    while (n) { /* zlib takes a uInt length */
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, b, k);
        b += k;
        n -= k;
    }
    return crc;
#endif
}

uint32_t tsk_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
    return (uint32_t)crc32_combine(a, b, (z_off_t)len_b);
}

/* The CRC (from 0) of p[0..n), n at most a chunk, shown block by block to visit. */
static uint32_t chunk_crc(const unsigned char *p, size_t offset, size_t n, tsk_crc32_visitor visit, void *ctx)
{
    if (!visit) return tsk_crc32(0, p + offset, n);
    uint32_t crc = 0;
    for (size_t at = 0; at < n; at += TSK_CRC32_BLOCK) {
        const size_t len = n - at < TSK_CRC32_BLOCK ? n - at : TSK_CRC32_BLOCK;
        crc = tsk_crc32(crc, p + offset + at, len);
        visit(ctx, offset + at, p + offset + at, len);
    }
    return crc;
}

uint32_t tsk_crc32_threads_visit(uint32_t crc, const void *p, size_t n, int threads, tsk_crc32_visitor visit,
                                 void *ctx)
{
    const unsigned char *b = p;
    const size_t n_chunks = n / TSK_CRC32_CHUNK + (n % TSK_CRC32_CHUNK != 0);
    uint32_t *chunk = threads > 1 && n_chunks > 1 ? malloc(n_chunks * sizeof *chunk) : NULL;
    if (!chunk) /* one thread, one chunk, or no memory for the chunks' CRCs: in order here */
        return tsk_crc32_combine(crc, chunk_crc(b, 0, n, visit, ctx), n);
    /* dynamic: a core that is busy with something else takes fewer chunks */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (size_t i = 0; i < n_chunks; i++) {
        const size_t at = i * TSK_CRC32_CHUNK;
        chunk[i] = chunk_crc(b, at, n - at < TSK_CRC32_CHUNK ? n - at : TSK_CRC32_CHUNK, visit, ctx);
    }
    for (size_t i = 0; i < n_chunks; i++) {
        const size_t len = i + 1 < n_chunks ? TSK_CRC32_CHUNK : n - i * TSK_CRC32_CHUNK;
        crc = tsk_crc32_combine(crc, chunk[i], len);
    }
    free(chunk);
    return crc;
}

uint32_t tsk_crc32_threads(uint32_t crc, const void *p, size_t n, int threads)
{
    return tsk_crc32_threads_visit(crc, p, n, threads, NULL, NULL);
}
