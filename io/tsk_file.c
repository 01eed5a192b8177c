/* tsk_file.c: the .tsk sketch file, written and read as docs/format.md specifies.
 *
 * Every multi-byte field is encoded and decoded byte by byte as little-endian, so the code does
 * not depend on struct layout; only the data rows are used in place, which is why a big-endian
 * host is refused at compile time. */
#include "tsk_file.h"
#include "io_error.h"
#include "../core/genome_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "crc32.h"
#include "write_queue.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .tsk data rows are little-endian and read in place: this build needs a little-endian host"
#endif

/* ---- layout (docs/format.md) ---- */

static const unsigned char TSK_MAGIC[TSK_FILE_MAGIC_LEN] = TSK_FILE_MAGIC;
#define TSK_BYTE_ORDER_MARK 0x01020304u
#define TSK_PAGE 4096u
#define TSK_FIXED_HEADER 256u   /* fixed fields; the tables follow */
#define TSK_RECORD_ENTRY 56u    /* bytes per record in the record table */
#define TSK_SOURCE_ENTRY 16u    /* bytes per source in the source table */
#define TSK_WRITE_BUFFER (1u << 20)
/* Anchor hashes held in memory at most; beyond, they go to a side file that tsk_writer_finish
 * copies after the record table (10^5 bacteria hold about 15 GB of them). */
#define TSK_ANI_SPILL (64u << 20)

enum { /* header field offsets */
    H_MAGIC = 0, H_VERSION = 8, H_BOM = 12, H_HEADER_SIZE = 16, H_CRC = 20, H_FILE_SIZE = 24,
    H_DATA_OFFSET = 32, H_DATA_SIZE = 40, H_N_ROWS = 48, H_N_RECORDS = 56, H_TRAILER_OFFSET = 64,
    H_TRAILER_SIZE = 72, H_N_SOURCES = 80, H_STRINGS_SIZE = 88, H_VERSION_OFF = 96, H_VERSION_LEN = 104,
    H_CMDLINE_OFF = 112, H_CMDLINE_LEN = 120, H_T = 128, H_DIM = 132, H_SEED = 136, H_ALPHABET = 144,
    H_ALPHABET_SIZE = 148, H_CANONICAL = 152, H_PRECISION = 156, H_ELEM_SIZE = 160,
    H_TABLES_FROM_FILE = 164, H_WINDOW = 168, H_STRIDE = 176, H_TABLES_OFFSET = 184, H_TABLES_SIZE = 188,
    H_ANCHOR_K = 192, H_KIND = 196, H_SCALED = 200, H_MIN_KEYS = 208,
    H_FLOOR_STRIDE = 248, /* 0 in files written before it: read as 1 */
    /* genome sketches: the anchor section */
    H_ANI_OFFSET = 216, H_ANI_SIZE = 224, H_ANI_SEGMENTS = 232, H_ANI_ANCHORS = 240,
};
#define TSK_ANI_ENTRY 40u       /* bytes per genome in the anchor section's table */
enum { /* anchor table entry field offsets */
    A_N_SEGMENTS = 0, A_N_ANCHORS = 8, A_N_CONTIGS = 16, A_N50 = 24, A_RATE = 32, A_N_LOOSE = 36,
};
/* Vector files keep format version 1 byte for byte; genome sketches (kind 1) are version 5, which
 * older readers refuse by its number instead of misreading keys as rows. Version 2 held genome
 * sketches of an earlier key layout (fingerprint hashes only, no size floor), version 3 the keys
 * without the segment anchors, version 4 the segment anchors without the loose ones: all refused,
 * with the advice to sketch again (a loose anchor cannot be recovered from the others). */
#define TSK_OLD_GENOME_FORMAT_VERSION 2u
#define TSK_V3_GENOME_FORMAT_VERSION 3u
#define TSK_V4_GENOME_FORMAT_VERSION 4u
#define TSK_KIND_ROWS 0u
#define TSK_KIND_GENOME 1u
enum { /* record entry field offsets */
    R_NAME_OFF = 0, R_NAME_LEN = 8, R_SOURCE = 12, R_RAW_LEN = 16, R_CLEAN_LEN = 24, R_DROPPED = 32,
    R_FIRST_ROW = 40, R_N_ROWS = 48,
};

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t align8(uint64_t x) { return (x + 7) & ~(uint64_t)7; }

static size_t tables_size(const tsk_params *p) { return (size_t)p->t * (size_t)tsk_alphabet_size(p->alphabet) * 5; }

/* ---- a growable byte buffer ---- */

typedef struct {
    unsigned char *p;
    size_t len, cap;
} bytes;

static int bytes_reserve(bytes *b, size_t extra)
{
    if (b->len + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra) cap *= 2;
    unsigned char *q = realloc(b->p, cap);
    if (!q) return -1;
    b->p = q;
    b->cap = cap;
    return 0;
}

/* Appends s and a NUL; *off receives its offset. */
static int bytes_add_string(bytes *b, const char *s, uint64_t *off, uint64_t *len)
{
    size_t n = strlen(s);
    if (bytes_reserve(b, n + 1)) return -1;
    *off = b->len;
    *len = n;
    memcpy(b->p + b->len, s, n + 1);
    b->len += n + 1;
    return 0;
}

/* ---- writing ---- */

struct tsk_writer {
    int fd;
    char *path, *tmp_path;
    tsk_params params;
    size_t row_bytes;
    tsk_write_queue *queue;    /* writes the rows, in order, on its own thread */
    unsigned char *buf;        /* rows of tsk_writer_add not yet handed to the queue */
    size_t buf_len;
    uint64_t data_size;        /* bytes of rows written, queued or buffered */
    int64_t n_rows, n_records;
    bytes records, sources, strings;
    uint64_t n_sources;
    char *last_source;         /* consecutive records from one file share one source entry */
    uint64_t version_off, version_len, cmdline_off, cmdline_len;
    /* genome sketches: the anchor section's parts, written after the record table */
    bytes ani_table, ani_counts, ani_hashes;
    uint64_t ani_segments, ani_anchors;
    FILE *ani_spill;           /* the hashes beyond spill_at, in order (unlinked: gone when closed) */
    size_t spill_at;           /* TSK_ANI_SPILL, or tsk_writer_spill_anchors_at's */
    uint64_t ani_spilled;      /* bytes of them there */
};

static void writer_free(tsk_writer *w)
{
    free(w->path);
    free(w->buf);
    free(w->records.p);
    free(w->sources.p);
    free(w->strings.p);
    free(w->ani_table.p);
    free(w->ani_counts.p);
    free(w->ani_hashes.p);
    if (w->ani_spill) fclose(w->ani_spill);
    free(w->last_source);
    free(w);
}

tsk_writer *tsk_writer_open(const char *path, const tsk_params *p, const char *tool_version,
                            const char *command_line, char *err, size_t errlen)
{
    const char *bad = tsk_params_check(p);
    if (bad) {
        tsk_io_set_err(err, errlen, "%s: invalid parameters: %s", path, bad);
        return NULL;
    }
    tsk_writer *w = calloc(1, sizeof *w);
    if (!w) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    w->fd = -1;
    w->params = *p;
    w->spill_at = TSK_ANI_SPILL;
    w->row_bytes = p->scaled > 0 ? sizeof(uint64_t) : (size_t)p->dim * (p->precision == TSK_DOUBLE ? 8 : 4);
    if (!(w->path = strdup(path)) || !(w->buf = malloc(TSK_WRITE_BUFFER)) ||
        bytes_add_string(&w->strings, tool_version ? tool_version : "", &w->version_off, &w->version_len) ||
        bytes_add_string(&w->strings, command_line ? command_line : "", &w->cmdline_off, &w->cmdline_len)) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        writer_free(w);
        return NULL;
    }
    w->fd = tsk_tmp_create(path, 1, &w->tmp_path, err, errlen);
    if (w->fd < 0) {
        writer_free(w);
        return NULL;
    }
    /* The first page is left for the header, written last; rows start at TSK_PAGE. */
    if (lseek(w->fd, TSK_PAGE, SEEK_SET) != (off_t)TSK_PAGE) {
        tsk_io_set_err(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
        tsk_writer_abort(w);
        return NULL;
    }
    if (!(w->queue = tsk_write_queue_start(w->fd))) {
        tsk_io_set_err(err, errlen, "%s: cannot start the thread that writes it", path);
        tsk_writer_abort(w);
        return NULL;
    }
    return w;
}

static int write_failed(const tsk_writer *w, int e, char *err, size_t errlen)
{
    tsk_io_set_err(err, errlen, "%s: write failed: %s", w->path, strerror(e));
    return -1;
}

/* Hands n bytes at p to the queue; waits until they are written unless ticket takes the wait. */
static int writer_queue(tsk_writer *w, const void *p, size_t n, int64_t *ticket, char *err, size_t errlen)
{
    const int64_t t = tsk_write_queue_push(w->queue, p, n);
    if (ticket) {
        *ticket = t;
        return 0;
    }
    const int e = tsk_write_queue_wait(w->queue, t);
    return e ? write_failed(w, e, err, errlen) : 0;
}

static int writer_flush(tsk_writer *w, char *err, size_t errlen)
{
    if (w->buf_len && writer_queue(w, w->buf, w->buf_len, NULL, err, errlen)) return -1;
    w->buf_len = 0;
    return 0;
}

/* Whether a record of clean_len codes may have n_rows rows: exactly tsk_rows_for_length, or for
 * anchored windows at most one per window position (their number depends on the sequence). */
