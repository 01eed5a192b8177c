/* batcher.c: see batcher.h. */
#include "batcher.h"

#include <stdlib.h>
#include <string.h>

#include "encode.h"

void tsk_batcher_init(tsk_batcher *b, const tsk_params *p)
{
    memset(b, 0, sizeof *b);
    b->params = *p;
    tsk_encode_table(p->alphabet, b->lut);
    b->plain_dna = tsk_lut_is_plain_dna(b->lut);
    b->max_bases = INT64_C(1) << 26;   /* 64 Mbp of codes */
    b->max_rows = INT64_C(1) << 20;    /* bounds the output buffer: 1M rows */
    b->max_records = INT64_C(1) << 18;
}

void tsk_batcher_free(tsk_batcher *b)
{
    free(b->codes);
    free(b->offset);
    free(b->row_offset);
    free(b->info);
    free(b->string_at);
    free(b->strings);
    free(b->win_codes);
    free(b->win_offset);
    free(b->win_rows);
    memset(b, 0, sizeof *b);
}

static int grow(void **p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Strings are kept as arena offsets while the arena may still move; tsk_batcher_batch turns
 * them into pointers. */
static size_t add_string(tsk_batcher *b, const char *s)
{
    size_t len = strlen(s) + 1;
    if (grow((void **)&b->strings, 1, b->strings_len + len, &b->strings_cap)) return (size_t)-1;
    memcpy(b->strings + b->strings_len, s, len);
    b->strings_len += len;
    return b->strings_len - len;
}

int tsk_batcher_add(tsk_batcher *b, const char *name, const char *source, const char *seq, size_t len,
                    int join_last)
{
    return tsk_batcher_add_text(b, name, source, seq, len, len, join_last);
}

/* Appends a record (or, with join_last, more of the last one) whose codes the caller writes:
 * returns where n_max codes may go, or NULL when memory runs out; tsk_batcher_commit then says how
 * many were written. Every add goes through this pair. */
static uint8_t *reserve_codes(tsk_batcher *b, size_t n_max)
{
    int64_t base = b->n ? b->offset[b->n] : 0;
    /* at least one byte: a header-only record in front of the others reserves 0 codes, and NULL
     * from an empty batch's first reserve would read as out of memory */
    if (grow((void **)&b->codes, 1, (size_t)base + (n_max ? n_max : 1), &b->codes_cap)) return NULL;
    return b->codes + base;
}

static int commit(tsk_batcher *b, const char *name, const char *source, size_t len, size_t kept, int join_last)
{
    int64_t base = b->n ? b->offset[b->n] : 0;
    if (join_last && b->n > 0) {
        tsk_record_info *r = &b->info[b->n - 1];
        r->raw_len += (int64_t)len;
        r->clean_len += (int64_t)kept;
        r->dropped = r->raw_len - r->clean_len;
        b->offset[b->n] += (int64_t)kept;
        return 0;
    }
    size_t cap = (size_t)b->cap;
    if ((size_t)b->n + 2 > cap) {
        /* all four arrays follow one capacity, cap records (string_at: 2 per record) */
        size_t c1 = cap, c2 = cap, c3 = cap, c4 = 2 * cap;
        if (grow((void **)&b->offset, sizeof *b->offset, (size_t)b->n + 2, &c1) ||
            grow((void **)&b->row_offset, sizeof *b->row_offset, c1, &c2) ||
            grow((void **)&b->info, sizeof *b->info, c1, &c3) ||
            grow((void **)&b->string_at, sizeof *b->string_at, 2 * c1, &c4))
            return -1;
        b->cap = (int64_t)c1;
    }
    size_t name_at = add_string(b, name);
    /* consecutive records of one input share one copy of its source string (the arena does not
     * move between here and the compare: add_string grew it above, if at all) */
    size_t source_at = b->n > 0 && strcmp(b->strings + b->string_at[2 * b->n - 1], source) == 0
                           ? b->string_at[2 * b->n - 1]
                           : add_string(b, source);
    if (name_at == (size_t)-1 || source_at == (size_t)-1) return -1;
    tsk_record_info *r = &b->info[b->n];
    memset(r, 0, sizeof *r);
    b->string_at[2 * b->n] = name_at;
    b->string_at[2 * b->n + 1] = source_at;
    r->raw_len = (int64_t)len;
    r->clean_len = (int64_t)kept;
    r->dropped = (int64_t)(len - kept);
    b->offset[b->n] = base;
    b->offset[b->n + 1] = base + (int64_t)kept;
    b->n++;
    return 0;
}

int tsk_batcher_add_text(tsk_batcher *b, const char *name, const char *source, const char *text,
                         size_t text_len, size_t len, int join_last)
{
    uint8_t *at = reserve_codes(b, text_len);
    if (!at) return -1;
    /* the line breaks of text are no letters: the table drops them like any other */
    size_t kept = tsk_encode_text(b->lut, b->plain_dna, text, text_len, at);
    return commit(b, name, source, len, kept, join_last);
}

uint8_t *tsk_batcher_add_later(tsk_batcher *b, const char *name, const char *source, size_t n_codes, size_t len,
                               int join_last)
{
    uint8_t *at = reserve_codes(b, n_codes);
    if (!at || commit(b, name, source, len, n_codes, join_last)) return NULL;
    return at;
}

int tsk_batcher_codes_fit(const tsk_batcher *b, size_t n_codes)
{
    int64_t base = b->n ? b->offset[b->n] : 0;
    return (size_t)base + n_codes <= b->codes_cap;
}

int tsk_batcher_full(const tsk_batcher *b)
{
    if (b->n == 0) return 0;
    if (b->n >= b->max_records || b->offset[b->n] >= b->max_bases) return 1;
    const int64_t rows = b->params.window > 0 ? b->offset[b->n] / b->params.stride : b->n;
    /* anchored windows are copied out for the engine: about rows x W codes */
    if (b->params.anchor_k > 0 && rows * b->params.window >= b->max_bases) return 1;
    return rows >= b->max_rows;
}

/* tsk_batcher_batch's answer when memory for the anchored windows runs out */
static const tsk_batch out_of_memory = {-1, NULL, NULL, NULL};

/* The anchored windows of record i, whose first row is row at: their starts go to
 * win_offset[at ..] (where their offsets will be, window_batch). Returns how many, or -1 when memory
 * runs out. One pass over the record, unless win_offset has to grow first. */
static int64_t anchor_starts(tsk_batcher *b, int64_t i, int64_t at)
{
    const uint8_t *rec = b->codes + b->offset[i];
    const uint64_t max_hash = UINT64_MAX / (uint64_t)b->params.stride - 1;
    for (;;) {
        const int64_t room = (int64_t)b->win_offset_cap - at - 1; /* one more for the end offset */
        const int64_t n = tsk_anchor_windows_below(&b->params, rec, b->info[i].clean_len, max_hash,
                                                   room > 0 ? b->win_offset + at : NULL, NULL, room > 0 ? room : 0);
        if (n <= room) return n;
        if (grow((void **)&b->win_offset, sizeof *b->win_offset, (size_t)(at + n + 1), &b->win_offset_cap))
            return -1;
    }
}

/* The anchored windows of every record as the engine's batch (see tsk_batcher_batch): the starts
 * that anchor_starts left in win_offset become the windows' codes and offsets. */
static tsk_batch window_batch(tsk_batcher *b, int64_t rows)
{
    const int64_t w = b->params.window;
    if (grow((void **)&b->win_offset, sizeof *b->win_offset, (size_t)rows + 1, &b->win_offset_cap) ||
        grow((void **)&b->win_rows, sizeof *b->win_rows, (size_t)rows + 1, &b->win_rows_cap) ||
        grow((void **)&b->win_codes, 1, (size_t)(rows * w) + 1, &b->win_codes_cap))
        return out_of_memory;
    for (int64_t i = 0, row = 0; i < b->n; i++) {
        const uint8_t *rec = b->codes + b->offset[i];
        for (int64_t r = 0; r < b->info[i].n_rows; r++, row++) {
            memcpy(b->win_codes + row * w, rec + b->win_offset[row], (size_t)w);
            b->win_offset[row] = row * w;
            b->win_rows[row] = row;
        }
    }
    b->win_offset[rows] = rows * w;
    b->win_rows[rows] = rows;
    return (tsk_batch){rows, b->win_codes, b->win_offset, b->win_rows};
}

tsk_batch tsk_batcher_batch(tsk_batcher *b)
{
    const int anchored = b->params.anchor_k > 0;
    int64_t rows = 0;
    b->short_records = 0;
    for (int64_t i = 0; i < b->n; i++) {
        tsk_record_info *r = &b->info[i];
        r->name = b->strings + b->string_at[2 * i];
        r->source = b->strings + b->string_at[2 * i + 1];
        b->row_offset[i] = rows;
        r->n_rows = anchored ? anchor_starts(b, i, rows) : tsk_rows_for_length(&b->params, r->clean_len);
        if (r->n_rows < 0) return out_of_memory;
        rows += r->n_rows;
        b->short_records += r->clean_len < b->params.t;
    }
    if (b->n) b->row_offset[b->n] = rows;
    if (anchored && b->n) return window_batch(b, rows);
    tsk_batch batch = {b->n, b->codes, b->offset, b->row_offset};
    if (!b->n) {
        static const int64_t zero = 0;
        batch.offset = batch.row_offset = &zero;
    }
    return batch;
}

void tsk_batcher_reset(tsk_batcher *b)
{
    b->n = 0;
    b->strings_len = 0;
    b->short_records = 0;
}
