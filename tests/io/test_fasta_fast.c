/* test_fasta_fast.c: the fast FASTA path (plain files) against the htslib + kseq path (the same
 * bytes gzip-compressed), record by record and message by message, on random texts full of the
 * corner cases: CR anywhere, empty lines, '@' and '+' lines, headers without sequence or without a
 * line end, a header character as the last byte. Also the text view against the copied sequence,
 * and records longer than the fast path's first buffer. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "../../core/tsk_def.h"
#include "../../io/fasta_fast.h"
#include "../../io/seqio.h"
#include "io_test.h"

static uint64_t rng_state = 12345;
static uint64_t rnd(void) { return test_rnd(&rng_state); }

static void write_both(const char *dir, const char *text, size_t n, char *plain, char *gz)
{
    sprintf(plain, "%s/x.fa", dir);
    sprintf(gz, "%s/x.fa.gz", dir);
    FILE *f = fopen(plain, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
    gzFile g = gzopen(gz, "wb");
    cr_assert(g);
    cr_assert_eq(gzwrite(g, text, (unsigned)n), (int)n);
    gzclose(g);
}

/* Message without its leading "<path>: ". */
static const char *after_path(const char *msg, const char *path)
{
    size_t k = strlen(path);
    return strncmp(msg, path, k) == 0 && msg[k] == ':' ? msg + k + 2 : msg;
}

static void compare_paths(const char *plain, const char *gz, const char *text)
{
    char e1[TSK_ERRLEN] = "", e2[TSK_ERRLEN] = "";
    int c1 = 0, c2 = 0;
    tsk_reader *a = tsk_reader_open(plain, &c1, e1, sizeof e1);
    tsk_reader *b = tsk_reader_open(gz, &c2, e2, sizeof e2);
    cr_assert_eq(!a, !b, "open differs on %s: '%s' vs '%s'", text, e1, e2);
    if (!a) {
        cr_assert_eq(c1, c2);
        cr_assert_str_eq(after_path(e1, plain), after_path(e2, gz), "text: %s", text);
        return;
    }
    tsk_reader *t = tsk_reader_open(plain, &c1, e1, sizeof e1); /* text views */
    cr_assert(t);
    uint8_t lut[256];
    tsk_encode_table(TSK_DNA, lut);
    for (int i = 0;; i++) {
        tsk_seq_record r1, r2, r3;
        size_t text_len;
        int k1 = tsk_reader_next(a, &r1, e1, sizeof e1);
        int k2 = tsk_reader_next(b, &r2, e2, sizeof e2);
        int k3 = tsk_reader_next_text(t, &r3, &text_len, e1, sizeof e1);
        cr_assert_eq(k1, k2, "record %d: rc %d vs %d (%s | %s) on %s", i, k1, k2, e1, e2, text);
        cr_assert_eq(k1, k3);
        if (k1 != TSK_IO_RECORD) {
            if (k1 < 0) cr_assert_str_eq(after_path(e1, plain), after_path(e2, gz), "text: %s", text);
            break;
        }
        cr_assert_str_eq(r1.name, r2.name, "text: %s", text);
        cr_assert_eq(r1.name_len, r2.name_len);
        cr_assert_eq(r1.len, r2.len, "record %d '%s': %zu vs %zu on %s", i, r1.name, r1.len, r2.len, text);
        cr_assert_str_eq(r1.seq, r2.seq, "text: %s", text);
        cr_assert_eq(r1.is_fastq, r2.is_fastq);
        cr_assert_str_eq(r3.name, r1.name);
        cr_assert_eq(r3.len, r1.len);
        uint8_t *x = malloc(text_len + 1), *y = malloc(r1.len + 1);
        size_t nx = tsk_encode(lut, r3.seq, text_len, x), ny = tsk_encode(lut, r1.seq, r1.len, y);
        cr_assert_eq(nx, ny);
        cr_assert(memcmp(x, y, nx) == 0);
        free(x);
        free(y);
    }
    tsk_reader_close(a);
    tsk_reader_close(b);
    tsk_reader_close(t);
}

Test(fasta_fast, same_records_as_kseq_on_random_texts)
{
    static const char *const pieces[] = {">", ">", "@", "+", "\n", "\n", "\n", "\r", "\r\n", " ", "\t",
                                         "A", "C", "GT", "acgtn", "x", "name", "N", "\n>", "\n@", "\n+"};
    const int n_pieces = (int)(sizeof pieces / sizeof *pieces);
    char *dir = scratch_dir();
    char plain[4096], gz[4096], text[512];
    for (int trial = 0; trial < 1000; trial++) {
        size_t n = 0;
        int lead = (int)(rnd() % 4);
        if (lead == 1) text[n++] = '\n';
        if (lead == 2) text[n++] = ' ';
        text[n++] = '>';
        int len = 1 + (int)(rnd() % 40);
        for (int k = 0; k < len; k++) {
            const char *p = pieces[rnd() % (uint64_t)n_pieces];
            size_t m = strlen(p);
            memcpy(text + n, p, m);
            n += m;
        }
        text[n] = '\0';
        write_both(dir, text, n, plain, gz);
        compare_paths(plain, gz, text);
    }
    scratch_rm(dir);
}

