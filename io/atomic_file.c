/* atomic_file.c: temporary files renamed into place (see atomic_file.h). */
#include "atomic_file.h"
#include "bgzf_stream.h"
#include "io_error.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SLOTS 64

/* Paths of live temporary files, for tsk_tmp_unlink_all. Pointers are published only once the
 * string is complete, so a signal handler sees either NULL or a whole path. */
static char *volatile tmp_slots[TMP_SLOTS];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;

static void tmp_register(char *p)
{
    pthread_mutex_lock(&tmp_lock);
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_slots[i]) {
            tmp_slots[i] = p;
            break;
        }
    pthread_mutex_unlock(&tmp_lock);
}

static void tmp_unregister(const char *p)
{
    pthread_mutex_lock(&tmp_lock);
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_slots[i] == p) tmp_slots[i] = NULL;
    pthread_mutex_unlock(&tmp_lock);
}

void tsk_tmp_unlink_all(void)
{
    for (int i = 0; i < TMP_SLOTS; i++) {
        char *p = tmp_slots[i];
        if (p) unlink(p);
    }
}

/* Outputs that cannot seek ("-", a device, a pipe) of writers that do: the writer gets an
 * unlinked temporary file, and commit copies it to the destination opened here. Indexed by the
 * temporary file's descriptor. */
static int spool_dest[TMP_SLOTS];
static int spool_tmp[TMP_SLOTS];
static int n_spools;

static int spool_take(int tmp_fd)
{
    for (int i = 0; i < n_spools; i++)
        if (spool_tmp[i] == tmp_fd) {
            int dest = spool_dest[i];
            spool_tmp[i] = spool_tmp[n_spools - 1];
            spool_dest[i] = spool_dest[n_spools - 1];
            n_spools--;
            return dest;
        }
    return -1;
}

/* An unlinked temporary file in $TMPDIR (or /tmp) for dest_fd, registered in the spool table. */
static int spool_open(const char *path, int dest_fd, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/tsketch-spool.XXXXXX", dir);
    int fd = n_spools < TMP_SLOTS ? mkostemp(tmpl, O_CLOEXEC) : -1;
    if (fd < 0) {
        tsk_io_set_err(err, errlen, "%s: cannot create a temporary file in %s to hold the output: %s", path, dir,
                       n_spools < TMP_SLOTS ? strerror(errno) : "too many open outputs");
        close(dest_fd);
        return -1;
    }
    unlink(tmpl); /* nothing to clean up, whatever ends the run */
    spool_tmp[n_spools] = fd;
    spool_dest[n_spools] = dest_fd;
    n_spools++;
    return fd;
}

/* Copies the spooled file tmp_fd to dest_fd from its start; closes both. 0 or -1 (errno set). */
static int spool_copy(int tmp_fd, int dest_fd)
{
    char buf[1 << 16];
    int rc = lseek(tmp_fd, 0, SEEK_SET) == 0 ? 0 : -1;
    while (rc == 0) {
        ssize_t n = read(tmp_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        rc = tsk_write_all(dest_fd, buf, (size_t)n);
    }
    int e = errno;
    close(tmp_fd);
    if (close(dest_fd) != 0 && rc == 0) e = errno, rc = -1;
    errno = e;
    return rc;
}

int tsk_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!strcmp(a, "-") || !strcmp(b, "-") || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
    return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int tsk_tmp_create(const char *path, int seeks, char **tmp_path, char *err, size_t errlen)
{
    *tmp_path = NULL;
    if (!strcmp(path, "-")) {
        int out = dup(STDOUT_FILENO);
        if (out < 0) {
            tsk_io_set_err(err, errlen, "standard output: cannot write: %s", strerror(errno));
            return -1;
        }
        return seeks ? spool_open("standard output", out, err, errlen) : out;
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* A directory as output would only fail at the final rename, after all the work. */
    struct stat st;
    const int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        tsk_io_set_err(err, errlen, "%s: is a directory (give a file name for the output)", path);
        free(tmp);
        return -1;
    }
    /* A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a finished
     * file over it would replace it, and run as root that replaces /dev/null itself. */
    if (exists && !S_ISREG(st.st_mode)) {
        free(tmp);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            tsk_io_set_err(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
            return -1;
        }
        return seeks ? spool_open(path, fd, err, errlen) : fd;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {
        /* left behind by a killed run that had our pid: it is ours to replace */
        unlink(tmp);
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) {
        tsk_io_set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    tmp_register(tmp);
    *tmp_path = tmp;
    return fd;
}

void tsk_tmp_discard(int fd, char *tmp_path)
{
    if (fd >= 0) {
        int dest = spool_take(fd);
        if (dest >= 0) close(dest);
        close(fd);
    }
    if (!tmp_path) return;
    unlink(tmp_path);
    tmp_unregister(tmp_path);
    free(tmp_path);
}

#define HELD_SLOTS 16
static int held_fds[HELD_SLOTS]; /* replaced outputs kept open (tsk_tmp_held_count), under tmp_lock */
static int n_held;

/* Opens the file about to be replaced at path and keeps it open to the end of the process (while
 * there is a slot): its unlink then only removes the name. */
static void hold_replaced(const char *path)
{
    pthread_mutex_lock(&tmp_lock);
    if (n_held < HELD_SLOTS) {
        const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) held_fds[n_held++] = fd;
    }
    pthread_mutex_unlock(&tmp_lock);
}

int tsk_tmp_held_count(void)
{
    pthread_mutex_lock(&tmp_lock);
    const int n = n_held;
    pthread_mutex_unlock(&tmp_lock);
    return n;
}

/* rename(2) of the finished file over an existing one of 1 MB or more, removing that one first: a
 * rename over a file makes ext4 (auto_da_alloc) write the new file's data back inside the rename,
 * 0.1-0.3 s for a few hundred MB after the last row. What a failure can leave is unchanged (the old
 * file until the finished one is complete; only the instant between the two calls has neither). */
static int move_into_place(const char *tmp_path, const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (1 << 20)) {
        hold_replaced(path);
        (void)unlink(path);
    }
    return rename(tmp_path, path);
}

int tsk_tmp_commit(int fd, char *tmp_path, const char *path, char *err, size_t errlen)
{
    int dest = spool_take(fd);
    if (dest >= 0) {
        if (spool_copy(fd, dest) == 0) return 0;
        tsk_io_set_err(err, errlen, "%s: write failed: %s", strcmp(path, "-") ? path : "standard output",
                       strerror(errno));
        return -1;
    }
    if (close(fd) != 0) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", path, strerror(errno));
        tsk_tmp_discard(-1, tmp_path);
        return -1;
    }
    if (!tmp_path) return 0;   /* written in place (a device or a pipe) */
    if (move_into_place(tmp_path, path) != 0) {
        tsk_io_set_err(err, errlen, "%s: cannot rename the finished output into place: %s", path, strerror(errno));
        tsk_tmp_discard(-1, tmp_path);
        return -1;
    }
    tmp_unregister(tmp_path);
    free(tmp_path);
    return 0;
}