static int rows_fit(const tsk_params *p, int64_t clean_len, int64_t n_rows)
{
    /* genome sketches: at most one key per window of the record's contigs */
    if (p->scaled > 0) return n_rows >= 0 && n_rows <= clean_len;
    if (p->anchor_k > 0) return n_rows >= 0 && n_rows <= (clean_len >= p->window ? clean_len - p->window + 1 : 0);
    return n_rows == tsk_rows_for_length(p, clean_len);
}

/* 0 when rec's lengths and rows are consistent, else -1 with the message naming it. */
static int check_entry(const tsk_writer *w, const tsk_record_info *rec, char *err, size_t errlen)
{
    const char *name = rec->name ? rec->name : "";
    if (rec->raw_len < 0 || rec->clean_len < 0 || rec->clean_len > rec->raw_len ||
        rec->dropped != rec->raw_len - rec->clean_len) {
        tsk_io_set_err(err, errlen, "%s: record '%s': inconsistent lengths (raw %" PRId64 ", cleaned %" PRId64
                ", dropped %" PRId64 ")", w->path, name, rec->raw_len, rec->clean_len, rec->dropped);
        return -1;
    }
    if (!rows_fit(&w->params, rec->clean_len, rec->n_rows)) {
        tsk_io_set_err(err, errlen, "%s: record '%s': %" PRId64 " rows given where its length %" PRId64 " gives %" PRId64,
                w->path, name, rec->n_rows, rec->clean_len, tsk_rows_for_length(&w->params, rec->clean_len));
        return -1;
    }
    return 0;
}

/* The record entry at e, whose name is at name_off, name_len bytes, from source number source. */
static void put_entry(unsigned char *e, const tsk_record_info *rec, uint64_t name_off, uint64_t name_len,
                      uint64_t source, int64_t first_row)
{
    put_u64(e + R_NAME_OFF, name_off);
    put_u32(e + R_NAME_LEN, (uint32_t)name_len);
    put_u32(e + R_SOURCE, (uint32_t)source);
    put_u64(e + R_RAW_LEN, (uint64_t)rec->raw_len);
    put_u64(e + R_CLEAN_LEN, (uint64_t)rec->clean_len);
    put_u64(e + R_DROPPED, (uint64_t)rec->dropped);
    put_u64(e + R_FIRST_ROW, (uint64_t)first_row);
    put_u64(e + R_N_ROWS, (uint64_t)rec->n_rows);
}

/* Starts source entry of the string at off (len bytes) and makes it the last source. */
static int add_source(tsk_writer *w, const char *source, uint64_t off, uint64_t len)
{
    char *copy = strdup(source);
    if (!copy || bytes_reserve(&w->sources, TSK_SOURCE_ENTRY)) {
        free(copy);
        return -1;
    }
    put_u64(w->sources.p + w->sources.len, off);
    put_u64(w->sources.p + w->sources.len + 8, len);
    w->sources.len += TSK_SOURCE_ENTRY;
    w->n_sources++;
    free(w->last_source);
    w->last_source = copy;
    return 0;
}

/* Checks one record and appends its entry (and its source's, when it is a new one) to the tables;
 * the record table must have room for it. */
static int add_entry(tsk_writer *w, const tsk_record_info *rec, char *err, size_t errlen)
{
    if (check_entry(w, rec, err, errlen)) return -1;
    const char *name = rec->name ? rec->name : "";
    const char *source = rec->source ? rec->source : "";
    if (!w->last_source || strcmp(w->last_source, source) != 0) {
        uint64_t off, len;
        if (bytes_add_string(&w->strings, source, &off, &len) || add_source(w, source, off, len)) {
            tsk_io_set_err(err, errlen, "%s: out of memory", w->path);
            return -1;
        }
    }
    uint64_t name_off, name_len;
    if (bytes_add_string(&w->strings, name, &name_off, &name_len)) {
        tsk_io_set_err(err, errlen, "%s: out of memory", w->path);
        return -1;
    }
    if (name_len > UINT32_MAX || w->n_sources - 1 > UINT32_MAX) {
        tsk_io_set_err(err, errlen, "%s: record '%.100s...': name too long", w->path, name);
        return -1;
    }
    put_entry(w->records.p + w->records.len, rec, name_off, name_len, w->n_sources - 1, w->n_rows);
    w->records.len += TSK_RECORD_ENTRY;
    w->n_records++;
    w->n_rows += rec->n_rows;
    w->data_size += (uint64_t)rec->n_rows * w->row_bytes;
    return 0;
}

/* The genome's entry of the anchor section and its arrays (little-endian, as the file holds them). */
static int add_anchors(tsk_writer *w, const tsk_genome_anchors *a, char *err, size_t errlen)
{
    if (a->n_segments < 0 || a->n_anchors < 0 || a->n_loose < 0 || a->n_loose > UINT32_MAX ||
        a->rate_log2 < TSK_ANI_MIN_RATE_LOG2 || a->rate_log2 > TSK_ANI_MAX_RATE_LOG2) {
        tsk_io_set_err(err, errlen, "%s: invalid segment anchors (rate %d)", w->path, (int)a->rate_log2);
        return -1;
    }
    if (bytes_reserve(&w->ani_table, TSK_ANI_ENTRY) || bytes_reserve(&w->ani_counts, (size_t)a->n_segments * 2) ||
        bytes_reserve(&w->ani_hashes, (size_t)(a->n_anchors + a->n_loose) * 4)) {
        tsk_io_set_err(err, errlen, "%s: out of memory for the segment anchors", w->path);
        return -1;
    }
    unsigned char *e = w->ani_table.p + w->ani_table.len;
    memset(e, 0, TSK_ANI_ENTRY);
    put_u64(e + A_N_SEGMENTS, (uint64_t)a->n_segments);
    put_u64(e + A_N_ANCHORS, (uint64_t)a->n_anchors);
    put_u64(e + A_N_CONTIGS, (uint64_t)a->n_contigs);
    put_u64(e + A_N50, (uint64_t)a->n50);
    put_u32(e + A_RATE, (uint32_t)a->rate_log2);
    put_u32(e + A_N_LOOSE, (uint32_t)a->n_loose);
    w->ani_table.len += TSK_ANI_ENTRY;
    unsigned char *c = w->ani_counts.p + w->ani_counts.len;
    for (int64_t i = 0; i < a->n_segments; i++) {
        c[2 * i] = (unsigned char)a->seg_count[i];
        c[2 * i + 1] = (unsigned char)(a->seg_count[i] >> 8);
    }
    w->ani_counts.len += (size_t)a->n_segments * 2;
    unsigned char *h = w->ani_hashes.p + w->ani_hashes.len;
    const int64_t n_hashes = a->n_anchors + a->n_loose;
    for (int64_t i = 0; i < n_hashes; i++) put_u32(h + 4 * i, a->hash[i]);
    w->ani_hashes.len += (size_t)n_hashes * 4;
    w->ani_segments += (uint64_t)a->n_segments;
    w->ani_anchors += (uint64_t)n_hashes;
    return 0;
}

