/* quality.c: quality files for ranking genomes (quality.h). */
#include "quality.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "seqio.h"

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

/* s without the blanks around it (and a CSV field's quotes), in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s[n - 1] = '\0', s++;
    return s;
}

/* Splits line at sep into at most max trimmed fields; returns their number. */
static int split_fields(char *line, char sep, char **field, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        char *end = strchr(p, sep);
        if (end) *end = '\0';
        field[n++] = trim(p);
        if (!end) break;
        p = end + 1;
    }
    return n;
}

/* A finite number filling s. */
static int parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(*v) ? 0 : -1;
}

/* Whether s begins as a number does (inf and nan too): a header's column name does not. */
static int starts_numeric(const char *s)
{
    char *end;
    (void)strtod(s, &end);
    return end != s;
}

/* The columns of a table's header (-1: absent). */
typedef struct {
    int name, completeness, contamination;
    int general, specific, model; /* CheckM2 --allmodels */
    int n_columns;
} table_columns;

/* Whether the header fields name a genome column, completeness and contamination (then c is set
 * and *format says whose table it is). Sets *looks_like_table when some field names one of them,
 * so that a header missing one is refused with its own message. */
static int find_columns(char **field, int n, table_columns *c, tsk_quality_format *format, int *looks_like_table)
{
    *c = (table_columns){-1, -1, -1, -1, -1, -1, n};
    tsk_quality_format f = TSK_QUALITY_CHECKM2;
    for (int i = 0; i < n; i++) {
        const char *h = field[i];
        if (!strcasecmp(h, "Name")) c->name = i, f = TSK_QUALITY_CHECKM2;
        else if (!strcasecmp(h, "Bin Id")) c->name = i, f = TSK_QUALITY_CHECKM1;
        else if (!strcasecmp(h, "genome")) c->name = i, f = TSK_QUALITY_DREP;
        else if (!strcasecmp(h, "Completeness")) c->completeness = i;
        else if (!strcasecmp(h, "Contamination")) c->contamination = i;
        else if (!strcasecmp(h, "Completeness_General")) c->general = i;
        else if (!strcasecmp(h, "Completeness_Specific")) c->specific = i;
        else if (!strcasecmp(h, "Completeness_Model_Used")) c->model = i;
    }
    const int allmodels = c->general >= 0 && c->specific >= 0 && c->model >= 0;
    *looks_like_table = c->completeness >= 0 || c->contamination >= 0 || c->general >= 0;
    *format = f;
    return c->name >= 0 && (c->completeness >= 0 || allmodels) && c->contamination >= 0;
}

/* The completeness of a table's row: with --allmodels, the model CheckM2 says it used. */
static int row_completeness(char **field, const table_columns *c, double *v)
{
    if (c->completeness >= 0) return parse_number(field[c->completeness], v);
    const int specific = strcasestr(field[c->model], "specific") != NULL;
    return parse_number(field[specific ? c->specific : c->general], v);
}

