/* tsk_file.h: the .tsk sketch file (specified in docs/format.md).
 *
 * A page-aligned little header, the rows as one row-major matrix starting at a 4 KiB boundary (so
 * a reader can mmap it and copy it to a GPU as it is), then the record table and strings, and a
 * CRC32 over all of it. A writer streams rows in as they are computed (written and checksummed
 * on a thread of its own, io/write_queue.h) and only renames its temporary file into place on
 * success: a failed run never leaves a partial .tsk behind. */
#ifndef TSK_FILE_H
#define TSK_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/genome_ani.h"
#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSK_FORMAT_VERSION 1
/* The version of genome sketch files (kind, scaled and min_keys in the header, keys as rows, the
 * genomes' segment anchors after the record table). */
#define TSK_GENOME_FORMAT_VERSION 5u
/* The first 8 bytes of every .tsk file (docs/format.md). */
#define TSK_FILE_MAGIC "\x89TSK\r\n\x1a\n"
#define TSK_FILE_MAGIC_LEN 8

/* Per-record metadata stored in the file. */
typedef struct {
    const char *name;     /* record name (or file stem / -I name with --per-file) */
    const char *source;   /* input path the record came from ("-" for stdin) */
    int64_t raw_len;      /* characters in the record as read */
    int64_t clean_len;    /* characters kept after cleaning */
    int64_t dropped;      /* raw_len - clean_len */
    int64_t first_row;    /* index of the record's first row in the data matrix: the rows of the
                           * records before it (tsk_file_open refuses any other layout), so the
                           * records' rows are the data matrix as it lies */
    int64_t n_rows;       /* rows of the record (1, or floor(clean_len/stride) for slides) */
} tsk_record_info;

/* What a genome sketch file (version 5) holds of each genome beside its keys: its segment anchors
 * (core/genome_ani.h: the segments' anchor counts and the anchors' stored hashes, segment after
 * segment, then its loose anchors) and the shape of its assembly. Pointers into the mapping when
 * read. */
typedef struct {
    int64_t n_segments;          /* its segments of TSK_ANI_SEGMENT bases, with or without anchors */
    int64_t n_anchors;           /* sum of seg_count */
    int32_t rate_log2;           /* one anchor k-mer in 2^rate_log2 kept (6..31) */
    const uint16_t *seg_count;   /* n_segments counts */
    const uint32_t *hash;        /* n_anchors + n_loose stored hashes, h >> (32 - rate_log2) */
    int64_t n_contigs;           /* its records (contigs; 1 for a genome a record) */
    int64_t n50;                 /* the N50 of its cleaned contig lengths */
    int64_t n_loose;             /* its anchors in no segment (core/genome_ani.h), after the segments' in hash */
} tsk_genome_anchors;

/* ---- reading ---- */

typedef struct {
    tsk_params params;          /* every parameter, tables included */
    char *tool_version;         /* tsketch version that wrote the file */
    char *command_line;         /* command line that wrote the file */
    int64_t n_records;
    int64_t n_rows;
    tsk_record_info *records;   /* n_records entries; strings point into the mapping */
    const void *data;           /* n_rows x params.dim values, float or double per precision; for
                                 * genome sketches (params.scaled > 0) n_rows uint64 keys */
    size_t elem_size;           /* 4 or 8 */
    tsk_genome_anchors *anchors; /* genome sketches: n_records entries (their arrays in the mapping);
                                  * NULL for sketch rows */
    /* private */
    void *map;
    size_t map_len;
    int anchors_unchecked;       /* tsk_file_open_anchors_later: the checksum waits for tsk_file_check_anchors */
    uint32_t crc_before_anchors; /* the CRC of the file up to its anchor section */
} tsk_file;

/* 1 when path is a regular file that starts with the .tsk magic (so a command can take .tsk and
 * FASTA inputs alike, told apart by content, not by name); 0 otherwise. Anything but a regular
 * file ("-", a FIFO, /dev/fd/N of a process substitution, a character device) is never opened
 * here: its bytes can be read once only, so it is a sequence input, read by the sequence reader
 * alone (which refuses a .tsk it finds there: sketch files are mapped, io/seqio.h). */
