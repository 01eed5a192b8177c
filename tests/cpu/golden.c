/* golden.c: see golden.h. */
#include "golden.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *test_path(const char *relpath)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", TESTDATA_DIR, relpath);
    return buf;
}

static char *read_all(const char *relpath, size_t *len)
{
    FILE *f = fopen(test_path(relpath), "rb");
    cr_assert(f != NULL, "cannot open %s", test_path(relpath));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    cr_assert(s != NULL);
    cr_assert(fread(s, 1, (size_t)n, f) == (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

void test_read_fasta(const char *relpath, tsk_alphabet a, test_records *r)
{
    size_t len;
    char *s = read_all(relpath, &len);
    uint8_t lut[256];
    tsk_encode_table(a, lut);
    memset(r, 0, sizeof *r);
    int64_t cap = 16;
    r->names = malloc((size_t)cap * sizeof *r->names);
    r->offset = malloc((size_t)(cap + 1) * sizeof *r->offset);
    r->codes = malloc(len + 1);
    r->offset[0] = 0;
    int64_t n_codes = 0;
    for (char *line = s, *end; *line; line = end) {
        end = strchr(line, '\n');
        end = end ? end + 1 : line + strlen(line);
        if (line[0] == '>') {
            if (r->n_records == cap) {
                cap *= 2;
                r->names = realloc(r->names, (size_t)cap * sizeof *r->names);
                r->offset = realloc(r->offset, (size_t)(cap + 1) * sizeof *r->offset);
            }
            size_t w = strcspn(line + 1, " \t\r\n");
            r->names[r->n_records] = strndup(line + 1, w);
            r->n_records++;
        } else if (r->n_records > 0) {
            n_codes += (int64_t)tsk_encode(lut, line, (size_t)(end - line), r->codes + n_codes);
        }
        r->offset[r->n_records] = n_codes;
    }
    free(s);
}

tsk_batch test_batch(test_records *r, const tsk_params *p)
{
    free(r->row_offset);
    r->row_offset = malloc((size_t)(r->n_records + 1) * sizeof *r->row_offset);
    r->row_offset[0] = 0;
    for (int64_t i = 0; i < r->n_records; i++)
        r->row_offset[i + 1] = r->row_offset[i] + tsk_rows_for_length(p, r->offset[i + 1] - r->offset[i]);
    return (tsk_batch){r->n_records, r->codes, r->offset, r->row_offset};
}

void test_records_free(test_records *r)
{
    for (int64_t i = 0; i < r->n_records; i++) free(r->names[i]);
    free(r->names);
    free(r->codes);
    free(r->offset);
    free(r->row_offset);
}

void test_read_tsv(const char *relpath, int skip, test_tsv *t)
{
    size_t len;
    char *s = read_all(relpath, &len);
    memset(t, 0, sizeof *t);
    int64_t cap = 64, vcap = 4096, nv = 0;
    t->names = malloc((size_t)cap * sizeof *t->names);
    t->values = malloc((size_t)vcap * sizeof *t->values);
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || line[0] == 0) continue;
        char *tab = strchr(line, '\t');
        cr_assert(tab != NULL, "%s: line without a tab", relpath);
        *tab = 0;
        char *p = tab + 1;
        for (int k = 0; k < skip; k++) p = strchr(p, '\t') + 1;
        int dim = 0;
        for (char *q = p; *q;) {
            char *e;
            double v = strtod(q, &e);
            cr_assert(e != q, "%s: bad number", relpath);
            if (nv == vcap) t->values = realloc(t->values, (size_t)(vcap *= 2) * sizeof *t->values);
            t->values[nv++] = v;
            dim++;
            q = *e ? e + 1 : e;
        }
        cr_assert(t->n_rows == 0 || dim == t->dim, "%s: ragged rows", relpath);
        t->dim = dim;
        if (t->n_rows == cap) t->names = realloc(t->names, (size_t)(cap *= 2) * sizeof *t->names);
        t->names[t->n_rows++] = strdup(line);
    }
    free(s);
}

void test_tsv_free(test_tsv *t)
{
    for (int64_t i = 0; i < t->n_rows; i++) free(t->names[i]);
    free(t->names);
    free(t->values);
}

void test_read_tables(const char *relpath, tsk_params *p)
{
    size_t len;
    char *s = read_all(relpath, &len);
    for (char *line = strtok(s, "\n"); line; line = strtok(NULL, "\n")) {
        char kind;
        int level, off;
        if (sscanf(line, " %c %d%n", &kind, &level, &off) != 2 || (kind != 'h' && kind != 's')) continue;
        cr_assert(level >= 0 && level < TSK_MAX_T);
        char *q = line + off;
        for (int c = 0; c < tsk_alphabet_size(p->alphabet); c++) {
            char *e;
            long v = strtol(q, &e, 10);
            cr_assert(e != q, "%s: short table line", relpath);
            if (kind == 'h') p->hash[level][c] = (int32_t)v;
            else p->sign[level][c] = (int8_t)v;
            q = e;
        }
    }
    p->tables_from_file = 1;
    free(s);
}

double test_rel_err(const double *a, const double *b, int64_t n)
{
    double dd = 0, bb = 0;
    for (int64_t i = 0; i < n; i++) {
        dd += (a[i] - b[i]) * (a[i] - b[i]);
        bb += b[i] * b[i];
    }
    return bb > 0 ? sqrt(dd / bb) : sqrt(dd);
}

uint8_t *test_random_codes(int64_t n, int alphabet, unsigned seed)
{
    uint8_t *x = malloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (uint8_t)((seed >> 16) % (unsigned)alphabet);
    }
    return x;
}
