/* dist_out.h: streaming writers of distance results (docs/distances.md, "Output formats").
 *
 * The distance commands compute results a block of query rows at a time and hand them here as
 * they come, so no writer ever holds an N x N matrix: pair lines (tsv) are written one by one,
 * matrices (phylip, square, npy) row block by row block. Files go through io/atomic_file.h, so a
 * failed run leaves no partial output. Knows no engine. */
#ifndef TSK_DIST_OUT_H
#define TSK_DIST_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_keys.h"
#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TSK_DIST_TSV = 0,  /* "reference TAB query TAB distance" lines (Mash's column order) */
    TSK_DIST_PHYLIP,   /* lower triangle as `mash triangle`: "\tN", then each name and its
                          distances to the earlier names; needs query == reference set */
    TSK_DIST_SQUARE,   /* labelled TSV matrix: a header of reference names, then a row per query */
    TSK_DIST_NPY,      /* float32 matrix queries x references, names in "<path>.names"
                          (and "<path>.ref.names" when the columns differ from the rows) */
    TSK_DIST_MATRIX,   /* not a file: the lower triangle into a caller's n x n float32 matrix
                          (tsk_dist_out_open_matrix), for the commands that draw or cluster it */
} tsk_dist_format;

/* Parses "tsv", "phylip", "square" or "npy"; -1 when s is none of them. */
int tsk_dist_format_parse(const char *s);

typedef struct tsk_dist_out tsk_dist_out;

/* Opens path (NULL or "-" = stdout; npy needs a file) for a results table of n_query rows and
 * n_ref columns. Names are borrowed until finish; ref_names == query_names marks one set against
 * itself. header: a "reference TAB query TAB distance" header line (tsv only).
 * Returns NULL with a message naming the file and the reason. */
tsk_dist_out *tsk_dist_out_open(const char *path, tsk_dist_format fmt, const char *const *query_names,
                                int64_t n_query, const char *const *ref_names, int64_t n_ref, int header,
                                char *err, size_t errlen);

/* TSK_DIST_MATRIX: rows q land in dst[q * n + r] for r < q (read, like phylip, only there); the
 * diagonal gets 0 and the upper triangle is not touched. dst (n x n) stays the caller's. */
tsk_dist_out *tsk_dist_out_open_matrix(float *dst, int64_t n, char *err, size_t errlen);

/* tsv: one line "ref_names[r] TAB query_names[q] TAB dist" (%.9g). 0 or -1 (write error). */
int tsk_dist_out_pair(tsk_dist_out *o, int64_t q, int64_t r, float dist);

/* tsv: the lines of pairs[0..n) in order, as tsk_dist_out_pair(o, query, ref, dist) would write
 * them (with swap: (ref, query) taken as (query, ref)), skipping pairs with ref < 0 or
 * dist > max_dist. Formats on up to `threads` threads, the names read a few lines ahead (a top-k's
 * lines name neighbours all over the set: one thread writes ~10 M lines/s of them on the 2-core dev
 * box, bench/io/dist_out_bench), writes in order. 0 or -1 (write error, out of memory). */
int tsk_dist_out_pairs(tsk_dist_out *o, const tsk_pair *pairs, int64_t n, int swap, double max_dist, int threads);

/* tsv: the lines of lines[0..n) in order (core/genome_keys.h's tsk_genome_line), each
 * "ref_names[ref] TAB query_names[query] TAB dist TAB shared TAB total", formatted on up to
 * `threads` threads. 0 or -1. */
int tsk_dist_out_genome_lines(tsk_dist_out *o, const tsk_genome_line *lines, int64_t n, int threads);

/* tsv genome lines: also "TAB ani TAB af" (on: 1) after the counts (tsk_dist_format_ani). */
void tsk_dist_out_genome_ani(tsk_dist_out *o, int on);

/* Room tsk_dist_format_ani needs, its NUL included. */
#define TSK_DIST_ANI_TEXT 32

/* "TAB ani TAB af" of a pair into b (TSK_DIST_ANI_TEXT bytes of room): ANI in percent with 2
 * decimals (as skani prints it), AF a fraction with 4 decimals; "TAB NA TAB NA" where either is NAN
 * (no estimate). Returns its length (b is NUL-terminated). */
size_t tsk_dist_format_ani(char *b, float ani, float af);

/* The AF as that text writes it, read back (NAN where it writes NA): what `cluster --min-af`
 * compares, so that a pair links alike whether its AF comes from the engine or from dist's lines
 * (`cluster --links`). */
double tsk_dist_af_as_written(float ani, float af);

/* tsv: writes text as it is (a header line of another shape than the one open writes). 0 or -1. */
int tsk_dist_out_text(tsk_dist_out *o, const char *text);

/* Matrix formats: rows q0 .. q0+nq-1 of the full matrix, which must come in order;
 * d[(q - q0) * ld + r] for every reference r (phylip reads only r < q). 0 or -1. */
int tsk_dist_out_rows(tsk_dist_out *o, int64_t q0, int64_t nq, const float *d, int64_t ld);

/* Bytes the whole output will take, roughly (for the note before a large run). */
double tsk_dist_out_estimate(tsk_dist_format fmt, int64_t n_lines_or_rows, int64_t n_ref, double mean_name_len);

/* Flushes, checks for write errors and moves the files into place; frees o. 0 or -1 with a
 * message. */
int tsk_dist_out_finish(tsk_dist_out *o, char *err, size_t errlen);

/* Drops the output (temporary files removed) and frees o. NULL is fine. */
void tsk_dist_out_abort(tsk_dist_out *o);

#ifdef __cplusplus
}
#endif
#endif
