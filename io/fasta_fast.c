/* fasta_fast.c: see fasta_fast.h. The comments name the kseq step each rule reproduces. */
#include "fasta_fast.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIRST_BUFFER (1u << 20)   /* few system calls, and a buffer that stays in cache while it is cleaned */

/* isspace() of the C locale: kseq ends the name at the first of these. */
static int name_end(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static size_t count_byte(const char *p, size_t n, char c)
{
    size_t k = 0;
    for (const char *q = memchr(p, c, n); q; q = memchr(q + 1, c, n - (size_t)(q + 1 - p))) k++;
    return k;
}

int tsk_fasta_parse(const char *p, size_t n, int at_eof, tsk_fasta_view *v, size_t *used)
{
    /* kseq: a header character with nothing after it ends the input (ks_getuntil finds no byte) */
    if (n <= 1) return at_eof ? TSK_FASTA_END : TSK_FASTA_MORE;
    size_t j = 1;
    while (j < n && !name_end((unsigned char)p[j])) j++;
    if (j == n && !at_eof) return TSK_FASTA_MORE;
    v->name = p + 1;
    v->name_len = j - 1;
    size_t k = j + 1;
    if (j == n) {
        k = n;
    } else if (p[j] != '\n') { /* the rest of the header line is the comment */
        const char *nl = memchr(p + k, '\n', n - k);
        if (!nl && !at_eof) return TSK_FASTA_MORE;
        k = nl ? (size_t)(nl - p) + 1 : n;
    }
    /* Sequence lines: up to a line starting with '>', '@' or '+', empty lines skipped. */
    size_t text_start = k, text_end = k, chars = 0;
    int stop = -1;
    for (;;) {
        if (k >= n) {
            if (!at_eof) return TSK_FASTA_MORE;
            break;
        }
        char c = p[k];
        if (c == '>' || c == '@' || c == '+') {
            stop = c;
            break;
        }
        if (c == '\n') {
            k++;
            continue;
        }
        const char *nl = memchr(p + k, '\n', n - k);
        if (!nl) {
            if (!at_eof) return TSK_FASTA_MORE;
            chars += n - k;
            text_end = k = n;
            continue;
        }
        size_t e = (size_t)(nl - p);
        chars += e - k;
        text_end = e;
        k = e + 1;
    }
    v->text = p + text_start;
    v->text_len = text_end - text_start;
    v->seq_len = chars - count_byte(v->text, v->text_len, '\r');
    v->stop = stop;
    *used = k < n ? k : n;
    return TSK_FASTA_RECORD;
}

struct tsk_fasta_file {
    int fd;                 /* -1: the whole file is in buf */
    char *buf;
    size_t cap, beg, end;   /* unread bytes: buf[beg..end) */
    int at_eof;
};

tsk_fasta_file *tsk_fasta_open(int fd, size_t start)
{
    tsk_fasta_file *f = calloc(1, sizeof *f);
    if (!f || !(f->buf = malloc(FIRST_BUFFER))) {
        free(f);
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    f->fd = fd;
    f->cap = FIRST_BUFFER;
    if (lseek(fd, (off_t)start, SEEK_SET) != (off_t)start) {
        int e = errno;
        tsk_fasta_close(f);
        errno = e;
        return NULL;
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return f;
}

tsk_fasta_file *tsk_fasta_open_memory(char *buf, size_t n, size_t start)
{
    tsk_fasta_file *f = calloc(1, sizeof *f);
    if (!f) {
        free(buf);
        errno = ENOMEM;
        return NULL;
    }
    *f = (tsk_fasta_file){-1, buf, n, start < n ? start : n, n, 1};
    return f;
}

/* Keeps buf[beg..end), moved to the front, and reads until the buffer is full or the file ends;
 * a buffer that is full of one record doubles. Returns 0 or -1 (errno set). */
static int refill(tsk_fasta_file *f)
{
    if (f->fd < 0) { /* all of it was here, at_eof set: tsk_fasta_parse never asks for more */
        errno = EIO;
        return -1;
    }
    if (f->beg > 0) {
        memmove(f->buf, f->buf + f->beg, f->end - f->beg);
        f->end -= f->beg;
        f->beg = 0;
    }
    if (f->end == f->cap) {
        char *grown = realloc(f->buf, 2 * f->cap);
        if (!grown) {
            errno = ENOMEM;
            return -1;
        }
        f->buf = grown;
        f->cap *= 2;
    }
    while (f->end < f->cap) {
        ssize_t got = read(f->fd, f->buf + f->end, f->cap - f->end);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (got == 0) {
            f->at_eof = 1;
            break;
        }
        f->end += (size_t)got;
    }
    return 0;
}

int tsk_fasta_next(tsk_fasta_file *f, tsk_fasta_view *v)
{
    for (;;) {
        size_t used = 0;
        int rc = tsk_fasta_parse(f->buf + f->beg, f->end - f->beg, f->at_eof, v, &used);
        if (rc == TSK_FASTA_RECORD) f->beg += used;
        if (rc != TSK_FASTA_MORE) return rc;
        if (refill(f) != 0) return -1;
    }
}

void tsk_fasta_close(tsk_fasta_file *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    free(f->buf);
    free(f);
}
