/* test_tsk_file.c: the .tsk format: bit-exact round trips (sketch rows, version 1; genome sketches,
 * version 5 with its size floor and anchors), the bytes docs/format.md fixes, every damaged-file
 * message (genome files of versions 2-4 refused), temporary files, parameter comparison; the CRC on several threads and
 * the checks of a file opened on several threads (checksum, key order, finite values). */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <zlib.h>

#include "../../core/genome_keys.h"
#include "../../io/atomic_file.h"
#include "../../io/crc32.h"
#include "../../io/seqio.h"
#include "../../io/tsk_file.h"
#include "io_test.h"

static uint64_t rng = 0x1234567;
static double next_value(void)
{
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return ((double)(rng >> 11) / 9007199254740992.0 - 0.5) * 3.0;
}

typedef struct {
    char name[64], source[64];
    int64_t raw, clean;
} rec_spec;

/* Writes n records of p to path; rows are returned (caller frees) for comparison. */
static void *write_file(const char *path, const tsk_params *p, const rec_spec *recs, int n, int64_t *n_rows_out)
{
    char err[TSK_ERRLEN];
    size_t elem = p->precision == TSK_DOUBLE ? 8 : 4;
    int64_t total = 0;
    for (int i = 0; i < n; i++) total += tsk_rows_for_length(p, recs[i].clean);
    unsigned char *all = calloc((size_t)(total ? total : 1) * p->dim, elem);
    for (int64_t i = 0; i < total * p->dim; i++) {
        double v = next_value();
        if (elem == 8) ((double *)all)[i] = v;
        else ((float *)all)[i] = (float)v;
    }
    tsk_writer *w = tsk_writer_open(path, p, "9.9.9-test", "tsketch sketch -o out.tsk 'a b.fa'", err, sizeof err);
    cr_assert(w, "%s", err);
    int64_t row = 0;
    for (int i = 0; i < n; i++) {
        tsk_record_info r = {recs[i].name, recs[i].source, recs[i].raw, recs[i].clean, recs[i].raw - recs[i].clean,
                             -1, tsk_rows_for_length(p, recs[i].clean)};
        if (tsk_writer_add(w, &r, all + (size_t)row * p->dim * elem, err, sizeof err) != 0) cr_assert_fail("%s", err);
        row += r.n_rows;
    }
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    *n_rows_out = total;
    return all;
}

static void check_file(const char *path, const tsk_params *p, const rec_spec *recs, int n, const void *rows, int64_t total)
{
    char err[TSK_ERRLEN];
    tsk_file *f = tsk_file_open(path, err, sizeof err);
    cr_assert(f, "%s", err);
    size_t elem = p->precision == TSK_DOUBLE ? 8 : 4;
    cr_assert_eq(f->elem_size, elem);
    cr_assert_eq(memcmp(&f->params, p, sizeof *p), 0, "params differ after the round trip");
    cr_assert_str_eq(f->tool_version, "9.9.9-test");
    cr_assert_str_eq(f->command_line, "tsketch sketch -o out.tsk 'a b.fa'");
    cr_assert_eq(f->n_records, n);
    cr_assert_eq(f->n_rows, total);
    /* one assertion per file, not per field: Criterion reports every assertion to its runner */
    int64_t row = 0;
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++) {
        const tsk_record_info *r = &f->records[i];
        if (strcmp(r->name, recs[i].name) || strcmp(r->source, recs[i].source) || r->raw_len != recs[i].raw ||
            r->clean_len != recs[i].clean || r->dropped != recs[i].raw - recs[i].clean || r->first_row != row ||
            r->n_rows != tsk_rows_for_length(p, recs[i].clean))
            bad = i;
        row += r->n_rows;
    }
    cr_assert_eq(bad, -1, "record %d differs after the round trip", bad);
    cr_assert_eq(((uintptr_t)f->data) % 4096, 0, "data not page-aligned");
    cr_assert_eq(memcmp(f->data, rows, (size_t)total * p->dim * elem), 0, "rows not bit-exact");
    if (total) cr_assert_eq(memcmp(tsk_file_row(f, total - 1), (const char *)rows + (size_t)(total - 1) * p->dim * elem,
                                   p->dim * elem), 0);
    tsk_file_close(f);
}

static const rec_spec RECS[] = {
    {"chr1", "genomes/a.fa", 1000, 990}, {"chr2", "genomes/a.fa", 77, 77}, {"", "genomes/a.fa", 0, 0},
    {"plasmid with spaces", "b.fa.gz", 31, 3}, {"r5", "genomes/a.fa", 500, 500}, {"last", "-", 64, 64},
};
#define N_RECS ((int)(sizeof RECS / sizeof RECS[0]))

Test(tsk_file, round_trip_float_whole)
{
    char *dir = scratch_dir(), *path = path_in(dir, "a.tsk");
    tsk_params p;
    tsk_params_default(&p);
    int64_t total;
    void *rows = write_file(path, &p, RECS, N_RECS, &total);
    cr_assert_eq(total, N_RECS);
    check_file(path, &p, RECS, N_RECS, rows, total);
    cr_assert_eq(count_entries(dir, ".tmp."), 0, "temporary file left after finish");
    free(rows);
    free(path);
    scratch_rm(dir);
}

Test(tsk_file, round_trip_double_slide_protein_file_tables)
{
    char *dir = scratch_dir(), *path = path_in(dir, "b.tsk");
    tsk_params p;
    tsk_params_default(&p);
    p.alphabet = TSK_PROTEIN;
    p.t = 7;
    p.dim = 333;
    p.seed = UINT64_MAX - 5;
    p.window = 40;
    p.stride = 7;
    p.precision = TSK_DOUBLE;
    tsk_tables_draw(&p);
    p.hash[6][19] = 332; /* tables that no seed drew */
    p.sign[0][0] = (int8_t)-p.sign[0][0];
    p.tables_from_file = 1;
    int64_t total;
    void *rows = write_file(path, &p, RECS, N_RECS, &total);
    cr_assert_eq(total, 990 / 7 + 77 / 7 + 0 + 0 + 500 / 7 + 64 / 7);
    check_file(path, &p, RECS, N_RECS, rows, total);
    free(rows);
    free(path);
    scratch_rm(dir);
}

Test(tsk_file, round_trip_canonical_empty_and_large)
{
    char *dir = scratch_dir(), *path = path_in(dir, "c.tsk");
    tsk_params p;
    tsk_params_default(&p);
    p.canonical = 1;
    int64_t total;
    void *rows = write_file(path, &p, RECS, 0, &total); /* no records at all */
    check_file(path, &p, RECS, 0, rows, 0);
    free(rows);
    /* many records (the write buffer fills many times) and one record bigger than the buffer */
    enum { N = 20000 };
    rec_spec *many = calloc(N + 1, sizeof *many);
    for (int i = 0; i < N; i++) {
        snprintf(many[i].name, sizeof many[i].name, "read/%d", i);
        snprintf(many[i].source, sizeof many[i].source, "reads_%d.fq", i / 7000);
        many[i].raw = 100 + i % 50;
        many[i].clean = 100 + i % 40;
        if (many[i].clean > many[i].raw) many[i].clean = many[i].raw;
    }
    p.window = 100;
    p.stride = 50; /* two rows per read */
    p.canonical = 0;
    p.precision = TSK_DOUBLE;
    strcpy(many[N].name, "big");
    strcpy(many[N].source, "big.fa");
    many[N].raw = many[N].clean = 200000; /* 4000 rows x 96 doubles = 3 MB */
    void *rows2 = write_file(path, &p, many, N + 1, &total);
    check_file(path, &p, many, N + 1, rows2, total);
    free(rows2);
    free(many);
    free(path);
    scratch_rm(dir);
}