/* Moves the hashes held in memory to the side file (made the first time, unlinked, in $TMPDIR or /tmp). */
static int spill_anchors(tsk_writer *w, char *err, size_t errlen)
{
    if (!w->ani_hashes.len) return 0;
    if (!w->ani_spill) {
        const char *dir = getenv("TMPDIR");
        char path[4096];
        snprintf(path, sizeof path, "%s/tsketch-anchors-XXXXXX", dir && *dir ? dir : "/tmp");
        const int fd = mkstemp(path);
        if (fd >= 0) unlink(path);
        if (fd < 0 || !(w->ani_spill = fdopen(fd, "w+b"))) {
            tsk_io_set_err(err, errlen, "%s: cannot make a temporary file for the segment anchors in %s: %s", w->path,
                           dir && *dir ? dir : "/tmp", strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
    }
    if (fwrite(w->ani_hashes.p, 1, w->ani_hashes.len, w->ani_spill) != w->ani_hashes.len) {
        tsk_io_set_err(err, errlen, "%s: write failed (temporary file of the segment anchors): %s", w->path,
                       strerror(errno));
        return -1;
    }
    w->ani_spilled += w->ani_hashes.len;
    w->ani_hashes.len = 0;
    return 0;
}

/* Writes the spilled hashes to w->fd, adding them to *crc; 0 or an errno. */
static int copy_spilled(tsk_writer *w, uint32_t *crc)
{
    if (!w->ani_spill) return 0;
    if (fflush(w->ani_spill) || fseek(w->ani_spill, 0, SEEK_SET)) return errno ? errno : EIO;
    unsigned char *buf = malloc(TSK_WRITE_BUFFER);
    if (!buf) return ENOMEM;
    int e = 0;
    for (uint64_t left = w->ani_spilled; left && !e;) {
        const size_t n = fread(buf, 1, left < TSK_WRITE_BUFFER ? (size_t)left : TSK_WRITE_BUFFER, w->ani_spill);
        if (!n) e = ferror(w->ani_spill) && errno ? errno : EIO;
        else e = tsk_write_checksummed(w->fd, buf, n, crc);
        left -= n;
    }
    free(buf);
    return e;
}

static int add_record(tsk_writer *w, const tsk_record_info *rec, const void *rows, char *err, size_t errlen);

void tsk_writer_spill_anchors_at(tsk_writer *w, size_t bytes) { w->spill_at = bytes; }

int tsk_writer_add(tsk_writer *w, const tsk_record_info *rec, const void *rows, char *err, size_t errlen)
{
    if (w->params.scaled > 0) {
        const tsk_genome_anchors none = {.rate_log2 = tsk_ani_rate_log2(rec->clean_len)};
        return tsk_writer_add_genome(w, rec, rows, &none, err, errlen);
    }
    return add_record(w, rec, rows, err, errlen);
}

int tsk_writer_add_genome(tsk_writer *w, const tsk_record_info *rec, const uint64_t *keys,
                          const tsk_genome_anchors *anchors, char *err, size_t errlen)
{
    if (w->params.scaled <= 0) {
        tsk_io_set_err(err, errlen, "%s: segment anchors given to a file of sketch rows", w->path);
        return -1;
    }
    if (add_anchors(w, anchors, err, errlen)) return -1;
    if (add_record(w, rec, keys, err, errlen)) {
        w->ani_table.len -= TSK_ANI_ENTRY; /* the record is not in the file: nor its anchors */
        w->ani_counts.len -= (size_t)anchors->n_segments * 2;
        w->ani_hashes.len -= (size_t)(anchors->n_anchors + anchors->n_loose) * 4;
        w->ani_segments -= (uint64_t)anchors->n_segments;
        w->ani_anchors -= (uint64_t)(anchors->n_anchors + anchors->n_loose);
        return -1;
    }
    return w->ani_hashes.len >= w->spill_at ? spill_anchors(w, err, errlen) : 0;
}

static int add_record(tsk_writer *w, const tsk_record_info *rec, const void *rows, char *err, size_t errlen)
{
    if (bytes_reserve(&w->records, TSK_RECORD_ENTRY)) {
        tsk_io_set_err(err, errlen, "%s: out of memory", w->path);
        return -1;
    }
    if (add_entry(w, rec, err, errlen)) return -1;
    /* rows: small records gather in the buffer, big ones go to the file as they are */
    size_t n = (size_t)rec->n_rows * w->row_bytes;
    if (!n) return 0;
    if (w->buf_len + n <= TSK_WRITE_BUFFER) {
        memcpy(w->buf + w->buf_len, rows, n);
        w->buf_len += n;
        return 0;
    }
    if (writer_flush(w, err, errlen)) return -1;
    return writer_queue(w, rows, n, NULL, err, errlen);
}

/* Batches of at least this many records get their entries made by all threads. */
#define PARALLEL_ENTRIES 4096

/* add_entry for recs[0..n) on every thread, the same bytes: the strings arena holds each new
 * source just before the name of its first record, then the names, so each string's offset is a
 * prefix sum of the lengths before it. Why: a million reads took 0.07-0.09 s of the pipeline's
 * thread here, between their batches' sketches. The record table must have room for n entries
 * (tsk_writer_add_batch reserves it). Returns 0 when done, 1 when a record is bad (nothing added:
 * add_entry then says which), -1 when out of memory. */
static int add_entries_parallel(tsk_writer *w, const tsk_record_info *recs, int64_t n)
{
    uint64_t *at = malloc((size_t)n * sizeof *at);          /* the string offset of name i */
    uint32_t *name_len = malloc((size_t)n * sizeof *name_len);
    int64_t *first_row = malloc((size_t)n * sizeof *first_row);
    int64_t *source = malloc((size_t)n * sizeof *source);   /* its source number, or with a new one: -1 - number */
    if (!at || !name_len || !first_row || !source) {
        free(at), free(name_len), free(first_row), free(source);
        return -1;
    }
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n; i++) {
        const size_t len = strlen(recs[i].name ? recs[i].name : "");
        name_len[i] = (uint32_t)(len > UINT32_MAX ? UINT32_MAX : len);
        bad |= len > UINT32_MAX || check_entry(w, &recs[i], NULL, 0) != 0;
    }
    /* sources and offsets in order (a pointer compare, mostly: a batch's records share one copy) */
    const char *last = w->last_source;
    uint64_t n_sources = w->n_sources, off = w->strings.len;
    int64_t rows = w->n_rows;
    for (int64_t i = 0; i < n && !bad; i++) {
        const char *src = recs[i].source ? recs[i].source : "";
        if (!last || (src != last && strcmp(src, last) != 0)) {
            n_sources++;
            bad |= n_sources - 1 > UINT32_MAX;
            source[i] = -(int64_t)n_sources; /* -1 - (n_sources - 1) */
            off += strlen(src) + 1;
        } else {
            source[i] = (int64_t)n_sources - 1;
        }
        last = src;
        at[i] = off;
        off += (uint64_t)name_len[i] + 1;
        first_row[i] = rows;
        rows += recs[i].n_rows;
    }
    int rc = bad ? 1 : 0;
    if (!rc && bytes_reserve(&w->strings, (size_t)(off - w->strings.len))) rc = -1;
    for (int64_t i = 0; i < n && rc == 0; i++) /* the new sources, in order (few) */
        if (source[i] < 0) {
            const char *src = recs[i].source ? recs[i].source : "";
            const size_t len = strlen(src);
            const uint64_t src_off = at[i] - len - 1;
            memcpy(w->strings.p + src_off, src, len + 1);
            if (add_source(w, src, src_off, len)) rc = -1;
            source[i] = -source[i] - 1;
        }
    if (rc == 0) {
        unsigned char *entries = w->records.p + w->records.len, *strings = w->strings.p;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            memcpy(strings + at[i], recs[i].name ? recs[i].name : "", (size_t)name_len[i] + 1);
            put_entry(entries + (size_t)i * TSK_RECORD_ENTRY, &recs[i], at[i], name_len[i], (uint64_t)source[i],
                      first_row[i]);
        }
        w->strings.len = (size_t)off;
        w->records.len += (size_t)n * TSK_RECORD_ENTRY;
        w->n_records += n;
        w->data_size += (uint64_t)(rows - w->n_rows) * w->row_bytes;
        w->n_rows = rows;
    }
    free(at), free(name_len), free(first_row), free(source);
    return rc;
}

int tsk_writer_add_batch(tsk_writer *w, const tsk_record_info *recs, int64_t n, const void *rows, int64_t *ticket,
                         char *err, size_t errlen)
{
    if (ticket) *ticket = 0;
    if (n <= 0) return 0;
    if (bytes_reserve(&w->records, (size_t)n * TSK_RECORD_ENTRY)) {
        tsk_io_set_err(err, errlen, "%s: out of memory for %" PRId64 " records", w->path, n);
        return -1;
    }
    const uint64_t before = w->data_size;
    const int parallel = n >= PARALLEL_ENTRIES ? add_entries_parallel(w, recs, n) : 1;
    if (parallel < 0) {
        tsk_io_set_err(err, errlen, "%s: out of memory for %" PRId64 " records", w->path, n);
        return -1;
    }
    if (parallel > 0) /* small batches, and the messages of bad records */
        for (int64_t i = 0; i < n; i++)
            if (add_entry(w, &recs[i], err, errlen)) return -1;
    const size_t size = (size_t)(w->data_size - before);
    if (!size) return 0;
    if (writer_flush(w, err, errlen)) return -1;
    return writer_queue(w, rows, size, ticket, err, errlen);
}

int tsk_writer_wait(tsk_writer *w, int64_t ticket, char *err, size_t errlen)
{
    if (ticket <= 0) return 0;
    const int e = tsk_write_queue_wait(w->queue, ticket);
    return e ? write_failed(w, e, err, errlen) : 0;
}

static void encode_header(unsigned char *h, const tsk_params *p)
{
    int a = tsk_alphabet_size(p->alphabet);
    memcpy(h + H_MAGIC, TSK_MAGIC, 8);
    put_u32(h + H_VERSION, p->scaled > 0 ? TSK_GENOME_FORMAT_VERSION : TSK_FORMAT_VERSION);
    put_u32(h + H_BOM, TSK_BYTE_ORDER_MARK);
    put_u32(h + H_HEADER_SIZE, (uint32_t)(TSK_FIXED_HEADER + tables_size(p)));
    put_u32(h + H_T, (uint32_t)p->t);
    put_u32(h + H_DIM, (uint32_t)p->dim);
    put_u64(h + H_SEED, p->seed);
    put_u32(h + H_ALPHABET, (uint32_t)p->alphabet);
    put_u32(h + H_ALPHABET_SIZE, (uint32_t)a);
    put_u32(h + H_CANONICAL, (uint32_t)(p->canonical != 0));
    put_u32(h + H_PRECISION, (uint32_t)p->precision);
    put_u32(h + H_ELEM_SIZE, p->scaled > 0 || p->precision == TSK_DOUBLE ? 8 : 4);
    put_u32(h + H_TABLES_FROM_FILE, (uint32_t)(p->tables_from_file != 0));
    put_u64(h + H_WINDOW, (uint64_t)p->window);
    put_u64(h + H_STRIDE, (uint64_t)p->stride);
    put_u32(h + H_ANCHOR_K, (uint32_t)p->anchor_k);
    if (p->scaled > 0) {
        put_u32(h + H_KIND, TSK_KIND_GENOME);
        put_u64(h + H_SCALED, (uint64_t)p->scaled);
        put_u64(h + H_MIN_KEYS, (uint64_t)p->min_keys);
        put_u64(h + H_FLOOR_STRIDE, (uint64_t)tsk_genome_floor_stride(p));
    }
    put_u32(h + H_TABLES_OFFSET, TSK_FIXED_HEADER);
    put_u32(h + H_TABLES_SIZE, (uint32_t)tables_size(p));
    unsigned char *hash = h + TSK_FIXED_HEADER, *sign = hash + (size_t)p->t * a * 4;
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < a; c++) {
            put_u32(hash + ((size_t)k * a + c) * 4, (uint32_t)p->hash[k][c]);
            sign[(size_t)k * a + c] = (unsigned char)p->sign[k][c];
        }
}

