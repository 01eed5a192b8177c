/* test_fasta_par.c: the parallel FASTA parser (io/fasta_par.c, through seqio's
 * tsk_reader_open_par, and by itself with one worker) and the sequential reader against an
 * independent reference (reader_test.h), record by record (names, raw lengths, cleaned codes) and
 * message by message, for 1..8 threads and ranges of a few bytes, so that range borders fall
 * everywhere: inside names, header comments, CRLF pairs, empty lines, '+' lines. Also the batches
 * io/feed.c builds (borders, --per-file joins, slide rows) for every thread count, against the
 * reference's records appended whole. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "../../core/tsk_def.h"
#include "../../io/batcher.h"
#include "../../io/encode.h"
#include "../../io/fasta_par.h"
#include "../../io/feed.h"
#include "../../io/seqio.h"
#include "io_test.h"
#include "reader_test.h"

static uint64_t rng_state = 777;
static uint64_t rnd(void) { return test_rnd(&rng_state); }

/* The parser itself with one worker (the reader never opens it so: one thread reads sequentially),
 * for a file whose first non-blank byte is '>' (what seqio's sniffing would hand it). Returns 0
 * when not such. */
static int collect_par1(const char *path, size_t range, transcript *t)
{
    size_t len = 0;
    unsigned char *d = slurp(path, &len);
    cr_assert(d);
    size_t i = 0;
    while (i < len && strchr(" \t\n\r\f\v", d[i]) && d[i]) i++;
    int ok = i < len && d[i] == '>' && i < 4096;
    for (size_t k = 0; ok && k < len && k < 1024; k++)
        if (d[k] == 0x7F || (d[k] < 0x20 && !strchr(" \t\n\r\f\v", d[k]))) ok = 0;
    free(d);
    if (!ok) return 0;
    memset(t, 0, sizeof *t);
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    tsk_fasta_par *p = tsk_fasta_par_open(open(path, O_RDONLY), i, len, lut, 1, range, path);
    cr_assert(p);
    tsk_fasta_piece fp;
    while ((t->rc = tsk_fasta_par_next(p, &fp, t->msg, sizeof t->msg)) == TSK_IO_RECORD) {
        tsk_seq_piece pc = {fp.name, fp.name_len, fp.codes, fp.n_codes, NULL, 0, fp.raw_len, fp.starts_record};
        tr_piece(t, &pc, lut);
    }
    tsk_fasta_par_close(p);
    return 1;
}

/* path read by every thread count 1..8 (with all_threads, else 1, 2, 3 and 8) over each range,
 * and by the parser with one worker, equals the reference (reader_test.h). Returns 0 for a file
 * the reference does not cover (not FASTA text: test_seqio.c has those). */
static int all_threads = 1;
static int check_file(const char *path, const size_t *ranges, int n_ranges, const char *what)
{
    size_t len = 0;
    char *d = (char *)slurp(path, &len);
    cr_assert(d, "%s", path);
    transcript want, got;
    int covered = tr_reference(path, d, len, &want);
    free(d);
    if (!covered) return 0;
    char label[512];
    snprintf(label, sizeof label, "%.400s, 1 thread", what);
    tr_read(path, 1, 0, &got);
    tr_compare(&want, &got, 0, label);
    tr_free(&got);
    for (int k = 0; k < n_ranges; k++) {
        snprintf(label, sizeof label, "%.400s, range %zu, 1 worker", what, ranges[k]);
        if (collect_par1(path, ranges[k], &got)) {
            tr_compare(&want, &got, 1, label);
            tr_free(&got);
        }
        for (int threads = 2; threads <= 8; threads += all_threads || threads != 3 ? 1 : 5) {
            snprintf(label, sizeof label, "%.400s, range %zu, %d threads", what, ranges[k], threads);
            tr_read(path, threads, ranges[k], &got);
            tr_compare(&want, &got, 1, label);
            tr_free(&got);
        }
    }
    tr_free(&want);
    return 1;
}

static void check_text(const char *dir, const char *text, size_t n, const size_t *ranges, int n_ranges)
{
    char *path = path_in(dir, "x.fa");
    cr_assert_eq(spit(path, text, n), 0);
    cr_assert(check_file(path, ranges, n_ranges, text), "the reference covers %s", text);
    free(path);
}

