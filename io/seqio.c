/* seqio.c: FASTA/FASTQ records through htslib's BGZF layer (plain, gzip, BGZF, stdin) and kseq,
 * or, for a regular FASTA file, uncompressed or plain gzip of bounded size (decompressed whole by
 * gunzip.c), through fasta_fast.c (same records, several times faster: large reads and memchr
 * instead of kseq's per-character loop), or, uncompressed with several threads, fasta_par.c. One
 * way in (tsk_reader_open_par) and one way out (tsk_reader_next_piece) for all of them.
 *
 * kseq is fast and small but silent about bad input: it skips anything before the first '>'/'@',
 * treats a FASTQ record cut before its '+' line as FASTA and cannot see read errors. So the first
 * bytes are sniffed here before kseq sees them, the read callback records I/O errors instead of
 * passing them on, and each record is checked against the kind of file it came from. */
#include "seqio.h"
#include "io_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <htslib/kseq.h>
#include <zlib.h>

#include "fasta_fast.h"
#include "fasta_par.h"
#include "gunzip.h"
#include "tsk_file.h"

#define SNIFF_BYTES 1024        /* first decompressed bytes checked for binary data */
#define KSTREAM_BUFSIZE 65536

struct tsk_reader {
    BGZF *fp;
    char *display;              /* path as the messages show it ("stdin" for "-") */
    int is_fastq;               /* from the first header character */
    int read_error;             /* set by the read callback: 0, or the TSK_IO_* code */
    char read_msg[256];
    unsigned char *pending;     /* sniffed bytes not yet handed to kseq */
    size_t pending_len, pending_pos;
    int64_t count;
    void *ks;                   /* kseq_t (its type is local to this file) */
    tsk_fasta_file *fast;       /* set instead of fp/ks for a plain FASTA file */
    tsk_fasta_par *par;         /* or this, with several parse threads (tsk_reader_open_par) */
    int par_threads;            /* asked for by tsk_reader_open_par, with its table and range */
    const uint8_t *par_lut;
    size_t par_range;
    char *name_buf;             /* NUL-terminated copy of the fast path's name view */
    size_t name_cap;
};

static int reader_fill(tsk_reader *r, void *buf, int len);

/* After a failed bgzf_read: htslib flags premature end of compressed data as an I/O error too,
 * but leaves errno 0 then; only a real read error sets errno. Returns the TSK_IO_* code. */
static int describe_failure(const tsk_reader *r, int saved_errno, char *msg, size_t len)
{
    int comp = bgzf_compression(r->fp);
    if ((r->fp->errcode & BGZF_ERR_IO) && saved_errno) {
        snprintf(msg, len, "read error: %s", strerror(saved_errno));
        return TSK_IO_SYSTEM;
    }
    if (comp == 0)
        snprintf(msg, len, "read error");
    else
        snprintf(msg, len, "truncated or corrupt %s data", comp == 2 ? "BGZF" : "gzip");
    return TSK_IO_BAD;
}

/* KSEQ_INIT with a 64 KiB buffer instead of 16 KiB (fewer callbacks on long records). */
KSTREAM_INIT(tsk_reader *, reader_fill, KSTREAM_BUFSIZE)
__KSEQ_TYPE(tsk_reader *)
__KSEQ_BASIC(static, tsk_reader *)
__KSEQ_READ(static)

/* kseq treats a negative return as data, so errors are kept aside and reported as end of input;
 * next_kseq checks read_error after every record. */
static int reader_fill(tsk_reader *r, void *buf, int len)
{
    if (r->pending_pos < r->pending_len) {
        size_t n = r->pending_len - r->pending_pos;
        if (n > (size_t)len) n = (size_t)len;
        memcpy(buf, r->pending + r->pending_pos, n);
        r->pending_pos += n;
        if (r->pending_pos == r->pending_len) {
            free(r->pending);
            r->pending = NULL;
            r->pending_len = r->pending_pos = 0;
        }
        return (int)n;
    }
    if (r->read_error) return 0;
    errno = 0;
    ssize_t got = bgzf_read(r->fp, buf, (size_t)len);
    if (got < 0) {
        r->read_error = describe_failure(r, errno, r->read_msg, sizeof r->read_msg);
        return 0;
    }
    return (int)got;
}

