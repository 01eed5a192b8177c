/* fasta_par.h: one uncompressed FASTA file parsed and cleaned by several threads.
 *
 * Why: one reader thread (fasta_fast.c) parses and cleans about 1 GB/s, less than a GPU sketches.
 * Here the file is cut into fixed byte ranges; worker threads pread a range each and parse and
 * encode it into a chunk of their own, while the caller's thread takes the chunks strictly in file
 * order and hands out their records as pieces of codes. At most a fixed number of chunks exist at a
 * time (workers wait for the caller), so memory is bounded whatever the file size.
 *
 * The records (order, names, raw lengths, codes) are exactly those of the sequential reader
 * (fasta_fast.c, itself kseq's rules), because those rules only look at lines: from the first
 * header on, a line starting with '>' or '@' is a header (name = its text up to the first
 * isspace()), a line starting with '+' ends the current record with an error, any other line is
 * sequence text, and '\n' and '\r' are dropped. A header character that is the file's last byte
 * is no record. So a worker only needs to know where lines start, which it can see locally.
 *
 * Ranges ignore record borders: a record whose text crosses range borders comes back as several
 * pieces, one per range, so a chromosome is cleaned by all workers at once. A range that begins
 * inside a line cleans that line's rest as sequence text ("lead"); when the line turns out to be a
 * header that began in an earlier range (the earlier worker read on to its end), the caller's
 * thread drops the lead or re-cleans it from the header's end (rare: a header crossing a border).
 *
 * Memory: 4 x threads + 4 chunks of about 2 x range bytes (about 2 MiB a thread at the default).
 *
 * Knows no engine and no batch: codes come from encode.h, records go to whoever calls. */
#ifndef TSK_FASTA_PAR_H
#define TSK_FASTA_PAR_H

#include <stddef.h>
#include <stdint.h>

/* One piece of a record, in file order. Views valid until the next call. */
typedef struct {
    const char *name;       /* NUL-terminated name of the record the piece belongs to */
    size_t name_len;
    const uint8_t *codes;   /* cleaned codes of this piece */
    size_t n_codes;
    size_t raw_len;         /* characters of this piece's text other than '\n' and '\r' */
    int starts_record;      /* 1 on the first piece of a record (possibly empty); 0 on more of it */
} tsk_fasta_piece;

typedef struct tsk_fasta_par tsk_fasta_par;

#define TSK_FASTA_PAR_RANGE (INT64_C(256) << 10) /* default bytes per range: a chunk stays in cache */
#define TSK_FASTA_PAR_MAX_THREADS 64              /* more are taken as this many */

/* Parses fd (a regular, uncompressed file, taken over: closed by tsk_fasta_par_close) from byte
 * offset start (its first header character) to size (the file's size) with threads workers
 * (1..TSK_FASTA_PAR_MAX_THREADS) over ranges of range_bytes (0: TSK_FASTA_PAR_RANGE; tests use
 * tiny ones to put borders everywhere). lut is the encode table (tsk_encode_table), display the
 * file name for messages. NULL with errno set (ENOMEM, or pthread_create's error); the fd is then
 * closed. */
tsk_fasta_par *tsk_fasta_par_open(int fd, size_t start, size_t size, const uint8_t lut[256], int threads,
                                  size_t range_bytes, const char *display);

/* Next piece: TSK_IO_RECORD, TSK_IO_EOF, or TSK_IO_BAD / TSK_IO_SYSTEM (seqio.h) with the message
 * the sequential reader gives for the same file ("x.fa: record 'r7': FASTQ '+' line in a FASTA
 * file", "x.fa: no records", "x.fa: read error: ..."). After an error or the end, the same again.
 * One difference: the record that a '+' line ends may have come out in pieces before the error
 * (the sequential reader gives the error instead of it); callers drop everything on an error. */
int tsk_fasta_par_next(tsk_fasta_par *p, tsk_fasta_piece *piece, char *err, size_t errlen);

/* Copies codes[0..n) of the piece tsk_fasta_par_next gave last to dst: large pieces by a worker,
 * later (the chunk they are in is kept until then), small ones at once. Copying the cleaned codes
 * into the caller's batches is the one pass over the data that the caller's thread would otherwise
 * make alone: done by the workers it scales with them. dst must stay valid until
 * tsk_fasta_par_sync. */
void tsk_fasta_par_copy(tsk_fasta_par *p, const uint8_t *codes, size_t n, uint8_t *dst);

/* Waits until every copy asked for is done (before using or moving what they wrote). */
void tsk_fasta_par_sync(tsk_fasta_par *p);

/* Stops the workers (also in the middle of a file) and frees everything. */
void tsk_fasta_par_close(tsk_fasta_par *p);

#endif