/* Stops the queue (every row written) and checks how it went. */
static int writer_drain(tsk_writer *w, uint32_t *data_crc, char *err, size_t errlen)
{
    uint64_t written = 0;
    const int e = tsk_write_queue_stop(w->queue, data_crc, &written);
    w->queue = NULL;
    if (e) return write_failed(w, e, err, errlen);
    if (written != w->data_size) {
        tsk_io_set_err(err, errlen, "%s: %" PRIu64 " bytes of rows written of %" PRIu64, w->path, written, w->data_size);
        return -1;
    }
    return 0;
}

int tsk_writer_finish(tsk_writer *w, char *err, size_t errlen)
{
    uint32_t data_crc = 0;
    if (writer_flush(w, err, errlen) || writer_drain(w, &data_crc, err, errlen)) goto fail;

    /* The tables go out from where they were built (no copy of them into one trailer); zeros pad
     * the rows to the trailer's 8-byte boundary. */
    uint64_t data_end = TSK_PAGE + w->data_size;
    uint64_t trailer_offset = align8(data_end);
    uint64_t trailer_size = w->records.len + w->sources.len + w->strings.len;
    static const unsigned char zeros[8];
    const struct {
        const void *p;
        size_t n;
    } parts[] = {{zeros, trailer_offset - data_end}, {w->records.p, w->records.len},
                 {w->sources.p, w->sources.len}, {w->strings.p, w->strings.len}};
    uint32_t trailer_crc = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].n) continue; /* a file of no records has empty (NULL) tables */
        /* the padding is outside the checksum */
        const int e = i == 0 ? (tsk_write_all(w->fd, parts[i].p, parts[i].n) ? errno : 0)
                             : tsk_write_checksummed(w->fd, parts[i].p, parts[i].n, &trailer_crc);
        if (e) {
            write_failed(w, e, err, errlen);
            goto fail;
        }
    }

    /* genome sketches: the anchor section at the next 8-byte boundary (the padding outside the
     * checksum, as the rows'), its arrays each padded to 8 bytes within it */
    uint64_t file_size = trailer_offset + trailer_size, ani_offset = 0, ani_size = 0;
    uint32_t ani_crc = 0;
    if (w->params.scaled > 0) {
        ani_offset = align8(file_size);
        const uint64_t hashes_len = w->ani_anchors * 4;
        const size_t counts_pad = (size_t)(align8(w->ani_counts.len) - w->ani_counts.len);
        const size_t hashes_pad = (size_t)(align8(hashes_len) - hashes_len);
        /* the spilled hashes come before those still in memory (part 4) */
        const struct {
            const void *p;
            size_t n;
        } ani_parts[] = {{zeros, ani_offset - file_size},   {w->ani_table.p, w->ani_table.len},
                         {w->ani_counts.p, w->ani_counts.len}, {zeros, counts_pad},
                         {w->ani_hashes.p, w->ani_hashes.len}, {zeros, hashes_pad}};
        for (size_t i = 0; i < sizeof ani_parts / sizeof ani_parts[0]; i++) {
            int e = i == 4 ? copy_spilled(w, &ani_crc) : 0;
            if (!e && ani_parts[i].n)
                e = i == 0 ? (tsk_write_all(w->fd, ani_parts[i].p, ani_parts[i].n) ? errno : 0)
                           : tsk_write_checksummed(w->fd, ani_parts[i].p, ani_parts[i].n, &ani_crc);
            if (e) {
                write_failed(w, e, err, errlen);
                goto fail;
            }
        }
        ani_size = w->ani_table.len + w->ani_counts.len + counts_pad + hashes_len + hashes_pad;
        file_size = ani_offset + ani_size;
    }

    unsigned char header[TSK_PAGE];
    memset(header, 0, sizeof header);
    encode_header(header, &w->params);
    put_u64(header + H_FILE_SIZE, file_size);
    if (w->params.scaled > 0) {
        put_u64(header + H_ANI_OFFSET, ani_offset);
        put_u64(header + H_ANI_SIZE, ani_size);
        put_u64(header + H_ANI_SEGMENTS, w->ani_segments);
        put_u64(header + H_ANI_ANCHORS, w->ani_anchors);
    }
    put_u64(header + H_DATA_OFFSET, TSK_PAGE);
    put_u64(header + H_DATA_SIZE, w->data_size);
    put_u64(header + H_N_ROWS, (uint64_t)w->n_rows);
    put_u64(header + H_N_RECORDS, (uint64_t)w->n_records);
    put_u64(header + H_TRAILER_OFFSET, trailer_offset);
    put_u64(header + H_TRAILER_SIZE, trailer_size);
    put_u64(header + H_N_SOURCES, w->n_sources);
    put_u64(header + H_STRINGS_SIZE, w->strings.len);
    put_u64(header + H_VERSION_OFF, w->version_off);
    put_u64(header + H_VERSION_LEN, w->version_len);
    put_u64(header + H_CMDLINE_OFF, w->cmdline_off);
    put_u64(header + H_CMDLINE_LEN, w->cmdline_len);
    size_t header_size = TSK_FIXED_HEADER + tables_size(&w->params);
    uint32_t crc = tsk_crc32(0, header, header_size); /* the CRC field is still zero here */
    crc = tsk_crc32_combine(crc, data_crc, w->data_size);
    crc = tsk_crc32_combine(crc, trailer_crc, trailer_size);
    if (ani_size) crc = tsk_crc32_combine(crc, ani_crc, ani_size);
    put_u32(header + H_CRC, crc);
    if (tsk_pwrite_all(w->fd, header, TSK_PAGE, 0) != 0) {
        write_failed(w, errno, err, errlen);
        goto fail;
    }
    int fd = w->fd;
    w->fd = -1;
    char *tmp = w->tmp_path;
    w->tmp_path = NULL;
    int rc = tsk_tmp_commit(fd, tmp, w->path, err, errlen);
    writer_free(w);
    return rc;

fail:
    tsk_writer_abort(w);
    return -1;
}

void tsk_writer_abort(tsk_writer *w)
{
    if (!w) return;
    tsk_write_queue_stop(w->queue, NULL, NULL); /* its thread must let go of the file and the rows */
    tsk_tmp_discard(w->fd, w->tmp_path);
    writer_free(w);
}

/* ---- reading ---- */

/* The row of the first NaN or infinite value among n values of elem bytes (rows of dim), or -1.
 * Such values have no distance: dist would drop them, top-k leave them out and triangle print
 * 'nan', so a file holding one is refused when read. By the exponent bits: one pass, no FP. */
static int64_t first_non_finite_row(const unsigned char *data, uint64_t n, uint32_t elem, uint32_t dim)
{
    const uint64_t rows = n / dim;
    for (uint64_t r = 0; r < rows; r++) {
        const unsigned char *row = data + r * dim * elem;
        int bad = 0; /* no exit inside a row: the loop vectorizes */
        if (elem == 8)
            for (uint32_t k = 0; k < dim; k++) {
                uint64_t v;
                memcpy(&v, row + (size_t)k * 8, 8);
                bad |= (v & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000);
            }
        else
            for (uint32_t k = 0; k < dim; k++) {
                uint32_t v;
                memcpy(&v, row + (size_t)k * 4, 4);
                bad |= (v & 0x7F800000u) == 0x7F800000u;
            }
        if (bad) return (int64_t)r;
    }
    return -1;
}

/* Checks that a string [off, off+len] of the strings area is inside it and NUL-terminated. */
static int string_ok(uint64_t off, uint64_t len, const unsigned char *strings, uint64_t strings_size)
{
    return off < strings_size && len < strings_size - off && strings[off + len] == '\0';
}

/* What a failed step of tsk_file_open returns: the file is bad, or memory ran out. */
enum { OPEN_BAD = -1, OPEN_NO_MEMORY = -2 };

/* Sketch files are mapped, never read as a stream: "-" and anything but a regular file are
 * refused by name before they are opened (opening a FIFO would block, or take its data). */
static const char NOT_A_FILE[] =
    "a .tsk sketch file is mapped, not read through a pipe or stdin: give sketch files as files";

/* Maps path whole into f (map, map_len). Returns 0, or OPEN_BAD / OPEN_NO_MEMORY with the message. */
static int map_file(tsk_file *f, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (!strcmp(path, "-") || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
        tsk_io_set_err(err, errlen, "%s: %s", path, NOT_A_FILE);
        return OPEN_BAD;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            tsk_io_set_err(err, errlen, "%s: no such file", path);
        else
            tsk_io_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return OPEN_BAD;
    }
    const char *bad = NULL;
    int rc = OPEN_BAD;
    if (fstat(fd, &st) != 0) tsk_io_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode)) bad = "is a directory, not a tsketch sketch file";
    else if (!S_ISREG(st.st_mode)) bad = NOT_A_FILE;
    else if (st.st_size < 8)
        bad = st.st_size == 0 ? "not a tsketch sketch file (empty file)" : "not a tsketch sketch file";
    else {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            f->map = map;
            f->map_len = (size_t)st.st_size;
            rc = 0;
        } else if (errno == ENOMEM) { /* no address space (ulimit -v) or map count left: not the file's fault */
            tsk_io_set_err(err, errlen, "%s: out of memory (cannot map its %lld bytes)", path, (long long)st.st_size);
            rc = OPEN_NO_MEMORY;
        } else {
            tsk_io_set_err(err, errlen, "%s: cannot map: %s", path, strerror(errno));
        }
    }
    if (bad) tsk_io_set_err(err, errlen, "%s: %s", path, bad);
    close(fd);
    return rc;
}

