/* svg_plot.h: a distance matrix as an SVG heatmap, rows and columns in the order of its tree,
 * the tree drawn at the left, a colour bar naming the distance at the right.
 *
 * Plain SVG 1.1 text, viewable in a browser. The matrix is one embedded PNG image (a pixel per
 * cell, scaled up without smoothing), so the file stays small: up to TSK_PLOT_MAX_PIXELS items
 * the image has a pixel per pair; beyond, each pixel is the mean of a block of pairs. Up to
 * TSK_PLOT_MAX_LABELS items every row and column is labelled, with cells and font sized from
 * the count so that labels stay legible; beyond, labels are left out. A label keeps at most
 * TSK_PLOT_LABEL_CHARS characters (longer names end in an ellipsis and keep their full text in
 * a <title> child, a tooltip). The canvas fits the labels, the title and the colour bar's
 * caption whatever the count. The colour scale is
 * viridis from 0 (dark) to the largest distance (yellow).
 *
 * For readers (and tests): row labels are <text class="row-label"> top to bottom, column labels
 * <text class="col-label"> left to right, the image <image id="heatmap" data-cells="N">, the
 * tree <path id="tree">, the colour bar <g id="colour-bar" data-min data-max> with the gradient
 * <linearGradient id="scale"> (stop offsets = fractions of the range, bottom to top) and its
 * caption <text class="scale-label">. */
#ifndef TSK_SVG_PLOT_H
#define TSK_SVG_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSK_PLOT_MAX_LABELS 300
#define TSK_PLOT_MAX_PIXELS 600
/* labels longer than this many characters are cut to it, the last an ellipsis, the full name in
 * the label's <title> (a tooltip) */
#define TSK_PLOT_LABEL_CHARS 40

typedef struct {
    const float *d;            /* n x n; only the lower triangle d[i * n + j] (j < i) is read */
    int64_t n;
    const char *const *names;
    const tsk_tree *tree;      /* over the n items: gives the order and the drawing */
    const char *title;         /* NULL: none */
    const char *scale_label;   /* caption of the colour bar: the distance's name and meaning */
} tsk_svg_plot;

/* Writes the plot to path ("-" = stdout) through a temporary file. 0, or -1 with a message. */
int tsk_svg_plot_write(const char *path, const tsk_svg_plot *p, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
