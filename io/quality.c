/* quality.c: quality files for ranking genomes (quality.h). */
#include "quality.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as one NUL-terminated string. 0, -1 (err set) or -2 (out of memory). */
static int slurp(const char *path, char **text, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the quality file: %s", path, strerror(errno));
        return -1;
    }
    size_t len = 0, cap = 1 << 16;
    char *t = malloc(cap);
    int rc = t ? 0 : -2;
    while (!rc) {
        if (len + 1 == cap) {
            char *b = realloc(t, cap *= 2);
            if (!b) {
                rc = -2;
                break;
            }
            t = b;
        }
        const size_t got = fread(t + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) break;
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "%s: cannot read the quality file: %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    if (!rc && memchr(t, '\0', len)) {
        snprintf(err, errlen, "%s: not a text file (a NUL byte)", path);
        rc = -1;
    }
    if (rc) {
        free(t);
        return rc;
    }
    t[len] = '\0';
    *text = t;
    return 0;
}

/* Splits line (NUL-terminated, its newline and any CR removed) at TABs into at most max fields. */
static int split_tabs(char *line, char **field, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        field[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

/* A finite number filling s (surrounding blanks allowed). */
static int parse_score(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s) return -1;
    while (*end == ' ') end++;
    return *end == '\0' && isfinite(*v) ? 0 : -1;
}

typedef struct {
    int name, completeness, contamination, n_columns;
} checkm2_columns;

/* Whether the header fields are a CheckM2 report's (then the columns are set). */
static int is_checkm2(char **field, int n, checkm2_columns *c)
{
    *c = (checkm2_columns){-1, -1, -1, n};
    for (int i = 0; i < n; i++) {
        if (!strcmp(field[i], "Name")) c->name = i;
        else if (!strcmp(field[i], "Completeness")) c->completeness = i;
        else if (!strcmp(field[i], "Contamination")) c->contamination = i;
    }
    return c->name >= 0 && c->completeness >= 0 && c->contamination >= 0;
}

#define MAX_FIELDS 256

static int by_name(const void *a, const void *b)
{
    const tsk_quality_entry *x = a, *y = b;
    const int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Sorts the entries by name and refuses a name given twice. */
static int sort_entries(const char *path, tsk_quality *q, char *err, size_t errlen)
{
    const tsk_quality_entry *e = q->entry;
    if (q->n > 1) qsort(q->entry, (size_t)q->n, sizeof *e, by_name);
    for (int64_t i = 1; i < q->n; i++)
        if (!strcmp(e[i].name, e[i - 1].name)) {
            snprintf(err, errlen, "%s: line %lld: '%s' is given twice (also line %lld)", path, (long long)e[i].line,
                     e[i].name, (long long)e[i - 1].line);
            return -1;
        }
    return 0;
}

/* Appends one entry. 0 or -2. */
static int add_entry(tsk_quality *q, int64_t *cap, const char *name, double score, int64_t line)
{
    if (q->n == *cap) {
        const int64_t c = *cap ? 2 * *cap : 256;
        tsk_quality_entry *e = realloc(q->entry, (size_t)c * sizeof *e);
        if (!e) return -2;
        q->entry = e, *cap = c;
    }
    q->entry[q->n++] = (tsk_quality_entry){name, score, line};
    return 0;
}

int tsk_quality_read(const char *path, tsk_quality *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    int rc = slurp(path, &q->text, err, errlen);
    checkm2_columns cols = {-1, -1, -1, 0};
    int seen_first = 0;
    int64_t cap = 0, line_no = 0;
    char *field[MAX_FIELDS];
    for (char *line = q->text, *next; !rc && line && *line; line = next) {
        line_no++;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        if (len == 0 || line[0] == '#') continue;
        const int n = split_tabs(line, field, MAX_FIELDS);
        if (!seen_first) {
            seen_first = 1;
            if (is_checkm2(field, n, &cols)) {
                q->checkm2 = 1;
                continue;
            }
        }
        double score, completeness, contamination;
        if (q->checkm2) {
            const int need = cols.name > cols.completeness ? cols.name : cols.completeness;
            if (n <= (need > cols.contamination ? need : cols.contamination) ||
                parse_score(field[cols.completeness], &completeness) ||
                parse_score(field[cols.contamination], &contamination)) {
                snprintf(err, errlen, "%s: line %lld: not a CheckM2 line with finite Completeness and Contamination",
                         path, (long long)line_no);
                rc = -1;
                break;
            }
            score = completeness - 5.0 * contamination;
            rc = add_entry(q, &cap, field[cols.name], score, line_no);
        } else if (n != 2 || !*field[0] || parse_score(field[1], &score)) {
            snprintf(err, errlen, "%s: line %lld: not NAME<TAB>SCORE with a finite number", path, (long long)line_no);
            rc = -1;
        } else {
            rc = add_entry(q, &cap, field[0], score, line_no);
        }
    }
    if (!rc) rc = sort_entries(path, q, err, errlen);
    if (rc == -2) snprintf(err, errlen, "out of memory reading %s", path);
    if (rc) tsk_quality_free(q);
    return rc;
}

const double *tsk_quality_find(const tsk_quality *q, const char *name)
{
    int64_t lo = 0, hi = q->n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(q->entry[mid].name, name);
        if (c == 0) return &q->entry[mid].score;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

void tsk_quality_free(tsk_quality *q)
{
    free(q->entry);
    free(q->text);
    memset(q, 0, sizeof *q);
}
