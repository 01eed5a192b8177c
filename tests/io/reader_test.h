/* reader_test.h: what the io/ tests of the sequence reader share: the records of a file as the
 * production path gives them (tsk_reader_open_par + tsk_reader_next_piece, the calls io/feed.c
 * makes), and an independent reference for FASTA text, written from the rules in io/fasta_fast.h
 * (kseq's) and sharing no code with the readers, to compare them against. */
#ifndef TSK_READER_TEST_H
#define TSK_READER_TEST_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../io/encode.h"
#include "../../io/seqio.h"

/* Everything a reader gave for a file: its records in order, then how it ended. */
typedef struct {
    size_t n;
    char **names;
    size_t *raw;        /* characters other than '\n' and '\r' */
    char **seq;         /* the sequence characters, line breaks dropped; NULL where it came as codes */
    size_t *seq_len;
    uint8_t **codes;    /* cleaned with the DNA table */
    size_t *n_codes;
    int rc;             /* TSK_IO_EOF or the error code */
    int at_open;        /* 1: the open failed */
    char msg[TSK_ERRLEN];
} transcript;

static inline void tr_free(transcript *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->names[i]);
        free(t->seq[i]);
        free(t->codes[i]);
    }
    free(t->names);
    free(t->raw);
    free(t->seq);
    free(t->seq_len);
    free(t->codes);
    free(t->n_codes);
    memset(t, 0, sizeof *t);
}

static inline void *tr_grow(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    cr_assert(q);
    return q;
}

/* Starts record t->n, named name[0..name_len). */
static inline void tr_new_record(transcript *t, const char *name, size_t name_len)
{
    size_t k = t->n + 1;
    t->names = tr_grow(t->names, k, sizeof *t->names);
    t->raw = tr_grow(t->raw, k, sizeof *t->raw);
    t->seq = tr_grow(t->seq, k, sizeof *t->seq);
    t->seq_len = tr_grow(t->seq_len, k, sizeof *t->seq_len);
    t->codes = tr_grow(t->codes, k, sizeof *t->codes);
    t->n_codes = tr_grow(t->n_codes, k, sizeof *t->n_codes);
    t->names[t->n] = strndup(name, name_len);
    t->raw[t->n] = t->seq_len[t->n] = t->n_codes[t->n] = 0;
    t->seq[t->n] = calloc(1, 1);
    t->codes[t->n] = NULL;
    t->n++;
}

/* Appends text[0..len) to the last record: its characters (line breaks dropped) and their codes. */
static inline void tr_add_text(transcript *t, const char *text, size_t len, const uint8_t lut[256])
{
    size_t i = t->n - 1;
    if (t->seq[i]) {
        t->seq[i] = tr_grow(t->seq[i], t->seq_len[i] + len + 1, 1);
        for (size_t k = 0; k < len; k++)
            if (text[k] != '\n' && text[k] != '\r') t->seq[i][t->seq_len[i]++] = text[k];
        t->seq[i][t->seq_len[i]] = '\0';
    }
    t->codes[i] = tr_grow(t->codes[i], t->n_codes[i] + len + 1, 1);
    t->n_codes[i] += tsk_encode(lut, text, len, t->codes[i] + t->n_codes[i]);
}

/* Appends a piece as a reader gives it: text, or codes (then the record has no seq). */
static inline void tr_piece(transcript *t, const tsk_seq_piece *pc, const uint8_t lut[256])
{
    if (pc->starts_record || t->n == 0) {
        cr_assert(pc->starts_record, "the first piece must start a record");
        cr_assert_eq(pc->name[pc->name_len], 0, "name NUL-terminated at its length");
        tr_new_record(t, pc->name, pc->name_len);
    } else {
        cr_assert_str_eq(pc->name, t->names[t->n - 1], "a continuing piece names its record");
    }
    size_t i = t->n - 1;
    t->raw[i] += pc->raw_len;
    if (!pc->codes) {
        tr_add_text(t, pc->text, pc->text_len, lut);
        return;
    }
    cr_assert_null(pc->text);
    free(t->seq[i]);
    t->seq[i] = NULL;
    t->codes[i] = tr_grow(t->codes[i], t->n_codes[i] + pc->n_codes + 1, 1);
    if (pc->n_codes) memcpy(t->codes[i] + t->n_codes[i], pc->codes, pc->n_codes);
    t->n_codes[i] += pc->n_codes;
}

/* Reads path ("-": stdin) as tsk_feed_file does, with threads parse threads over ranges of range
 * bytes (0: the default), the codes copied out as feed.c copies them. */
static inline void tr_read(const char *path, int threads, size_t range, transcript *t)
{
    memset(t, 0, sizeof *t);
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    int code = 0;
    tsk_reader *r = tsk_reader_open_par(path, threads, lut, range, &code, t->msg, sizeof t->msg);
    if (!r) {
        cr_assert(code == TSK_IO_BAD || code == TSK_IO_SYSTEM, "%s: open code %d", path, code);
        cr_assert(t->msg[0], "%s: a failed open says why", path);
        t->rc = code;
        t->at_open = 1;
        return;
    }
    tsk_seq_piece pc;
    while ((t->rc = tsk_reader_next_piece(r, &pc, t->msg, sizeof t->msg)) == TSK_IO_RECORD) {
        if (pc.codes) { /* through the workers' copies, as feed.c takes them */
            uint8_t *dst = malloc(pc.n_codes + 1);
            cr_assert(dst);
            tsk_reader_copy_codes(r, pc.codes, pc.n_codes, dst);
            tsk_reader_sync(r);
            pc.codes = dst;
            tr_piece(t, &pc, lut);
            free(dst);
        } else {
            tr_piece(t, &pc, lut);
        }
    }
    if (t->rc == TSK_IO_EOF) /* the end is sticky */
        cr_assert_eq(tsk_reader_next_piece(r, &pc, t->msg, sizeof t->msg), TSK_IO_EOF, "%s: EOF twice", path);
    tsk_reader_close(r);
}