/* The bytes docs/format.md promises, read without the reader. */
Test(tsk_file, layout_matches_spec)
{
    char *dir = scratch_dir(), *path = path_in(dir, "d.tsk");
    tsk_params p;
    tsk_params_default(&p);
    int64_t total;
    float *rows = write_file(path, &p, RECS, 2, &total);
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    const unsigned char magic[8] = {0x89, 'T', 'S', 'K', '\r', '\n', 0x1A, '\n'};
    cr_assert_eq(memcmp(b, magic, 8), 0);
    uint32_t u32;
    uint64_t u64;
    memcpy(&u32, b + 8, 4);
    cr_assert_eq(u32, 1); /* version */
    cr_assert_eq(memcmp(b + 12, "\x04\x03\x02\x01", 4), 0);
    memcpy(&u32, b + 16, 4);
    cr_assert_eq(u32, 256 + 4 * 4 * 5); /* header size: fixed part + t*A*(4+1) */
    memcpy(&u64, b + 24, 8);
    cr_assert_eq(u64, len);
    memcpy(&u64, b + 32, 8);
    cr_assert_eq(u64, 4096);
    memcpy(&u64, b + 40, 8);
    cr_assert_eq(u64, 2 * 96 * 4);
    memcpy(&u32, b + 132, 4);
    cr_assert_eq(u32, 96);
    memcpy(&u64, b + 136, 8);
    cr_assert_eq(u64, 0x5EED);
    int32_t h;
    memcpy(&h, b + 256 + 4 * (1 * 4 + 2), 4); /* hash[1][G] */
    cr_assert_eq(h, p.hash[1][2]);
    cr_assert_eq((int8_t)b[256 + 4 * 4 * 4 + 3 * 4 + 3], p.sign[3][3]);
    cr_assert_eq(memcmp(b + 4096, rows, 2 * 96 * 4), 0);
    /* CRC over header (CRC field as zero), data, trailer */
    uint32_t stored;
    memcpy(&stored, b + 20, 4);
    uint64_t toff, tsize;
    memcpy(&toff, b + 64, 8);
    memcpy(&tsize, b + 72, 8);
    memset(b + 20, 0, 4);
    uLong crc = crc32(0, b, 256 + 80);
    crc = crc32(crc, b + 4096, 2 * 96 * 4);
    crc = crc32(crc, b + toff, (uInt)tsize);
    cr_assert_eq((uint32_t)crc, stored);
    /* first record entry: name "chr1" in the strings */
    uint64_t name_off;
    memcpy(&name_off, b + toff, 8);
    uint64_t n_sources;
    memcpy(&n_sources, b + 80, 8);
    cr_assert_eq(n_sources, 1); /* both records come from genomes/a.fa */
    cr_assert_str_eq((char *)b + toff + 2 * 56 + 16 * n_sources + name_off, "chr1");
    free(b);
    free(rows);
    free(path);
    scratch_rm(dir);
}

/* ---- damaged files ---- */

static char *dir_g, *path_g;
static unsigned char *bytes_g;
static size_t len_g;

static void damaged_setup(void)
{
    dir_g = scratch_dir();
    path_g = path_in(dir_g, "g.tsk");
    tsk_params p;
    tsk_params_default(&p);
    int64_t total;
    free(write_file(path_g, &p, RECS, N_RECS, &total));
    bytes_g = slurp(path_g, &len_g);
}
static void damaged_teardown(void)
{
    free(bytes_g);
    free(path_g);
    scratch_rm(dir_g);
}

/* Writes the damaged copy and returns the reader's message (with the path stripped). */
static const char *open_damaged(const unsigned char *b, size_t len)
{
    static char err[TSK_ERRLEN];
    char *p = path_in(dir_g, "damaged.tsk");
    cr_assert_eq(spit(p, b, len), 0);
    tsk_file *f = tsk_file_open(p, err, sizeof err);
    cr_assert_null(f, "damaged file opened");
    size_t k = strlen(p);
    cr_assert_eq(strncmp(err, p, k), 0, "message does not name the file: %s", err);
    free(p);
    return err + k + 2;
}

Test(tsk_file, truncated, .init = damaged_setup, .fini = damaged_teardown)
{
    char want[256];
    size_t cuts[] = {300, 4096, 4096 + 100, len_g - 1};
    for (size_t i = 0; i < 4; i++) {
        snprintf(want, sizeof want, "truncated (expected %zu bytes, found %zu)", len_g, cuts[i]);
        cr_assert_str_eq(open_damaged(bytes_g, cuts[i]), want);
    }
    cr_assert_str_eq(open_damaged(bytes_g, 100), "truncated (100 bytes, shorter than the header)");
    cr_assert_str_eq(open_damaged(bytes_g, 5), "not a tsketch sketch file");
    cr_assert_str_eq(open_damaged(bytes_g, 0), "not a tsketch sketch file (empty file)");
}

Test(tsk_file, flipped_bytes, .init = damaged_setup, .fini = damaged_teardown)
{
    /* a bit in the data, in the trailer (a name), in a parameter (D), in the tables */
    size_t where[] = {4096 + 5, len_g - 3, 132, 256 + 3};
    for (size_t i = 0; i < 4; i++) {
        bytes_g[where[i]] ^= 0x10;
        cr_assert_str_eq(open_damaged(bytes_g, len_g), "checksum mismatch (the file is corrupt)", "byte %zu", where[i]);
        bytes_g[where[i]] ^= 0x10;
    }
    /* sanity: the undamaged copy opens */
    char *p = path_in(dir_g, "ok.tsk"), err[TSK_ERRLEN];
    spit(p, bytes_g, len_g);
    tsk_file *f = tsk_file_open(p, err, sizeof err);
    cr_assert(f, "%s", err);
    tsk_file_close(f);
    free(p);
}

Test(tsk_file, header_damage_named, .init = damaged_setup, .fini = damaged_teardown)
{
    unsigned char *b = malloc(len_g + 8);
    memcpy(b, bytes_g, len_g);
    b[8] = 6;
    cr_assert_str_eq(open_damaged(b, len_g), "unsupported format version 6 (this tsketch reads versions 1 and 5): written by a newer tsketch");
    b[8] = 0;
    cr_assert_str_eq(open_damaged(b, len_g), "unsupported format version 0 (this tsketch reads versions 1 and 5)");
    b[8] = 1;
    memcpy(b + 12, "\x01\x02\x03\x04", 4);
    cr_assert_str_eq(open_damaged(b, len_g), "written in big-endian byte order, which this tsketch does not read");
    memcpy(b + 12, "\x04\x03\x02\x01", 4);
    memcpy(b + len_g, "garbage!", 8);
    char want[128];
    snprintf(want, sizeof want, "corrupt (%zu bytes, 8 more than the header records)", len_g + 8);
    cr_assert_str_eq(open_damaged(b, len_g + 8), want);
    b[40] ^= 1; /* data size */
    cr_assert_str_eq(open_damaged(b, len_g), "corrupt header (trailer offset out of range)");
    free(b);
}

/* A header that passes a page (the reader once copied it into a page-sized buffer: a stack
 * overflow under ASan): the data moved a page on, header size 5000, every region in range, so the
 * checksum is what refuses it. */
Test(tsk_file, header_larger_than_a_page, .init = damaged_setup, .fini = damaged_teardown)
{
    const size_t page = 4096, len = len_g + page;
    unsigned char *b = calloc(len, 1);
    memcpy(b, bytes_g, page);
    memcpy(b + 2 * page, bytes_g + page, len_g - page);
    uint64_t v;
    const uint32_t header_size = 5000;
    memcpy(b + 16, &header_size, 4);
    memcpy(&v, b + 32, 8), v += page, memcpy(b + 32, &v, 8); /* data offset */
    memcpy(&v, b + 64, 8), v += page, memcpy(b + 64, &v, 8); /* trailer offset */
    memcpy(&v, b + 24, 8), v += page, memcpy(b + 24, &v, 8); /* file size */
    cr_assert_str_eq(open_damaged(b, len), "checksum mismatch (the file is corrupt)");
    free(b);
}

/* ---- genome sketches: format version 5 ---- */

/* The segment anchors write_genomes gives its genomes: g1 one segment of 3 anchors and 2 loose ones,
 * "empty" none, g3 one segment without anchors and 1 loose anchor. */
static const uint16_t test_seg_count[2] = {3, 0};
static const uint32_t test_hash[6] = {0xFFFFFFFFu, 7, 0x80000000u, 9, 0xFFFFFFFFu, 5};
static const tsk_genome_anchors test_anchors[3] = {
    {.n_segments = 1, .n_anchors = 3, .rate_log2 = 6, .seg_count = test_seg_count, .hash = test_hash, .n_contigs = 2,
     .n50 = 2500, .n_loose = 2},
    {.n_segments = 0, .n_anchors = 0, .rate_log2 = 6, .n_contigs = 1, .n50 = 4990},
    {.n_segments = 1, .n_anchors = 0, .rate_log2 = 31, .seg_count = test_seg_count + 1, .hash = test_hash + 5,
     .n_contigs = 5, .n50 = 1000, .n_loose = 1}};

