/* png.c: minimal PNG writer (see png.h): signature, IHDR, one IDAT, IEND. */
#include "png.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk at out: length, type, data, CRC of type and data. Returns its size. */
static size_t put_chunk(unsigned char *out, const char *type, const unsigned char *data, size_t n)
{
    put32(out, (uint32_t)n);
    memcpy(out + 4, type, 4);
    if (n) memcpy(out + 8, data, n);
    put32(out + 8 + n, (uint32_t)crc32(0L, out + 4, (uInt)(n + 4)));
    return n + 12;
}

unsigned char *tsk_png_encode(const unsigned char *rgb, int64_t width, int64_t height, size_t *len)
{
    const size_t stride = (size_t)width * 3 + 1; /* a filter byte (0: none) before each row */
    const size_t raw_len = stride * (size_t)height;
    unsigned char *raw = malloc(raw_len ? raw_len : 1);
    uLongf z_len = compressBound((uLong)raw_len);
    unsigned char *out = malloc(8 + 25 + 12 + (size_t)z_len + 12);
    unsigned char *z = malloc(z_len);
    if (!raw || !out || !z) goto fail;
    for (int64_t y = 0; y < height; y++) {
        raw[(size_t)y * stride] = 0;
        memcpy(raw + (size_t)y * stride + 1, rgb + (size_t)y * (size_t)width * 3, (size_t)width * 3);
    }
    if (compress2(z, &z_len, raw, (uLong)raw_len, 6) != Z_OK) goto fail;
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13] = {0};
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8; /* bits per channel */
    ihdr[9] = 2; /* RGB */
    size_t at = 8;
    memcpy(out, signature, 8);
    at += put_chunk(out + at, "IHDR", ihdr, sizeof ihdr);
    at += put_chunk(out + at, "IDAT", z, z_len);
    at += put_chunk(out + at, "IEND", NULL, 0);
    free(raw);
    free(z);
    *len = at;
    return out;
fail:
    free(raw);
    free(z);
    free(out);
    return NULL;
}
