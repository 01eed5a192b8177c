/* links_file.c: dist's TSV lines back into items. */
#include "links_file.h"

#include <errno.h>
#include <htslib/bgzf.h>
#include <htslib/hts_log.h>
#include <htslib/kstring.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 4096
#define MAX_COLUMNS 7

/* Splits s at tabs into col[], NUL-terminating each: the number of columns (MAX_COLUMNS + 1 when
 * there are more). */
static int split_tabs(char *s, char **col, size_t *len)
{
    int n = 0;
    for (;;) {
        char *tab = strchr(s, '\t');
        if (n == MAX_COLUMNS) return MAX_COLUMNS + 1;
        col[n] = s;
        len[n] = tab ? (size_t)(tab - s) : strlen(s);
        n++;
        if (!tab) return n;
        *tab = '\0';
        s = tab + 1;
    }
}

static int is_header(char **col, int n)
{
    return n >= 3 && !strcmp(col[0], "reference") && !strcmp(col[1], "query") && !strcmp(col[2], "distance");
}

/* One line into l: 0, or -1 with the reason in err. */
static int parse_line(const char *path, int64_t line_no, char **col, const size_t *len, int n,
                      const tsk_name_index *names, int need_af, tsk_link_line *l, char *err, size_t errlen)
{
    if (n != 3 && n != 5 && n != 7) {
        snprintf(err, errlen,
                 "%s: line %lld: %s columns, not the 3, 5 or 7 of 'tsketch dist' pairs (NAME, NAME, distance; "
                 "shared, total; ani, af)",
                 path, (long long)line_no, n > MAX_COLUMNS ? "more than 7" : n == 1 ? "1" : n == 2 ? "2" : n == 4 ? "4" : "6");
        return -1;
    }
    for (int side = 0; side < 2; side++) {
        const int64_t item = tsk_name_index_find(names, col[side], len[side]);
        if (item < 0) {
            snprintf(err, errlen,
                     "%s: line %lld: '%s' is no genome or record of the inputs (links name the items of the "
                     "sketches they were computed from: give those)",
                     path, (long long)line_no, col[side]);
            return -1;
        }
        if (side == 0) l->a = item;
        else l->b = item;
    }
    char *end;
    errno = 0;
    const float d = strtof(col[2], &end);
    if (end == col[2] || *end || !isfinite(d) || errno == ERANGE) {
        snprintf(err, errlen, "%s: line %lld: distance '%s' is not a finite number", path, (long long)line_no, col[2]);
        return -1;
    }
    l->dist = d;
    l->af = NAN;
    if (n == 7 && strcmp(col[6], "NA")) {
        const double af = strtod(col[6], &end);
        if (end == col[6] || *end || !(af >= 0 && af <= 1)) {
            snprintf(err, errlen, "%s: line %lld: aligned fraction '%s' is not a number in [0, 1] or NA", path,
                     (long long)line_no, col[6]);
            return -1;
        }
        l->af = af;
    }
    if (need_af && n != 7) {
        snprintf(err, errlen,
                 "%s: line %lld: no aligned fraction (--min-af needs the pairs as 'tsketch dist --ani' writes them)",
                 path, (long long)line_no);
        return -1;
    }
    l->line = line_no;
    return 0;
}

int tsk_links_read(const char *path, const tsk_name_index *names, int need_af,
                   int (*take)(void *ctx, const tsk_link_line *l, int64_t n), void *ctx, char *err, size_t errlen)
{
    const int is_stdin = !strcmp(path, "-");
    const char *shown = is_stdin ? "standard input" : path;
    hts_set_log_level(HTS_LOG_OFF); /* every message the user sees is ours (a truncated gzip: htslib's too) */
    errno = 0;
    BGZF *fp = is_stdin ? bgzf_dopen(dup(STDIN_FILENO), "r") : bgzf_open(path, "r");
    if (!fp) {
        snprintf(err, errlen, "%s: %s", shown, errno ? strerror(errno) : "cannot be opened");
        return -1;
    }
    tsk_link_line *buf = malloc(CHUNK * sizeof *buf);
    kstring_t s = KS_INITIALIZE;
    int rc = buf ? 0 : -1;
    if (!buf) snprintf(err, errlen, "out of memory reading %s", shown);
    int64_t line_no = 0, n = 0;
    int got = -1;
    while (rc == 0 && (got = bgzf_getline(fp, '\n', &s)) >= 0) {
        line_no++;
        if (s.l == 0) continue;
        if (memchr(s.s, '\0', s.l)) {
            snprintf(err, errlen, "%s: line %lld: a NUL byte: not a text file of pairs", shown, (long long)line_no);
            rc = -1;
            break;
        }
        char *col[MAX_COLUMNS];
        size_t len[MAX_COLUMNS];
        const int cols = split_tabs(s.s, col, len);
        if (line_no == 1 && cols <= MAX_COLUMNS && is_header(col, cols)) continue;
        if (parse_line(shown, line_no, col, len, cols, names, need_af, &buf[n], err, errlen)) {
            rc = -1;
            break;
        }
        if (++n == CHUNK) {
            if (take(ctx, buf, n)) {
                snprintf(err, errlen, "%s: stopped", shown);
                rc = -1;
            }
            n = 0;
        }
    }
    if (rc == 0 && got < -1) {
        snprintf(err, errlen, "%s: read failed after line %lld (a damaged or truncated compressed file?)", shown,
                 (long long)line_no);
        rc = -1;
    }
    if (rc == 0 && n && take(ctx, buf, n)) {
        snprintf(err, errlen, "%s: stopped", shown);
        rc = -1;
    }
    if (bgzf_close(fp) < 0 && rc == 0) {
        snprintf(err, errlen, "%s: read failed", shown);
        rc = -1;
    }
    free(s.s);
    free(buf);
    return rc;
}