static void quiet_htslib(void)
{
    /* Every message the user sees is ours; htslib would otherwise print its own to stderr. */
    hts_set_log_level(HTS_LOG_OFF);
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Control characters other than whitespace do not occur in sequence text; bytes >= 0x80 do
 * (UTF-8 in headers), so they are allowed. */
static int is_binary_byte(unsigned char c) { return c == 0x7F || (c < 0x20 && !is_blank(c)); }

/* Why binary data is not sequence: a sketch file handed to `sketch` gets a hint, not a shrug. A
 * sketch file through a pipe or stdin (piped) reached the sequence reader because only regular
 * files are probed for sketches (tsk_file.h, tsk_file_is_sketch): sketch files are mapped, so it
 * must be given as a file. */
static const char *binary_reason(const unsigned char *head, size_t n, int piped)
{
    if (n >= TSK_FILE_MAGIC_LEN && !memcmp(head, TSK_FILE_MAGIC, TSK_FILE_MAGIC_LEN))
        return piped ? "a .tsk sketch file through a pipe or stdin: give sketch files as files (they are mapped, "
                       "not streamed)"
                     : "a tsketch sketch file, not sequences (sketch files go to dist, triangle, tree, plot, "
                       "cluster, paste, info or export)";
    return "not FASTA or FASTQ (binary data)";
}

/* Reads up to want bytes into buf, looping over short reads. Returns bytes read or -1. */
static ssize_t read_full(BGZF *fp, unsigned char *buf, size_t want)
{
    size_t have = 0;
    while (have < want) {
        ssize_t got = bgzf_read(fp, buf + have, want - have);
        if (got < 0) return -1;
        if (got == 0) break;
        have += (size_t)got;
    }
    return (ssize_t)have;
}

static tsk_reader *fail_open(tsk_reader *r, int *code, int c)
{
    if (code) *code = c;
    tsk_reader_close(r);
    return NULL;
}

static int set_read_failure(tsk_reader *r, int saved_errno, char *err, size_t errlen)
{
    char msg[256];
    int code = describe_failure(r, saved_errno, msg, sizeof msg);
    tsk_io_set_err(err, errlen, "%s: %s", r->display, msg);
    return code;
}

/* Index of the first non-blank byte of p[0..n) when it is '>' and no byte of the first
 * SNIFF_BYTES is binary; -1 otherwise (the htslib path then reads the file and says why). */
static ssize_t fasta_start(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n && i < SNIFF_BYTES; i++)
        if (is_binary_byte(p[i])) return -1;
    size_t i = 0;
    while (i < n && is_blank(p[i])) i++;
    return i < n && p[i] == '>' ? (ssize_t)i : -1;
}

/* A regular gzip file (not BGZF) of FASTA, decompressed whole (gunzip.h) and parsed by
 * fasta_fast.c. Takes fd over. The first member's first bytes are inflated with zlib to see
 * whether the text is FASTA before the whole file is: FASTQ and anything else stream through
 * htslib (the records and messages of which are the reference). Returns as try_fast_open. */
