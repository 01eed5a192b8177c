/* bgzf_stream.c: BGZF behind a stdio stream (see bgzf_stream.h).
 *
 * The blocks are made here (deflate by libdeflate, or zlib without it) rather than by htslib's
 * BGZF writer: that one prints "[E::bgzf_flush] File write failed" on stderr for every block that
 * a full disk refuses, and a bgzf_close that fails to write keeps its buffers (a leak). Here a
 * failed write fails the stream once, with errno, and the writer names the file in one message. */
#include "bgzf_stream.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#if TSK_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "atomic_file.h"
#include "crc32.h"

/* BGZF (the SAM specification, section 4.1): gzip members of at most 64 KiB, each with the 'BC'
 * extra field holding its size, then an empty member as the end-of-file marker. */
#define BLOCK_INPUT 0xff00        /* uncompressed bytes per block, as htslib's BGZF_BLOCK_SIZE */
#define BLOCK_MAX 0x10000         /* a whole member, header and trailer included */
#define HEADER_LEN 18
#define TRAILER_LEN 8
#define LEVEL 6                   /* zlib's default, as htslib's for "w" */

static const unsigned char EOF_BLOCK[28] = {0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, 0x42, 0x43,
                                            2,    0,    0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};

typedef struct {
    int fd;
    int error;                    /* the errno of the first failure; then every write fails */
    unsigned char in[BLOCK_INPUT];
    size_t n_in;
    unsigned char out[BLOCK_MAX];
#if TSK_HAVE_LIBDEFLATE
    struct libdeflate_compressor *z;
#else
    z_stream z;                   /* raw deflate, reset for every block */
#endif
} bgzf_out;

int tsk_path_wants_bgzf(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* Deflates n bytes of src into dst (room for cap). Returns the compressed length, or 0 when it
 * does not fit (incompressible data: then stored). */
static size_t deflate_into(bgzf_out *b, const unsigned char *src, size_t n, unsigned char *dst, size_t cap)
{
#if TSK_HAVE_LIBDEFLATE
    return libdeflate_deflate_compress(b->z, src, n, dst, cap);
#else
    z_stream *z = &b->z;
    if (deflateReset(z) != Z_OK) return 0;
    z->next_in = (unsigned char *)src;
    z->avail_in = (uInt)n;
    z->next_out = dst;
    z->avail_out = (uInt)cap;
    return deflate(z, Z_FINISH) == Z_STREAM_END ? cap - z->avail_out : 0;
#endif
}

/* One stored deflate block of n <= 65535 bytes (what incompressible data takes: 5 bytes more). */
static size_t store_into(const unsigned char *src, size_t n, unsigned char *dst)
{
    dst[0] = 1; /* BFINAL, BTYPE 00 */
    put16(dst + 1, (unsigned)n);
    put16(dst + 3, (unsigned)~n & 0xffff);
    memcpy(dst + 5, src, n);
    return n + 5;
}

/* Writes the pending input as one member. 0, or -1 with b->error and errno set. */
static int write_block(bgzf_out *b)
{
    if (b->error) {
        errno = b->error;
        return -1;
    }
    if (b->n_in == 0) return 0;
    const size_t room = BLOCK_MAX - HEADER_LEN - TRAILER_LEN;
    size_t len = deflate_into(b, b->in, b->n_in, b->out + HEADER_LEN, room);
    if (len == 0) len = store_into(b->in, b->n_in, b->out + HEADER_LEN);
    const size_t total = HEADER_LEN + len + TRAILER_LEN;
    memcpy(b->out, EOF_BLOCK, 16); /* the same header fields, BSIZE apart */
    put16(b->out + 16, (unsigned)(total - 1));
    put32(b->out + HEADER_LEN + len, tsk_crc32(0, b->in, b->n_in));
    put32(b->out + HEADER_LEN + len + 4, (uint32_t)b->n_in);
    if (tsk_write_all(b->fd, b->out, total) != 0) {
        b->error = errno ? errno : EIO;
        return -1;
    }
    b->n_in = 0;
    return 0;
}

static ssize_t bgzf_cookie_write(void *cookie, const char *buf, size_t size)
{
    bgzf_out *b = cookie;
    size_t done = 0;
    while (done < size) {
        if (b->n_in == BLOCK_INPUT && write_block(b)) return -1;
        size_t k = BLOCK_INPUT - b->n_in;
        if (k > size - done) k = size - done;
        memcpy(b->in + b->n_in, buf + done, k);
        b->n_in += k;
        done += k;
    }
    return (ssize_t)size;
}

static void bgzf_out_free(bgzf_out *b)
{
#if TSK_HAVE_LIBDEFLATE
    libdeflate_free_compressor(b->z);
#else
    deflateEnd(&b->z);
#endif
    free(b);
}

/* The last block, the end-of-file marker, and the file closed, whatever failed before. */
static int bgzf_cookie_close(void *cookie)
{
    bgzf_out *b = cookie;
    int failed = write_block(b) != 0;
    if (!failed && tsk_write_all(b->fd, EOF_BLOCK, sizeof EOF_BLOCK) != 0) failed = 1, b->error = errno;
    if (close(b->fd) != 0 && !failed) failed = 1, b->error = errno;
    const int e = b->error;
    bgzf_out_free(b);
    if (failed) errno = e ? e : EIO;
    return failed ? EOF : 0;
}

FILE *tsk_bgzf_fdopen(int fd)
{
    bgzf_out *b = calloc(1, sizeof *b);
    if (!b) {
        errno = ENOMEM;
        return NULL;
    }
    b->fd = fd;
#if TSK_HAVE_LIBDEFLATE
    if (!(b->z = libdeflate_alloc_compressor(LEVEL))) {
#else
    if (deflateInit2(&b->z, LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
#endif
        free(b);
        errno = ENOMEM;
        return NULL;
    }
    cookie_io_functions_t io = {.read = NULL, .write = bgzf_cookie_write, .seek = NULL, .close = bgzf_cookie_close};
    FILE *fp = fopencookie(b, "w", io);
    if (!fp) {
        const int e = errno;
        bgzf_out_free(b);
        errno = e;
    }
    return fp;
}