/* Three genomes (one without keys) with ascending keys from 0 to UINT64_MAX and test_anchors;
 * returns the keys. */
static uint64_t *write_genomes(const char *path, const tsk_params *p, int64_t *n_keys)
{
    char err[TSK_ERRLEN];
    static const int64_t counts[3] = {40, 0, 7};
    uint64_t *keys = malloc(47 * sizeof *keys), s = (uint64_t)p->min_keys + 1;
    for (int i = 0; i < 40; i++) keys[i] = (uint64_t)i * (UINT64_MAX / 40) + test_rnd(&s) % 1000;
    keys[0] = 0;
    for (int i = 0; i < 7; i++) keys[40 + i] = UINT64_MAX - 6 + (uint64_t)i;
    tsk_writer *w = tsk_writer_open(path, p, "9.9.9-test", "tsketch sketch --genome", err, sizeof err);
    cr_assert(w, "%s", err);
    const char *names[3] = {"g1", "empty", "g3"};
    int64_t at = 0;
    for (int i = 0; i < 3; i++) {
        tsk_record_info r = {names[i], "g.fa", 5000, 4990, 10, -1, counts[i]};
        cr_assert_eq(tsk_writer_add_genome(w, &r, keys + at, &test_anchors[i], err, sizeof err), 0, "%s", err);
        at += counts[i];
    }
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    *n_keys = at;
    return keys;
}

/* The CRC of docs/format.md over a changed copy, so that the reader gets past it. */
static void fix_crc(unsigned char *b)
{
    uint32_t header_size;
    uint64_t data_offset, data_size, toff, tsize;
    memcpy(&header_size, b + 16, 4);
    memcpy(&data_offset, b + 32, 8);
    memcpy(&data_size, b + 40, 8);
    memcpy(&toff, b + 64, 8);
    memcpy(&tsize, b + 72, 8);
    memset(b + 20, 0, 4);
    uLong crc = crc32(0, b, header_size);
    crc = crc32(crc, b + data_offset, (uInt)data_size);
    crc = crc32(crc, b + toff, (uInt)tsize);
    uint32_t version;
    memcpy(&version, b + 8, 4);
    if (version == TSK_GENOME_FORMAT_VERSION) { /* the anchor section */
        uint64_t aoff, asize;
        memcpy(&aoff, b + 216, 8);
        memcpy(&asize, b + 224, 8);
        crc = crc32(crc, b + aoff, (uInt)asize);
    }
    const uint32_t c = (uint32_t)crc;
    memcpy(b + 20, &c, 4);
}

Test(tsk_file, genome_round_trip_version_5_min_keys)
{
    const int64_t scaleds[] = {1, 500, INT64_C(1) << 32}; /* the stride (= scaled) is at most 2^32 */
    const int64_t floors[] = {0, 1, 12000, TSK_GENOME_MAX_MIN_KEYS};
    /* 0 (no floor stride set: every window may be a candidate) is written as 1 */
    const int64_t strides[] = {0, 8, TSK_GENOME_MAX_FLOOR_STRIDE};
    char *dir = scratch_dir(), *path = path_in(dir, "g.tsk"), err[TSK_ERRLEN];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 4; b++)
        for (int c = 0; c < 3; c++) {
            tsk_params p;
            test_genome_params(&p, scaleds[a], floors[b], 16);
            p.floor_stride = strides[c];
            int64_t n;
            uint64_t *keys = write_genomes(path, &p, &n);
            size_t len = 0;
            unsigned char *raw = slurp(path, &len);
            uint32_t u32;
            uint64_t u64;
            memcpy(&u32, raw + 8, 4);
            cr_assert_eq(u32, 5, "format version");
            memcpy(&u32, raw + 160, 4);
            cr_assert_eq(u32, 8, "elem_size");
            memcpy(&u32, raw + 196, 4);
            cr_assert_eq(u32, 1, "kind");
            memcpy(&u64, raw + 200, 8);
            cr_assert_eq(u64, (uint64_t)scaleds[a], "scaled");
            memcpy(&u64, raw + 208, 8);
            cr_assert_eq(u64, (uint64_t)floors[b], "min_keys at offset 208");
            memcpy(&u64, raw + 248, 8);
            cr_assert_eq(u64, (uint64_t)(strides[c] ? strides[c] : 1), "floor stride at offset 248");
            cr_assert_eq(memcmp(raw + 4096, keys, (size_t)n * 8), 0, "keys as little-endian uint64 rows");
            /* the anchor section, byte for byte as docs/format.md lays it out */
            uint64_t toff, tsize, aoff, asize, nseg, nanc, fsize;
            memcpy(&toff, raw + 64, 8);
            memcpy(&tsize, raw + 72, 8);
            memcpy(&fsize, raw + 24, 8);
            memcpy(&aoff, raw + 216, 8);
            memcpy(&asize, raw + 224, 8);
            memcpy(&nseg, raw + 232, 8);
            memcpy(&nanc, raw + 240, 8);
            cr_assert_eq(aoff, (toff + tsize + 7) / 8 * 8, "anchor section at the next 8-byte boundary");
            cr_assert(nseg == 2 && nanc == 6 && asize == 3 * 40 + 8 + 24 && aoff + asize == fsize && fsize == len);
            const unsigned char *e = raw + aoff;
            memcpy(&u64, e, 8);
            cr_assert_eq(u64, 1, "g1's segments");
            memcpy(&u64, e + 8, 8);
            cr_assert_eq(u64, 3, "g1's anchors");
            memcpy(&u64, e + 16, 8);
            cr_assert_eq(u64, 2, "g1's contigs");
            memcpy(&u64, e + 24, 8);
            cr_assert_eq(u64, 2500, "g1's N50");
            memcpy(&u32, e + 32, 4);
            cr_assert_eq(u32, 6, "g1's rate");
            memcpy(&u32, e + 36, 4);
            cr_assert_eq(u32, 2, "g1's loose anchors");
            memcpy(&u32, e + 2 * 40 + 32, 4);
            cr_assert_eq(u32, 31, "g3's rate");
            memcpy(&u32, e + 2 * 40 + 36, 4);
            cr_assert_eq(u32, 1, "g3's loose anchors");
            cr_assert(e[120] == 3 && e[121] == 0 && e[122] == 0 && e[123] == 0, "segment counts as uint16");
            cr_assert_eq(memcmp(e + 128, test_hash, 24), 0, "hashes as uint32: g1's segment and loose ones, g3's");
            free(raw);
            tsk_file *f = tsk_file_open(path, err, sizeof err);
            cr_assert(f, "%s", err);
            p.floor_stride = strides[c] ? strides[c] : 1;
            cr_assert_eq(memcmp(&f->params, &p, sizeof p), 0,
                         "params differ after the round trip (scaled %lld, min keys %lld, floor stride %lld)",
                         (long long)scaleds[a], (long long)floors[b], (long long)strides[c]);
            cr_assert_eq(f->params.min_keys, floors[b]);
            cr_assert(f->elem_size == 8 && f->n_records == 3 && f->n_rows == n);
            cr_assert(f->records[0].n_rows == 40 && f->records[1].n_rows == 0 && f->records[2].n_rows == 7 &&
                      f->records[2].first_row == 40 && f->records[0].clean_len == 4990);
            cr_assert_eq(memcmp(f->data, keys, (size_t)n * 8), 0, "keys not bit-exact");
            for (int g = 0; g < 3; g++) {
                const tsk_genome_anchors *a = &f->anchors[g], *w = &test_anchors[g];
                cr_assert(a->n_segments == w->n_segments && a->n_anchors == w->n_anchors && a->rate_log2 == w->rate_log2 &&
                          a->n_contigs == w->n_contigs && a->n50 == w->n50 && a->n_loose == w->n_loose,
                          "genome %d's anchor entry", g);
                for (int64_t j = 0; j < a->n_segments; j++) cr_assert_eq(a->seg_count[j], w->seg_count[j]);
                for (int64_t j = 0; j < a->n_anchors + a->n_loose; j++) cr_assert_eq(a->hash[j], w->hash[j]);
            }
            tsk_file_close(f);
            free(keys);
        }
    free(path);
    scratch_rm(dir);
}

