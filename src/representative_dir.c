/* representative_dir.c: the representatives' FASTA files as links or copies in a directory made
 * whole or not at all (representative_dir.h). */
#include "representative_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct tsk_rep_dir {
    char *dir;    /* where it goes, without trailing slashes */
    char *tmp;    /* the temporary directory beside it */
    int copy;
    char **made;  /* the entries made in tmp: removed on failure */
    size_t n_made, cap_made;
};

/* Whether path is a directory with no entries. */
static int empty_directory(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return 0;
    const struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

tsk_rep_dir *tsk_rep_dir_open(const char *dir, int copy, char *err, size_t errlen)
{
    tsk_rep_dir *d = calloc(1, sizeof *d);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/') len--;
    if (!d || !(d->dir = strndup(dir, len)) || !(d->tmp = malloc(len + 16))) {
        snprintf(err, errlen, "%s: out of memory", dir);
        tsk_rep_dir_abort(d);
        return NULL;
    }
    d->copy = copy;
    d->tmp[0] = '\0';
    struct stat st;
    if (lstat(d->dir, &st) == 0 && !(S_ISDIR(st.st_mode) && empty_directory(d->dir))) {
        snprintf(err, errlen, "%s: exists and is not an empty directory (the representatives' directory is made "
                 "new; remove it or name another)", dir);
        tsk_rep_dir_abort(d);
        return NULL;
    }
    snprintf(d->tmp, len + 16, "%s.tmp.XXXXXX", d->dir);
    if (!mkdtemp(d->tmp)) {
        snprintf(err, errlen, "%s: cannot make the directory: %s", dir, strerror(errno));
        d->tmp[0] = '\0';
        tsk_rep_dir_abort(d);
        return NULL;
    }
    return d;
}

/* Copies the file src to dst (a new file). 0, or -1 with errno set. */
static int copy_file(const char *src, const char *dst)
{
    const int in = open(src, O_RDONLY);
    if (in < 0) return -1;
    const int out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (out < 0) {
        const int e = errno;
        close(in);
        errno = e;
        return -1;
    }
    static char buf[1 << 16];
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = read(in, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno != EINTR) rc = -1;
            continue;
        }
        for (ssize_t off = 0; rc == 0 && off < got;) {
            const ssize_t put = write(out, buf + off, (size_t)(got - off));
            if (put < 0 && errno != EINTR) rc = -1;
            else if (put > 0) off += put;
        }
    }
    const int e = errno;
    close(in);
    if (close(out) && rc == 0) rc = -1;
    else errno = e;
    return rc;
}

int tsk_rep_dir_add(tsk_rep_dir *d, const char *path, char *err, size_t errlen)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (d->n_made == d->cap_made) {
        const size_t cap = d->cap_made ? 2 * d->cap_made : 64;
        char **m = realloc(d->made, cap * sizeof *m);
        if (!m) {
            snprintf(err, errlen, "%s: out of memory", d->dir);
            return -1;
        }
        d->made = m, d->cap_made = cap;
    }
    char *entry = NULL, *target = NULL;
    if (asprintf(&entry, "%s/%s", d->tmp, base) < 0) entry = NULL;
    int rc = entry ? 0 : -1;
    if (rc == 0 && !d->copy && !(target = realpath(path, NULL))) rc = -1;
    if (rc == 0) rc = d->copy ? copy_file(path, entry) : symlink(target, entry);
    if (rc) {
        if (errno == EEXIST)
            snprintf(err, errlen, "%s: two representatives are files named '%s' (give the inputs distinct file names)",
                     d->dir, base);
        else snprintf(err, errlen, "%s: cannot %s '%s': %s", d->dir, d->copy ? "copy" : "link", path, strerror(errno));
        if (d->copy && errno != EEXIST && entry) unlink(entry); /* a partial copy */
        free(entry);
    } else d->made[d->n_made++] = entry;
    free(target);
    return rc;
}

int tsk_rep_dir_commit(tsk_rep_dir *d, char *err, size_t errlen)
{
    if (rename(d->tmp, d->dir)) {
        snprintf(err, errlen, "%s: cannot move the representatives into place: %s", d->dir, strerror(errno));
        tsk_rep_dir_abort(d);
        return -1;
    }
    d->tmp[0] = '\0'; /* in place: nothing to remove */
    tsk_rep_dir_abort(d);
    return 0;
}

void tsk_rep_dir_abort(tsk_rep_dir *d)
{
    if (!d) return;
    const int drop = d->tmp && d->tmp[0];
    for (size_t i = 0; i < d->n_made; i++) {
        if (drop) unlink(d->made[i]);
        free(d->made[i]);
    }
    if (drop) rmdir(d->tmp);
    free(d->made);
    free(d->tmp);
    free(d->dir);
    free(d);
}
