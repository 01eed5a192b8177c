/* bgzf_stream.c: BGZF behind a stdio stream (see bgzf_stream.h). */
#include "bgzf_stream.h"

#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hts.h>
#include <string.h>
#include <unistd.h>

int tsk_path_wants_bgzf(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

static ssize_t bgzf_cookie_write(void *cookie, const char *buf, size_t size)
{
    ssize_t n = bgzf_write(cookie, buf, size);
    if (n < 0 || (size_t)n != size) {
        errno = errno ? errno : EIO;
        return -1;
    }
    return n;
}

static int bgzf_cookie_close(void *cookie) { return bgzf_close(cookie) == 0 ? 0 : EOF; }

FILE *tsk_bgzf_fdopen(int fd)
{
    /* htslib would print "[E::bgzf_flush] File write failed" itself on every failed block (a full
     * disk: one line a block); the write fails through the stream instead, and its writer reports
     * it once, naming the file ("x.tsv.gz: write failed: No space left on device") */
    hts_set_log_level(HTS_LOG_OFF);
    /* BGZF gets a duplicate, so that a failure here leaves the caller's fd as it was */
    int own = dup(fd);
    if (own < 0) return NULL;
    BGZF *z = bgzf_dopen(own, "w");
    if (!z) {
        int e = errno;
        close(own);
        errno = e ? e : ENOMEM;
        return NULL;
    }
    cookie_io_functions_t io = {.read = NULL, .write = bgzf_cookie_write, .seek = NULL, .close = bgzf_cookie_close};
    FILE *fp = fopencookie(z, "w", io);
    if (!fp) {
        int e = errno;
        bgzf_close(z);
        errno = e;
        return NULL;
    }
    close(fd);
    return fp;
}
