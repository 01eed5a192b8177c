/* svg_plot.c: the SVG heatmap + tree + colour bar (see svg_plot.h). */
#include "svg_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "png.h"

#define PAD 16.0
#define TREE_WIDTH 220.0
#define GAP 6.0
#define BAR_WIDTH 16.0
#define CAPTION_FONT 12.0
#define TITLE_FONT 16.0

/* viridis at 0, 0.1, .., 1 */
static const unsigned char VIRIDIS[11][3] = {
    {0x44, 0x01, 0x54}, {0x48, 0x24, 0x75}, {0x41, 0x44, 0x87}, {0x35, 0x5f, 0x8d}, {0x2a, 0x78, 0x8e}, {0x21, 0x91, 0x8c},
    {0x22, 0xa8, 0x84}, {0x44, 0xbf, 0x70}, {0x7a, 0xd1, 0x51}, {0xbd, 0xdf, 0x26}, {0xfd, 0xe7, 0x25},
};

static void colour(double t, unsigned char *rgb)
{
    if (!(t > 0)) t = 0;
    if (t > 1) t = 1;
    double x = t * 10;
    int k = (int)x;
    if (k > 9) k = 9;
    double f = x - k;
    for (int c = 0; c < 3; c++) rgb[c] = (unsigned char)lround(VIRIDIS[k][c] + f * (VIRIDIS[k + 1][c] - VIRIDIS[k][c]));
}

/* Text as XML character data: markup characters escaped, control characters and bytes that are
 * not UTF-8 replaced by '?' (names come from FASTA headers, which may hold anything). */
static void put_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        int ok = extra >= 0 && !(extra == 1 && c < 0xC2);
        for (int k = 1; ok && k <= extra; k++) ok = (p[k] & 0xC0) == 0x80;
        if (!ok || (c < 0x20 && c != '\t') || c == 0x7F) {
            putc('?', f);
            p++;
            continue;
        }
        if (extra) {
            fwrite(p, 1, (size_t)extra + 1, f);
            p += extra + 1;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: putc((int)c, f);
        }
        p++;
    }
}

/* Bytes of the first `chars` characters of s as put_text counts them (a UTF-8 sequence or a
 * stray byte is one character), so a cut never splits a sequence. */
static size_t prefix_bytes(const char *s, size_t chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t at = 0;
    for (size_t k = 0; k < chars && p[at]; k++) {
        const unsigned c = p[at];
        size_t len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        size_t i = 1;
        while (i < len && (p[at + i] & 0xC0) == 0x80) i++;
        at += i; /* a truncated sequence ends where its continuation bytes do */
    }
    return at;
}

static size_t text_chars(const char *s)
{
    size_t k = 0;
    for (size_t at = 0; s[at]; k++) at += prefix_bytes(s + at, 1);
    return k;
}

/* Rough width of a line of sans-serif text: a character is about 0.62 of the font size. */
static double text_width(const char *s, double font) { return (double)text_chars(s) * font * 0.62; }

/* A label as drawn: names longer than TSK_PLOT_LABEL_CHARS characters are cut to that many,
 * the last one an ellipsis, and keep their full text in a <title> (a tooltip) after it, so that
 * one long name cannot push the heatmap into a corner of a huge canvas. */
static void put_label(FILE *f, const char *name)
{
    if (text_chars(name) <= TSK_PLOT_LABEL_CHARS) {
        put_text(f, name);
        return;
    }
    const size_t keep = prefix_bytes(name, TSK_PLOT_LABEL_CHARS - 1);
    char *cut = malloc(keep + 1);
    if (cut) {
        memcpy(cut, name, keep);
        cut[keep] = 0;
        put_text(f, cut);
        free(cut);
    }
    fputs("\xE2\x80\xA6<title>", f); /* U+2026 HORIZONTAL ELLIPSIS */
    put_text(f, name);
    fputs("</title>", f);
}

static void put_base64(FILE *f, const unsigned char *b, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16 | (i + 1 < n ? (uint32_t)b[i + 1] << 8 : 0) | (i + 2 < n ? b[i + 2] : 0);
        putc(A[v >> 18], f);
        putc(A[(v >> 12) & 63], f);
        putc(i + 1 < n ? A[(v >> 6) & 63] : '=', f);
        putc(i + 2 < n ? A[v & 63] : '=', f);
    }
}

static inline float dist_at(const tsk_svg_plot *p, int64_t a, int64_t b)
{
    return a == b ? 0.0f : a > b ? p->d[a * p->n + b] : p->d[b * p->n + a];
}

/* The heatmap image: cells x cells pixels, pixel (x, y) the mean distance of the block of pairs
 * of ordered items [y n / cells, (y+1) n / cells) x [x n / cells, ..). */
