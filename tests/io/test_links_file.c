/* Criterion tests of the name index (io/name_index.h) against a linear search over many names
 * (collisions of the table's slots included), and of the links reader (io/links_file.h): each
 * shape of line dist writes, gzip, the header, and every refusal with its file and line. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../../io/links_file.h"
#include "../../io/name_index.h"

#define N_NAMES 5000

Test(name_index, finds_every_name_and_no_other)
{
    static char buf[N_NAMES][16];
    const char *names[N_NAMES];
    for (int i = 0; i < N_NAMES; i++) snprintf(buf[i], sizeof buf[i], "g%d_%x", i, (unsigned)(i * 2654435761u)), names[i] = buf[i];
    tsk_name_index *x;
    int64_t a, b;
    cr_assert_eq(tsk_name_index_build(names, N_NAMES, &x, &a, &b), 0);
    for (int i = 0; i < N_NAMES; i++) cr_assert_eq(tsk_name_index_find(x, names[i], strlen(names[i])), i);
    /* a prefix, a longer name and a name never given */
    cr_assert_eq(tsk_name_index_find(x, "g12_", 4), -1);
    cr_assert_eq(tsk_name_index_find(x, "g1_9e3779b1x", 12), -1);
    cr_assert_eq(tsk_name_index_find(x, "nobody", 6), -1);
    /* the name need not end where the text does: a column of a line */
    char line[64];
    snprintf(line, sizeof line, "%s\t%s", names[7], names[8]);
    cr_assert_eq(tsk_name_index_find(x, line, (size_t)(strchr(line, '\t') - line)), 7);
    tsk_name_index_free(x);
}

Test(name_index, reports_the_first_shared_name)
{
    const char *names[] = {"a", "b", "c", "b", "a"};
    tsk_name_index *x = (tsk_name_index *)1;
    int64_t a = -1, b = -1;
    cr_assert_eq(tsk_name_index_build(names, 5, &x, &a, &b), -2);
    cr_assert_null(x);
    cr_assert_eq(a, 1);
    cr_assert_eq(b, 3);
    cr_assert_eq(tsk_name_index_build(names, 0, &x, &a, &b), 0);
    cr_assert_eq(tsk_name_index_find(x, "a", 1), -1);
    tsk_name_index_free(x);
}

/* ---- the reader ---- */

static const char *NAMES[] = {"g1", "g 2", "g3"};

typedef struct {
    tsk_link_line l[16];
    int n;
} got;

static int take(void *ctx, const tsk_link_line *l, int64_t n)
{
    got *g = ctx;
    for (int64_t i = 0; i < n && g->n < 16; i++) g->l[g->n++] = l[i];
    return 0;
}

static int stop(void *ctx, const tsk_link_line *l, int64_t n)
{
    (void)ctx, (void)l, (void)n;
    return -1;
}

static char dir[] = "/tmp/tsk-links-XXXXXX";

static void make_dir(void) { cr_assert_not_null(mkdtemp(dir)); }
static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* Writes text to DIR/name (gzip when gz) and returns the path (static storage). */
static const char *write_file(const char *name, const char *text, int gz)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (gz) {
        gzFile f = gzopen(path, "wb");
        cr_assert_not_null(f);
        cr_assert_eq(gzwrite(f, text, (unsigned)strlen(text)), (int)strlen(text));
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        cr_assert_not_null(f);
        fputs(text, f);
        fclose(f);
    }
    return path;
}

static int read_text(const char *text, int gz, int need_af, got *g, char *err)
{
    tsk_name_index *x;
    int64_t a, b;
    cr_assert_eq(tsk_name_index_build(NAMES, 3, &x, &a, &b), 0);
    memset(g, 0, sizeof *g);
    const int rc = tsk_links_read(write_file(gz ? "l.tsv.gz" : "l.tsv", text, gz), x, need_af, take, g, err, 512);
    tsk_name_index_free(x);
    return rc;
}