static const size_t TINY[] = {1, 2, 3, 5, 8, 13, 64};
#define N_TINY ((int)(sizeof TINY / sizeof *TINY))

Test(fasta_par, same_records_as_the_reference_on_random_texts)
{
    static const char *const pieces[] = {">", ">", "@", "+", "\n", "\n", "\n", "\r", "\r\n", " ", "\t", "A", "C",
                                         "GT", "acgtn", "x", "name", "N", "RYKM", "\n>", "\n>", "\n@", "\n+",
                                         "\nACGTACGTTT", "\nacgtACGTNNNNACGTAAAAACCCCGGGGTTTT", "\n>h c\n", "\n\n",
                                         "\r\n>r\r\n"};
    const int n_pieces = (int)(sizeof pieces / sizeof *pieces);
    char *dir = scratch_dir();
    char text[1024];
    all_threads = 0; /* thousands of files: 1, 2, 3 and 8 threads are enough */
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 0;
        int lead = (int)(rnd() % 4);
        if (lead == 1) text[n++] = '\n';
        if (lead == 2) text[n++] = ' ';
        text[n++] = '>';
        int len = 1 + (int)(rnd() % 60);
        /* mostly no '+' line (it ends the parse): keep most trials going to the end */
        int allow_plus = trial % 4 == 0;
        for (int k = 0; k < len; k++) {
            const char *p = pieces[rnd() % (uint64_t)n_pieces];
            if (!allow_plus && strchr(p, '+')) continue;
            size_t m = strlen(p);
            memcpy(text + n, p, m);
            n += m;
        }
        text[n] = '\0';
        check_text(dir, text, n, TINY, N_TINY);
    }
    scratch_rm(dir);
}

Test(fasta_par, edge_cases)
{
    static const char *const cases[] = {
        ">",                                  /* no records */
        ">\n",                                /* one record, empty name and sequence */
        ">a",                                 /* header only, no line end */
        ">a\nACGT",                           /* no final line end */
        ">a\nACGT\n>",                        /* a header character as the last byte */
        ">a\nAC\n>b\n>c\nGT\n",               /* an empty record */
        ">a\n\n\nAC\n\n>b\n\nGT\n\n",          /* empty lines */
        ">a x>y\nAC>GT\n>b\nA>C\n",           /* '>' inside lines is no header */
        ">a\r\nAC\r\nGT\r\n>b\r\n\r\nTT\r\n", /* CRLF */
        ">a\nAC\r\r\nG\rT\n",                  /* CR anywhere */
        ">a\nACGT\n@b\nGGCC\n",               /* '@' at a line start opens a record */
        ">a\nACGT\n+\nIIII\n",                /* a '+' line: FASTQ in a FASTA file */
        ">a\nAC\n>b\nGG\n+b\n>c\nTT\n",        /* the error names the record, later records never come */
        "  \n >a\nAC\n",                      /* blanks before the first header */
        ">a\nacgtnNRYKMSWBDHVuU-.*\n",        /* lowercase, N, IUPAC, U, gaps */
        ">only\nACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT\n", /* one record, one line */
        ">a\tcomment with > and @ and +\nAC\n>b comment\n+\n",
        ">\t\nAC\n>  \nGT\n",                 /* empty names */
    };
    char *dir = scratch_dir();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_text(dir, cases[i], strlen(cases[i]), TINY, N_TINY);
    scratch_rm(dir);
}

/* Headers and lines longer than several ranges, wrapped and unwrapped records, CRLF, all at once. */
Test(fasta_par, long_lines_and_headers_across_many_ranges)
{
    char *dir = scratch_dir();
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    for (int rec = 0; rec < 40; rec++) {
        n += (size_t)sprintf(text + n, ">r%d", rec);
        if (rec % 5 == 1) /* a long header comment */
            for (int k = 0; k < 3000; k++) text[n++] = "ab >@+"[rnd() % 6];
        text[n++] = '\n';
        size_t len = rnd() % 20000, width = rec % 3 == 0 ? len + 1 : 1 + rnd() % 120;
        int crlf = rec % 7 == 3;
        for (size_t k = 0; k < len; k++) {
            text[n++] = "ACGTACGTacgtNRY"[rnd() % 15];
            if ((k + 1) % width == 0) {
                if (crlf) text[n++] = '\r';
                text[n++] = '\n';
            }
        }
        if (rnd() % 2) text[n++] = '\n';
    }
    static const size_t ranges[] = {97, 1000, 4096, 65536};
    check_text(dir, text, n, ranges, 4);
    free(text);
    scratch_rm(dir);
}