/* Where the regions of a mapped file lie, from its header. */
typedef struct {
    uint32_t version, header_size;
    uint64_t file_size, data_offset, data_size, trailer_offset, trailer_size;
    uint64_t ani_offset, ani_size, ani_segments, ani_anchors; /* genome sketches: ani_anchors counts loose ones too */
} file_layout;

/* The header's identity: magic, byte order, a format version this tsketch reads, the size. */
static int check_identity(const unsigned char *m, uint64_t actual, const char *path, file_layout *l, char *err,
                          size_t errlen)
{
    if (memcmp(m, TSK_MAGIC, 8) != 0) {
        tsk_io_set_err(err, errlen, "%s: not a tsketch sketch file", path);
        return -1;
    }
    if (actual < TSK_FIXED_HEADER) {
        tsk_io_set_err(err, errlen, "%s: truncated (%" PRIu64 " bytes, shorter than the header)", path, actual);
        return -1;
    }
    uint32_t bom = get_u32(m + H_BOM);
    if (bom != TSK_BYTE_ORDER_MARK) {
        if (bom == 0x04030201u)
            tsk_io_set_err(err, errlen, "%s: written in big-endian byte order, which this tsketch does not read", path);
        else
            tsk_io_set_err(err, errlen, "%s: corrupt header (bad byte-order mark)", path);
        return -1;
    }
    l->version = get_u32(m + H_VERSION);
    if (l->version == TSK_OLD_GENOME_FORMAT_VERSION) {
        tsk_io_set_err(err, errlen,
                       "%s: genome sketches of an older tsketch (format version 2: another key layout, no size "
                       "floor): sketch the genomes again", path);
        return -1;
    }
    if (l->version == TSK_V3_GENOME_FORMAT_VERSION) {
        tsk_io_set_err(err, errlen,
                       "%s: genome sketches of an older tsketch (format version 3: no ANI anchors): sketch the "
                       "genomes again", path);
        return -1;
    }
    if (l->version == TSK_V4_GENOME_FORMAT_VERSION) {
        tsk_io_set_err(err, errlen,
                       "%s: genome sketches of an older tsketch (format version 4: ANI anchors without the contigs' "
                       "tails): sketch the genomes again", path);
        return -1;
    }
    if (l->version != TSK_FORMAT_VERSION && l->version != TSK_GENOME_FORMAT_VERSION) {
        tsk_io_set_err(err, errlen, "%s: unsupported format version %u (this tsketch reads versions 1 and 5)%s", path,
                l->version, l->version > TSK_GENOME_FORMAT_VERSION ? ": written by a newer tsketch" : "");
        return -1;
    }
    l->file_size = get_u64(m + H_FILE_SIZE);
    if (actual < l->file_size) {
        tsk_io_set_err(err, errlen, "%s: truncated (expected %" PRIu64 " bytes, found %" PRIu64 ")", path, l->file_size,
                       actual);
        return -1;
    }
    if (actual > l->file_size) {
        tsk_io_set_err(err, errlen, "%s: corrupt (%" PRIu64 " bytes, %" PRIu64 " more than the header records)", path,
                actual, actual - l->file_size);
        return -1;
    }
    return 0;
}

/* Layout: every region inside the file and in the order the format fixes. */
static int read_layout(const unsigned char *m, const char *path, file_layout *l, char *err, size_t errlen)
{
    l->header_size = get_u32(m + H_HEADER_SIZE);
    l->data_offset = get_u64(m + H_DATA_OFFSET), l->data_size = get_u64(m + H_DATA_SIZE);
    l->trailer_offset = get_u64(m + H_TRAILER_OFFSET), l->trailer_size = get_u64(m + H_TRAILER_SIZE);
    const uint64_t file_size = l->file_size;
    const char *what = NULL;
    if (l->header_size < TSK_FIXED_HEADER || l->header_size > file_size) what = "header size";
    else if (l->data_offset % TSK_PAGE || l->data_offset < l->header_size || l->data_offset > file_size)
        what = "data offset";
    else if (l->data_size > file_size - l->data_offset) what = "data size";
    else if (l->trailer_offset != align8(l->data_offset + l->data_size)) what = "trailer offset";
    else if (l->trailer_offset > file_size || l->trailer_size > file_size - l->trailer_offset) what = "trailer size";
    else if (l->version != TSK_GENOME_FORMAT_VERSION && l->trailer_size != file_size - l->trailer_offset)
        what = "trailer size";
    if (!what && l->version == TSK_GENOME_FORMAT_VERSION) {
        /* the anchor section: its table, and its arrays each padded to 8 bytes, fill the rest */
        l->ani_offset = get_u64(m + H_ANI_OFFSET), l->ani_size = get_u64(m + H_ANI_SIZE);
        l->ani_segments = get_u64(m + H_ANI_SEGMENTS), l->ani_anchors = get_u64(m + H_ANI_ANCHORS);
        const uint64_t n_records = get_u64(m + H_N_RECORDS);
        if (l->ani_offset != align8(l->trailer_offset + l->trailer_size) || l->ani_offset > file_size ||
            l->ani_size != file_size - l->ani_offset)
            what = "anchor section offset";
        else if (n_records > l->ani_size / TSK_ANI_ENTRY || l->ani_segments > l->ani_size / 2 ||
                 l->ani_anchors > l->ani_size / 4 ||
                 n_records * TSK_ANI_ENTRY + align8(2 * l->ani_segments) + align8(4 * l->ani_anchors) != l->ani_size)
            what = "anchor section size";
    }
    if (what) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (%s out of range)", path, what);
        return -1;
    }
    return 0;
}

/* What the checksum pass saw of the data values while they were in cache (data_visit): checks
 * that need the record table, which is trusted only after the checksum, finish from these. */
typedef struct {
    int kind;              /* what the header says the rows are: SEEN_KEYS, SEEN_FLOATS, SEEN_DOUBLES or 0 */
    const unsigned char *data;
    uint64_t breaks;       /* keys not above the key before them (record starts, or disorder) */
    int non_finite;        /* a NaN or infinite value was seen */
} data_seen;
enum { SEEN_KEYS = 1, SEEN_FLOATS, SEEN_DOUBLES };

/* Whether len bytes of float (or double) values hold a NaN or infinity: by the exponent bits, with
 * no exit inside the loop, which vectorizes. */
static int has_non_finite(const unsigned char *p, size_t len, int doubles)
{
    int bad = 0;
    if (doubles)
        for (size_t k = 0; k + 8 <= len; k += 8) {
            uint64_t v;
            memcpy(&v, p + k, 8);
            bad |= (v & UINT64_C(0x7FF0000000000000)) == UINT64_C(0x7FF0000000000000);
        }
    else
        for (size_t k = 0; k + 4 <= len; k += 4) {
            uint32_t v;
            memcpy(&v, p + k, 4);
            bad |= (v & 0x7F800000u) == 0x7F800000u;
        }
    return bad;
}

/* How many of keys[1..n) are not above the key before them. AVX2 compares four keys at a time,
 * AVX-512 eight (baseline x86-64 has no 64-bit compare: a key a cycle or two, which made this look
 * cost half as much as the checksum on the 2-core dev box). */
__attribute__((target_clones("avx512f", "avx2", "default"))) static uint64_t count_order_breaks(const uint64_t *keys, size_t n)
{
    uint64_t breaks = 0;
    for (size_t j = 1; j < n; j++) breaks += keys[j] <= keys[j - 1];
    return breaks;
}

/* tsk_crc32_visitor over the data section: counts the keys that break ascending order, or notes a
 * non-finite value. One comparison or mask per value, vectorized, on bytes the CRC just read. */
static void data_visit(void *ctx, size_t offset, const unsigned char *block, size_t len)
{
    data_seen *s = ctx;
    if (s->kind == SEEN_KEYS) {
        const size_t n = len / 8;
        const uint64_t *keys = (const uint64_t *)(const void *)block; /* data is page-aligned, blocks 8-aligned */
        /* the key before the block is the last of the block before (at offset - 8) */
        const uint64_t breaks = (offset >= 8 && n && keys[0] <= keys[-1]) + count_order_breaks(keys, n);
        if (breaks) {
#pragma omp atomic
            s->breaks += breaks;
        }
    } else if (s->kind) {
        if (has_non_finite(block, len, s->kind == SEEN_DOUBLES)) {
#pragma omp atomic write
            s->non_finite = 1;
        }
    }
}

/* The checksum, before any field is trusted further; the data section on `threads` threads (which
 * also maps its pages on all of them), its values looked at on the way (seen). anchors_later: a
 * genome sketch's anchor section is left out, the CRC of what comes before it kept in f for
 * tsk_file_check_anchors, and nothing compared yet. */
