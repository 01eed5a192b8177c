/* io_test.h: helpers shared by the io/ Criterion tests. */
#ifndef TSK_IO_TEST_H
#define TSK_IO_TEST_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/tsk_def.h"

#ifndef TSK_TESTDATA
#error "TSK_TESTDATA must name testdata/io"
#endif

/* SplitMix64 step: a reproducible random stream for generated test inputs. */
static inline uint64_t test_rnd(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Path of a file in testdata/io (static buffer, one at a time per call site). */
static inline const char *td(const char *name)
{
    static char buf[8][4096];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", TSK_TESTDATA, name);
    return b;
}

/* A fresh scratch directory (removed with its files by scratch_rm). */
static inline char *scratch_dir(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *d = malloc(strlen(base) + 32);
    if (!d) abort(); /* and gcc -fsanitize sees that sprintf never gets NULL */
    sprintf(d, "%s/tsk-io-XXXXXX", base);
    if (!mkdtemp(d)) abort();
    return d;
}

/* Number of entries in dir whose name contains needle. */
static inline int count_entries(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.' && strstr(e->d_name, needle)) n++;
    if (d) closedir(d);
    return n;
}

static inline void scratch_rm(char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(dir);
    free(dir);
}

static inline char *path_in(const char *dir, const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    if (!p) abort();
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* Whole file into memory (NUL-terminated); *len receives its size. */
static inline unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(b);
        return NULL;
    }
    b[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return b;
}

static inline int spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* Genome-sketch parameters: the CLI's defaults (t 4, D 16, canonical, window 20) with anchors of
 * anchor_k, scaled (= the stride) and the size floor min_keys. */
static inline void test_genome_params(tsk_params *p, int64_t scaled, int64_t min_keys, int anchor_k)
{
    tsk_params_default(p);
    p->t = 4, p->dim = 16, p->canonical = 1, p->window = 20, p->anchor_k = anchor_k;
    p->scaled = p->stride = scaled;
    p->min_keys = min_keys;
    tsk_tables_draw(p);
}

#endif
