/* test_tables_npy.c: the --tables reader (against the SplitMix64 tables it must equal) and the
 * .npy writer (header bytes as NumPy's format 1.0 defines them, appends, tiles). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "../../io/npy.h"
#include "../../io/seqio.h"
#include "../../io/tables_file.h"
#include "io_test.h"

/* ---- tables ---- */

static tsk_params params_t3_d16(void)
{
    tsk_params p;
    tsk_params_default(&p);
    p.t = 3;
    p.dim = 16;
    p.seed = 99;
    return p;
}

Test(tables, reference_file_equals_seed_99)
{
    /* the spec's vectors file holds the SplitMix64 tables of seed 99 */
    tsk_params p = params_t3_d16(), drawn = params_t3_d16();
    tsk_tables_draw(&drawn);
    p.seed = 1; /* whatever the seed, the file decides */
    memset(p.hash, 0x55, sizeof p.hash);
    char err[TSK_ERRLEN];
    cr_assert_eq(tsk_tables_read(&p, td("tables_t3_D16_seed99.txt"), err, sizeof err), 0, "%s", err);
    cr_assert_eq(p.tables_from_file, 1);
    cr_assert_eq(memcmp(p.hash, drawn.hash, sizeof p.hash), 0);
    cr_assert_eq(memcmp(p.sign, drawn.sign, sizeof p.sign), 0);
    cr_assert_eq(p.hash[0][1], 11);
    cr_assert_eq(p.sign[1][0], -1);
    cr_assert_null(tsk_params_check(&p));
}

typedef struct {
    char text[160];
    int t;           /* p->t when reading */
    char message[128];
} tables_case;