/* write(2) (offset < 0) or pwrite(2) of all n bytes, retrying short writes and EINTR. */
static int write_fully(int fd, const void *buf, size_t n, long long offset)
{
    const char *p = buf;
    while (n) {
        ssize_t w = offset < 0 ? write(fd, p, n) : pwrite(fd, p, n, (off_t)offset);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        if (offset >= 0) offset += w;
    }
    return 0;
}

int tsk_write_all(int fd, const void *buf, size_t n) { return write_fully(fd, buf, n, -1); }

int tsk_pwrite_all(int fd, const void *buf, size_t n, long long offset)
{
    if (offset < 0) {
        errno = EINVAL;
        return -1;
    }
    return write_fully(fd, buf, n, offset);
}

struct tsk_atomic_file {
    FILE *fp;
    char *path;
    char *tmp_path;  /* NULL for stdout, and for a device or pipe written in place */
};

tsk_atomic_file *tsk_atomic_open(const char *path, char *err, size_t errlen)
{
    tsk_atomic_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        tsk_io_set_err(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        f->fp = stdout;
        return f;
    }
    int fd = tsk_tmp_create(path, 0, &f->tmp_path, err, errlen);
    if (fd < 0) {
        free(f->path);
        free(f);
        return NULL;
    }
    f->fp = tsk_path_wants_bgzf(path) ? tsk_bgzf_fdopen(fd) : fdopen(fd, "w");
    if (!f->fp) {
        tsk_io_set_err(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        tsk_tmp_discard(fd, f->tmp_path);
        free(f->path);
        free(f);
        return NULL;
    }
    setvbuf(f->fp, NULL, _IOFBF, 1 << 20);
    return f;
}

FILE *tsk_atomic_stream(tsk_atomic_file *f) { return f->fp; }

int tsk_atomic_commit(tsk_atomic_file *f, char *err, size_t errlen)
{
    int rc = 0;
    int bad = fflush(f->fp) != 0 || ferror(f->fp);
    int e = errno;
    /* fclose closes the descriptor; the rename below needs no descriptor */
    if (f->fp != stdout && fclose(f->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        tsk_io_set_err(err, errlen, "%s: write failed: %s", f->fp == stdout ? "stdout" : f->path, strerror(e));
        tsk_tmp_discard(-1, f->tmp_path);
        rc = -1;
    } else if (f->tmp_path && move_into_place(f->tmp_path, f->path) != 0) {
        tsk_io_set_err(err, errlen, "%s: cannot rename the finished output into place: %s", f->path, strerror(errno));
        tsk_tmp_discard(-1, f->tmp_path);
        rc = -1;
    } else if (f->tmp_path) {
        tmp_unregister(f->tmp_path);
        free(f->tmp_path);
    }
    free(f->path);
    free(f);
    return rc;
}

void tsk_atomic_abort(tsk_atomic_file *f)
{
    if (!f) return;
    if (f->fp != stdout) {
        fclose(f->fp);
        tsk_tmp_discard(-1, f->tmp_path);
    } else {
        fflush(f->fp);
    }
    free(f->path);
    free(f);
}