static int try_gzip_open(tsk_reader *r, int fd, size_t size, const unsigned char *head, size_t n_head, char *err,
                         size_t errlen)
{
    unsigned char peek[SNIFF_BYTES];
    z_stream z = {0};
    int fasta = 0;
    if (!tsk_gzip_is_bgzf(head, n_head) && size <= TSK_GUNZIP_MAX_INPUT && inflateInit2(&z, 16 + MAX_WBITS) == Z_OK) {
        z.next_in = (unsigned char *)head;
        z.avail_in = (unsigned)n_head;
        z.next_out = peek;
        z.avail_out = sizeof peek;
        int zr = inflate(&z, Z_NO_FLUSH);
        /* a whole first KB, or a first member that ends sooner: enough to tell */
        if ((zr == Z_OK && z.avail_out == 0) || zr == Z_STREAM_END) fasta = fasta_start(peek, sizeof peek - z.avail_out) >= 0;
        inflateEnd(&z);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = fasta ? tsk_gunzip_whole(fd, size, &text, &len) : 0;
    close(fd);
    if (rc < 0) {
        tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        return -2;
    }
    ssize_t start = rc == 1 ? fasta_start((const unsigned char *)text, len) : -1;
    if (start < 0) { /* not decompressed, or not all of it as its start promised */
        free(text);
        return 0;
    }
    if (!(r->fast = tsk_fasta_open_memory(text, len, (size_t)start))) {
        tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        return -2;
    }
    return 1;
}

/* The fast path takes a regular file whose first bytes are not gzip's magic and whose first
 * non-blank character opens a FASTA record; anything else (FASTQ, compressed data, a file that
 * cannot be opened or read here) goes to htslib, which also gives the messages for it. Applies the
 * same binary-data check as the htslib path. Returns 1 when taken, 0 when not, -1 (TSK_IO_BAD) or
 * -2 (TSK_IO_SYSTEM) with a message. */
static int try_fast_open(tsk_reader *r, const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    unsigned char head[4096];
    ssize_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        size_t have = 0;
        while (have < sizeof head) {
            ssize_t k = pread(fd, head + have, sizeof head - have, (off_t)have);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) {
                if (k < 0) have = (size_t)-1;
                break;
            }
            have += (size_t)k;
        }
        got = have == (size_t)-1 ? -1 : (ssize_t)have;
    }
    if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b) return try_gzip_open(r, fd, (size_t)st.st_size, head, (size_t)got, err, errlen);
    if (got < 2) {
        close(fd);
        return 0;
    }
    for (ssize_t i = 0; i < got && i < SNIFF_BYTES; i++)
        if (is_binary_byte(head[i])) {
            close(fd);
            tsk_io_set_err(err, errlen, "%s: %s", r->display, binary_reason(head, (size_t)got, 0));
            return -1;
        }
    ssize_t i = 0;
    while (i < got && is_blank(head[i])) i++;
    if (i == got || head[i] != '>') {
        close(fd);
        return 0;
    }
    size_t range = r->par_range ? r->par_range : (size_t)TSK_FASTA_PAR_RANGE;
    if (r->par_threads > 1 && (size_t)st.st_size - (size_t)i > range) { /* more than one range */
        if (!(r->par = tsk_fasta_par_open(fd, (size_t)i, (size_t)st.st_size, r->par_lut, r->par_threads, range,
                                          r->display))) {
            tsk_io_set_err(err, errlen, "%s: %s", r->display,
                           errno == ENOMEM ? "out of memory" : "cannot start the parse threads");
            return -2;
        }
        return 1;
    }
    if (!(r->fast = tsk_fasta_open(fd, (size_t)i))) {
        tsk_io_set_err(err, errlen, "%s: %s", r->display, errno == ENOMEM ? "out of memory" : strerror(errno));
        return -2;
    }
    return 1;
}

