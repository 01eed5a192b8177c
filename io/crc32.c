/* crc32.c: see crc32.h. */
#include "crc32.h"

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