Test(links_file, reads_each_shape_dist_writes, .init = make_dir, .fini = remove_dir)
{
    got g;
    char err[512] = "";
    const char *text = "reference\tquery\tdistance\tshared\ttotal\tani\taf\n"
                       "g1\tg 2\t0.0123456789\t10\t20\t98.77\t0.5000\n"
                       "\n"
                       "g3\tg1\t1\t0\t30\tNA\tNA\n";
    for (int gz = 0; gz < 2; gz++) {
        cr_assert_eq(read_text(text, gz, 1, &g, err), 0, "%s", err);
        cr_assert_eq(g.n, 2);
        cr_assert_eq(g.l[0].a, 0);
        cr_assert_eq(g.l[0].b, 1);
        cr_assert_eq(g.l[0].dist, 0.0123456789f);
        cr_assert_eq(g.l[0].af, 0.5);
        cr_assert_eq(g.l[0].line, 2);
        cr_assert_eq(g.l[1].a, 2);
        cr_assert_eq(g.l[1].dist, 1.0f);
        cr_assert(isnan(g.l[1].af));
        cr_assert_eq(g.l[1].line, 4);
    }
    cr_assert_eq(read_text("g1\tg3\t2.5e-05\ng3\tg 2\t0.5\t3\t9\n", 0, 0, &g, err), 0, "%s", err);
    cr_assert_eq(g.n, 2);
    cr_assert_eq(g.l[0].dist, 2.5e-05f);
    cr_assert(isnan(g.l[0].af));
    cr_assert_eq(read_text("", 0, 0, &g, err), 0);
    cr_assert_eq(g.n, 0);
}

/* Each bad line: the file, the line and the reason. */
Test(links_file, refuses_bad_lines, .init = make_dir, .fini = remove_dir)
{
    static const struct {
        const char *text, *why;
        int need_af;
    } bad[] = {
        {"g1\tg3\t0.1\ng1\tg4\t0.1\n", "line 2: 'g4' is no genome or record of the inputs", 0},
        {"g1\tg3\n", "line 1: 2 columns", 0},
        {"g1\tg3\t0.1\t4\n", "line 1: 4 columns", 0},
        {"g1\tg3\t0.1\t4\t5\t6\t7\t8\n", "line 1: more than 7 columns", 0},
        {"g1\tg3\tx\n", "line 1: distance 'x' is not a finite number", 0},
        {"g1\tg3\tinf\n", "distance 'inf' is not a finite number", 0},
        {"g1\tg3\t1e99\n", "distance '1e99' is not a finite number", 0},
        {"g1\tg3\t0.1\t1\t2\t99\t1.5\n", "aligned fraction '1.5' is not a number in [0, 1] or NA", 0},
        {"g1\tg3\t0.1\t1\t2\n", "line 1: no aligned fraction", 1},
        {"reference\tquery\tdistance\nreference\tquery\tdistance\n", "line 2: 'reference' is no genome", 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        got g;
        char err[512] = "";
        cr_assert_eq(read_text(bad[i].text, 0, bad[i].need_af, &g, err), -1, "case %zu", i);
        cr_assert(strstr(err, bad[i].why) && strstr(err, "l.tsv"), "case %zu: %s", i, err);
    }
}

Test(links_file, refuses_nul_missing_truncated_and_stops, .init = make_dir, .fini = remove_dir)
{
    tsk_name_index *x;
    int64_t a, b;
    cr_assert_eq(tsk_name_index_build(NAMES, 3, &x, &a, &b), 0);
    char err[512] = "";
    got g = {0};
    char path[300];
    snprintf(path, sizeof path, "%s/none.tsv", dir);
    cr_assert_eq(tsk_links_read(path, x, 0, take, &g, err, sizeof err), -1);
    cr_assert(strstr(err, "none.tsv: No such file"), "%s", err);
    /* a NUL inside a line */
    snprintf(path, sizeof path, "%s/nul.tsv", dir);
    FILE *f = fopen(path, "wb");
    fwrite("g1\tg3\t0.1\n\0g1\tg3\t0.1\n", 1, 21, f);
    fclose(f);
    cr_assert_eq(tsk_links_read(path, x, 0, take, &g, err, sizeof err), -1);
    cr_assert(strstr(err, "nul.tsv: line 2: a NUL byte"), "%s", err);
    /* a gzip file cut short */
    const char *gz = write_file("cut.tsv.gz", "g1\tg3\t0.1\ng1\tg 2\t0.2\ng3\tg 2\t0.3\n", 1);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "head -c 30 '%s' >'%s/short.gz'", gz, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/short.gz", dir);
    cr_assert_eq(tsk_links_read(path, x, 0, take, &g, err, sizeof err), -1);
    cr_assert(strstr(err, "short.gz: read failed"), "%s", err);
    /* the consumer stops */
    cr_assert_eq(tsk_links_read(write_file("ok.tsv", "g1\tg3\t0.1\n", 0), x, 0, stop, &g, err, sizeof err), -1);
    cr_assert(strstr(err, "ok.tsv: stopped"), "%s", err);
    tsk_name_index_free(x);
}
