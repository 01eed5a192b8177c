/* test_fasta_fast.c: the ways the reader reads FASTA (plain files by the fast path, plain gzip
 * decompressed whole and then the fast path, BGZF by htslib + kseq), through the calls
 * tsk_feed_file makes, against an independent reference (reader_test.h), record by record and
 * message by message, on random texts full of the corner cases: CR anywhere, empty lines, '@' and
 * '+' lines, headers without sequence or without a line end, a header character as the last byte.
 * Also records longer than the fast path's first buffer. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include <htslib/bgzf.h>

#include "../../core/tsk_def.h"
#include "../../io/fasta_fast.h"
#include "../../io/seqio.h"
#include "io_test.h"
#include "reader_test.h"

static uint64_t rng_state = 12345;
static uint64_t rnd(void) { return test_rnd(&rng_state); }

/* The text as a plain file (read by fasta_fast.c), plain gzip (decompressed whole by gunzip.c,
 * then fasta_fast.c) and BGZF (htslib and kseq): paths[0..3). */
static void write_all(const char *dir, const char *text, size_t n, char paths[3][4096])
{
    sprintf(paths[0], "%s/x.fa", dir);
    sprintf(paths[1], "%s/x.fa.gz", dir);
    sprintf(paths[2], "%s/x.fa.bgz", dir);
    cr_assert_eq(spit(paths[0], text, n), 0);
    gzFile g = gzopen(paths[1], "wb");
    cr_assert(g);
    cr_assert_eq(gzwrite(g, text, (unsigned)n), (int)n);
    gzclose(g);
    BGZF *b = bgzf_open(paths[2], "w");
    cr_assert(b);
    cr_assert_eq(bgzf_write(b, text, n), (ssize_t)n);
    cr_assert_eq(bgzf_close(b), 0);
}

/* Each way of reading the text gives the reference's records and message. */
static void compare_paths(const char *dir, const char *text, size_t n, const char *what)
{
    char paths[3][4096];
    write_all(dir, text, n, paths);
    for (int k = 0; k < 3; k++) {
        transcript want, got;
        cr_assert(tr_reference(paths[k], text, n, &want), "the reference reads %s", what);
        tr_read(paths[k], 1, 0, &got);
        char label[600];
        snprintf(label, sizeof label, "%s: %.500s", paths[k] + strlen(dir) + 1, what);
        tr_compare(&want, &got, 0, label);
        tr_free(&want);
        tr_free(&got);
    }
}

Test(fasta_fast, same_records_as_the_reference_on_random_texts)
{
    static const char *const pieces[] = {">", ">", "@", "+", "\n", "\n", "\n", "\r", "\r\n", " ", "\t",
                                         "A", "C", "GT", "acgtn", "x", "name", "N", "\n>", "\n@", "\n+"};
    const int n_pieces = (int)(sizeof pieces / sizeof *pieces);
    char *dir = scratch_dir();
    char text[512];
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
        compare_paths(dir, text, n, text);
    }
    scratch_rm(dir);
}

/* Records longer than the first read buffer (1 MiB): the buffer grows and the parse restarts. */
Test(fasta_fast, records_beyond_the_first_buffer)
{
    char *dir = scratch_dir();
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
    compare_paths(dir, text, at, "(big records)");
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