static unsigned char *heatmap_png(const tsk_svg_plot *p, const int64_t *order, int64_t cells, double vmax, size_t *len)
{
    unsigned char *rgb = malloc((size_t)cells * (size_t)cells * 3);
    double *sum = calloc((size_t)cells, sizeof *sum);
    unsigned char *png = NULL;
    if (!rgb || !sum) goto done;
    for (int64_t y = 0; y < cells; y++) {
        const int64_t y0 = y * p->n / cells, y1 = (y + 1) * p->n / cells;
        memset(sum, 0, (size_t)cells * sizeof *sum);
        for (int64_t i = y0; i < y1; i++)
            for (int64_t x = 0; x < cells; x++) {
                const int64_t x0 = x * p->n / cells, x1 = (x + 1) * p->n / cells;
                for (int64_t j = x0; j < x1; j++) sum[x] += dist_at(p, order[i], order[j]);
            }
        for (int64_t x = 0; x < cells; x++) {
            const double area = (double)(y1 - y0) * (double)((x + 1) * p->n / cells - x * p->n / cells);
            colour(sum[x] / area / vmax, rgb + ((size_t)y * (size_t)cells + (size_t)x) * 3);
        }
    }
    png = tsk_png_encode(rgb, cells, cells, len);
done:
    free(rgb);
    free(sum);
    return png;
}

/* The tree as one path, leaves at the centres of their rows: x from the top node's position
 * (x0) by path length (scale px per unit), y of a join midway between its children's. */
static int put_tree(FILE *f, const tsk_tree *t, const int64_t *order, double x0, double y0, double row, double scale)
{
    const int64_t n_nodes = t->n_leaves + t->n_joins;
    double *x = malloc((size_t)(n_nodes + 1) * sizeof *x), *y = malloc((size_t)(n_nodes + 1) * sizeof *y);
    int64_t *parent = malloc((size_t)(n_nodes + 1) * sizeof *parent);
    if (!x || !y || !parent) {
        free(x), free(y), free(parent);
        return -1;
    }
    const int64_t top = n_nodes;
    tsk_tree_parents(t, parent);
    /* joins are numbered after their children, so one pass down (descending) places x and one
     * pass up (ascending) places y */
    x[top] = x0;
    for (int64_t v = n_nodes - 1; v >= 0; v--) x[v] = x[parent[v]] + t->length[v] * scale;
    for (int64_t i = 0; i < t->n_leaves; i++) y[order[i]] = y0 + (i + 0.5) * row;
    for (int64_t k = 0; k < t->n_joins; k++)
        y[t->n_leaves + k] = 0.5 * (y[t->children[k][0]] + y[t->children[k][1]]);
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < t->n_top; i++) {
        lo = fmin(lo, y[t->top[i]]);
        hi = fmax(hi, y[t->top[i]]);
    }
    fprintf(f, "<path id=\"tree\" fill=\"none\" stroke=\"#333\" stroke-width=\"%.2g\" d=\"", row < 2 ? 0.5 : 1.0);
    if (t->n_top > 1) fprintf(f, "M%.1f %.1fV%.1f", x0, lo, hi);
    for (int64_t v = 0; v < n_nodes; v++) {
        fprintf(f, "M%.1f %.1fH%.1f", x[parent[v]], y[v], x[v]);
        if (v >= t->n_leaves) {
            const int64_t *c = t->children[v - t->n_leaves];
            fprintf(f, "M%.1f %.1fV%.1f", x[v], y[c[0]], y[c[1]]);
        }
    }
    fputs("\"/>\n", f);
    free(x), free(y), free(parent);
    return 0;
}

/* Largest depth of a leaf below the top node. */
static double tree_depth(const tsk_tree *t)
{
    const int64_t n_nodes = t->n_leaves + t->n_joins;
    double *depth = malloc((size_t)(n_nodes + 1) * sizeof *depth);
    int64_t *parent = malloc((size_t)(n_nodes + 1) * sizeof *parent);
    double best = 0;
    if (depth && parent) {
        tsk_tree_parents(t, parent);
        depth[n_nodes] = 0;
        for (int64_t v = n_nodes - 1; v >= 0; v--) {
            depth[v] = depth[parent[v]] + t->length[v];
            if (depth[v] > best) best = depth[v];
        }
    }
    free(depth);
    free(parent);
    return best;
}