/* Every plain FASTA file of testdata/. */
Test(fasta_par, testdata_files)
{
    static const char *const dirs[] = {"io", "genomes", "golden", "dist", "gpu"};
    static const size_t ranges[] = {7, 64, 1000, 100000};
    int files = 0;
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/../%s", TSK_TESTDATA, dirs[k]);
        DIR *d = opendir(dir);
        cr_assert(d, "%s", dir);
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 4 || strcmp(e->d_name + len - 3, ".fa") != 0) continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            files += check_file(path, ranges, 4, path);
        }
        closedir(d);
    }
    cr_assert_gt(files, 10);
}

/* ---- batches: io/feed.c gives the reference's batches for every thread count ---- */

typedef struct {
    tsk_batcher b;
    unsigned long long sum;
    int64_t batches, records;
} feed_state;

static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static tsk_batcher *feed_swap(void *ctx)
{
    feed_state *st = ctx;
    tsk_batch batch = tsk_batcher_batch(&st->b);
    unsigned long long h = fnv(st->sum, &batch.n_records, sizeof batch.n_records);
    for (int64_t r = 0; r < batch.n_records; r++) {
        const tsk_record_info *in = &st->b.info[r];
        h = fnv(h, in->name, strlen(in->name) + 1);
        h = fnv(h, in->source, strlen(in->source) + 1);
        h = fnv(h, &in->raw_len, sizeof in->raw_len);
        h = fnv(h, &in->clean_len, sizeof in->clean_len);
        h = fnv(h, &in->dropped, sizeof in->dropped);
        h = fnv(h, &in->n_rows, sizeof in->n_rows);
        h = fnv(h, &batch.row_offset[r], sizeof batch.row_offset[r]);
    }
    h = fnv(h, batch.codes, (size_t)batch.offset[batch.n_records]);
    st->sum = h;
    st->batches++;
    st->records += batch.n_records;
    tsk_batcher_reset(&st->b);
    return &st->b;
}

/* The batches of feed() below built from the reference's records, each appended whole with
 * tsk_batcher_add by the grouping rules of feed.h: a full batch is handed over before a record,
 * never inside one; with a --per-file name, the records of a file are one record. */
static unsigned long long feed_reference(const char *const *paths, int n_paths, const char *name, const tsk_params *p,
                                         int64_t max_bases, int64_t max_records, int *rc, char *err)
{
    feed_state st = {0};
    tsk_batcher_init(&st.b, p);
    st.b.max_bases = max_bases;
    st.b.max_records = max_records;
    *rc = TSK_IO_EOF;
    for (int i = 0; i < n_paths && *rc == TSK_IO_EOF; i++) {
        size_t len = 0;
        char *d = (char *)slurp(paths[i], &len);
        transcript t;
        cr_assert(d && tr_reference(paths[i], d, len, &t), "%s", paths[i]);
        free(d);
        for (size_t r = 0; r < t.n; r++) {
            int join = name && r > 0;
            if (!join && tsk_batcher_full(&st.b)) feed_swap(&st);
            cr_assert_eq(tsk_batcher_add(&st.b, name ? name : t.names[r], paths[i], t.seq[r], t.seq_len[r], join), 0);
        }
        *rc = t.rc;
        memcpy(err, t.msg, TSK_ERRLEN);
        tr_free(&t);
    }
    if (*rc == TSK_IO_EOF && st.b.n) feed_swap(&st);
    tsk_batcher_free(&st.b);
    return st.sum ^ (unsigned long long)st.batches * 31 ^ (unsigned long long)st.records;
}