static int check_crc(tsk_file *f, const file_layout *l, int threads, int anchors_later, data_seen *seen,
                     const char *path, char *err, size_t errlen)
{
    const unsigned char *m = f->map;
    /* the header with its CRC field taken as zero, in place: a header may pass a page (large
     * tables), and copying it into a buffer of fixed size would overflow there */
    static const unsigned char zero[4] = {0, 0, 0, 0};
    const uint32_t elem = get_u32(m + H_ELEM_SIZE); /* read_params checks it: until then, a hint */
    seen->kind = l->version == TSK_GENOME_FORMAT_VERSION ? SEEN_KEYS
                 : elem == 4                              ? SEEN_FLOATS
                 : elem == 8                              ? SEEN_DOUBLES
                                                          : 0;
    seen->data = m + l->data_offset;
    madvise(f->map, f->map_len, MADV_SEQUENTIAL);
    uint32_t crc = tsk_crc32(0, m, H_CRC);
    crc = tsk_crc32(crc, zero, sizeof zero);
    crc = tsk_crc32(crc, m + H_CRC + 4, l->header_size - H_CRC - 4);
    crc = tsk_crc32_threads_visit(crc, m + l->data_offset, l->data_size, threads, data_visit, seen);
    crc = tsk_crc32(crc, m + l->trailer_offset, l->trailer_size);
    if (anchors_later && l->version == TSK_GENOME_FORMAT_VERSION) {
        madvise(f->map, f->map_len, MADV_NORMAL);
        f->crc_before_anchors = crc;
        f->anchors_unchecked = 1;
        return 0;
    }
    /* the anchor section is most of a genome sketch (12 of 19 GB at 10^5 genomes): on the threads too */
    if (l->version == TSK_GENOME_FORMAT_VERSION) crc = tsk_crc32_threads(crc, m + l->ani_offset, l->ani_size, threads);
    madvise(f->map, f->map_len, MADV_NORMAL);
    if ((uint32_t)crc != get_u32(m + H_CRC)) {
        tsk_io_set_err(err, errlen, "%s: checksum mismatch (the file is corrupt)", path);
        return -1;
    }
    return 0;
}

/* The genome sketch fields of a genome sketch header (version 5) into p. */
static int read_genome_params(const unsigned char *m, const char *path, tsk_params *p, char *err, size_t errlen)
{
    uint64_t scaled = get_u64(m + H_SCALED), min_keys = get_u64(m + H_MIN_KEYS);
    const uint64_t floor_stride = get_u64(m + H_FLOOR_STRIDE);
    if (get_u32(m + H_KIND) != TSK_KIND_GENOME || scaled < 1 || scaled > (uint64_t)INT64_MAX ||
        min_keys > (uint64_t)TSK_GENOME_MAX_MIN_KEYS || floor_stride > (uint64_t)TSK_GENOME_MAX_FLOOR_STRIDE) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (version 5 without a genome sketch kind, scale and floor)",
                       path);
        return -1;
    }
    p->scaled = (int64_t)scaled;
    p->min_keys = (int64_t)min_keys;
    p->floor_stride = floor_stride ? (int64_t)floor_stride : 1;
    return 0;
}

/* The hash and sign tables after the fixed header; drawn tables must be the seed's. */
static int read_tables(const unsigned char *m, const char *path, tsk_params *p, char *err, size_t errlen)
{
    const int a = tsk_alphabet_size(p->alphabet);
    const unsigned char *hash = m + TSK_FIXED_HEADER, *sign = hash + (size_t)p->t * a * 4;
    for (int k = 0; k < p->t; k++)
        for (int c = 0; c < a; c++) {
            p->hash[k][c] = (int32_t)get_u32(hash + ((size_t)k * a + c) * 4);
            p->sign[k][c] = (int8_t)sign[(size_t)k * a + c];
        }
    const char *bad = tsk_params_check(p);
    if (bad) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (invalid parameters: %s)", path, bad);
        return -1;
    }
    if (!p->tables_from_file) {
        tsk_params drawn = *p;
        tsk_tables_draw(&drawn);
        if (memcmp(drawn.hash, p->hash, sizeof p->hash) || memcmp(drawn.sign, p->sign, sizeof p->sign)) {
            tsk_io_set_err(err, errlen, "%s: corrupt header (tables differ from those of seed %" PRIu64 ")", path,
                           p->seed);
            return -1;
        }
    }
    return 0;
}

/* Parameters: every field in range and consistent with the others, then the tables. */
static int read_params(tsk_file *f, const file_layout *l, const char *path, char *err, size_t errlen)
{
    const unsigned char *m = f->map;
    tsk_params *p = &f->params;
    memset(p, 0, sizeof *p);
    uint32_t t = get_u32(m + H_T), dim = get_u32(m + H_DIM), alphabet = get_u32(m + H_ALPHABET);
    uint32_t precision = get_u32(m + H_PRECISION), elem = get_u32(m + H_ELEM_SIZE);
    if (t < 1 || t > TSK_MAX_T || dim < 1 || dim > TSK_MAX_DIM || alphabet > TSK_PROTEIN || precision > TSK_DOUBLE) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (t %u, D %u, alphabet %u, precision %u out of range)", path,
                t, dim, alphabet, precision);
        return -1;
    }
    p->t = (int)t;
    p->dim = (int)dim;
    p->seed = get_u64(m + H_SEED);
    p->alphabet = (tsk_alphabet)alphabet;
    p->canonical = (int)get_u32(m + H_CANONICAL);
    p->precision = (tsk_precision)precision;
    p->tables_from_file = (int)get_u32(m + H_TABLES_FROM_FILE);
    p->window = (int64_t)get_u64(m + H_WINDOW);
    p->stride = (int64_t)get_u64(m + H_STRIDE);
    p->anchor_k = (int)get_u32(m + H_ANCHOR_K);
    if (l->version == TSK_GENOME_FORMAT_VERSION && read_genome_params(m, path, p, err, errlen)) return -1;
    if (get_u32(m + H_ALPHABET_SIZE) != (uint32_t)tsk_alphabet_size(p->alphabet) ||
        elem != (p->scaled > 0 || precision == TSK_DOUBLE ? 8u : 4u) ||
        get_u32(m + H_TABLES_OFFSET) != TSK_FIXED_HEADER || get_u32(m + H_TABLES_SIZE) != tables_size(p) ||
        l->header_size != TSK_FIXED_HEADER + tables_size(p) || p->canonical > 1 || p->tables_from_file > 1) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (inconsistent parameter fields)", path);
        return -1;
    }
    if (read_tables(m, path, p, err, errlen)) return -1;
    f->elem_size = elem;
    return 0;
}

/* Where the trailer's tables lie, and their sizes. */
typedef struct {
    uint64_t n_rows, n_records, n_sources, strings_size;
    const unsigned char *records, *sources, *strings;
} file_trailer;

/* The data and trailer sizes against the header's counts; the tool version and command line. */
static int read_trailer(tsk_file *f, const file_layout *l, const char *path, file_trailer *tr, char *err,
                        size_t errlen)
{
    const unsigned char *m = f->map;
    const tsk_params *p = &f->params;
    tr->n_rows = get_u64(m + H_N_ROWS), tr->n_records = get_u64(m + H_N_RECORDS);
    tr->n_sources = get_u64(m + H_N_SOURCES), tr->strings_size = get_u64(m + H_STRINGS_SIZE);
    const uint64_t row_bytes = p->scaled > 0 ? sizeof(uint64_t) : (uint64_t)p->dim * f->elem_size;
    if (tr->n_rows > l->data_size / row_bytes || tr->n_rows * row_bytes != l->data_size) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (%" PRIu64 " rows of %" PRIu64 " bytes do not fill %" PRIu64
                " data bytes)", path, tr->n_rows, row_bytes, l->data_size);
        return -1;
    }
    if (tr->n_records > l->trailer_size / TSK_RECORD_ENTRY || tr->n_sources > l->trailer_size / TSK_SOURCE_ENTRY ||
        tr->strings_size > l->trailer_size ||
        tr->n_records * TSK_RECORD_ENTRY + tr->n_sources * TSK_SOURCE_ENTRY + tr->strings_size != l->trailer_size) {
        tsk_io_set_err(err, errlen, "%s: corrupt header (record table sizes)", path);
        return -1;
    }
    tr->records = m + l->trailer_offset;
    tr->sources = tr->records + tr->n_records * TSK_RECORD_ENTRY;
    tr->strings = tr->sources + tr->n_sources * TSK_SOURCE_ENTRY;
    uint64_t voff = get_u64(m + H_VERSION_OFF), vlen = get_u64(m + H_VERSION_LEN);
    uint64_t coff = get_u64(m + H_CMDLINE_OFF), clen = get_u64(m + H_CMDLINE_LEN);
    if (!string_ok(voff, vlen, tr->strings, tr->strings_size) ||
        !string_ok(coff, clen, tr->strings, tr->strings_size)) {
        tsk_io_set_err(err, errlen, "%s: corrupt record table (version or command line string)", path);
        return -1;
    }
    if (!(f->tool_version = strdup((const char *)tr->strings + voff)) ||
        !(f->command_line = strdup((const char *)tr->strings + coff)) ||
        (tr->n_records && !(f->records = malloc(tr->n_records * sizeof *f->records)))) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return OPEN_NO_MEMORY;
    }
    for (uint64_t i = 0; i < tr->n_sources; i++) {
        const unsigned char *s = tr->sources + i * TSK_SOURCE_ENTRY;
        if (!string_ok(get_u64(s), get_u64(s + 8), tr->strings, tr->strings_size)) {
            tsk_io_set_err(err, errlen, "%s: corrupt record table (source %" PRIu64 ")", path, i);
            return -1;
        }
    }
    return 0;
}

/* Record i of the record table into f->records[i]: its strings, lengths and rows (starting at
 * row, the end of the records before). */