int tsk_file_is_sketch(const char *path);

/* What a sketch file holds, from its header's version field: 1 for genome sketches (key sets), 0 for
 * sketch rows, -1 when path is not a sketch file (tsk_file_is_sketch: no regular file, no magic).
 * Opens a regular file once; never opens anything else. */
int tsk_file_kind(const char *path);

/* Maps path and validates magic, version, byte order, sizes, offsets, parameters, names and
 * checksum. Returns NULL with a message naming the file and the reason ("g.tsk: not a tsketch
 * sketch file", "g.tsk: truncated (expected 81920 bytes, found 4096)", "g.tsk: checksum mismatch",
 * "g.tsk: record 3: name contains a tab or newline", "-: ... give sketch files as files"). */
tsk_file *tsk_file_open(const char *path, char *err, size_t errlen);

/* tsk_file_open, and on failure *code tells whose it is: TSK_FILE_BAD (the file: exit 3) or
 * TSK_FILE_NO_MEMORY (mapping or holding it ran out of memory, ENOMEM; the file may be fine:
 * exit 1, "g.tsk: out of memory ..."). */
enum { TSK_FILE_BAD = 1, TSK_FILE_NO_MEMORY = 2 };
tsk_file *tsk_file_open_code(const char *path, int *code, char *err, size_t errlen);

/* tsk_file_open_code with the data section checked on `threads` threads (OpenMP; 1 or less: the
 * calling thread alone): its checksum (crc32.h, tsk_crc32_threads; a genome sketch's anchor
 * section's too), a genome sketch's key order
 * and a vector file's finite values, in one pass over the rows. That pass also maps every page of
 * the rows on all threads, so a caller that uses the rows in place (f->data) finds them mapped. A
 * file of gigabytes opens at about the speed the page cache reads it. */
tsk_file *tsk_file_open_threads(const char *path, int threads, int *code, char *err, size_t errlen);

/* tsk_file_open_threads, the checksum of a genome sketch's anchor section left to
 * tsk_file_check_anchors, so that a GPU run can check it beside the engines' uploads: its bytes
 * are most of a genome sketch (1.1 of a 10^4-genome file's 1.8 GB). Every field is validated as by
 * tsk_file_open_threads (the anchors' counts against the records, the keys' order), but the
 * file's checksum is not known to match until tsk_file_check_anchors returns 0: nothing read
 * from the file may reach an output before that. Files without an anchor section are checked
 * whole here. */
tsk_file *tsk_file_open_anchors_later(const char *path, int threads, int *code, char *err, size_t errlen);

/* The checksum left by tsk_file_open_anchors_later, on `threads` threads (OpenMP): 0 when it
 * matches (or nothing was left), -1 with "PATH: checksum mismatch (the file is corrupt)" in err.
 * Reads the mapping only: it may run on a thread of its own while others read the file. */
int tsk_file_check_anchors(tsk_file *f, const char *path, int threads, char *err, size_t errlen);
void tsk_file_close(tsk_file *f);

/* Why name cannot name a record or genome, or NULL: "name contains a tab or newline" for a TAB,
 * CR or LF. Every output of tsketch separates names by tabs and lines (TSV, PHYLIP, export,
 * .npy.names), so such a name is refused wherever names are given to records: -I, --per-file file
 * names, list names, and names read from a .tsk file. */
const char *tsk_name_problem(const char *name);

/* Row r as a pointer into the mapping (float or double per elem_size; a uint64 key for genome sketches). */
static inline const void *tsk_file_row(const tsk_file *f, int64_t r)
{
    if (f->params.scaled > 0) return (const uint64_t *)f->data + r; /* genome sketches: one key a row */
    return (const char *)f->data + (size_t)r * (size_t)f->params.dim * f->elem_size;
}

/* ---- writing ---- */

