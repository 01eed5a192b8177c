/* test_seqio.c: FASTA/FASTQ reading through every container, with one parse thread and several
 * (the calls tsk_feed_file makes), against the records make.sh wrote; the bad inputs the reader must
 * name; input lists and path stems. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>

#include "../../io/seqio.h"
#include "io_test.h"
#include "reader_test.h"

typedef struct {
    const char *name, *seq;
} expect_rec;

/* good.fa as make.sh writes it: multi-line, lowercase and N kept, an empty record, U kept. */
static const expect_rec GOOD_FA[] = {
    {"seq1", "ACGTACGTACGTNNacgt"}, {"seq2", "TTTTGGGGCCCCAAAA"}, {"empty", ""}, {"seq3", "ACGU"}};
/* good.fq: r2's quality line starts with '@' (read as FASTA, its '+' line would be an error) */
static const expect_rec GOOD_FQ[] = {{"r1", "ACGTN"}, {"r2", "GGCC"}};

/* The parse threads of the runs below: 1 (the sequential paths) and several (a plain FASTA file
 * of more than one range is then parsed in parallel, its records coming as codes). */
static const int THREADS[] = {1, 4};
#define SMALL_RANGE 7 /* bytes: puts range borders inside the small files */

/* path read as `sketch -p threads` reads it gives exactly the records want[0..n): names, raw
 * lengths, the characters (or, from the parallel parser, their codes), then EOF. */
static void expect_records_with(const char *path, int threads, size_t range, const expect_rec *want, size_t n)
{
    transcript t;
    tr_read(path, threads, range, &t);
    cr_assert_eq(t.rc, TSK_IO_EOF, "%s, %d threads: rc %d %s", path, threads, t.rc, t.msg);
    cr_assert_eq(t.n, n, "%s, %d threads: %zu records", path, threads, t.n);
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(want[i].seq);
        cr_assert_str_eq(t.names[i], want[i].name, "%s", path);
        cr_assert_eq(t.raw[i], len, "%s %s: len %zu", path, t.names[i], t.raw[i]);
        if (t.seq[i]) {
            cr_assert_eq(t.seq_len[i], len, "%s", path);
            cr_assert_str_eq(t.seq[i], want[i].seq, "%s", path);
        }
        uint8_t *codes = malloc(len + 1);
        size_t n_codes = tsk_encode(lut, want[i].seq, len, codes);
        cr_assert_eq(t.n_codes[i], n_codes, "%s %s, %d threads: %zu codes", path, t.names[i], threads, t.n_codes[i]);
        cr_assert(!n_codes || memcmp(t.codes[i], codes, n_codes) == 0, "%s %s: codes", path, t.names[i]);
        free(codes);
    }
    tr_free(&t);
}

static void expect_records(const char *path, const expect_rec *want, size_t n)
{
    for (size_t k = 0; k < sizeof THREADS / sizeof *THREADS; k++)
        expect_records_with(path, THREADS[k], SMALL_RANGE, want, n);
}

Test(seqio, plain_gzip_bgzf_crlf_identical)
{
    const char *files[] = {"good.fa", "good.fa.gz", "good.fa.bgz", "crlf.fa"};
    for (size_t i = 0; i < 4; i++) expect_records(td(files[i]), GOOD_FA, 4);
}

Test(seqio, multi_member_gzip)
{
    expect_rec twice[8];
    for (int i = 0; i < 8; i++) twice[i] = GOOD_FA[i % 4];
    expect_records(td("multi-member.fa.gz"), twice, 8);
}

Test(seqio, fastq_plain_gzip_crlf)
{
    /* r2's quality line starts with '@': it must not be taken for a header */
    const char *files[] = {"good.fq", "good.fq.gz", "crlf.fq"};
    for (size_t i = 0; i < 3; i++) expect_records(td(files[i]), GOOD_FQ, 2);
}

static void stdin_from(const char *path)
{
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0);
    cr_assert_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
}

Test(seqio, stdin_gzip) /* Criterion forks each test, so replacing stdin is local */
{
    stdin_from(td("good.fa.gz"));
    expect_records_with("-", 4, SMALL_RANGE, GOOD_FA, 4); /* stdin is read once: one run */
}

Test(seqio, stdin_fastq)
{
    stdin_from(td("good.fq"));
    expect_records_with("-", 1, 0, GOOD_FQ, 2);
}

Test(seqio, stdin_empty)
{
    stdin_from("/dev/null");
    transcript t;
    tr_read("-", 4, 0, &t);
    cr_assert(t.at_open);
    cr_assert_str_eq(t.msg, "stdin: empty file");
    cr_assert_eq(t.rc, TSK_IO_BAD);
}

/* ---- bad inputs: each must fail with the file's name and the reason ---- */

/* Arrays, not pointers: Criterion may hand parameters to a test in another process. */
typedef struct {
    char file[32];
    int at_open;        /* 1: tsk_reader_open_par fails; 0: a later tsk_reader_next_piece */
    char message[128];  /* expected text after "<path>: " */
} bad_case;