tsk_reader *tsk_reader_open_par(const char *path, int threads, const uint8_t lut[256], size_t range_bytes, int *code,
                                char *err, size_t errlen)
{
    quiet_htslib();
    int is_stdin = strcmp(path, "-") == 0, regular = 0;
    tsk_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->par_threads = threads;
        r->par_lut = lut;
        r->par_range = range_bytes;
    }
    if (!r || !(r->display = strdup(is_stdin ? "stdin" : path))) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        free(r);
        if (code) *code = TSK_IO_SYSTEM;
        return NULL;
    }
    if (!is_stdin) {
        struct stat st;
        if (stat(path, &st) != 0) {
            if (errno == ENOENT)
                tsk_io_set_err(err, errlen, "%s: no such file", path);
            else
                tsk_io_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
            return fail_open(r, code, TSK_IO_BAD);
        }
        if (S_ISDIR(st.st_mode)) {
            tsk_io_set_err(err, errlen, "%s: is a directory, not a sequence file", path);
            return fail_open(r, code, TSK_IO_BAD);
        }
        if (S_ISREG(st.st_mode) && st.st_size == 0) {
            tsk_io_set_err(err, errlen, "%s: empty file", path);
            return fail_open(r, code, TSK_IO_BAD);
        }
        regular = S_ISREG(st.st_mode);
    }
    if (regular) { /* never a FIFO: opening it twice would lose its data */
        int fast = try_fast_open(r, path, err, errlen);
        if (fast == 1) return r;
        if (fast < 0) return fail_open(r, code, TSK_IO_BAD);
        if (fast == -2) return fail_open(r, code, TSK_IO_SYSTEM);
    }
    errno = 0;
    r->fp = is_stdin ? bgzf_dopen(STDIN_FILENO, "r") : bgzf_open(path, "r");
    if (!r->fp) {
        int e = errno;
        if (e == ENOENT)
            tsk_io_set_err(err, errlen, "%s: no such file", r->display);
        else if (e == EACCES)
            tsk_io_set_err(err, errlen, "%s: cannot open: %s", r->display, strerror(e));
        else
            tsk_io_set_err(err, errlen, "%s: cannot open%s%s", r->display, e ? ": " : "", e ? strerror(e) : " (unreadable data)");
        return fail_open(r, code, e == ENOENT || e == EACCES || !e ? TSK_IO_BAD : TSK_IO_SYSTEM);
    }
    /* A BGZF file cut at a block boundary decompresses cleanly; only its missing end-of-file
     * block tells. (Not checkable on pipes, where bgzf_check_EOF answers 2.) */
    if (!is_stdin && bgzf_compression(r->fp) == 2 && bgzf_check_EOF(r->fp) == 0) {
        tsk_io_set_err(err, errlen, "%s: truncated BGZF data (end-of-file marker missing)", r->display);
        return fail_open(r, code, TSK_IO_BAD);
    }

    /* Sniff: the first SNIFF_BYTES decompressed bytes must be text, and the first non-blank
     * character must open a record. Whitespace-only stretches are read past (and dropped). */
    unsigned char *buf = malloc(SNIFF_BYTES);
    if (!buf) {
        tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        return fail_open(r, code, TSK_IO_SYSTEM);
    }
    int64_t total = 0;
    for (;;) {
        errno = 0;
        ssize_t got = read_full(r->fp, buf, SNIFF_BYTES);
        if (got < 0) {
            int e = errno;
            free(buf);
            return fail_open(r, code, set_read_failure(r, e, err, errlen));
        }
        if (total == 0) {
            for (ssize_t i = 0; i < got; i++)
                if (is_binary_byte(buf[i])) {
                    tsk_io_set_err(err, errlen, "%s: %s", r->display, binary_reason(buf, (size_t)got, !regular));
                    free(buf);
                    return fail_open(r, code, TSK_IO_BAD);
                }
        }
        if (got == 0) {
            free(buf);
            if (total == 0)
                tsk_io_set_err(err, errlen, "%s: empty file%s", r->display,
                        bgzf_compression(r->fp) ? " (after decompression)" : "");
            else
                tsk_io_set_err(err, errlen, "%s: no records", r->display);
            return fail_open(r, code, TSK_IO_BAD);
        }
        total += got;
        ssize_t i = 0;
        while (i < got && is_blank(buf[i])) i++;
        if (i == got) continue;
        if (buf[i] != '>' && buf[i] != '@') {
            tsk_io_set_err(err, errlen, "%s: not FASTA or FASTQ (first character '%c' is neither '>' nor '@')",
                    r->display, buf[i]);
            free(buf);
            return fail_open(r, code, TSK_IO_BAD);
        }
        r->is_fastq = buf[i] == '@';
        r->pending = buf;
        r->pending_pos = (size_t)i;
        r->pending_len = (size_t)got;
        break;
    }
    r->ks = kseq_init(r);
    if (!r->ks || !((kseq_t *)r->ks)->f || !((kseq_t *)r->ks)->f->buf) {
        tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        return fail_open(r, code, TSK_IO_SYSTEM);
    }
    return r;
}