static int by_key(const void *a, const void *b)
{
    const tsk_quality_entry *x = a, *y = b;
    const int c = strcmp(x->key, y->key);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* Sorts the entries by key and refuses two names of one genome. */
static int sort_entries(const char *path, tsk_quality *q, char *err, size_t errlen)
{
    const tsk_quality_entry *e = q->entry;
    if (q->n > 1) qsort(q->entry, (size_t)q->n, sizeof *e, by_key);
    for (int64_t i = 1; i < q->n; i++)
        if (!strcmp(e[i].key, e[i - 1].key)) {
            if (!strcmp(e[i].name, e[i - 1].name))
                snprintf(err, errlen, "%s: line %lld: '%s' is given twice (also line %lld)", path,
                         (long long)e[i].line, e[i].name, (long long)e[i - 1].line);
            else
                snprintf(err, errlen, "%s: line %lld: '%s' and '%s' (line %lld) both name the genome '%s'", path,
                         (long long)e[i].line, e[i].name, e[i - 1].name, (long long)e[i - 1].line, e[i].key);
            return -1;
        }
    return 0;
}

/* Appends one entry (its key made here). 0 or -2. */
static int add_entry(tsk_quality *q, int64_t *cap, const tsk_quality_entry *in)
{
    if (q->n == *cap) {
        const int64_t c = *cap ? 2 * *cap : 256;
        tsk_quality_entry *e = realloc(q->entry, (size_t)c * sizeof *e);
        if (!e) return -2;
        q->entry = e, *cap = c;
    }
    char *key = tsk_path_stem(in->name);
    if (!key) return -2;
    q->entry[q->n] = *in;
    q->entry[q->n++].key = key;
    return 0;
}

#define MAX_FIELDS 256
#define TABLES "CheckM2, CheckM1 or dRep table"

/* Parses the lines of q->text (BOM and comments skipped) into q's entries. 0, -1 or -2. */
static int parse_lines(const char *path, tsk_quality *q, char *err, size_t errlen)
{
    table_columns cols = {-1, -1, -1, -1, -1, -1, 0};
    int seen_first = 0, table = 0, rc = 0;
    char sep = '\t';
    int64_t cap = 0, line_no = 0;
    char *field[MAX_FIELDS];
    char *text = q->text;
    if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3;
    for (char *line = text, *next; !rc && line && *line; line = next) {
        line_no++;
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[--len] = '\0';
        if (len == strspn(line, " \t") || line[0] == '#') continue;
        if (!seen_first) {
            seen_first = 1;
            sep = strchr(line, '\t') || !strchr(line, ',') ? '\t' : ',';
            char *copy = strdup(line);
            if (!copy) return -2;
            const int n = split_fields(copy, sep, field, MAX_FIELDS);
            int looks_like_table = 0;
            table = find_columns(field, n, &cols, &q->format, &looks_like_table);
            const int score_header = !table && !looks_like_table && n == 2 && sep == '\t' && *field[1] &&
                                     !starts_numeric(field[1]);
            free(copy);
            if (table) continue;
            if (looks_like_table) {
                snprintf(err, errlen,
                         "%s: line %lld: a header without the columns of a " TABLES
                         " (a genome column: Name, Bin Id or genome; Completeness; Contamination)",
                         path, (long long)line_no);
                return -1;
            }
            q->format = TSK_QUALITY_SCORES;
            if (score_header) continue;
        }
        const int n = split_fields(line, sep, field, MAX_FIELDS);
        tsk_quality_entry e = {field[0], NULL, 0, NAN, NAN, line_no};
        if (table) {
            int need = cols.name;
            const int used[] = {cols.completeness, cols.contamination, cols.general, cols.specific, cols.model};
            for (int i = 0; i < 5; i++)
                if (used[i] > need) need = used[i];
            if (n <= need || !*field[cols.name] || row_completeness(field, &cols, &e.completeness) ||
                parse_number(field[cols.contamination], &e.contamination)) {
                snprintf(err, errlen, "%s: line %lld: not a %s line with a name and finite completeness and contamination",
                         path, (long long)line_no, tsk_quality_format_name(q->format));
                return -1;
            }
            e.name = field[cols.name];
            e.score = e.completeness - 5.0 * e.contamination;
        } else if (n != 2 || !*field[0] || parse_number(field[1], &e.score)) {
            snprintf(err, errlen, "%s: line %lld: not NAME<TAB>SCORE with a finite number%s", path,
                     (long long)line_no, q->n == 0 ? " (nor a " TABLES ", whose header names Completeness and Contamination)" : "");
            return -1;
        }
        rc = add_entry(q, &cap, &e);
    }
    return rc;
}

int tsk_quality_read(const char *path, tsk_quality *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    int rc = slurp(path, &q->text, err, errlen);
    if (!rc) rc = parse_lines(path, q, err, errlen);
    if (!rc) rc = sort_entries(path, q, err, errlen);
    if (rc == -2) snprintf(err, errlen, "out of memory reading %s", path);
    if (rc) tsk_quality_free(q);
    return rc;
}

int64_t tsk_quality_find(const tsk_quality *q, const char *name)
{
    char *key = tsk_path_stem(name);
    if (!key) return -1;
    int64_t lo = 0, hi = q->n, found = -1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(q->entry[mid].key, key);
        if (c == 0) {
            found = mid;
            break;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    free(key);
    return found;
}

const char *tsk_quality_format_name(tsk_quality_format f)
{
    switch (f) {
    case TSK_QUALITY_CHECKM2: return "CheckM2 report";
    case TSK_QUALITY_CHECKM1: return "CheckM1 table";
    case TSK_QUALITY_DREP: return "genome table (dRep's genomeInfo)";
    default: return "NAME<TAB>SCORE file";
    }
}

void tsk_quality_free(tsk_quality *q)
{
    for (int64_t i = 0; i < q->n; i++) free((char *)q->entry[i].key);
    free(q->entry);
    free(q->text);
    memset(q, 0, sizeof *q);
}