/* Versions 2 (genome sketches of the key layout before the floor), 3 (no segment anchors) and 4 (no
 * loose anchors) are refused with advice; a version 5 header without a valid floor or kind is corrupt. */
/* Anchor hashes spilled to the side file (after every genome, or some) give the same bytes. */
Test(tsk_file, genome_anchors_spilled_same_bytes)
{
    tsk_params p;
    test_genome_params(&p, 500, 100, 16);
    char *dir = scratch_dir(), *path = path_in(dir, "g.tsk"), err[TSK_ERRLEN];
    enum { N = 50 };
    static uint32_t hashes[N * 40];
    static uint16_t counts[N * 4];
    for (int i = 0; i < N * 40; i++) hashes[i] = (uint32_t)i * 2654435761u;
    unsigned char *want = NULL;
    size_t want_len = 0;
    const size_t spill[] = {(size_t)1 << 30, 0, 4, 333};
    for (size_t s = 0; s < 4; s++) {
        tsk_writer *w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
        cr_assert(w, "%s", err);
        tsk_writer_spill_anchors_at(w, spill[s]);
        int at = 0, seg = 0;
        for (int g = 0; g < N; g++) {
            const int n = g % 7 * 5, segs = g % 4;
            for (int j = 0; j < segs; j++) counts[seg + j] = (uint16_t)(j == 0 ? n : 0);
            /* the first segment's anchors, then g % 3 loose ones */
            const tsk_genome_anchors a = {.n_segments = segs, .n_anchors = segs ? n : 0, .rate_log2 = 6 + g % 20,
                                          .seg_count = counts + seg, .hash = hashes + at, .n_contigs = g, .n50 = 1000,
                                          .n_loose = g % 3};
            const uint64_t key = (uint64_t)g;
            tsk_record_info r = {"g", "g.fa", 20000, 20000, 0, -1, 1};
            cr_assert_eq(tsk_writer_add_genome(w, &r, &key, &a, err, sizeof err), 0, "%s", err);
            at += (int)(a.n_anchors + a.n_loose);
            seg += segs;
        }
        cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
        size_t len = 0;
        unsigned char *got = slurp(path, &len);
        if (!want) {
            want = got, want_len = len;
            tsk_file *f = tsk_file_open(path, err, sizeof err);
            cr_assert(f, "%s", err);
            for (int g = 0, h = 0; g < N; h += (int)(f->anchors[g].n_anchors + f->anchors[g].n_loose), g++) {
                cr_assert_eq(f->anchors[g].n_loose, g % 3);
                for (int64_t j = 0; j < f->anchors[g].n_anchors + f->anchors[g].n_loose; j++)
                    cr_assert_eq(f->anchors[g].hash[j], hashes[h + j]);
            }
            tsk_file_close(f);
        } else {
            cr_assert(len == want_len && memcmp(got, want, len) == 0, "spilled at %zu bytes: another file", spill[s]);
            free(got);
        }
    }
    free(want);
    free(path);
    scratch_rm(dir);
}

/* write_genomes' file (scale 500, floor 12000, k 16) in the damaged tests' directory, read back:
 * its bytes (len of them), its path in *path; both freed by the caller. */
static unsigned char *written_genomes(char **path, size_t *len)
{
    tsk_params p;
    test_genome_params(&p, 500, 12000, 16);
    *path = path_in(dir_g, "genome.tsk");
    int64_t n;
    free(write_genomes(*path, &p, &n));
    return slurp(*path, len);
}

