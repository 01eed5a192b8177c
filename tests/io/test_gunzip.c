/* test_gunzip.c: whole gzip files decompressed by libdeflate (io/gunzip.h) give exactly the bytes
 * zlib gives, every member of them; what the path does not take (BGZF, truncated or corrupt data,
 * trailing garbage, plain text) it leaves to htslib; and records read through it equal those of
 * the plain file. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

#include "../../io/gunzip.h"
#include "../../io/seqio.h"
#include "io_test.h"
#include "reader_test.h"

/* tsk_gunzip_whole of the file at path: its answer, and the text in *out (freed by the caller). */
static int gunzip_path(const char *path, char **out, size_t *out_len)
{
    int fd = open(path, O_RDONLY);
    cr_assert(fd >= 0, "%s", path);
    struct stat st;
    cr_assert(fstat(fd, &st) == 0);
    *out = NULL;
    *out_len = 0;
    int rc = tsk_gunzip_whole(fd, (size_t)st.st_size, out, out_len);
    close(fd);
    return rc;
}

/* Appends a gzip member of p[0..n) (zlib, level 1) to the file at path. */
static void add_member(const char *path, const void *p, size_t n)
{
    gzFile g = gzopen(path, "ab1");
    cr_assert(g);
    if (n) cr_assert_eq(gzwrite(g, p, (unsigned)n), (int)n);
    cr_assert_eq(gzclose(g), Z_OK);
}

static void append_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "ab");
    cr_assert(f);
    cr_assert_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

Test(gunzip, same_bytes_as_the_plain_file)
{
    size_t n_plain = 0, n = 0;
    unsigned char *plain = slurp(td("good.fa"), &n_plain);
    cr_assert(plain);
    char *text;
    cr_assert_eq(gunzip_path(td("good.fa.gz"), &text, &n), 1);
    cr_assert_eq(n, n_plain);
    cr_assert_eq(memcmp(text, plain, n), 0);
    free(text);
    /* make.sh: two members, each the whole of good.fa */
    cr_assert_eq(gunzip_path(td("multi-member.fa.gz"), &text, &n), 1);
    cr_assert_eq(n, 2 * n_plain);
    cr_assert_eq(memcmp(text, plain, n_plain), 0);
    cr_assert_eq(memcmp(text + n_plain, plain, n_plain), 0);
    free(text);
    free(plain);
}

Test(gunzip, left_to_htslib)
{
    char *text;
    size_t n;
    const char *others[] = {"good.fa.bgz", "truncated.fa.gz", "corrupt.fa.gz", "good.fa", "truncated.fa.bgz"};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        cr_assert_eq(gunzip_path(td(others[i]), &text, &n), 0, "%s", others[i]);
        cr_assert_null(text);
    }
    /* trailing garbage after a good member */
    char *dir = scratch_dir(), *p = path_in(dir, "tail.fa.gz");
    add_member(p, ">a\nACGT\n", 8);
    append_bytes(p, "garbage!garbage!garbage!", 24);
    cr_assert_eq(gunzip_path(p, &text, &n), 0);
    free(p);
    scratch_rm(dir);
}

/* ISIZE (the last member's length) is the first guess at the room needed: a big member before a
 * tiny one makes the buffer grow, and every byte must still come out. */
Test(gunzip, grows_past_the_last_members_size)
{
    uint64_t st = 7;
    const size_t big = 3u << 20;
    char *seq = malloc(big + 1);
    cr_assert(seq);
    memcpy(seq, ">big\n", 5);
    for (size_t i = 5; i < big; i++) seq[i] = (i % 61 == 60) ? '\n' : "ACGT"[test_rnd(&st) & 3];
    char *dir = scratch_dir(), *p = path_in(dir, "grow.fa.gz");
    add_member(p, seq, big);
    add_member(p, "\n>tiny\nAC\n", 10);
    add_member(p, "", 0); /* an empty member at the end: ISIZE 0 */
    char *text;
    size_t n;
    cr_assert_eq(gunzip_path(p, &text, &n), 1);
    cr_assert_eq(n, big + 10);
    cr_assert_eq(memcmp(text, seq, big), 0);
    cr_assert_eq(memcmp(text + big, "\n>tiny\nAC\n", 10), 0);
    free(text);
    /* and the reader gives both records from it, the same as from the plain text */
    size_t at = 0;
    for (size_t i = 5; i < big; i++)
        if (seq[i] != '\n') seq[at++] = seq[i]; /* the sequence without its line breaks */
    for (int threads = 1; threads <= 4; threads += 3) {
        transcript t;
        tr_read(p, threads, 0, &t);
        cr_assert_eq(t.rc, TSK_IO_EOF, "%s", t.msg);
        cr_assert_eq(t.n, 2);
        cr_assert_str_eq(t.names[0], "big");
        cr_assert_eq(t.raw[0], at);
        cr_assert_not_null(t.seq[0], "a gzip file is read whole, as text");
        cr_assert_eq(t.seq_len[0], at);
        cr_assert_eq(memcmp(t.seq[0], seq, at), 0);
        cr_assert_str_eq(t.names[1], "tiny");
        cr_assert_str_eq(t.seq[1], "AC");
        tr_free(&t);
    }
    free(seq);
    free(p);
    scratch_rm(dir);
}

/* The trailer's ISIZE is the file's word: one that claims 4 GB makes no 4 GB buffer (libFuzzer
 * found a 130-byte file asking for 2 GB), and the wrong length is corrupt data, left to htslib. */
Test(gunzip, a_lying_isize_costs_nothing)
{
    size_t n = 0;
    unsigned char *gz = slurp(td("good.fa.gz"), &n);
    cr_assert(gz && n > 18);
    memset(gz + n - 4, 0xFF, 4);
    char *dir = scratch_dir(), *p = path_in(dir, "lying.fa.gz");
    append_bytes(p, gz, n);
#ifndef __SANITIZE_ADDRESS__ /* ASan maps terabytes of shadow: the plain build is the one that checks this */
    struct rlimit lim = {256u << 20, 256u << 20}; /* address space: a 4 GB malloc would fail */
    cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);
#endif
    char *text;
    size_t len;
    cr_assert_eq(gunzip_path(p, &text, &len), 0);
    cr_assert_null(text);
    free(gz);
    free(p);
    scratch_rm(dir);
}

Test(gunzip, bgzf_header_is_recognised)
{
    size_t n = 0;
    unsigned char *bgzf = slurp(td("good.fa.bgz"), &n), *gz;
    cr_assert(tsk_gzip_is_bgzf(bgzf, n));
    free(bgzf);
    gz = slurp(td("good.fa.gz"), &n);
    cr_assert_not(tsk_gzip_is_bgzf(gz, n));
    free(gz);
}