/* Removes CR characters in place (CRLF files); kseq strips most but not a lone "\r" line. */
static size_t strip_cr(char *s, size_t n)
{
    char *p = memchr(s, '\r', n);
    if (!p) return n;
    size_t j = (size_t)(p - s);
    for (size_t i = j; i < n; i++)
        if (s[i] != '\r') s[j++] = s[i];
    s[j] = '\0';
    return j;
}

/* Grows *buf to hold need bytes. Returns 0 or -1. */
static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 256;
    while (n < need) n *= 2;
    char *q = realloc(*buf, n);
    if (!q) return -1;
    *buf = q;
    *cap = n;
    return 0;
}

/* The fast path's next record, with the checks next_kseq makes of kseq's, as one piece: its text
 * is the view into the file (line breaks in), its name a NUL-terminated copy. */
static int next_fast(tsk_reader *r, tsk_seq_piece *piece, char *err, size_t errlen)
{
    tsk_fasta_view v;
    errno = 0;
    int rc = tsk_fasta_next(r->fast, &v);
    if (rc < 0) {
        if (errno == ENOMEM)
            tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        else
            tsk_io_set_err(err, errlen, "%s: read error: %s", r->display, strerror(errno));
        return TSK_IO_SYSTEM;
    }
    if (rc == TSK_FASTA_END) {
        if (r->count == 0) {
            tsk_io_set_err(err, errlen, "%s: no records", r->display);
            return TSK_IO_BAD;
        }
        return TSK_IO_EOF;
    }
    if (reserve(&r->name_buf, &r->name_cap, v.name_len + 1)) {
        tsk_io_set_err(err, errlen, "%s: out of memory", r->display);
        return TSK_IO_SYSTEM;
    }
    memcpy(r->name_buf, v.name, v.name_len);
    r->name_buf[v.name_len] = '\0';
    if (v.stop == '+') {
        tsk_io_set_err(err, errlen, "%s: record '%s': FASTQ '+' line in a FASTA file", r->display, r->name_buf);
        return TSK_IO_BAD;
    }
    r->count++;
    *piece = (tsk_seq_piece){r->name_buf, v.name_len, NULL, 0, v.text, v.text_len, v.seq_len, 1};
    return TSK_IO_RECORD;
}

/* The htslib path's next record, checked against the kind of file it came from (kseq's own
 * return values miss truncated and malformed FASTQ), as one piece of text without line breaks. */