ParameterizedTestParameters(tables, bad)
{
    static tables_case cases[] = {
        {"h 0 3 11 4 3\ns 0 1 1 1 -1\nh 1 14 3 9 2\ns 1 -1 -1 1 -1\n", 3, "no 'h' line for level 2 (t is 3)"},
        {"t 3\n", 4, ":1: 't 3' in the file but t is 4"},
        {"D 32\n", 3, ":1: 'D 32' in the file but D is 16"},
        {"A 20\n", 3, ":1: 'A 20' in the file but the alphabet size is 4"},
        {"# c\nh 0 3 16 4 3\n", 3, ":2: hash value 16 outside [0, 16)"},
        {"h 0 3 -1 4 3\n", 3, ":1: hash value -1 outside [0, 16)"},
        {"s 0 1 0 1 1\n", 3, ":1: sign value 0 is not +1 or -1"},
        {"h 0 3 1 4\n", 3, ":1: level 0 needs exactly 4 integer hash values (alphabet size)"},
        {"s 0 1 1 1 1 1\n", 3, ":1: level 0 needs exactly 4 integer sign values (alphabet size)"},
        {"h 0 3 1 4 x\n", 3, ":1: level 0 needs exactly 4 integer hash values (alphabet size)"},
        {"h 3 1 1 1 1\n", 3, ":1: level 3 outside 0..2 (t is 3)"},
        {"h 0 1 1 1 1\nh 0 1 1 1 1\n", 3, ":2: second 'h' line for level 0"},
        {"x 1\n", 3, ":1: unknown line (expected 'A', 't', 'D', 'h' or 's')"},
        {"hash 0 1 1 1 1\n", 3, ":1: unknown line (expected 'A', 't', 'D', 'h' or 's')"},
        {"t three\n", 3, ":1: expected 't NUMBER'"},
    };
    return cr_make_param_array(tables_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(tables_case *c, tables, bad)
{
    char *dir = scratch_dir(), *path = path_in(dir, "t.txt"), err[TSK_ERRLEN], want[TSK_ERRLEN];
    spit(path, c->text, strlen(c->text));
    tsk_params p = params_t3_d16(), before;
    p.t = c->t;
    tsk_tables_draw(&p);
    before = p;
    cr_assert_eq(tsk_tables_read(&p, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s%s%s", path, c->message[0] == ':' ? "" : ": ", c->message);
    cr_assert_str_eq(err, want);
    cr_assert_eq(memcmp(&p, &before, sizeof p), 0, "a failed read changed the parameters");
    free(path);
    scratch_rm(dir);
}

Test(tables, crlf_comments_and_missing_file)
{
    char *dir = scratch_dir(), *path = path_in(dir, "t.txt"), err[TSK_ERRLEN];
    const char *text = "# tables\r\n\r\nt 2\r\n  h 1 0 1 2 3 \r\ns 1 -1 +1 -1 1\r\nh 0 15 15 15 15\r\ns 0 1 1 1 1\r\n";
    spit(path, text, strlen(text));
    tsk_params p = params_t3_d16();
    p.t = 2;
    cr_assert_eq(tsk_tables_read(&p, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(p.hash[1][3], 3);
    cr_assert_eq(p.sign[1][1], 1);
    cr_assert_eq(p.hash[0][0], 15);
    cr_assert_eq(p.hash[2][0], 0, "unused levels are zeroed");
    cr_assert_eq(tsk_tables_read(&p, td("none.txt"), err, sizeof err), -1);
    cr_assert(strstr(err, "none.txt: no such file"), "%s", err);
    free(path);
    scratch_rm(dir);
}

/* ---- npy ---- */

/* Checks the header of NumPy format 1.0 and returns the data offset. */
static size_t check_npy_header(const unsigned char *b, size_t len, const char *descr, int64_t rows, int64_t cols)
{
    cr_assert_geq(len, 10);
    cr_assert_eq(memcmp(b, "\x93NUMPY\x01\x00", 8), 0);
    size_t hlen = b[8] | (size_t)b[9] << 8;
    size_t off = 10 + hlen;
    cr_assert_eq(off % 64, 0, "data offset %zu not 64-aligned", off);
    cr_assert_eq(b[off - 1], '\n');
    char want[256];
    int k = snprintf(want, sizeof want, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }", descr,
                     (long long)rows, (long long)cols);
    cr_assert_eq(memcmp(b + 10, want, (size_t)k), 0, "header dict: %.*s", (int)hlen, b + 10);
    for (size_t i = 10 + (size_t)k; i < off - 1; i++) cr_assert_eq(b[i], ' ');
    return off;
}

/* The file at path is an npy array of the given type and shape holding exactly data[0..bytes). */
static void expect_npy_file(const char *path, const char *descr, int64_t rows, int64_t cols, const void *data,
                            size_t bytes)
{
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    cr_assert_not_null(b, "%s", path);
    size_t off = check_npy_header(b, len, descr, rows, cols);
    cr_assert_eq(len, off + bytes);
    cr_assert_eq(memcmp(b + off, data, bytes), 0);
    free(b);
}

Test(npy, append_f4)
{
    char *dir = scratch_dir(), *path = path_in(dir, "m.npy"), err[TSK_ERRLEN];
    enum { R = 5, C = 3 };
    float v[R * C];
    for (int i = 0; i < R * C; i++) v[i] = (float)i * 0.25f - 1.0f;
    tsk_npy_writer *w = tsk_npy_open(path, R, C, 4, err, sizeof err);
    cr_assert(w, "%s", err);
    cr_assert_eq(tsk_npy_data_offset(w), 128); /* 10 + 60-byte dict + padding to 64 */
    cr_assert_eq(tsk_npy_append(w, v, 2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(tsk_npy_append(w, v + 2 * C, 3, err, sizeof err), 0, "%s", err);
    cr_assert_eq(tsk_npy_append(w, v, 1, err, sizeof err), -1, "a sixth row fits a 5-row array");
    cr_assert(strstr(err, "1 rows appended to an array of 5 rows after 5"), "%s", err);
    cr_assert_eq(count_entries(dir, "m.npy"), 1);
    cr_assert_eq(count_entries(dir, "m.npy.tmp."), 1, "the output appears only at finish");
    cr_assert_eq(tsk_npy_finish(w, err, sizeof err), 0, "%s", err);
    cr_assert_eq(count_entries(dir, ".tmp."), 0);
    expect_npy_file(path, "<f4", R, C, v, sizeof v);
    free(path);
    scratch_rm(dir);
}

/* A square matrix written as ragged tiles in scrambled order, as `dist -f npy` does. */
Test(npy, tiles_f8)
{
    char *dir = scratch_dir(), *path = path_in(dir, "d.npy"), err[TSK_ERRLEN];
    enum { N = 7, T = 3 };
    double full[N * N];
    for (int i = 0; i < N * N; i++) full[i] = i + 0.5;
    tsk_npy_writer *w = tsk_npy_open(path, N, N, 8, err, sizeof err);
    cr_assert(w, "%s", err);
    int order[] = {8, 2, 0, 5, 7, 1, 4, 6, 3};
    for (int k = 0; k < 9; k++) {
        int ti = order[k] / 3 * T, tj = order[k] % 3 * T;
        int nr = ti + T > N ? N - ti : T, nc = tj + T > N ? N - tj : T;
        double tile[T * T];
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < nc; j++) tile[i * T + j] = full[(ti + i) * N + tj + j];
        cr_assert_eq(tsk_npy_write_block(w, ti, tj, tile, nr, nc, T, err, sizeof err), 0, "%s", err);
    }
    double one = 0;
    cr_assert_eq(tsk_npy_write_block(w, 6, 6, &one, 1, 2, 2, err, sizeof err), -1);
    cr_assert(strstr(err, "block of 1 x 2 at (6, 6) outside the 7 x 7 array"), "%s", err);
    cr_assert_eq(tsk_npy_finish(w, err, sizeof err), 0, "%s", err);
    expect_npy_file(path, "<f8", N, N, full, sizeof full);
    free(path);
    scratch_rm(dir);
}

Test(npy, incomplete_and_abort_leave_nothing)
{
    char *dir = scratch_dir(), *path = path_in(dir, "x.npy"), err[TSK_ERRLEN];
    float v[4] = {1, 2, 3, 4};
    tsk_npy_writer *w = tsk_npy_open(path, 2, 4, 4, err, sizeof err);
    cr_assert_eq(tsk_npy_append(w, v, 1, err, sizeof err), 0);
    cr_assert_eq(tsk_npy_finish(w, err, sizeof err), -1);
    cr_assert(strstr(err, "x.npy: incomplete array (4 of 8 values written)"), "%s", err);
    cr_assert_eq(count_entries(dir, "x.npy"), 0);
    w = tsk_npy_open(path, 2, 4, 4, err, sizeof err);
    tsk_npy_abort(w);
    tsk_npy_abort(NULL);
    cr_assert_eq(count_entries(dir, "x.npy"), 0);
    cr_assert_null(tsk_npy_open(path, 2, 4, 2, err, sizeof err));
    /* an empty array is valid */
    w = tsk_npy_open(path, 0, 96, 4, err, sizeof err);
    cr_assert_eq(tsk_npy_finish(w, err, sizeof err), 0, "%s", err);
    expect_npy_file(path, "<f4", 0, 96, "", 0);
    free(path);
    scratch_rm(dir);
}

Test(npy, names_file)
{
    char *dir = scratch_dir(), *path = path_in(dir, "x.names"), err[TSK_ERRLEN];
    const char *names[] = {"chr1:1-100", "chr1:101-200", "seq two"};
    cr_assert_eq(tsk_names_write(path, names, 3, err, sizeof err), 0, "%s", err);
    unsigned char *b = slurp(path, NULL);
    cr_assert_str_eq((char *)b, "chr1:1-100\nchr1:101-200\nseq two\n");
    free(b);
    char *bad = path_in(dir, "no/dir/x.names");
    cr_assert_eq(tsk_names_write(bad, names, 3, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot create: No such file or directory"), "%s", err);
    cr_assert_eq(count_entries(dir, ".tmp."), 0);
    free(bad);
    free(path);
    scratch_rm(dir);
}