/* Damaged anchor sections with a valid checksum: each named. */
Test(tsk_file, genome_anchor_damage_named, .init = damaged_setup, .fini = damaged_teardown)
{
    size_t len = 0;
    char *path;
    unsigned char *b = written_genomes(&path, &len);
    uint64_t aoff;
    memcpy(&aoff, b + 216, 8);
    const struct { size_t at; unsigned char v; const char *want; } cases[] = {
        {aoff + 32, 5, "corrupt genome sketch (record 0: segment anchors: rate out of range)"},
        {aoff + 32, 32, "corrupt genome sketch (record 0: segment anchors: rate out of range)"},
        {aoff + 120, 2, "corrupt genome sketch (record 0: segment anchors: segment counts do not sum to its anchors)"},
        {aoff + 0, 2, "corrupt genome sketch (record 0: segment anchors: more segments than its length holds)"},
        {aoff + 40 + 24, 0xFF, "corrupt genome sketch (record 1: segment anchors: N50 longer than the genome)"},
        {aoff + 8, 2, "corrupt genome sketch (record 0: segment anchors: segment counts do not sum to its anchors)"},
        {aoff + 80 + 8, 4, "corrupt genome sketch (record 2: segment anchors: more anchors than the file holds)"},
        {aoff + 36, 200, "corrupt genome sketch (record 0: segment anchors: more anchors than the file holds)"},
        {aoff + 37, 0x20, "corrupt genome sketch (record 0: segment anchors: more anchors than its length holds)"},
        {aoff + 80 + 36, 0, "corrupt genome sketch (segment anchors: genomes hold 2 segments and 5 anchors, the header 2 and 6)"},
        {232, 3, "corrupt genome sketch (segment anchors: genomes hold 2 segments and 6 anchors, the header 3 and 6)"},
        {232, 9, "corrupt header (anchor section size out of range)"},
        {216, 0, "corrupt header (anchor section offset out of range)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *c = malloc(len);
        memcpy(c, b, len);
        c[cases[i].at] = cases[i].v;
        fix_crc(c);
        cr_assert_str_eq(open_damaged(c, len), cases[i].want, "case %zu", i);
        free(c);
    }
    /* a byte of the anchor section without a new checksum */
    b[aoff + 130] ^= 1;
    cr_assert_str_eq(open_damaged(b, len), "checksum mismatch (the file is corrupt)");
    free(b);
    free(path);
}

/* The anchors' checksum left to later (a GPU run checks it beside its uploads): the file opens with
 * every other check made, and tsk_file_check_anchors gives the checksum's answer, for a byte of the
 * anchor section and for one before it (a key still in order); a file of sketch rows is checked whole at the open. */
Test(tsk_file, genome_anchors_checked_later, .init = damaged_setup, .fini = damaged_teardown)
{
    size_t len = 0;
    char *path;
    unsigned char *b = written_genomes(&path, &len);
    uint64_t aoff, doff;
    memcpy(&aoff, b + 216, 8);
    memcpy(&doff, b + 32, 8);
    char err[TSK_ERRLEN] = "", *damaged = path_in(dir_g, "later.tsk");
    const struct { size_t at; const char *what; } cases[] = {{0, "none"}, {aoff + 130, "an anchor"},
                                                          {doff, "the first key"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char *c = malloc(len);
        memcpy(c, b, len);
        if (cases[i].at == aoff + 130) {
            c[cases[i].at] ^= 1;
        } else if (cases[i].at) { /* the first key (0), one larger: still below the next (2^64 / 40) */
            uint64_t key;
            memcpy(&key, c + cases[i].at, 8);
            cr_assert_eq(key, 0);
            key++;
            memcpy(c + cases[i].at, &key, 8);
        }
        cr_assert_eq(spit(damaged, c, len), 0);
        int code = 0;
        tsk_file *f = tsk_file_open_anchors_later(damaged, 2, &code, err, sizeof err);
        cr_assert_not_null(f, "%s: %s", cases[i].what, err);
        cr_assert_eq(f->anchors_unchecked, 1);
        cr_assert_eq(f->anchors[0].n_anchors, 3, "the anchors are read as at any open");
        const int rc = tsk_file_check_anchors(f, damaged, 2, err, sizeof err);
        if (!cases[i].at) {
            cr_assert_eq(rc, 0, "%s", err);
            cr_assert_eq(f->anchors_unchecked, 0);
            cr_assert_eq(tsk_file_check_anchors(f, damaged, 1, err, sizeof err), 0, "checked once, then nothing left");
        } else {
            cr_assert_eq(rc, -1, "%s: no mismatch found", cases[i].what);
            cr_assert_eq(strncmp(err, damaged, strlen(damaged)), 0, "the message names the file: %s", err);
            cr_assert_str_eq(err + strlen(damaged), ": checksum mismatch (the file is corrupt)");
        }
        tsk_file_close(f);
        free(c);
    }
    /* sketch rows have no anchor section: checked whole at the open */
    bytes_g[4200] ^= 0x55;
    cr_assert_eq(spit(damaged, bytes_g, len_g), 0);
    bytes_g[4200] ^= 0x55;
    cr_assert_null(tsk_file_open_anchors_later(damaged, 1, NULL, err, sizeof err));
    cr_assert_str_eq(err + strlen(damaged), ": checksum mismatch (the file is corrupt)");
    free(damaged);
    free(b);
    free(path);
}

Test(tsk_file, genome_versions_refused, .init = damaged_setup, .fini = damaged_teardown)
{
    size_t len = 0;
    char *path;
    unsigned char *b = written_genomes(&path, &len);
    b[8] = 2;
    cr_assert_str_eq(open_damaged(b, len), "genome sketches of an older tsketch (format version 2: another key "
                                           "layout, no size floor): sketch the genomes again");
    fix_crc(b);
    cr_assert_str_eq(open_damaged(b, len), "genome sketches of an older tsketch (format version 2: another key "
                                           "layout, no size floor): sketch the genomes again");
    b[8] = 3;
    cr_assert_str_eq(open_damaged(b, len), "genome sketches of an older tsketch (format version 3: no ANI anchors): "
                                           "sketch the genomes again");
    b[8] = 4;
    cr_assert_str_eq(open_damaged(b, len), "genome sketches of an older tsketch (format version 4: ANI anchors "
                                           "without the contigs' tails): sketch the genomes again");
    b[8] = 5;
    const uint64_t too_big = (uint64_t)TSK_GENOME_MAX_MIN_KEYS + 1;
    memcpy(b + 208, &too_big, 8);
    fix_crc(b);
    cr_assert_str_eq(open_damaged(b, len), "corrupt header (version 5 without a genome sketch kind, scale and floor)");
    const uint64_t max = (uint64_t)TSK_GENOME_MAX_MIN_KEYS;
    memcpy(b + 208, &max, 8);
    fix_crc(b);
    char *ok = path_in(dir_g, "ok.tsk"), err[TSK_ERRLEN];
    spit(ok, b, len);
    tsk_file *f = tsk_file_open(ok, err, sizeof err);
    cr_assert(f, "%s", err);
    cr_assert_eq(f->params.min_keys, TSK_GENOME_MAX_MIN_KEYS, "the largest floor reads back");
    tsk_file_close(f);
    b[196] = 0; /* kind: rows */
    fix_crc(b);
    cr_assert_str_eq(open_damaged(b, len), "corrupt header (version 5 without a genome sketch kind, scale and floor)");
    /* a sketch-row file relabelled version 5: no anchor section */
    unsigned char *v = malloc(len_g);
    memcpy(v, bytes_g, len_g);
    v[8] = 5;
    fix_crc(v);
    cr_assert_str_eq(open_damaged(v, len_g), "corrupt header (anchor section offset out of range)");
    free(v);
    free(b);
    free(ok);
    free(path);
}

Test(tsk_file, not_a_sketch)
{
    char err[TSK_ERRLEN], want[TSK_ERRLEN];
    cr_assert_null(tsk_file_open(td("good.fa"), err, sizeof err));
    snprintf(want, sizeof want, "%s: not a tsketch sketch file", td("good.fa"));
    cr_assert_str_eq(err, want);
    cr_assert_null(tsk_file_open(td("nope.tsk"), err, sizeof err));
    cr_assert(strstr(err, "nope.tsk: no such file"), "%s", err);
    cr_assert_null(tsk_file_open(TSK_TESTDATA, err, sizeof err));
    cr_assert(strstr(err, "is a directory"), "%s", err);
}

/* ---- writer failures ---- */

Test(tsk_file, abort_and_bad_records)
{
    char *dir = scratch_dir(), *path = path_in(dir, "x.tsk"), err[TSK_ERRLEN];
    tsk_params p;
    tsk_params_default(&p);
    tsk_writer *w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
    cr_assert(w, "%s", err);
    cr_assert_eq(count_entries(dir, "x.tsk.tmp."), 1, "the temporary file exists while writing");
    float row[96] = {0};
    tsk_record_info r = {"r", "s", 10, 8, 2, 0, 1};
    cr_assert_eq(tsk_writer_add(w, &r, row, err, sizeof err), 0, "%s", err);
    r.n_rows = 2;
    cr_assert_eq(tsk_writer_add(w, &r, row, err, sizeof err), -1);
    cr_assert(strstr(err, "record 'r': 2 rows given where its length 8 gives 1"), "%s", err);
    r.n_rows = 1;
    r.dropped = 1;
    cr_assert_eq(tsk_writer_add(w, &r, row, err, sizeof err), -1);
    cr_assert(strstr(err, "inconsistent lengths"), "%s", err);
    tsk_writer_abort(w);
    cr_assert_eq(count_entries(dir, "x.tsk"), 0, "abort left a file");
    tsk_writer_abort(NULL);

    /* what a signal handler calls: the file goes, the writer can still be aborted after */
    w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
    cr_assert_eq(count_entries(dir, "x.tsk.tmp."), 1);
    tsk_tmp_unlink_all();
    cr_assert_eq(count_entries(dir, "x.tsk"), 0, "tsk_tmp_unlink_all left the temporary file");
    tsk_writer_abort(w);

    char *nodir = path_in(dir, "missing/x.tsk");
    cr_assert_null(tsk_writer_open(nodir, &p, "v", "cmd", err, sizeof err));
    char want[TSK_ERRLEN];
    snprintf(want, sizeof want, "%s: cannot create: No such file or directory", nodir);
    cr_assert_str_eq(err, want);
    p.t = 0;
    cr_assert_null(tsk_writer_open(path, &p, "v", "cmd", err, sizeof err));
    cr_assert(strstr(err, "invalid parameters: tuple length t"), "%s", err);
    free(nodir);
    free(path);
    scratch_rm(dir);
}

/* A full disk, simulated with a file-size limit: the write fails with a message and nothing stays. */
Test(tsk_file, write_failure_removes_temp)
{
    char *dir = scratch_dir(), *path = path_in(dir, "full.tsk"), err[TSK_ERRLEN];
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {64 * 1024, 64 * 1024};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    tsk_params p;
    tsk_params_default(&p);
    tsk_writer *w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
    cr_assert(w);
    static float rows[4000 * 96];
    tsk_record_info r = {"r", "s", 1000, 1000, 0, 0, 1};
    int failed = 0;
    for (int i = 0; i < 4000 && !failed; i++) failed = tsk_writer_add(w, &r, rows + i * 96, err, sizeof err) != 0;
    if (!failed) failed = tsk_writer_finish(w, err, sizeof err) != 0;
    else tsk_writer_abort(w);
    cr_assert(failed, "writing 1.5 MB under a 64 KB limit succeeded");
    cr_assert(strstr(err, "full.tsk: write failed: File too large"), "%s", err);
    cr_assert_eq(count_entries(dir, "full.tsk"), 0, "a file was left behind");
    free(path);
    scratch_rm(dir);
}

/* ---- writing whole batches (tsk_writer_add_batch) ---- */

/* Writes n_recs records of p to path, their rows in rows: one tsk_writer_add each when chunk is 0,
 * else tsk_writer_add_batch over runs of 1..chunk records, each run copied into one of three
 * rotating buffers that is poisoned as soon as its ticket is waited for (so a writer still reading
 * a released buffer would write the poison), with a tsk_writer_add now and then in between. */
static void write_batches(const char *path, const tsk_params *p, const tsk_record_info *recs, int64_t n_recs,
                          const unsigned char *rows, int chunk)
{
    char err[TSK_ERRLEN];
    const size_t row_bytes = (size_t)p->dim * (p->precision == TSK_DOUBLE ? 8 : 4);
    tsk_writer *w = tsk_writer_open(path, p, "9.9.9-test", "tsketch sketch -o out.tsk", err, sizeof err);
    cr_assert(w, "%s", err);
    int64_t row = 0, i = 0;
    if (!chunk) {
        for (; i < n_recs; row += recs[i].n_rows, i++)
            cr_assert_eq(tsk_writer_add(w, &recs[i], rows + (size_t)row * row_bytes, err, sizeof err), 0, "%s", err);
    }
    unsigned char *buf[3] = {NULL, NULL, NULL};
    size_t cap[3] = {0, 0, 0};
    int64_t ticket[3] = {0, 0, 0};
    uint64_t state = 42;
    for (int k = 0; i < n_recs; k = (k + 1) % 3) {
        if (test_rnd(&state) % 5 == 0) { /* a record on its own, between batches */
            cr_assert_eq(tsk_writer_add(w, &recs[i], rows + (size_t)row * row_bytes, err, sizeof err), 0, "%s", err);
            row += recs[i++].n_rows;
            continue;
        }
        int64_t n = 1 + (int64_t)(test_rnd(&state) % (uint64_t)chunk), batch_rows = 0;
        if (n > n_recs - i) n = n_recs - i;
        for (int64_t j = 0; j < n; j++) batch_rows += recs[i + j].n_rows;
        const size_t bytes = (size_t)batch_rows * row_bytes;
        cr_assert_eq(tsk_writer_wait(w, ticket[k], err, sizeof err), 0, "%s", err);
        if (buf[k]) memset(buf[k], 0xA5, cap[k]);
        if (bytes > cap[k]) {
            free(buf[k]);
            cr_assert(buf[k] = malloc(cap[k] = bytes));
        }
        memcpy(buf[k], rows + (size_t)row * row_bytes, bytes);
        cr_assert_eq(tsk_writer_add_batch(w, &recs[i], n, buf[k], &ticket[k], err, sizeof err), 0, "%s", err);
        i += n;
        row += batch_rows;
    }
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    for (int k = 0; k < 3; k++) free(buf[k]);
}

/* The same file whichever way its rows were handed over, for whole-record rows, slides and doubles. */
Test(tsk_file, batches_write_the_bytes_of_single_records)
{
    char *dir = scratch_dir(), *one = path_in(dir, "one.tsk"), *many = path_in(dir, "many.tsk");
    for (int variant = 0; variant < 3; variant++) {
        tsk_params p;
        tsk_params_default(&p);
        if (variant == 1) p.window = 100, p.stride = 30;
        if (variant == 2) {
            p.precision = TSK_DOUBLE;
            p.dim = 33;
            tsk_tables_draw(&p);
        }
        const int64_t n_recs = 8000;
        tsk_record_info *recs = calloc((size_t)n_recs, sizeof *recs);
        char (*names)[16] = calloc((size_t)n_recs, sizeof *names);
        const char *sources[] = {"reads/a.fa", "b.fa.gz", "-"};
        uint64_t state = 7;
        int64_t total = 0;
        for (int64_t i = 0; i < n_recs; i++) {
            snprintf(names[i], sizeof names[i], i % 97 ? "r%lld" : "", (long long)i);
            const int64_t clean = (int64_t)(test_rnd(&state) % 400), raw = clean + (int64_t)(test_rnd(&state) % 3);
            recs[i] = (tsk_record_info){names[i], sources[(i / 2000) % 3], raw, clean, raw - clean, -1,
                                        tsk_rows_for_length(&p, clean)};
            total += recs[i].n_rows;
        }
        const size_t elem = p.precision == TSK_DOUBLE ? 8 : 4, bytes = (size_t)total * p.dim * elem;
        unsigned char *rows = malloc(bytes ? bytes : 1);
        for (size_t k = 0; k < bytes; k++) rows[k] = (unsigned char)(test_rnd(&state) & 0x3F); /* finite floats */
        write_batches(one, &p, recs, n_recs, rows, 0);
        size_t len_one = 0, len_many = 0;
        unsigned char *a = slurp(one, &len_one);
        for (int chunk = 1; chunk <= 262144; chunk *= 64) { /* 262144: most batches take the parallel path */
            write_batches(many, &p, recs, n_recs, rows, chunk);
            unsigned char *b = slurp(many, &len_many);
            cr_assert(len_one == len_many && !memcmp(a, b, len_one),
                      "variant %d, batches of up to %d records: the file differs from one written record by record",
                      variant, chunk);
            free(b);
        }
        char err[TSK_ERRLEN];
        tsk_file *f = tsk_file_open(many, err, sizeof err);
        cr_assert(f, "%s", err);
        cr_assert_eq(f->n_records, n_recs);
        cr_assert_eq(f->n_rows, total);
        cr_assert_eq(memcmp(f->data, rows, bytes), 0, "rows not bit-exact");
        tsk_file_close(f);
        free(a);
        free(rows);
        free(names);
        free(recs);
    }
    cr_assert_eq(count_entries(dir, ".tmp."), 0, "temporary file left after finish");
    free(one);
    free(many);
    scratch_rm(dir);
}

/* A batch big enough for the parallel entries (io/tsk_file.c, PARALLEL_ENTRIES): sources that are
 * equal strings at different addresses are one source, as record by record; a bad record among
 * thousands is named with the message a single add gives. */
Test(tsk_file, big_batches_same_sources_and_messages)
{
    char *dir = scratch_dir(), *one = path_in(dir, "one.tsk"), *big = path_in(dir, "big.tsk"), err[TSK_ERRLEN];
    tsk_params p;
    tsk_params_default(&p);
    enum { N = 10000 };
    static tsk_record_info recs[N];
    static char names[N][12];
    static float rows[N * 96];
    char src_a[] = "x.fa", src_b[] = "x.fa", src_c[] = "y.fa"; /* a and b: equal, not the same pointer */
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "r%d", i);
        recs[i] = (tsk_record_info){names[i], i < 6000 ? (i % 2 ? src_a : src_b) : src_c, 150, 150, 0, 0, 1};
        rows[(size_t)i * 96] = (float)i;
    }
    write_batches(one, &p, recs, N, (const unsigned char *)rows, 0);
    tsk_writer *w = tsk_writer_open(big, &p, "9.9.9-test", "tsketch sketch -o out.tsk", err, sizeof err);
    cr_assert(w, "%s", err);
    int64_t ticket = 0;
    cr_assert_eq(tsk_writer_add_batch(w, recs, N, rows, &ticket, err, sizeof err), 0, "%s", err);
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    size_t len_one = 0, len_big = 0;
    unsigned char *a = slurp(one, &len_one), *b = slurp(big, &len_big);
    cr_assert(len_one == len_big && !memcmp(a, b, len_one), "one batch of %d differs from record by record", N);
    free(a);
    free(b);

    recs[7777].dropped = 5; /* raw 150 = clean 150 + dropped 5: inconsistent */
    w = tsk_writer_open(big, &p, "9.9.9-test", "tsketch sketch -o out.tsk", err, sizeof err);
    cr_assert(w, "%s", err);
    cr_assert_neq(tsk_writer_add_batch(w, recs, N, rows, &ticket, err, sizeof err), 0);
    cr_assert(strstr(err, "big.tsk: record 'r7777': inconsistent lengths (raw 150, cleaned 150, dropped 5)"), "%s", err);
    tsk_writer_abort(w);
    cr_assert_eq(count_entries(dir, ".tmp."), 0);
    free(one);
    free(big);
    scratch_rm(dir);
}