static int next_kseq(tsk_reader *r, tsk_seq_piece *piece, char *err, size_t errlen)
{
    kseq_t *ks = r->ks;
    ks->seq.l = 0;
    ks->qual.l = 0;
    ks->name.l = 0;
    int ret = kseq_read(ks);
    if (r->read_error) {
        tsk_io_set_err(err, errlen, "%s: %s", r->display, r->read_msg);
        return r->read_error;
    }
    /* kseq returns the length as an int: a record of 2^32-1 characters would read as -1 (EOF);
     * seq.l (a size_t) tells them apart. */
    if (ret == -1 && (int)ks->seq.l != -1) {
        if (r->count == 0) {
            tsk_io_set_err(err, errlen, "%s: no records", r->display);
            return TSK_IO_BAD;
        }
        return TSK_IO_EOF;
    }
    const char *name = ks->name.s ? ks->name.s : "";
    if (ret == -3) {
        tsk_io_set_err(err, errlen, "%s: record '%s': sequence too long", r->display, name);
        return TSK_IO_BAD;
    }
    ks->seq.l = strip_cr(ks->seq.s, ks->seq.l);
    if (r->is_fastq) {
        if (ret == -2 || ks->qual.l != 0 || ks->last_char == 0) {
            /* a '+' line was seen */
            size_t ql = ks->qual.s ? strip_cr(ks->qual.s, ks->qual.l) : 0;
            if (ret == -2 && ks_eof(ks->f) && ql < ks->seq.l) {
                tsk_io_set_err(err, errlen, "%s: record '%s': truncated FASTQ record (end of file after %zu of %zu quality characters)",
                        r->display, name, ql, ks->seq.l);
                return TSK_IO_BAD;
            }
            if (ql != ks->seq.l) {
                tsk_io_set_err(err, errlen, "%s: record '%s': quality length %zu differs from sequence length %zu",
                        r->display, name, ql, ks->seq.l);
                return TSK_IO_BAD;
            }
        } else {
            if (ks_eof(ks->f))
                tsk_io_set_err(err, errlen, "%s: record '%s': truncated FASTQ record (no '+' line)", r->display, name);
            else
                tsk_io_set_err(err, errlen, "%s: record '%s': FASTQ record without a '+' line", r->display, name);
            return TSK_IO_BAD;
        }
    } else if (ret == -2 || ks->last_char == 0) {
        tsk_io_set_err(err, errlen, "%s: record '%s': FASTQ '+' line in a FASTA file", r->display, name);
        return TSK_IO_BAD;
    }
    r->count++;
    *piece = (tsk_seq_piece){name, ks->name.l, NULL, 0, ks->seq.s, ks->seq.l, ks->seq.l, 1};
    return TSK_IO_RECORD;
}

int tsk_reader_next_piece(tsk_reader *r, tsk_seq_piece *piece, char *err, size_t errlen)
{
    if (r->par) {
        tsk_fasta_piece fp;
        int rc = tsk_fasta_par_next(r->par, &fp, err, errlen);
        if (rc == TSK_IO_RECORD)
            *piece = (tsk_seq_piece){fp.name, fp.name_len, fp.codes, fp.n_codes, NULL, 0, fp.raw_len, fp.starts_record};
        return rc;
    }
    return r->fast ? next_fast(r, piece, err, errlen) : next_kseq(r, piece, err, errlen);
}

void tsk_reader_copy_codes(tsk_reader *r, const uint8_t *codes, size_t n, uint8_t *dst)
{
    if (r->par)
        tsk_fasta_par_copy(r->par, codes, n, dst);
    else if (n)
        memcpy(dst, codes, n);
}

void tsk_reader_sync(tsk_reader *r)
{
    if (r->par) tsk_fasta_par_sync(r->par);
}

void tsk_reader_close(tsk_reader *r)
{
    if (!r) return;
    if (r->ks) kseq_destroy(r->ks);
    tsk_fasta_close(r->fast);
    tsk_fasta_par_close(r->par);
    free(r->name_buf);
    if (r->fp) bgzf_close(r->fp);
    free(r->pending);
    free(r->display);
    free(r);
}

/* ---- input lists ---- */

/* Strips spaces (and, with eol, the line end) around s; tabs inside are kept as separators. */
static char *trim(char *s, int eol)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || (eol && (s[n - 1] == '\n' || s[n - 1] == '\r')))) s[--n] = '\0';
    while (*s == ' ') s++;
    return s;
}

static int all_blank(const char *s)
{
    while (*s && is_blank((unsigned char)*s)) s++;
    return *s == '\0';
}

