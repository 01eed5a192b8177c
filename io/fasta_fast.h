/* fasta_fast.h: uncompressed FASTA from a regular file, without kseq's per-character loop.
 *
 * Big read()s into one buffer, then memchr for line ends: a record comes back as views into the
 * buffer, its sequence lines as one span with the line breaks left in (cleaning drops them
 * anyway, so nobody copies the sequence before it is encoded). The record semantics are kseq's,
 * exactly, so that seqio.c can use this for plain FASTA and htslib + kseq for everything else and
 * give the same records: name = the header up to the first isspace(), a line starting with '>'
 * or '@' opens the next record, a line starting with '+' ends the record (a FASTQ '+' line: an
 * error in a FASTA file), empty lines are skipped, CR is dropped anywhere in sequence lines, and
 * a header character that is the last byte of the file is no record. Knows no engine. */
#ifndef TSK_FASTA_FAST_H
#define TSK_FASTA_FAST_H

#include <stddef.h>

/* One record, as views into the parser's input (not NUL-terminated). */
typedef struct {
    const char *name;
    size_t name_len;
    const char *text;   /* sequence lines from the first to the last, line breaks included */
    size_t text_len;
    size_t seq_len;     /* characters of text other than '\n' and '\r' */
    int stop;           /* what ended it: '>' or '@' (next header), '+' (a '+' line), -1 (end) */
} tsk_fasta_view;

enum { TSK_FASTA_RECORD = 1, TSK_FASTA_END = 0, TSK_FASTA_MORE = 2 };

/* Parses the record at p[0] (a '>' or '@' header character) in p[0..n). at_eof says that no
 * byte follows p[n-1]. Returns TSK_FASTA_RECORD with *used = bytes up to the next header
 * character (or n), TSK_FASTA_END when no record starts here, or TSK_FASTA_MORE when the record
 * may go on beyond p[n-1] (call again with more bytes from the same p[0]). Pure: no state. */
int tsk_fasta_parse(const char *p, size_t n, int at_eof, tsk_fasta_view *v, size_t *used);

typedef struct tsk_fasta_file tsk_fasta_file;

/* Reads fd (a regular, uncompressed file; taken over and closed by tsk_fasta_close) from byte
 * offset start, where the first header character is. NULL when out of memory. */
tsk_fasta_file *tsk_fasta_open(int fd, size_t start);

/* Reads buf[start..n) (a whole decompressed file; taken over and freed by tsk_fasta_close),
 * where the first header character is at start. NULL (and buf freed) when out of memory. */
tsk_fasta_file *tsk_fasta_open_memory(char *buf, size_t n, size_t start);

/* Next record: TSK_FASTA_RECORD (views valid until the next call), TSK_FASTA_END, or -1 on a read
 * error (errno set) or when out of memory (errno ENOMEM). */
int tsk_fasta_next(tsk_fasta_file *f, tsk_fasta_view *v);

void tsk_fasta_close(tsk_fasta_file *f);

#endif
