/* seqio.h: FASTA/FASTQ records from plain, gzip or BGZF files or stdin, through htslib.
 *
 * Compression is sniffed from the bytes, never from the file name. Every failure is reported as
 * a message that names the file and the reason (for the caller to print) and a TSK_IO_* code;
 * the reader never prints and never exits. Knows nothing of sketches or engines. */
#ifndef TSK_SEQIO_H
#define TSK_SEQIO_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h" /* TSK_ERRLEN */

#ifdef __cplusplus
extern "C" {
#endif

/* Result of tsk_reader_next_piece. */
enum {
    TSK_IO_RECORD = 1,   /* a record (or a piece of one) was read */
    TSK_IO_EOF = 0,      /* no more records */
    TSK_IO_BAD = -1,     /* malformed or unreadable input: message in the error buffer */
    TSK_IO_SYSTEM = -2,  /* system failure (out of memory, read error): message in the buffer */
};

typedef struct tsk_reader tsk_reader;

/* Opens path ("-" = stdin) and checks that it looks like FASTA or FASTQ. Returns NULL with a
 * message such as "genome.fa: no such file", "x.fa: empty file", "x.bin: not FASTA or FASTQ
 * (binary data)". *code receives TSK_IO_BAD or TSK_IO_SYSTEM on failure.
 *
 * lut is the encode table (tsk_encode_table) with which a parallel reader cleans. For a regular
 * uncompressed FASTA file of more than one range of range_bytes (0: the default) and threads > 1,
 * the sequences are parsed and cleaned by threads workers (fasta_par.h); plain FASTA and plain
 * gzip FASTA are otherwise read by fasta_fast.h, and everything else (FASTQ, BGZF, stdin, pipes)
 * by htslib and kseq. The records are the same whichever way. */
tsk_reader *tsk_reader_open_par(const char *path, int threads, const uint8_t lut[256], size_t range_bytes, int *code,
                                char *err, size_t errlen);

/* A record, or a piece of one, as tsk_reader_next_piece gives it. Either codes (cleaned with the
 * reader's table) or text is set. Views owned by the reader, valid until the next call. */
typedef struct {
    const char *name;       /* NUL-terminated name of the record: the header's first word */
    size_t name_len;
    const uint8_t *codes;   /* cleaned codes, or NULL: then text */
    size_t n_codes;
    /* The sequence characters as in the file, line breaks ('\n', '\r') possibly still in (the
     * plain FASTA paths do not copy the sequence to drop them: tsk_encode drops them anyway); not
     * NUL-terminated. */
    const char *text;
    size_t text_len;
    size_t raw_len;         /* characters of the piece other than '\n' and '\r' */
    int starts_record;      /* 1: a record's first piece; 0: more of the last record */
} tsk_seq_piece;

/* Next piece: TSK_IO_RECORD, TSK_IO_EOF, or an error code with a message naming the file and,
 * where it helps, the record ("x.fq: record 'r7': quality length 99 differs from sequence length
 * 100", "x.fa.gz: truncated or corrupt gzip data"). A file that ends before its first record gives
 * "x.fa: no records". From a parallel reader a record may come in several pieces of codes; from
 * any other a whole record comes as one piece of text. */
int tsk_reader_next_piece(tsk_reader *r, tsk_seq_piece *piece, char *err, size_t errlen);

/* Writes the codes of the piece tsk_reader_next_piece gave last to dst (n bytes), possibly later
 * and by another thread (the parallel reader's workers): dst must not move or be read until
 * tsk_reader_sync. */
void tsk_reader_copy_codes(tsk_reader *r, const uint8_t *codes, size_t n, uint8_t *dst);

/* Waits until the copies of tsk_reader_copy_codes are done. */
void tsk_reader_sync(tsk_reader *r);

void tsk_reader_close(tsk_reader *r);

/* One input named on the command line or in a list file. */
typedef struct {
    char *path;   /* file path or "-" */
    char *name;   /* name given by a 'name<TAB>path' line, else NULL */
} tsk_input;

/* Reads a list file: one path per line, or 'name<TAB>path'; blank lines and '#' comments skipped;
 * relative paths are taken as they are (relative to the working directory). Appends to *inputs
 * (realloc'd), updating *n. Returns 0, or TSK_IO_BAD / TSK_IO_SYSTEM with a message. */
int tsk_input_list_read(const char *list_path, tsk_input **inputs, size_t *n, char *err, size_t errlen);

void tsk_inputs_free(tsk_input *inputs, size_t n);

/* Base name of a path without directories and without the sequence-file extensions
 * (.gz/.bgz/.bgzf, then .fa/.fasta/.fna/.ffn/.faa/.fas/.fsa/.fsa_nt/.fq/.fastq, in any case):
 * "dir/x.fna.gz" -> "x". Returns a malloc'd string. Names --per-file sketches, and matches the
 * names of a quality file to genomes (quality.h). */
char *tsk_path_stem(const char *path);

#ifdef __cplusplus
}
#endif
#endif