/* A write that fails on the writer's thread is reported by a later wait or by finish, and nothing
 * is left; a failed run over an existing file leaves that file as it was. */
Test(tsk_file, batch_write_failure_reported)
{
    char *dir = scratch_dir(), *path = path_in(dir, "full.tsk"), err[TSK_ERRLEN];
    static float rows[20000 * 96];
    cr_assert_eq(spit(path, rows, 2u << 20), 0); /* an old file of 2 MB, to be replaced */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim = {4u << 20, 4u << 20};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    tsk_params p;
    tsk_params_default(&p);
    tsk_writer *w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
    cr_assert(w, "%s", err);
    tsk_record_info recs[2000];
    for (int i = 0; i < 2000; i++) recs[i] = (tsk_record_info){"r", "s", 1000, 1000, 0, 0, 1};
    int failed = 0;
    int64_t ticket = 0;
    for (int i = 0; i < 10 && !failed; i++) /* 10 batches of 2000 rows: 7.7 MB */
        failed = tsk_writer_wait(w, ticket, err, sizeof err) != 0 ||
                 tsk_writer_add_batch(w, recs, 2000, rows + (size_t)i * 2000 * 96, &ticket, err, sizeof err) != 0;
    if (!failed) failed = tsk_writer_finish(w, err, sizeof err) != 0;
    else tsk_writer_abort(w);
    cr_assert(failed, "writing 7.7 MB under a 4 MB limit succeeded");
    cr_assert(strstr(err, "full.tsk: write failed: File too large"), "%s", err);
    size_t len = 0;
    unsigned char *old = slurp(path, &len);
    cr_assert_eq(len, 2u << 20, "the file to be replaced changed");
    free(old);
    cr_assert_eq(count_entries(dir, ".tmp."), 0, "a temporary file was left behind");
    free(path);
    scratch_rm(dir);
}