int tsk_svg_plot_write(const char *path, const tsk_svg_plot *p, char *err, size_t errlen)
{
    const int64_t n = p->n;
    int64_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order || tsk_tree_leaf_order(p->tree, order)) {
        free(order);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    double vmax = 0;
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = 0; j < i; j++)
            if (p->d[i * n + j] > vmax) vmax = p->d[i * n + j];
    const double range = vmax > 0 ? vmax : 1;
    const int labels = n <= TSK_PLOT_MAX_LABELS;
    const double cell = labels ? fmin(24, fmax(9, 720.0 / (double)(n ? n : 1))) : 900.0 / (double)n;
    const double side = cell * (double)n, font = fmin(13, fmax(7, cell * 0.75));
    size_t longest = 0;
    for (int64_t i = 0; labels && i < n; i++) {
        const size_t k = text_chars(p->names[i]);
        if (k > longest) longest = k;
    }
    if (longest > TSK_PLOT_LABEL_CHARS) longest = TSK_PLOT_LABEL_CHARS;
    const double label_room = labels ? 6 + (double)longest * font * 0.62 : 0;
    const double top = PAD + (p->title ? 28 : 0), hx = PAD + TREE_WIDTH + GAP;
    const double bar_x = hx + side + label_room + 24, bar_h = fmin(side, 320);
    /* the caption runs down beside the bar: centred on it when it fits its height, else from
     * its top; the canvas is made tall (and wide) enough for it and for the title */
    const double caption_len = text_width(p->scale_label ? p->scale_label : "", CAPTION_FONT);
    const int caption_centred = caption_len <= bar_h;
    const double caption_bottom = top + fmax(bar_h, caption_len);
    const double title_right = p->title ? PAD + text_width(p->title, TITLE_FONT) + PAD : 0;
    const double width = fmax(bar_x + BAR_WIDTH + 70 + 24 + PAD, title_right);
    const double height = fmax(top + side + label_room, caption_bottom) + PAD;
    const int64_t cells = n <= TSK_PLOT_MAX_PIXELS ? n : TSK_PLOT_MAX_PIXELS;

    size_t png_len = 0;
    unsigned char *png = n ? heatmap_png(p, order, cells, range, &png_len) : NULL;
    tsk_atomic_file *af = NULL;
    if (n && !png) {
        snprintf(err, errlen, "%s: out of memory for the heatmap", path);
        goto fail;
    }
    if (!(af = tsk_atomic_open(path, err, errlen))) goto fail;
    FILE *f = tsk_atomic_stream(af);
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
    if (p->title) {
        fprintf(f, "<text id=\"title\" x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\">", PAD, PAD + 14, TITLE_FONT);
        put_text(f, p->title);
        fputs("</text>\n", f);
    }
    if (n) {
        fprintf(f, "<image id=\"heatmap\" data-cells=\"%lld\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,",
                (long long)cells, hx, top, side, side);
        put_base64(f, png, png_len);
        fputs("\"/>\n", f);
        const double depth = tree_depth(p->tree);
        if (put_tree(f, p->tree, order, PAD, top, cell, depth > 0 ? (TREE_WIDTH - 4) / depth : 0)) {
            snprintf(err, errlen, "%s: out of memory for the tree", path);
            goto fail;
        }
    }
    if (labels && n) {
        fprintf(f, "<g font-size=\"%.1f\">\n", font);
        for (int64_t i = 0; i < n; i++) {
            fprintf(f, "<text class=\"row-label\" x=\"%.1f\" y=\"%.1f\" dominant-baseline=\"central\">", hx + side + 4,
                    top + (i + 0.5) * cell);
            put_label(f, p->names[order[i]]);
            fputs("</text>\n", f);
        }
        for (int64_t i = 0; i < n; i++) {
            fprintf(f, "<text class=\"col-label\" transform=\"translate(%.1f %.1f) rotate(90)\" "
                       "dominant-baseline=\"central\">", hx + (i + 0.5) * cell, top + side + 4);
            put_label(f, p->names[order[i]]);
            fputs("</text>\n", f);
        }
        fputs("</g>\n", f);
    }
    /* the colour bar: the gradient's stops are the colour map's, bottom (0) to top (max) */
    fprintf(f, "<g id=\"colour-bar\" data-min=\"0\" data-max=\"%.9g\">\n"
               "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n", vmax);
    for (int k = 0; k <= 10; k++)
        fprintf(f, "<stop offset=\"%.1f\" stop-color=\"#%02x%02x%02x\"/>\n", k / 10.0, VIRIDIS[k][0], VIRIDIS[k][1],
                VIRIDIS[k][2]);
    fprintf(f, "</linearGradient></defs>\n"
               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#scale)\" stroke=\"#333\" "
               "stroke-width=\"0.5\"/>\n",
            bar_x, top, BAR_WIDTH, bar_h);
    for (int k = 0; k <= 4; k++) {
        const double y = top + bar_h * (1 - k / 4.0);
        fprintf(f, "<path d=\"M%.1f %.1fh4\" stroke=\"#333\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                   "dominant-baseline=\"central\">%.4g</text>\n",
                bar_x + BAR_WIDTH, y, bar_x + BAR_WIDTH + 7, y, vmax * k / 4.0);
    }
    fprintf(f, "<text class=\"scale-label\" transform=\"translate(%.1f %.1f) rotate(90)\" font-size=\"%.0f\" "
               "text-anchor=\"%s\">",
            bar_x + BAR_WIDTH + 70, caption_centred ? top + bar_h / 2 : top, CAPTION_FONT,
            caption_centred ? "middle" : "start");
    put_text(f, p->scale_label ? p->scale_label : "");
    fputs("</text>\n</g>\n</svg>\n", f);
    free(png);
    free(order);
    if (tsk_atomic_commit(af, err, errlen)) return -1;
    return 0;
fail:
    tsk_atomic_abort(af);
    free(png);
    free(order);
    return -1;
}