static int read_record(tsk_file *f, const file_trailer *tr, uint64_t i, int64_t row,
                       const char *path, char *err, size_t errlen)
{
    const unsigned char *e = tr->records + i * TSK_RECORD_ENTRY;
    const tsk_params *p = &f->params;
    tsk_record_info *r = &f->records[i];
    uint64_t noff = get_u64(e + R_NAME_OFF), nlen = get_u32(e + R_NAME_LEN);
    uint32_t src = get_u32(e + R_SOURCE);
    r->raw_len = (int64_t)get_u64(e + R_RAW_LEN);
    r->clean_len = (int64_t)get_u64(e + R_CLEAN_LEN);
    r->dropped = (int64_t)get_u64(e + R_DROPPED);
    r->first_row = (int64_t)get_u64(e + R_FIRST_ROW);
    r->n_rows = (int64_t)get_u64(e + R_N_ROWS);
    if (!string_ok(noff, nlen, tr->strings, tr->strings_size) || src >= tr->n_sources) {
        tsk_io_set_err(err, errlen, "%s: corrupt record table (record %" PRIu64 ": name or source)", path, i);
        return -1;
    }
    if (r->raw_len < 0 || r->clean_len < 0 || r->clean_len > r->raw_len || r->dropped != r->raw_len - r->clean_len ||
        r->first_row != row || !rows_fit(p, r->clean_len, r->n_rows) ||
        (uint64_t)r->n_rows > tr->n_rows - (uint64_t)row) {
        tsk_io_set_err(err, errlen, "%s: corrupt record table (record %" PRIu64 ": lengths or rows inconsistent)",
                       path, i);
        return -1;
    }
    r->name = (const char *)tr->strings + noff;
    const char *why = tsk_name_problem(r->name);
    if (why) {
        tsk_io_set_err(err, errlen, "%s: record %" PRIu64 ": %s (tsketch's outputs are tab- and line-separated)", path,
                       i + 1, why);
        return -1;
    }
    r->source = (const char *)tr->strings + get_u64(tr->sources + (uint64_t)src * TSK_SOURCE_ENTRY);
    return 0;
}

/* Every record, covering the rows in order. */
static int read_records(tsk_file *f, const file_trailer *tr, const char *path, char *err, size_t errlen)
{
    int64_t row = 0;
    for (uint64_t i = 0; i < tr->n_records; i++) {
        if (read_record(f, tr, i, row, path, err, errlen)) return -1;
        row += f->records[i].n_rows;
    }
    if ((uint64_t)row != tr->n_rows) {
        tsk_io_set_err(err, errlen, "%s: corrupt record table (records cover %" PRId64 " of %" PRIu64 " rows)", path,
                       row, tr->n_rows);
        return -1;
    }
    return 0;
}

/* A genome sketch's anchor section into f->anchors: every genome's entry against its record
 * (segments and anchors within its length, rate 6..31, its contigs' N50 within its length) and its
 * segments' counts against its anchors; the entries' sums against the header's totals. */
static int read_anchors(tsk_file *f, const file_layout *l, const char *path, char *err, size_t errlen)
{
    if (f->params.scaled <= 0) return 0;
    const unsigned char *m = f->map;
    const unsigned char *table = m + l->ani_offset;
    const uint16_t *counts = (const uint16_t *)(const void *)(table + (uint64_t)f->n_records * TSK_ANI_ENTRY);
    const uint32_t *hashes = (const uint32_t *)(const void *)((const unsigned char *)counts + align8(2 * l->ani_segments));
    if (f->n_records && !(f->anchors = calloc((size_t)f->n_records, sizeof *f->anchors))) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return OPEN_NO_MEMORY;
    }
    uint64_t seg = 0, anc = 0;
    for (int64_t i = 0; i < f->n_records; i++) {
        const unsigned char *e = table + (uint64_t)i * TSK_ANI_ENTRY;
        const tsk_record_info *r = &f->records[i];
        const uint64_t n_seg = get_u64(e + A_N_SEGMENTS), n_anc = get_u64(e + A_N_ANCHORS);
        const uint64_t n_contigs = get_u64(e + A_N_CONTIGS), n50 = get_u64(e + A_N50);
        const uint32_t rate = get_u32(e + A_RATE), n_loose = get_u32(e + A_N_LOOSE);
        const char *what = NULL;
        if (rate < TSK_ANI_MIN_RATE_LOG2 || rate > TSK_ANI_MAX_RATE_LOG2) what = "rate out of range";
        else if (n_seg > (uint64_t)r->clean_len / TSK_ANI_SEGMENT || n_seg > l->ani_segments - seg)
            what = "more segments than its length holds";
        else if (n_anc > (uint64_t)r->clean_len || n_loose > (uint64_t)r->clean_len - n_anc)
            what = "more anchors than its length holds";
        else if (n_anc > l->ani_anchors - anc || n_loose > l->ani_anchors - anc - n_anc)
            what = "more anchors than the file holds";
        else if (n50 > (uint64_t)r->clean_len || n_contigs > (uint64_t)INT64_MAX) what = "N50 longer than the genome";
        uint64_t sum = 0;
        for (uint64_t j = 0; !what && j < n_seg; j++) sum += counts[seg + j];
        if (!what && sum != n_anc) what = "segment counts do not sum to its anchors";
        if (what) {
            tsk_io_set_err(err, errlen, "%s: corrupt genome sketch (record %" PRId64 ": segment anchors: %s)", path, i,
                           what);
            return -1;
        }
        f->anchors[i] = (tsk_genome_anchors){.n_segments = (int64_t)n_seg, .n_anchors = (int64_t)n_anc,
                                             .rate_log2 = (int32_t)rate, .seg_count = counts + seg,
                                             .hash = hashes + anc, .n_loose = (int64_t)n_loose,
                                             .n_contigs = (int64_t)n_contigs, .n50 = (int64_t)n50};
        seg += n_seg;
        anc += n_anc + n_loose;
    }
    if (seg != l->ani_segments || anc != l->ani_anchors) {
        tsk_io_set_err(err, errlen, "%s: corrupt genome sketch (segment anchors: genomes hold %" PRIu64 " segments and %"
                       PRIu64 " anchors, the header %" PRIu64 " and %" PRIu64 ")", path, seg, anc, l->ani_segments,
                       l->ani_anchors);
        return -1;
    }
    return 0;
}

/* A genome sketch's keys must be strictly ascending in every record (the engines merge and search
 * them). The checksum pass counted the keys not above the one before (seen->breaks); when all of
 * them start a record, every record is in order: one look per record here, none per key. Else
 * the records are walked to name the first one out of order. */
static int check_key_order(const tsk_file *f, const data_seen *seen, uint64_t n_rows, const char *path, char *err,
                           size_t errlen)
{
    const uint64_t *keys = (const uint64_t *)(const void *)seen->data;
    uint64_t at_starts = 0;
    int64_t last_start = 0;
    for (int64_t i = 0; i < f->n_records; i++) {
        const int64_t s = f->records[i].first_row;
        if (s > last_start && (uint64_t)s < n_rows) at_starts += keys[s] <= keys[s - 1];
        if (s > last_start) last_start = s; /* records of no keys share their start with the next */
    }
    if (at_starts == seen->breaks) return 0;
    for (int64_t i = 0; i < f->n_records; i++) {
        const tsk_record_info *r = &f->records[i];
        for (int64_t j = r->first_row + 1; j < r->first_row + r->n_rows; j++)
            if (keys[j] <= keys[j - 1]) {
                tsk_io_set_err(err, errlen, "%s: corrupt genome sketch (record %" PRId64 ": keys not strictly "
                               "ascending)", path, i);
                return -1;
            }
    }
    return 0; /* not reached: every key after the first starts a record or follows a key of its own */
}

/* Vector rows hold finite values only (genome sketches hold integer keys: every bit pattern is a
 * value; their order is checked instead); the record of the first row that does not is named.
 * The checksum pass saw whether there is one; only then are the rows looked at again. */
static int check_values(const tsk_file *f, const data_seen *seen, uint64_t n_rows, const char *path, char *err,
                        size_t errlen)
{
    const tsk_params *p = &f->params;
    if (p->scaled > 0) return check_key_order(f, seen, n_rows, path, err, errlen);
    if (!seen->non_finite) return 0;
    const uint32_t dim = (uint32_t)p->dim;
    const int64_t bad_row = first_non_finite_row(seen->data, n_rows * dim, (uint32_t)f->elem_size, dim);
    if (bad_row < 0) return 0;
    int64_t i = 0;
    while (f->records[i].first_row + f->records[i].n_rows <= bad_row) i++;
    tsk_io_set_err(err, errlen, "%s: record '%s' holds a NaN or infinite value (row %" PRId64 "): the file is corrupt",
                   path, f->records[i].name, bad_row);
    return -1;
}

static tsk_file *open_file(const char *path, int threads, int anchors_later, int *code, char *err, size_t errlen)
{
    int dummy;
    if (!code) code = &dummy;
    *code = TSK_FILE_NO_MEMORY;
    tsk_file *f = calloc(1, sizeof *f);
    if (!f) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    file_layout l = {0};
    file_trailer tr;
    data_seen seen = {0};
    int rc = map_file(f, path, err, errlen);
    if (!rc) rc = check_identity(f->map, f->map_len, path, &l, err, errlen);
    if (!rc) rc = read_layout(f->map, path, &l, err, errlen);
    if (!rc) rc = check_crc(f, &l, threads, anchors_later, &seen, path, err, errlen);
    if (!rc) rc = read_params(f, &l, path, err, errlen);
    if (!rc) rc = read_trailer(f, &l, path, &tr, err, errlen);
    if (!rc) rc = read_records(f, &tr, path, err, errlen);
    if (!rc) {
        f->n_records = (int64_t)tr.n_records;
        f->n_rows = (int64_t)tr.n_rows;
        rc = check_values(f, &seen, tr.n_rows, path, err, errlen);
    }
    if (!rc) rc = read_anchors(f, &l, path, err, errlen);
    if (rc) {
        *code = rc == OPEN_NO_MEMORY ? TSK_FILE_NO_MEMORY : TSK_FILE_BAD;
        tsk_file_close(f);
        return NULL;
    }
    f->data = (const unsigned char *)f->map + l.data_offset;
    return f;
}