/* A finished writer replaces an existing (big) file whole. */
Test(tsk_file, batch_replaces_existing_file)
{
    char *dir = scratch_dir(), *path = path_in(dir, "r.tsk"), err[TSK_ERRLEN];
    static float rows[30000 * 96];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) rows[i] = (float)(i % 1000) * 0.001f;
    unsigned char *longer = calloc(1, sizeof rows + 12345); /* an old file longer than the new one */
    cr_assert_eq(spit(path, longer, sizeof rows + 12345), 0);
    free(longer);
    tsk_params p;
    tsk_params_default(&p);
    tsk_writer *w = tsk_writer_open(path, &p, "v", "cmd", err, sizeof err);
    cr_assert(w, "%s", err);
    static tsk_record_info recs[30000];
    for (int i = 0; i < 30000; i++) recs[i] = (tsk_record_info){"r", "s", 1000, 1000, 0, 0, 1};
    int64_t ticket = 0;
    cr_assert_eq(tsk_writer_add_batch(w, recs, 30000, rows, &ticket, err, sizeof err), 0, "%s", err);
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    tsk_file *f = tsk_file_open(path, err, sizeof err);
    cr_assert(f, "%s", err);
    cr_assert_eq(f->n_rows, 30000);
    cr_assert_eq(memcmp(f->data, rows, sizeof rows), 0, "rows not bit-exact");
    tsk_file_close(f);
    free(path);
    scratch_rm(dir);
}

/* ---- comparing parameters ---- */

Test(tsk_file, params_diff)
{
    char msg[2048];
    tsk_params a, b;
    tsk_params_default(&a);
    tsk_params_default(&b);
    cr_assert_eq(tsk_params_diff(&a, "a.tsk", &b, "b.tsk", msg, sizeof msg), 0);
    cr_assert_str_eq(msg, "");
    b.precision = TSK_DOUBLE; /* storage only */
    cr_assert_eq(tsk_params_diff(&a, "a.tsk", &b, "b.tsk", msg, sizeof msg), 0);

    b.t = 5;
    b.dim = 128;
    b.seed = 7;
    b.canonical = 1;
    b.window = 100;
    b.stride = 10;
    tsk_tables_draw(&b);
    cr_assert_eq(tsk_params_diff(&a, "a.tsk", &b, "b.tsk", msg, sizeof msg), 6);
    cr_assert_str_eq(msg, "t (tuple length): 4 in a.tsk, 5 in b.tsk; D (dimension): 96 in a.tsk, 128 in b.tsk; "
                          "canonical: off in a.tsk, on in b.tsk; window: 0 in a.tsk, 100 in b.tsk; "
                          "stride: 0 in a.tsk, 10 in b.tsk; seed: 24301 in a.tsk, 7 in b.tsk");
    /* a short buffer is cut, never overrun, and the count stays right */
    char small[20];
    cr_assert_eq(tsk_params_diff(&a, "a.tsk", &b, "b.tsk", small, sizeof small), 6);
    cr_assert_eq(strlen(small), sizeof small - 1);

    tsk_params_default(&b);
    b.alphabet = TSK_PROTEIN;
    tsk_tables_draw(&b);
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 1);
    cr_assert_str_eq(msg, "alphabet: dna in x, protein in y");

    /* tables from files: compared value by value */
    tsk_params_default(&b);
    a.tables_from_file = b.tables_from_file = 1;
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 0, "%s", msg);
    b.hash[2][1] = (b.hash[2][1] + 1) % 96;
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 1);
    char want[512];
    snprintf(want, sizeof want, "tables (both read from files): differ at level 2, character C: hash %d sign %+d in x, "
             "hash %d sign %+d in y", a.hash[2][1], a.sign[2][1], b.hash[2][1], b.sign[2][1]);
    cr_assert_str_eq(msg, want);
    /* a file holding the seed's own tables is the same function */
    tsk_params_default(&b);
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 0, "%s", msg);
    b.sign[0][3] = (int8_t)-b.sign[0][3];
    b.tables_from_file = 0;
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 1);
    cr_assert_str_eq(msg, "tables: read from a file in x, drawn from the seed in y (they differ at level 0, character T)");
    /* genome sketches: the size floor is a parameter of the sketch (a genome file and a sketch-row
     * file differ by their kind, which says it all) */
    tsk_params ga, gb;
    test_genome_params(&ga, 500, 12000, 16);
    test_genome_params(&gb, 500, 0, 16);
    cr_assert_eq(tsk_params_diff(&ga, "a.tsk", &gb, "b.tsk", msg, sizeof msg), 1);
    cr_assert_str_eq(msg, "min keys (size floor): 12000 in a.tsk, 0 in b.tsk");
    gb.min_keys = 12000;
    cr_assert_eq(tsk_params_diff(&ga, "a.tsk", &gb, "b.tsk", msg, sizeof msg), 0, "%s", msg);
    gb.scaled = gb.stride = 1000;
    gb.min_keys = 1;
    cr_assert_eq(tsk_params_diff(&ga, "a.tsk", &gb, "b.tsk", msg, sizeof msg), 3, "%s", msg);
    cr_assert(strstr(msg, "scaled: 500 in a.tsk, 1000 in b.tsk") && strstr(msg, "min keys (size floor): 12000 in a.tsk, 1 in b.tsk"),
              "%s", msg);
    tsk_params rows;
    test_genome_params(&rows, 500, 12000, 16);
    rows.scaled = 0;
    rows.min_keys = 0;
    cr_assert_eq(tsk_params_diff(&ga, "a.tsk", &rows, "b.tsk", msg, sizeof msg), 1, "%s", msg);
    cr_assert_str_eq(msg, "kind: genome sketches in a.tsk, sketch rows in b.tsk");

    /* same seed, different tables: one of them is damaged */
    a.tables_from_file = 0;
    cr_assert_eq(tsk_params_diff(&a, "x", &b, "y", msg, sizeof msg), 1);
    cr_assert(strstr(msg, "although both come from seed 24301"), "%s", msg);
}

/* ---- the checksum and the checks on several threads ---- */

/* Counts how often each TSK_CRC32_BLOCK of a buffer is shown to the visitor. */
typedef struct {
    int *seen;
    size_t n_blocks, bytes;
    int misplaced;
} visit_count;

static void count_visit(void *ctx, size_t offset, const unsigned char *block, size_t len)
{
    (void)block;
    visit_count *v = ctx;
    const size_t i = offset / TSK_CRC32_BLOCK;
    /* called on several threads at once */
    if (offset % TSK_CRC32_BLOCK || i >= v->n_blocks || len > TSK_CRC32_BLOCK) __atomic_fetch_add(&v->misplaced, 1, __ATOMIC_RELAXED);
    else __atomic_fetch_add(&v->seen[i], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&v->bytes, len, __ATOMIC_RELAXED);
}

/* The same value as zlib's crc32 (an independent implementation) and as the serial one, for every
 * thread count, on sizes around the chunk and block sizes; every block shown once, at its place. */