static inline int ref_blank(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* The reference: the records of the FASTA text d[0..n) read from a file shown as display, by the
 * rules of io/fasta_fast.h, line by line. Returns 0 (and nothing in *t) for a text the rules do not
 * cover: binary bytes in the first KB, or a first non-blank character other than '>'. */
static inline int tr_reference(const char *display, const char *d, size_t n, transcript *t)
{
    memset(t, 0, sizeof *t);
    for (size_t k = 0; k < n && k < 1024; k++) {
        unsigned char c = (unsigned char)d[k];
        if (c == 0x7F || (c < 0x20 && !ref_blank(c))) return 0;
    }
    size_t pos = 0;
    while (pos < n && ref_blank(d[pos])) pos++;
    if (pos == n || d[pos] != '>') return 0;
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    t->rc = TSK_IO_EOF;
    while (pos < n) {
        const char *nl = memchr(d + pos, '\n', n - pos);
        size_t end = nl ? (size_t)(nl - d) : n, next = nl ? end + 1 : n;
        char c = d[pos];
        if (c == '>' || c == '@') {
            if (pos + 1 == n) break; /* a header character as the last byte: no record */
            size_t name_end = pos + 1;
            while (name_end < end && !ref_blank(d[name_end])) name_end++;
            tr_new_record(t, d + pos + 1, name_end - pos - 1);
        } else if (c == '+') {
            t->rc = TSK_IO_BAD;
            snprintf(t->msg, sizeof t->msg, "%.500s: record '%.400s': FASTQ '+' line in a FASTA file", display,
                     t->names[t->n - 1]);
            t->n--; /* the record it ends is no record */
            free(t->names[t->n]);
            free(t->seq[t->n]);
            free(t->codes[t->n]);
            return 1;
        } else { /* sequence lines, up to the next line that starts with '>', '@' or '+' */
            while (next < n && d[next] != '>' && d[next] != '@' && d[next] != '+') {
                nl = memchr(d + next, '\n', n - next);
                end = nl ? (size_t)(nl - d) : n;
                next = nl ? end + 1 : n;
            }
            for (size_t k = pos; k < end; k++) t->raw[t->n - 1] += d[k] != '\r' && d[k] != '\n';
            tr_add_text(t, d + pos, end - pos, lut);
        }
        pos = next;
    }
    if (t->n == 0) {
        t->rc = TSK_IO_BAD;
        snprintf(t->msg, sizeof t->msg, "%.900s: no records", display);
    }
    return 1;
}

/* got (a reader's transcript) equals want (the reference's). A parallel reader (par) may have
 * handed out the first pieces of the record a '+' line ends before it saw the line (callers drop
 * everything on an error): that one extra record is let through. */
static inline void tr_compare(const transcript *want, const transcript *got, int par, const char *what)
{
    cr_assert_eq(got->rc, want->rc, "%s: rc %d, want %d (%s | %s)", what, got->rc, want->rc, got->msg, want->msg);
    if (want->rc < 0) cr_assert_str_eq(got->msg, want->msg, "%s", what);
    int extra = par && want->rc < 0 && got->n == want->n + 1;
    if (extra) {
        char named[TSK_ERRLEN];
        snprintf(named, sizeof named, "record '%s': FASTQ '+' line", got->names[want->n]);
        cr_assert(strstr(got->msg, named), "%s: the extra record is the one the error names", what);
    }
    cr_assert_eq(got->n, want->n + (size_t)extra, "%s: %zu records, want %zu", what, got->n, want->n);
    for (size_t i = 0; i < want->n; i++) {
        cr_assert_str_eq(got->names[i], want->names[i], "%s: record %zu", what, i);
        cr_assert_eq(got->raw[i], want->raw[i], "%s: record %zu '%s' raw %zu, want %zu", what, i, want->names[i],
                     got->raw[i], want->raw[i]);
        if (got->seq[i] && want->seq[i]) {
            cr_assert_eq(got->seq_len[i], want->seq_len[i], "%s: record %zu '%s' length", what, i, want->names[i]);
            cr_assert(memcmp(got->seq[i], want->seq[i], want->seq_len[i]) == 0, "%s: record %zu sequence", what, i);
        }
        cr_assert_eq(got->n_codes[i], want->n_codes[i], "%s: record %zu '%s' clean %zu, want %zu", what, i,
                     want->names[i], got->n_codes[i], want->n_codes[i]);
        cr_assert(!want->n_codes[i] || memcmp(got->codes[i], want->codes[i], want->n_codes[i]) == 0,
                  "%s: record %zu codes", what, i);
    }
}

#endif
