/* genome_dir.c: a directory's genome files, sorted by name (genome_dir.h). */
#include "genome_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../io/seqio.h"

static int ends_with(const char *s, size_t len, const char *suffix)
{
    const size_t k = strlen(suffix);
    return len > k && !strncasecmp(s + len - k, suffix, k);
}

/* Whether name ends in a sequence extension, after a compression extension if any. */
static int sequence_name(const char *name)
{
    static const char *const compressed[] = {".gz", ".bgz", ".bgzf"};
    size_t len = strlen(name);
    for (int i = 0; i < 3; i++)
        if (ends_with(name, len, compressed[i])) {
            len -= strlen(compressed[i]);
            break;
        }
    char *plain = strndup(name, len), *stem = plain ? tsk_path_stem(plain) : NULL;
    const int yes = stem && strlen(stem) < len;
    free(plain);
    free(stem);
    return yes;
}

static int matches(const char *name, const char *ext)
{
    if (!ext) return sequence_name(name);
    const size_t len = strlen(name), k = strlen(ext);
    return len > k + 1 && name[len - k - 1] == '.' && !strcasecmp(name + len - k, ext);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void tsk_genome_dir_free(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++) free(paths[i]);
    free(paths);
}

int tsk_genome_dir_list(const char *dir, const char *ext, char ***paths, size_t *n, char *err, size_t errlen)
{
    *paths = NULL, *n = 0;
    if (ext && *ext == '.') ext++;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: cannot read the directory: %s", dir, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    int rc = 0;
    const struct dirent *e;
    const size_t dlen = strlen(dir);
    const int slash = dlen > 0 && dir[dlen - 1] == '/';
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !matches(e->d_name, ext)) continue;
        char *path = malloc(dlen + strlen(e->d_name) + 2);
        if (path) sprintf(path, "%s%s%s", dir, slash ? "" : "/", e->d_name);
        struct stat st;
        if (path && (stat(path, &st) || !S_ISREG(st.st_mode))) { /* a subdirectory, a broken link */
            free(path);
            continue;
        }
        if (path && *n == cap) {
            char **p = realloc(*paths, (cap = cap ? 2 * cap : 64) * sizeof *p);
            if (p) *paths = p;
            else free(path), path = NULL;
        }
        if (!path) {
            snprintf(err, errlen, "%s: out of memory listing the directory", dir);
            rc = -1;
        } else (*paths)[(*n)++] = path;
    }
    closedir(d);
    if (rc == 0 && *n == 0) {
        if (ext) snprintf(err, errlen, "%s: no file ending in .%s (-x EXT names the extension)", dir, ext);
        else snprintf(err, errlen, "%s: no FASTA file (.fa, .fna, .fasta..., compressed or not; -x EXT names another extension)", dir);
        rc = -1;
    }
    if (rc) {
        tsk_genome_dir_free(*paths, *n);
        *paths = NULL, *n = 0;
        return -1;
    }
    qsort(*paths, *n, sizeof **paths, by_name);
    return 0;
}
