/* batcher.h: collects cleaned records into the batch layout of core/tsk_def.h.
 *
 * Records are appended in input order (so results can be written in input order without a
 * permutation); cleaning happens on append. The engines schedule the records of a batch by length
 * themselves (the CPU engine longest first, the GPU engine in equal-work chunks), so the batcher
 * only has to bound a batch's memory: it is full when its bases, rows or records reach a limit. */
#ifndef TSK_BATCHER_H
#define TSK_BATCHER_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h"
#include "tsk_file.h"

typedef struct {
    /* limits (set by tsk_batcher_init, may be changed before the first append) */
    int64_t max_bases, max_rows, max_records;
    /* contents */
    int64_t n;                 /* records in the batch */
    uint8_t *codes;            /* cleaned codes, records end to end */
    int64_t *offset;           /* n + 1 */
    int64_t *row_offset;       /* n + 1 */
    tsk_record_info *info;     /* n: name/source point into the string arena below */
    size_t *string_at;         /* 2n: arena offsets of each record's name and source */
    char *strings;             /* arena of names and sources */
    size_t strings_len, strings_cap;
    size_t codes_cap;
    int64_t cap;
    int64_t short_records;     /* records of this batch shorter than t */
    /* anchored windows (params.anchor_k > 0): every window becomes a record of the engine's batch,
     * its W codes copied out, so that the engines only ever sketch whole records */
    uint8_t *win_codes;
    int64_t *win_offset, *win_rows;  /* n_windows + 1 each; win_rows is 0, 1, 2, ... */
    size_t win_codes_cap, win_offset_cap, win_rows_cap;
    /* what it needs of the parameters */
    tsk_params params;
    uint8_t lut[256];
    int plain_dna;             /* lut is DNA's: the vectorized encoder applies */
} tsk_batcher;

void tsk_batcher_init(tsk_batcher *b, const tsk_params *p);
void tsk_batcher_free(tsk_batcher *b);

/* Appends one record: cleans seq[0..len) (and, for parts of a --per-file join, appends to the
 * last record when join_last is set). Returns 0 or -1 when memory runs out. */
int tsk_batcher_add(tsk_batcher *b, const char *name, const char *source, const char *seq, size_t len,
                    int join_last);

/* Like tsk_batcher_add, for a sequence given as text with line breaks in (a tsk_seq_piece's text):
 * text[0..text_len) is cleaned, len (the characters other than '\n' and '\r') is the record's
 * raw length. */
int tsk_batcher_add_text(tsk_batcher *b, const char *name, const char *source, const char *text,
                         size_t text_len, size_t len, int join_last);

/* Like tsk_batcher_add, for a sequence the caller cleans into codes itself (the parallel FASTA
 * parser's pieces): reserves n_codes codes, len being the raw length they come from, and returns
 * where the caller writes them (valid until the next add or reset), or NULL when memory runs out.
 * Adding may move the codes of the records before (when the buffer grows): see
 * tsk_batcher_codes_fit. */
uint8_t *tsk_batcher_add_later(tsk_batcher *b, const char *name, const char *source, size_t n_codes, size_t len,
                               int join_last);

/* 1 when n_codes more codes fit without moving the codes already in the batch. */
int tsk_batcher_codes_fit(const tsk_batcher *b, size_t n_codes);

/* 1 when the batch has reached a limit and should be sketched before more is added. */
int tsk_batcher_full(const tsk_batcher *b);

/* The batch as an engine takes it (views into b; valid until the next add or reset). Fills in
 * the rows of every record first (info[i].n_rows, row_offset). With anchored windows the engine's batch is the windows, each a record of W codes to sketch whole (engine parameters without the
 * window, stride and anchor_k), in record order, so that its rows are the records' rows; n_records
 * is -1 when memory for them runs out. */
tsk_batch tsk_batcher_batch(tsk_batcher *b);

/* Empties the batch, keeping its buffers. */
void tsk_batcher_reset(tsk_batcher *b);

#endif