ParameterizedTestParameters(seqio, bad_inputs)
{
    static bad_case cases[] = {
        {"missing.fa", 1, "no such file"},
        {"empty.fa", 1, "empty file"},
        {"empty.fa.gz", 1, "empty file (after decompression)"},
        {"no-records.fa", 1, "no records"},
        {"not-fasta.txt", 1, "not FASTA or FASTQ (first character 'h' is neither '>' nor '@')"},
        {"comment-first.fa", 1, "not FASTA or FASTQ (first character '#' is neither '>' nor '@')"},
        {"garbage.bin", 1, "not FASTA or FASTQ (binary data)"},
        {"binary-in-record.fa", 1, "not FASTA or FASTQ (binary data)"},
        {"truncated.fa.gz", 1, "truncated or corrupt gzip data"},
        {"corrupt.fa.gz", 1, "truncated or corrupt gzip data"},
        {"truncated.fa.bgz", 1, "truncated BGZF data (end-of-file marker missing)"},
        {"bad-qual.fq", 0, "record 'r1': quality length 5 differs from sequence length 4"},
        {"truncated.fq", 0, "record 'r2': truncated FASTQ record (end of file after 3 of 8 quality characters)"},
        {"truncated-noplus.fq", 0, "record 'r2': truncated FASTQ record (no '+' line)"},
    };
    return cr_make_param_array(bad_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(bad_case *c, seqio, bad_inputs)
{
    char want[TSK_ERRLEN];
    const char *path = td(c->file);
    snprintf(want, sizeof want, "%s: %s", path, c->message);
    for (size_t k = 0; k < sizeof THREADS / sizeof *THREADS; k++) {
        transcript t;
        tr_read(path, THREADS[k], SMALL_RANGE, &t);
        cr_assert_eq(t.at_open, c->at_open, "%s, %d threads: at open %d", c->file, THREADS[k], t.at_open);
        cr_assert_eq(t.rc, TSK_IO_BAD, "%s: rc %d", c->file, t.rc);
        cr_assert_str_eq(t.msg, want);
        tr_free(&t);
    }
}

Test(seqio, directory)
{
    transcript t;
    tr_read(TSK_TESTDATA, 4, 0, &t);
    cr_assert(t.at_open);
    cr_assert(strstr(t.msg, "is a directory"), "%s", t.msg);
}

/* A record far longer than any buffer, split over lines, with N and CRLF: read whole, streaming. */
Test(seqio, long_record_crlf)
{
    char *dir = scratch_dir();
    char *path = path_in(dir, "long.fa");
    const size_t n = 12 * 1000 * 1000, width = 61;
    char *seq = malloc(n + 1);
    uint64_t x = 42;
    for (size_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        seq[i] = "ACGTN"[(x >> 33) % 5];
    }
    seq[n] = 0;
    FILE *f = fopen(path, "wb");
    fputs(">long desc\r\n", f);
    for (size_t i = 0; i < n; i += width) fprintf(f, "%.*s\r\n", (int)(n - i < width ? n - i : width), seq + i);
    fputs(">next\r\nAC\r\n", f);
    fclose(f);
    const expect_rec want[] = {{"long", seq}, {"next", "AC"}};
    expect_records_with(path, 1, 0, want, 2);
    expect_records_with(path, 4, 0, want, 2); /* 12 MB: ranges of the default size */
    free(seq);
    free(path);
    scratch_rm(dir);
}

/* ---- input lists ---- */

Test(seqio, input_list)
{
    char err[TSK_ERRLEN];
    tsk_input *in = NULL;
    size_t n = 0;
    cr_assert_eq(tsk_input_list_read(td("list.txt"), &in, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(in[0].path, "good.fa");
    cr_assert_null(in[0].name);
    cr_assert_str_eq(in[1].path, "good.fq");
    cr_assert_str_eq(in[2].path, "good.fa.gz");
    cr_assert_str_eq(in[2].name, "named");
    /* appends */
    cr_assert_eq(tsk_input_list_read(td("list.txt"), &in, &n, err, sizeof err), 0);
    cr_assert_eq(n, 6);
    cr_assert_str_eq(in[5].name, "named");
    /* a failing list leaves what was there */
    cr_assert_eq(tsk_input_list_read(td("bad-list.txt"), &in, &n, err, sizeof err), TSK_IO_BAD);
    char want[TSK_ERRLEN];
    snprintf(want, sizeof want, "%s:1: empty path in 'name<TAB>path'", td("bad-list.txt"));
    cr_assert_str_eq(err, want);
    cr_assert_eq(n, 6);
    cr_assert_eq(tsk_input_list_read(td("no-such-list.txt"), &in, &n, err, sizeof err), TSK_IO_BAD);
    cr_assert(strstr(err, "no-such-list.txt: no such file"), "%s", err);
    cr_assert_eq(tsk_input_list_read(td("no-records.fa"), &in, &n, err, sizeof err), TSK_IO_BAD);
    cr_assert(strstr(err, "no paths in the list"), "%s", err);
    cr_assert_eq(n, 6);
    tsk_inputs_free(in, n);
}

Test(seqio, input_list_stdin)
{
    stdin_from(td("list.txt"));
    char err[TSK_ERRLEN];
    tsk_input *in = NULL;
    size_t n = 0;
    cr_assert_eq(tsk_input_list_read("-", &in, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 3);
    tsk_inputs_free(in, n);
}

Test(seqio, path_stem)
{
    const char *cases[][2] = {
        {"dir/x.fna.gz", "x"}, {"x.fa", "x"}, {"/a/b/genome.fasta.bgz", "genome"}, {"reads.FQ.GZ", "reads"},
        {"r.fastq", "r"}, {"p.faa", "p"}, {"x.tar.gz", "x.tar"}, {"x.txt", "x.txt"}, {"x.fa.fa", "x.fa"},
        {".fa", ".fa"}, {"-", "stdin"}, {"dir/sub/", "sub"}, {"x.gz", "x"}, {"a.b.ffn", "a.b"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = tsk_path_stem(cases[i][0]);
        cr_assert_str_eq(s, cases[i][1], "stem of %s", cases[i][0]);
        free(s);
    }
}