typedef struct tsk_writer tsk_writer;

/* Creates "path.tmp.<pid>" beside path (checking that the directory is writable now, not at the
 * end of a long run). Returns NULL with a message ("out/x.tsk: cannot create: Permission denied"). */
tsk_writer *tsk_writer_open(const char *path, const tsk_params *p, const char *tool_version,
                            const char *command_line, char *err, size_t errlen);

/* Appends one record and its rec->n_rows rows (float or double per p->precision). first_row is
 * assigned by the writer. Small records gather in a buffer of the writer. Returns 0, or -1 with a
 * message (disk full...). */
int tsk_writer_add(tsk_writer *w, const tsk_record_info *rec, const void *rows, char *err, size_t errlen);

/* Appends n records at once, their rows back to back in rows (recs[0]'s rows first, recs[i].n_rows
 * each): the same file as n calls of tsk_writer_add, with one write of all the rows (a batch of
 * the pipeline: tens of MB) and no copy of them. The rows are written by the writer's own thread:
 * with ticket NULL the call waits for it; otherwise it returns at once with *ticket set, and the
 * caller keeps rows unchanged until tsk_writer_wait(w, *ticket) returns (or until finish or
 * abort), so the rows of batch k go to the file while batch k+1 is sketched. Returns 0, or -1 with
 * a message (a bad record; a failed write of earlier rows). */
int tsk_writer_add_batch(tsk_writer *w, const tsk_record_info *recs, int64_t n, const void *rows, int64_t *ticket,
                         char *err, size_t errlen);

/* tsk_writer_add for a genome sketch file: record rec, its keys (rec->n_rows) and its anchors
 * (copied; written after the record table by tsk_writer_finish). tsk_writer_add of a genome record
 * gives it no segments (rate tsk_ani_rate_log2 of its length, no contigs): for tests and tools
 * that have no sequence. */
int tsk_writer_add_genome(tsk_writer *w, const tsk_record_info *rec, const uint64_t *keys,
                          const tsk_genome_anchors *anchors, char *err, size_t errlen);

/* The anchor hashes a genome writer holds in memory before it moves them to a side file in
 * $TMPDIR (64 MiB; the same file either way). For tests. */
void tsk_writer_spill_anchors_at(tsk_writer *w, size_t bytes);

/* Waits until the rows of ticket (tsk_writer_add_batch) and everything before are written: their
 * memory is the caller's again. A ticket of 0 or less returns at once. Returns 0, or -1 with a
 * message when a write failed (disk full...). */
int tsk_writer_wait(tsk_writer *w, int64_t ticket, char *err, size_t errlen);

/* Waits for the rows, writes the tables, header and checksum, then renames the temporary file to
 * its final name. Returns 0 or -1 with a message; on failure the temporary file is removed. Frees w. */
int tsk_writer_finish(tsk_writer *w, char *err, size_t errlen);

/* Waits for the writer's thread to let go of the rows, removes the temporary file and frees w (for
 * any failure before finish). NULL is fine. */
void tsk_writer_abort(tsk_writer *w);

/* ---- comparing ---- */

/* Writes into msg a description of every parameter that differs between a and b ("t: 4 in
 * a.tsk, 5 in b.tsk; seed: ..."; the tables when both come from files). Returns the number of
 * differences (0 = compatible). */
int tsk_params_diff(const tsk_params *a, const char *name_a, const tsk_params *b, const char *name_b,
                    char *msg, size_t msglen);

/* tsk_params_diff for a message to the user: sketch rows against genome sketches differ by their
 * kind alone (every other difference follows from it), said with what makes genome sketches
 * ('tsketch sketch --genome'); two genome sketch parameter sets list only what their options set
 * (scaled, min keys, window, anchor k, t, D, seed...), not the stride, which is their scale. */
int tsk_params_diff_shown(const tsk_params *a, const char *name_a, const tsk_params *b, const char *name_b,
                          char *msg, size_t msglen);

#ifdef __cplusplus
}
#endif
#endif