int tsk_input_list_read(const char *list_path, tsk_input **inputs, size_t *n, char *err, size_t errlen)
{
    int is_stdin = strcmp(list_path, "-") == 0;
    const char *shown = is_stdin ? "stdin" : list_path;
    FILE *fp = is_stdin ? stdin : fopen(list_path, "r");
    if (!fp) {
        if (errno == ENOENT)
            tsk_io_set_err(err, errlen, "%s: no such file", list_path);
        else
            tsk_io_set_err(err, errlen, "%s: cannot open: %s", list_path, strerror(errno));
        return TSK_IO_BAD;
    }
    char *line = NULL;
    size_t cap = 0, added = 0, old_n = *n;
    long lineno = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            tsk_io_set_err(err, errlen, "%s:%ld: binary data in a list of paths", shown, lineno);
            rc = TSK_IO_BAD;
            break;
        }
        char *s = trim(line, 1);
        if (all_blank(s) || *s == '#') continue;
        char *name = NULL, *path = s, *tab = strchr(s, '\t');
        if (tab) {
            *tab = '\0';
            name = trim(s, 0);
            path = trim(tab + 1, 0);
            if (strchr(path, '\t')) {
                tsk_io_set_err(err, errlen, "%s:%ld: expected 'path' or 'name<TAB>path', found more than one tab", shown, lineno);
                rc = TSK_IO_BAD;
                break;
            }
            if (!*name || !*path) {
                tsk_io_set_err(err, errlen, "%s:%ld: empty %s in 'name<TAB>path'", shown, lineno, *name ? "path" : "name");
                rc = TSK_IO_BAD;
                break;
            }
            if (tsk_name_problem(name)) { /* a CR inside the line: the names of outputs are lines */
                tsk_io_set_err(err, errlen, "%s:%ld: %s", shown, lineno, tsk_name_problem(name));
                rc = TSK_IO_BAD;
                break;
            }
        }
        tsk_input *grown = realloc(*inputs, (*n + 1) * sizeof **inputs);
        if (!grown) {
            tsk_io_set_err(err, errlen, "%s: out of memory", shown);
            rc = TSK_IO_SYSTEM;
            break;
        }
        *inputs = grown;
        tsk_input *in = &grown[*n];
        in->path = strdup(path);
        in->name = name ? strdup(name) : NULL;
        if (!in->path || (name && !in->name)) {
            free(in->path);
            free(in->name);
            tsk_io_set_err(err, errlen, "%s: out of memory", shown);
            rc = TSK_IO_SYSTEM;
            break;
        }
        (*n)++;
        added++;
    }
    if (rc == 0 && ferror(fp)) {
        tsk_io_set_err(err, errlen, "%s: read error: %s", shown, strerror(errno));
        rc = TSK_IO_SYSTEM;
    }
    if (rc == 0 && added == 0) {
        tsk_io_set_err(err, errlen, "%s: no paths in the list", shown);
        rc = TSK_IO_BAD;
    }
    free(line);
    if (!is_stdin) fclose(fp);
    if (rc != 0) {
        /* leave *inputs as it was before this call */
        for (size_t i = old_n; i < *n; i++) {
            free((*inputs)[i].path);
            free((*inputs)[i].name);
        }
        *n = old_n;
    }
    return rc;
}

void tsk_inputs_free(tsk_input *inputs, size_t n)
{
    if (!inputs) return;
    for (size_t i = 0; i < n; i++) {
        free(inputs[i].path);
        free(inputs[i].name);
    }
    free(inputs);
}

static int strip_suffix(char *s, const char *const *suffixes)
{
    size_t n = strlen(s);
    for (int i = 0; suffixes[i]; i++) {
        size_t k = strlen(suffixes[i]);
        /* keep at least one character of the stem: ".fa" stays ".fa" */
        if (n > k && strcasecmp(s + n - k, suffixes[i]) == 0) {
            s[n - k] = '\0';
            return 1;
        }
    }
    return 0;
}

char *tsk_path_stem(const char *path)
{
    if (strcmp(path, "-") == 0) return strdup("stdin");
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--; /* "dir/" names dir */
    const char *base = path;
    for (size_t i = 0; i < n; i++)
        if (path[i] == '/' && i + 1 < n) base = path + i + 1;
    char *s = strndup(base, n - (size_t)(base - path));
    if (!s) return NULL;
    static const char *const compressed[] = {".gz", ".bgz", ".bgzf", NULL};
    static const char *const sequence[] = {".fasta", ".fa", ".fna", ".ffn", ".faa", ".fas", ".fsa", ".fsa_nt",
                                           ".fastq", ".fq", NULL};
    strip_suffix(s, compressed);
    strip_suffix(s, sequence);
    return s;
}