/* Records longer than the first read buffer (1 MiB): the buffer grows and the parse restarts. */
Test(fasta_fast, records_beyond_the_first_buffer)
{
    char *dir = scratch_dir();
    char plain[4096], gz[4096];
    size_t n = (size_t)20 << 20, at = 0;
    char *text = malloc(n + 64);
    at += (size_t)sprintf(text, ">big one\n");
    while (at < n) {
        for (int k = 0; k < 61 && at < n; k++) text[at++] = "ACGTN"[rnd() % 5];
        text[at++] = '\n';
    }
    at += (size_t)sprintf(text + at, ">small\nAC\n>big2\n");
    size_t tail = (size_t)9 << 20;
    text = realloc(text, at + tail + 2);
    for (size_t k = 0; k < tail; k++) text[at++] = "acgt"[rnd() % 4];
    write_both(dir, text, at, plain, gz);
    compare_paths(plain, gz, "(big records)");
    free(text);
    scratch_rm(dir);
}

Test(fasta_fast, parse_asks_for_more_until_the_end)
{
    tsk_fasta_view v;
    size_t used;
    cr_assert_eq(tsk_fasta_parse(">a\nAC", 5, 0, &v, &used), TSK_FASTA_MORE);
    cr_assert_eq(tsk_fasta_parse(">a\nAC", 5, 1, &v, &used), TSK_FASTA_RECORD);
    cr_assert_eq(v.seq_len, 2);
    cr_assert_eq(v.stop, -1);
    cr_assert_eq(tsk_fasta_parse(">a\nA\r\n\nC\n>b", 11, 0, &v, &used), TSK_FASTA_RECORD);
    cr_assert_eq(v.seq_len, 2);
    cr_assert_eq(v.text_len, 5);
    cr_assert_eq(used, 9);
    cr_assert_eq(v.stop, '>');
    cr_assert_eq(tsk_fasta_parse(">", 1, 1, &v, &used), TSK_FASTA_END);
    cr_assert_eq(tsk_fasta_parse(">", 1, 0, &v, &used), TSK_FASTA_MORE);
}

/* The batcher's vectorized DNA encoder against tsk_encode, on texts of letters in both cases,
 * U, N, IUPAC codes, line breaks and other bytes, at every length and alignment. */
#include "../../io/batcher.h"
Test(fasta_fast, batcher_text_encoding_equals_tsk_encode)
{
    static const char alphabet[] = "ACGTACGTacgtuUNnRY\n\r-*x\x80\xC1\xE1";
    tsk_params p;
    tsk_params_default(&p);
    for (int alpha = 0; alpha < 2; alpha++) {
        p.alphabet = alpha ? TSK_PROTEIN : TSK_DNA;
        uint8_t lut[256];
        tsk_encode_table(p.alphabet, lut);
        tsk_batcher b;
        tsk_batcher_init(&b, &p);
        cr_assert_eq(b.plain_dna, !alpha, "the vectorized encoder is the one under test for DNA");
        char text[300];
        uint8_t want[300];
        for (int trial = 0; trial < 4000; trial++) {
            size_t n = rnd() % 300;
            int mostly_letters = trial % 2;
            for (size_t k = 0; k < n; k++)
                text[k] = mostly_letters && rnd() % 8 ? "ACGTacgt"[rnd() % 8] : alphabet[rnd() % (sizeof alphabet - 1)];
            size_t raw = 0;
            for (size_t k = 0; k < n; k++) raw += text[k] != '\n' && text[k] != '\r';
            size_t kept = tsk_encode(lut, text, n, want);
            cr_assert_eq(tsk_batcher_add_text(&b, "r", "s", text, n, raw, 0), 0);
            tsk_batch batch = tsk_batcher_batch(&b);
            cr_assert_eq(tsk_batch_len(&batch, batch.n_records - 1), (int64_t)kept);
            cr_assert(memcmp(batch.codes + batch.offset[batch.n_records - 1], want, kept) == 0, "trial %d", trial);
            cr_assert_eq(b.info[b.n - 1].raw_len, (int64_t)raw);
            if (trial % 50 == 49) tsk_batcher_reset(&b);
        }
        tsk_batcher_free(&b);
    }
}