static unsigned long long feed(const char *const *paths, int n_paths, const char *name, int threads, size_t range,
                               const tsk_params *p, int64_t max_bases, int64_t max_records, int *rc, char *err)
{
    feed_state st = {0};
    tsk_batcher_init(&st.b, p);
    st.b.max_bases = max_bases;
    st.b.max_records = max_records;
    tsk_feed_opts o = {threads, range, feed_swap, NULL, &st};
    tsk_batcher *cur = &st.b;
    *rc = TSK_IO_EOF;
    for (int i = 0; i < n_paths && *rc == TSK_IO_EOF; i++)
        *rc = tsk_feed_file(paths[i], name, &o, &cur, err, TSK_ERRLEN);
    if (*rc == TSK_IO_EOF && st.b.n) feed_swap(&st);
    tsk_batcher_free(&st.b);
    return st.sum ^ (unsigned long long)st.batches * 31 ^ (unsigned long long)st.records;
}

Test(fasta_par, feed_batches_equal_the_reference_for_every_thread_count)
{
    char *dir = scratch_dir();
    char *a = path_in(dir, "a.fa"), *b = path_in(dir, "b.fa"), *bad = path_in(dir, "bad.fa");
    FILE *f = fopen(a, "w");
    for (int rec = 0; rec < 300; rec++) {
        fprintf(f, ">a%d desc\n", rec);
        size_t len = rnd() % (rec % 50 == 0 ? 30000 : 700);
        for (size_t k = 0; k < len; k++) fputc(k % 61 == 60 ? '\n' : "ACGTacgtN"[rnd() % 9], f);
        fputc('\n', f);
    }
    fclose(f);
    f = fopen(b, "w");
    for (int rec = 0; rec < 50; rec++) fprintf(f, ">b%d\r\nACGTTGCA\r\nGG\r\n", rec);
    fclose(f);
    f = fopen(bad, "w");
    for (int rec = 0; rec < 200; rec++) fprintf(f, ">c%d\nACGTTGCAACGTTGCAACGTTGCA\n", rec);
    fprintf(f, "+\nIIII\n>d\nAC\n");
    fclose(f);
    tsk_params whole, slide;
    tsk_params_default(&whole);
    tsk_params_default(&slide);
    slide.window = 50;
    slide.stride = 7;
    const char *inputs[] = {a, b, "-none-", a};
    const size_t ranges[] = {0, 13, 500, 4096};
    for (int mode = 0; mode < 4; mode++) {
        const tsk_params *p = mode == 2 ? &slide : &whole;
        const char *name = mode == 1 ? "joined" : NULL;
        int64_t max_bases = mode == 3 ? INT64_C(1) << 40 : 2000, max_records = mode == 3 ? 5 : 1 << 20;
        const char *list[] = {a, b, a};
        char err1[TSK_ERRLEN] = "", err2[TSK_ERRLEN] = "";
        int rc1, rc2;
        unsigned long long want = feed_reference(list, 3, name, p, max_bases, max_records, &rc1, err1);
        cr_assert_eq(rc1, TSK_IO_EOF, "%s", err1);
        for (int threads = 1; threads <= 8; threads++)
            for (int k = 0; k < 4; k++) {
                unsigned long long got = feed(list, 3, name, threads, ranges[k], p, max_bases, max_records, &rc2, err2);
                cr_assert_eq(rc2, TSK_IO_EOF, "%s", err2);
                cr_assert_eq(got, want, "mode %d, %d threads, range %zu", mode, threads, ranges[k]);
            }
        /* errors: the same message, after the same batches */
        const char *with_bad[] = {a, bad};
        want = feed_reference(with_bad, 2, name, p, max_bases, max_records, &rc1, err1);
        cr_assert_eq(rc1, TSK_IO_BAD);
        for (int threads = 1; threads <= 8; threads += 3) {
            unsigned long long got = feed(with_bad, 2, name, threads, 64, p, max_bases, max_records, &rc2, err2);
            cr_assert_eq(rc2, rc1);
            cr_assert_str_eq(err2, err1);
            (void)got; /* the batches before the error may differ by the failing record's start */
        }
    }
    (void)inputs;
    free(a);
    free(b);
    free(bad);
    scratch_rm(dir);
}
