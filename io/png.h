/* png.h: an 8-bit RGB image as a PNG file in memory (zlib-compressed, no filtering), for the
 * heatmap that io/svg_plot.c embeds. */
#ifndef TSK_PNG_H
#define TSK_PNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes width x height pixels (rgb: 3 bytes each, row-major, top row first). Returns the file
 * bytes (malloc'd, *len of them), or NULL when out of memory. */
unsigned char *tsk_png_encode(const unsigned char *rgb, int64_t width, int64_t height, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
