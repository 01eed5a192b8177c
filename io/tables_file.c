/* tables_file.c: the --tables text format (see tables_file.h). */
#include "tables_file.h"
#include "io_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Next whitespace-separated integer of *s; 0 on success, -1 when there is none or it is not an
 * integer. */
static int next_int(char **s, long long *v)
{
    char *p = *s;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) return -1;
    errno = 0;
    char *end;
    *v = strtoll(p, &end, 10);
    if (end == p || errno || (*end && *end != ' ' && *end != '\t')) return -1;
    *s = end;
    return 0;
}

static int only_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

int tsk_tables_read(tsk_params *p, const char *path, char *err, size_t errlen)
{
    if (p->t < 1 || p->t > TSK_MAX_T || p->dim < 1 || p->dim > TSK_MAX_DIM) {
        tsk_io_set_err(err, errlen, "%s: cannot read tables for t=%d, D=%d", path, p->t, p->dim);
        return -1;
    }
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (errno == ENOENT)
            tsk_io_set_err(err, errlen, "%s: no such file", path);
        else
            tsk_io_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    const int a = tsk_alphabet_size(p->alphabet);
    int32_t hash[TSK_MAX_T][TSK_MAX_ALPHA] = {{0}};
    int8_t sign[TSK_MAX_T][TSK_MAX_ALPHA] = {{0}};
    int have_hash[TSK_MAX_T] = {0}, have_sign[TSK_MAX_T] = {0};
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    while (getline(&line, &cap, fp) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        char key = *s++;
        if (*s && *s != ' ' && *s != '\t') key = '?';
        long long v;
        if (key == 'A' || key == 't' || key == 'D') {
            long long want = key == 'A' ? a : key == 't' ? p->t : p->dim;
            if (next_int(&s, &v) || !only_blanks(s)) {
                tsk_io_set_err(err, errlen, "%s:%ld: expected '%c NUMBER'", path, lineno, key);
                rc = -1;
                break;
            }
            if (v != want) {
                tsk_io_set_err(err, errlen, "%s:%ld: '%c %lld' in the file but %s is %lld", path, lineno, key, v,
                        key == 'A' ? "the alphabet size" : key == 't' ? "t" : "D", want);
                rc = -1;
                break;
            }
        } else if (key == 'h' || key == 's') {
            if (next_int(&s, &v)) {
                tsk_io_set_err(err, errlen, "%s:%ld: expected '%c LEVEL VALUES...'", path, lineno, key);
                rc = -1;
                break;
            }
            if (v < 0 || v >= p->t) {
                tsk_io_set_err(err, errlen, "%s:%ld: level %lld outside 0..%d (t is %d)", path, lineno, v, p->t - 1, p->t);
                rc = -1;
                break;
            }
            int k = (int)v;
            int *have = key == 'h' ? have_hash : have_sign;
            if (have[k]) {
                tsk_io_set_err(err, errlen, "%s:%ld: second '%c' line for level %d", path, lineno, key, k);
                rc = -1;
                break;
            }
            have[k] = 1;
            int c = 0;
            while (c <= a && next_int(&s, &v) == 0) {
                if (c == a) {
                    c++;
                    break;
                }
                if (key == 'h' && (v < 0 || v >= p->dim)) {
                    tsk_io_set_err(err, errlen, "%s:%ld: hash value %lld outside [0, %d)", path, lineno, v, p->dim);
                    rc = -1;
                    break;
                }
                if (key == 's' && v != 1 && v != -1) {
                    tsk_io_set_err(err, errlen, "%s:%ld: sign value %lld is not +1 or -1", path, lineno, v);
                    rc = -1;
                    break;
                }
                if (key == 'h') hash[k][c] = (int32_t)v;
                else sign[k][c] = (int8_t)v;
                c++;
            }
            if (rc) break;
            if (c != a || !only_blanks(s)) {
                tsk_io_set_err(err, errlen, "%s:%ld: level %d needs exactly %d integer %s values (alphabet size)", path,
                        lineno, k, a, key == 'h' ? "hash" : "sign");
                rc = -1;
                break;
            }
        } else {
            tsk_io_set_err(err, errlen, "%s:%ld: unknown line (expected 'A', 't', 'D', 'h' or 's')", path, lineno);
            rc = -1;
            break;
        }
    }
    if (rc == 0 && ferror(fp)) {
        tsk_io_set_err(err, errlen, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(fp);
    for (int k = 0; rc == 0 && k < p->t; k++)
        if (!have_hash[k] || !have_sign[k]) {
            tsk_io_set_err(err, errlen, "%s: no '%c' line for level %d (t is %d)", path, have_hash[k] ? 's' : 'h', k, p->t);
            rc = -1;
        }
    if (rc) return -1;
    memcpy(p->hash, hash, sizeof hash);
    memcpy(p->sign, sign, sizeof sign);
    p->tables_from_file = 1;
    return 0;
}
