/* gunzip.c: see gunzip.h. */
#include "gunzip.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if TSK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

int tsk_gzip_is_bgzf(const unsigned char *p, size_t n)
{
    /* RFC 1952 header: magic, CM 8, FLG with FEXTRA, then XLEN and the subfield SI1 'B' SI2 'C' */
    return n >= 16 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && (p[3] & 4) && p[12] == 'B' && p[13] == 'C';
}

#if TSK_HAVE_LIBDEFLATE
static int read_all(int fd, unsigned char *buf, size_t n)
{
    size_t have = 0;
    while (have < n) {
        ssize_t k = pread(fd, buf + have, n - have, (off_t)have);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        have += (size_t)k;
    }
    return 0;
}

int tsk_gunzip_whole(int fd, size_t size, char **out, size_t *out_len)
{
    if (size < 18 || size > TSK_GUNZIP_MAX_INPUT) return 0;
    unsigned char *in = malloc(size);
    if (!in) {
        errno = ENOMEM;
        return -1;
    }
    if (read_all(fd, in, size) != 0 || in[0] != 0x1f || in[1] != 0x8b || tsk_gzip_is_bgzf(in, size)) {
        free(in);
        return 0;
    }
    /* ISIZE, the last member's length mod 2^32: a first guess of the whole length, grown on demand */
    const uint32_t isize = (uint32_t)in[size - 4] | (uint32_t)in[size - 3] << 8 | (uint32_t)in[size - 2] << 16 |
                           (uint32_t)in[size - 1] << 24;
    /* never more than deflate can make of size bytes (1032 to 1), nor than TSK_GUNZIP_MAX_OUTPUT:
     * ISIZE is the file's own word, and the last 4 bytes of a corrupt file say anything */
    const size_t most = size * 1032 + 64 < TSK_GUNZIP_MAX_OUTPUT ? size * 1032 + 64 : TSK_GUNZIP_MAX_OUTPUT;
    size_t cap = (size_t)isize + 1 > 4 * size ? (size_t)isize + 1 : 4 * size;
    if (cap > most) cap = most;
    char *buf = malloc(cap);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    int rc = 1;
    size_t at_in = 0, at_out = 0;
    while (buf && d && at_in < size) {
        size_t used_in = 0, made = 0;
        enum libdeflate_result res =
            libdeflate_gzip_decompress_ex(d, in + at_in, size - at_in, buf + at_out, cap - at_out, &used_in, &made);
        if (res == LIBDEFLATE_INSUFFICIENT_SPACE) { /* this member again, with twice the room */
            if (cap >= most) {
                rc = 0; /* bigger than this path takes: htslib streams it */
                break;
            }
            const size_t grown_cap = 2 * cap < most ? 2 * cap : most;
            char *grown = realloc(buf, grown_cap);
            if (!grown) break;
            buf = grown;
            cap = grown_cap;
            continue;
        }
        if (res != LIBDEFLATE_SUCCESS || used_in == 0) {
            rc = 0; /* corrupt, truncated or followed by something else: htslib says which */
            break;
        }
        at_in += used_in;
        at_out += made;
    }
    if (d) libdeflate_free_decompressor(d);
    free(in);
    if (rc == 1 && (!buf || !d || at_in < size)) { /* out of memory */
        free(buf);
        errno = ENOMEM;
        return -1;
    }
    if (rc != 1) {
        free(buf);
        return 0;
    }
    *out = buf;
    *out_len = at_out;
    return 1;
}
#else
int tsk_gunzip_whole(int fd, size_t size, char **out, size_t *out_len)
{
    (void)fd, (void)size, (void)out, (void)out_len;
    return 0;
}
#endif