Test(crc32, threads_equal_serial)
{
    const size_t C = TSK_CRC32_CHUNK, B = TSK_CRC32_BLOCK;
    const size_t sizes[] = {0, 1, 7, 4093, B - 1, B, B + 1, C - 1, C, C + 1, 2 * C - 1, 2 * C, 2 * C + 1,
                            3 * C + 12345, 5 * C + 3};
    const size_t max = 5 * C + 3;
    unsigned char *buf = malloc(max);
    uint64_t s = 42;
    for (size_t i = 0; i < max; i += 8) {
        const uint64_t r = test_rnd(&s);
        memcpy(buf + i, &r, max - i < 8 ? max - i : 8);
    }
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        const uint32_t start = k % 2 ? 0 : 0xdeadbeefu; /* from 0 and continuing a CRC */
        uLong zlib = start;
        for (size_t at = 0; at < n; at += 1u << 30) zlib = crc32(zlib, buf + at, (uInt)(n - at < (1u << 30) ? n - at : 1u << 30));
        const uint32_t serial = tsk_crc32(start, buf, n);
        cr_assert_eq(serial, (uint32_t)zlib, "serial CRC of %zu bytes differs from zlib's", n);
        for (int t = 1; t <= 8; t++) {
            cr_assert_eq(tsk_crc32_threads(start, buf, n, t), serial, "%zu bytes on %d threads", n, t);
            visit_count v = {calloc(n / B + 1, sizeof(int)), n / B + (n % B != 0), 0, 0};
            cr_assert_eq(tsk_crc32_threads_visit(start, buf, n, t, count_visit, &v), serial, "%zu bytes, %d threads, "
                         "visited", n, t);
            cr_assert_eq(v.misplaced, 0);
            cr_assert_eq(v.bytes, n, "%zu bytes shown of %zu", v.bytes, n);
            for (size_t i = 0; i < v.n_blocks; i++) cr_assert_eq(v.seen[i], 1, "block %zu shown %d times", i, v.seen[i]);
            free(v.seen);
        }
    }
    free(buf);
}

/* A genome file of 3 records, 1.2M keys, none, 1.8M keys (24 MB of data: six chunks of the
 * checksum). Record 2 starts below record 0's last key: that is no disorder. */
static uint64_t *write_big_genomes(const char *path, int64_t *n_keys)
{
    char err[TSK_ERRLEN];
    tsk_params p;
    test_genome_params(&p, 500, 0, 16);
    static const int64_t counts[3] = {1200000, 0, 1800000};
    const int64_t n = counts[0] + counts[1] + counts[2];
    uint64_t *keys = malloc((size_t)n * sizeof *keys);
    for (int64_t i = 0; i < counts[0]; i++) keys[i] = (uint64_t)i * 1000 + 7;
    for (int64_t i = 0; i < counts[2]; i++) keys[counts[0] + i] = (uint64_t)i * 999 + 3;
    tsk_writer *w = tsk_writer_open(path, &p, "9.9.9-test", "tsketch sketch --genome", err, sizeof err);
    cr_assert(w, "%s", err);
    const char *names[3] = {"big1", "empty", "big3"};
    int64_t at = 0;
    for (int i = 0; i < 3; i++) {
        tsk_record_info r = {names[i], "g.fa", 1000000000, 1000000000, 0, -1, counts[i]};
        cr_assert_eq(tsk_writer_add(w, &r, keys + at, err, sizeof err), 0, "%s", err);
        at += counts[i];
    }
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    *n_keys = n;
    return keys;
}

/* Opens path on `threads` threads: NULL and the message (path stripped) in err, or the file. */
static tsk_file *open_threads(const char *path, int threads, char *err, size_t errlen)
{
    int code = 0;
    tsk_file *f = tsk_file_open_threads(path, threads, &code, err, errlen);
    if (!f) {
        cr_assert_eq(code, TSK_FILE_BAD, "a damaged file is the file's fault: %s", err);
        const size_t k = strlen(path);
        cr_assert_eq(strncmp(err, path, k), 0, "message does not name the file: %s", err);
        memmove(err, err + k + 2, strlen(err + k + 2) + 1);
    }
    return f;
}

Test(tsk_file, threaded_open_checks_everything)
{
    char *dir = scratch_dir(), *path = path_in(dir, "big.tsk"), *bad = path_in(dir, "bad.tsk"), err[TSK_ERRLEN];
    int64_t n;
    uint64_t *keys = write_big_genomes(path, &n);
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    cr_assert(len > 4096 + 5 * TSK_CRC32_CHUNK, "the data spans several chunks");
    for (int t = 1; t <= 4; t += 3) {
        tsk_file *f = open_threads(path, t, err, sizeof err);
        cr_assert(f, "%s", err);
        cr_assert(f->n_rows == n && f->n_records == 3);
        for (int64_t r = 0, row = 0; r < f->n_records; row += f->records[r++].n_rows)
            cr_assert_eq(f->records[r].first_row, row, "record %lld: rows not back to back", (long long)r);
        cr_assert_eq(memcmp(f->data, keys, (size_t)n * 8), 0, "keys not bit-exact on %d threads", t);
        tsk_file_close(f);
    }
    /* one flipped byte in the middle of the data, in the fourth chunk */
    const size_t mid = 4096 + 3 * TSK_CRC32_CHUNK + 12345;
    b[mid] ^= 0x04;
    cr_assert_eq(spit(bad, b, len), 0);
    cr_assert_null(open_threads(bad, 4, err, sizeof err));
    cr_assert_str_eq(err, "checksum mismatch (the file is corrupt)");
    b[mid] ^= 0x04;
    /* keys out of order with a valid checksum: inside a block, and across a block boundary (the
     * first key of a block against the last of the block before, counted by another thread) */
    const int64_t inside[] = {2000000, (int64_t)(3 * TSK_CRC32_CHUNK / 8), (int64_t)(TSK_CRC32_BLOCK / 8) * 20};
    const char *want[] = {"corrupt genome sketch (record 2: keys not strictly ascending)",
                          "corrupt genome sketch (record 2: keys not strictly ascending)",
                          "corrupt genome sketch (record 0: keys not strictly ascending)"};
    for (int k = 0; k < 3; k++) {
        unsigned char *c = malloc(len);
        memcpy(c, b, len);
        uint64_t *ck = (uint64_t *)(void *)(c + 4096);
        ck[inside[k]] = ck[inside[k] - 1]; /* equal keys: not strictly ascending */
        fix_crc(c);
        cr_assert_eq(spit(bad, c, len), 0);
        for (int t = 1; t <= 4; t += 3) {
            cr_assert_null(open_threads(bad, t, err, sizeof err), "key %lld on %d threads", (long long)inside[k], t);
            cr_assert_str_eq(err, want[k], "key %lld on %d threads", (long long)inside[k], t);
        }
        free(c);
    }
    free(b);
    free(keys);
    free(path);
    free(bad);
    scratch_rm(dir);
}

/* A NaN deep in a float file of 25 MB is found by the checksum pass on 4 threads and named. */
Test(tsk_file, threaded_open_refuses_non_finite)
{
    char *dir = scratch_dir(), *path = path_in(dir, "rows.tsk"), err[TSK_ERRLEN];
    tsk_params p;
    tsk_params_default(&p);
    p.dim = 256;
    tsk_tables_draw(&p);
    enum { N = 25000 };
    float *rows = malloc((size_t)N * 256 * sizeof *rows);
    for (size_t i = 0; i < (size_t)N * 256; i++) rows[i] = (float)next_value();
    tsk_writer *w = tsk_writer_open(path, &p, "9.9.9-test", "tsketch sketch", err, sizeof err);
    cr_assert(w, "%s", err);
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%d", i);
        tsk_record_info r = {name, "x.fa", 100, 100, 0, -1, 1};
        cr_assert_eq(tsk_writer_add(w, &r, rows + (size_t)i * 256, err, sizeof err), 0, "%s", err);
    }
    cr_assert_eq(tsk_writer_finish(w, err, sizeof err), 0, "%s", err);
    tsk_file *f = open_threads(path, 4, err, sizeof err);
    cr_assert(f, "%s", err);
    cr_assert_eq(memcmp(f->data, rows, (size_t)N * 256 * sizeof *rows), 0);
    tsk_file_close(f);
    size_t len = 0;
    unsigned char *b = slurp(path, &len);
    const float nan = NAN;
    memcpy(b + 4096 + ((size_t)17777 * 256 + 100) * 4, &nan, 4);
    fix_crc(b);
    cr_assert_eq(spit(path, b, len), 0);
    cr_assert_null(open_threads(path, 4, err, sizeof err));
    cr_assert_str_eq(err, "record 'r17777' holds a NaN or infinite value (row 17777): the file is corrupt");
    free(b);
    free(rows);
    free(path);
    scratch_rm(dir);
}