tsk_file *tsk_file_open_threads(const char *path, int threads, int *code, char *err, size_t errlen)
{
    return open_file(path, threads, 0, code, err, errlen);
}

tsk_file *tsk_file_open_anchors_later(const char *path, int threads, int *code, char *err, size_t errlen)
{
    return open_file(path, threads, 1, code, err, errlen);
}

int tsk_file_check_anchors(tsk_file *f, const char *path, int threads, char *err, size_t errlen)
{
    if (!f->anchors_unchecked) return 0;
    const unsigned char *m = f->map; /* the section where the open found it valid (read_layout) */
    const uint32_t crc =
        tsk_crc32_threads(f->crc_before_anchors, m + get_u64(m + H_ANI_OFFSET), get_u64(m + H_ANI_SIZE), threads);
    if (crc != get_u32(m + H_CRC)) {
        tsk_io_set_err(err, errlen, "%s: checksum mismatch (the file is corrupt)", path);
        return -1;
    }
    f->anchors_unchecked = 0;
    return 0;
}

tsk_file *tsk_file_open_code(const char *path, int *code, char *err, size_t errlen)
{
    return tsk_file_open_threads(path, 1, code, err, errlen);
}

tsk_file *tsk_file_open(const char *path, char *err, size_t errlen)
{
    return tsk_file_open_code(path, NULL, err, errlen);
}

const char *tsk_name_problem(const char *name)
{
    return name && name[strcspn(name, "\t\r\n")] ? "name contains a tab or newline" : NULL;
}

void tsk_file_close(tsk_file *f)
{
    if (!f) return;
    if (f->map) munmap(f->map, f->map_len);
    free(f->anchors);
    free(f->tool_version);
    free(f->command_line);
    free(f->records);
    free(f);
}

/* ---- comparing ---- */

typedef struct {
    char *msg;
    size_t len, used;
    int n;
} diff_out;

static void diff_add(diff_out *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diff_add(diff_out *d, const char *fmt, ...)
{
    d->n++;
    if (!d->msg || d->used + 1 >= d->len) return;
    if (d->n > 1) d->used += (size_t)snprintf(d->msg + d->used, d->len - d->used, "; ");
    if (d->used + 1 >= d->len) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(d->msg + d->used, d->len - d->used, fmt, ap);
    va_end(ap);
    if (k > 0) d->used += (size_t)k;
    if (d->used >= d->len) d->used = d->len - 1;
}

static const char *alphabet_name(tsk_alphabet a) { return a == TSK_PROTEIN ? "protein" : "dna"; }

/* Tables agree on the levels and codes both define (the caller reports t/alphabet mismatches). */
static int tables_differ(const tsk_params *a, const tsk_params *b, int *level, int *code)
{
    int t = a->t < b->t ? a->t : b->t;
    int n = tsk_alphabet_size(a->alphabet) < tsk_alphabet_size(b->alphabet) ? tsk_alphabet_size(a->alphabet)
                                                                             : tsk_alphabet_size(b->alphabet);
    for (int k = 0; k < t; k++)
        for (int c = 0; c < n; c++)
            if (a->hash[k][c] != b->hash[k][c] || a->sign[k][c] != b->sign[k][c]) {
                *level = k;
                *code = c;
                return 1;
            }
    return 0;
}

static const char *anchor_name(int k, char buf[16])
{
    if (k == 0) return "off";
    snprintf(buf, 16, "k=%d", k);
    return buf;
}

int tsk_params_diff(const tsk_params *a, const char *name_a, const tsk_params *b, const char *name_b,
                    char *msg, size_t msglen)
{
    diff_out d = {msg, msglen, 0, 0};
    char ka[16], kb[16];
    if (msg && msglen) msg[0] = '\0';
    if (a->t != b->t) diff_add(&d, "t (tuple length): %d in %s, %d in %s", a->t, name_a, b->t, name_b);
    if (a->dim != b->dim) diff_add(&d, "D (dimension): %d in %s, %d in %s", a->dim, name_a, b->dim, name_b);
    if (a->alphabet != b->alphabet)
        diff_add(&d, "alphabet: %s in %s, %s in %s", alphabet_name(a->alphabet), name_a, alphabet_name(b->alphabet), name_b);
    if (!a->canonical != !b->canonical)
        diff_add(&d, "canonical: %s in %s, %s in %s", a->canonical ? "on" : "off", name_a, b->canonical ? "on" : "off", name_b);
    if (a->window != b->window)
        diff_add(&d, "window: %" PRId64 " in %s, %" PRId64 " in %s", a->window, name_a, b->window, name_b);
    if (a->stride != b->stride)
        diff_add(&d, "stride: %" PRId64 " in %s, %" PRId64 " in %s", a->stride, name_a, b->stride, name_b);
    if ((a->scaled > 0) != (b->scaled > 0))
        diff_add(&d, "kind: %s in %s, %s in %s", a->scaled > 0 ? "genome sketches" : "sketch rows", name_a,
                 b->scaled > 0 ? "genome sketches" : "sketch rows", name_b);
    else if (a->scaled != b->scaled)
        diff_add(&d, "scaled: %" PRId64 " in %s, %" PRId64 " in %s", a->scaled, name_a, b->scaled, name_b);
    if (a->scaled > 0 && b->scaled > 0 && a->min_keys != b->min_keys)
        diff_add(&d, "min keys (size floor): %" PRId64 " in %s, %" PRId64 " in %s", a->min_keys, name_a, b->min_keys,
                 name_b);
    if (a->scaled > 0 && b->scaled > 0 && tsk_genome_floor_stride(a) != tsk_genome_floor_stride(b))
        diff_add(&d, "floor stride: %" PRId64 " in %s, %" PRId64 " in %s", tsk_genome_floor_stride(a), name_a,
                 tsk_genome_floor_stride(b), name_b);
    if (a->anchor_k != b->anchor_k)
        diff_add(&d, "anchored windows: %s in %s, %s in %s", anchor_name(a->anchor_k, ka), name_a,
                 anchor_name(b->anchor_k, kb), name_b);
    /* Precision is not compared: it is the storage type of the rows, not the function. */
    int both_drawn = !a->tables_from_file && !b->tables_from_file;
    /* the seed also places anchored windows, whatever the tables */
    if ((both_drawn || (a->anchor_k && b->anchor_k)) && a->seed != b->seed)
        diff_add(&d, "seed: %" PRIu64 " in %s, %" PRIu64 " in %s", a->seed, name_a, b->seed, name_b);
    /* Tables of different shapes differ anyway (reported above as t, D or alphabet); tables drawn
     * from different seeds too. Otherwise the tables themselves decide. */
    int level = 0, code = 0;
    int same_shape = a->t == b->t && a->dim == b->dim && a->alphabet == b->alphabet;
    if (same_shape && !(both_drawn && a->seed != b->seed) && tables_differ(a, b, &level, &code)) {
        const char *letters = tsk_alphabet_letters(a->alphabet);
        if (both_drawn)
            diff_add(&d, "tables: differ at level %d, character %c although both come from seed %" PRIu64
                     " (%s or %s is corrupt)", level, letters[code], a->seed, name_a, name_b);
        else if (a->tables_from_file && b->tables_from_file)
            diff_add(&d, "tables (both read from files): differ at level %d, character %c: hash %d sign %+d in %s, "
                     "hash %d sign %+d in %s", level, letters[code], a->hash[level][code], a->sign[level][code],
                     name_a, b->hash[level][code], b->sign[level][code], name_b);
        else
            diff_add(&d, "tables: %s in %s, %s in %s (they differ at level %d, character %c)",
                     a->tables_from_file ? "read from a file" : "drawn from the seed", name_a,
                     b->tables_from_file ? "read from a file" : "drawn from the seed", name_b, level, letters[code]);
    }
    return d.n;
}

int tsk_params_diff_shown(const tsk_params *a, const char *name_a, const tsk_params *b, const char *name_b,
                          char *msg, size_t msglen)
{
    if ((a->scaled > 0) != (b->scaled > 0)) {
        const char *ka = a->scaled > 0 ? "genome sketches" : "sketch rows";
        const char *kb = b->scaled > 0 ? "genome sketches" : "sketch rows";
        if (msg && msglen)
            snprintf(msg, msglen, "kind: %s in %s, %s in %s (genome sketches compare only with genome sketches: make "
                     "them with 'tsketch sketch --genome')", ka, name_a, kb, name_b);
        return 1;
    }
    tsk_params b_shown = *b;
    if (a->scaled > 0) b_shown.stride = a->stride; /* = scaled, said as that */
    return tsk_params_diff(a, name_a, &b_shown, name_b, msg, msglen);
}

/* Reads up to n bytes of the start of path into h when path is a regular file (see
 * tsk_file_is_sketch: nothing else is opened). Returns the bytes read, or -1. */
static ssize_t read_start(const char *path, unsigned char *h, size_t n)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t have = 0;
    while (have < n) {
        ssize_t got = read(fd, h + have, n - have);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        have += (size_t)got;
    }
    close(fd);
    return (ssize_t)have;
}

int tsk_file_is_sketch(const char *path) { return tsk_file_kind(path) >= 0; }

int tsk_file_kind(const char *path)
{
    unsigned char h[12];
    const ssize_t n = read_start(path, h, sizeof h);
    if (n < TSK_FILE_MAGIC_LEN || memcmp(h, TSK_MAGIC, TSK_FILE_MAGIC_LEN)) return -1;
    return n == sizeof h && get_u32(h + H_VERSION) == TSK_GENOME_FORMAT_VERSION;
}
