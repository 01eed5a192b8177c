/* test_batcher.c: the batcher's anchored windows for genome sketches (io/batcher.h): with
 * params.scaled > 0 each record's windows are the anchors whose hash is at most the candidate
 * bound of its genome's length (core/genome_keys.h, "Size floor"), in order, their codes copied
 * out and their anchor hashes in win_anchor; tsk_batcher_set_genome_len moves the bound; plain
 * anchored windows (scaled 0) keep the stride's anchors. The reference is
 * tsk_anchor_windows_below, itself checked against a recomputation in tests/cpu/test_genome_sets.c. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "../../core/genome_keys.h"
#include "../../io/batcher.h"
#include "io_test.h"

/* n random bases as text; some lower case and an N run (cleaning drops them) */
static char *random_dna(size_t n, uint64_t seed)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = "ACGTacgt"[test_rnd(&seed) % 8];
    for (size_t i = n / 2; i < n / 2 + 30 && i < n; i++) s[i] = 'N';
    s[n] = 0;
    return s;
}

/* Record i of the batch b gave: its windows (rows row_offset[i] ..) are the anchors of bound
 * max_hash of its cleaned codes, each window's W codes those at its start, its hash beside it. */
static int64_t check_record(tsk_batcher *b, const tsk_batch *batch, int64_t i, uint64_t max_hash)
{
    const tsk_params *p = &b->params;
    const uint8_t *rec = b->codes + b->offset[i];
    const int64_t n = b->info[i].clean_len;
    int64_t *starts = malloc((size_t)(n + 1) * sizeof *starts);
    uint64_t *hashes = malloc((size_t)(n + 1) * sizeof *hashes);
    const int64_t m = tsk_anchor_windows_below(p, rec, n, max_hash, starts, hashes, n + 1);
    cr_assert_eq(b->info[i].n_rows, m, "record %lld: %lld windows, want %lld", (long long)i,
                 (long long)b->info[i].n_rows, (long long)m);
    const int64_t row0 = b->row_offset[i];
    for (int64_t j = 0; j < m; j++) {
        const int64_t row = row0 + j;
        cr_assert_eq(batch->offset[row + 1] - batch->offset[row], p->window);
        cr_assert_eq(memcmp(batch->codes + batch->offset[row], rec + starts[j], (size_t)p->window), 0,
                     "record %lld window %lld: codes", (long long)i, (long long)j);
        if (p->scaled > 0)
            cr_assert_eq(b->win_anchor[row], hashes[j], "record %lld window %lld: anchor hash", (long long)i,
                         (long long)j);
        cr_assert_leq(hashes[j], max_hash);
    }
    free(starts);
    free(hashes);
    return m;
}

static void add_records(tsk_batcher *b, const size_t *lengths, int n, uint64_t seed)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "r%d", i);
        char *s = random_dna(lengths[i], seed + (uint64_t)i);
        cr_assert_eq(tsk_batcher_add(b, name, "x.fa", s, lengths[i], 0), 0);
        free(s);
    }
}

/* Each record its own genome: the bound of its own length (short records: stride 1, every
 * window; long ones: the stride scaled). */
Test(batcher, genome_windows_are_the_candidate_anchors)
{
    const size_t lengths[] = {5, 19, 20, 21, 100, 399, 400, 401, 1200, 2400, 5000, 30000, 120000};
    const int n = (int)(sizeof lengths / sizeof *lengths);
    const int64_t min_keys[] = {0, 1, 100, 1000};
    for (size_t mi = 0; mi < sizeof min_keys / sizeof *min_keys; mi++) {
        tsk_params p;
        test_genome_params(&p, 50, min_keys[mi], 12);
        tsk_batcher b;
        tsk_batcher_init(&b, &p);
        add_records(&b, lengths, n, 7);
        const tsk_batch batch = tsk_batcher_batch(&b);
        cr_assert_geq(batch.n_records, 0);
        int64_t rows = 0, every = 0;
        for (int i = 0; i < n; i++) {
            const int64_t len = b.info[i].clean_len;
            const int64_t n_run = (int64_t)(lengths[i] - lengths[i] / 2) < 30 ? (int64_t)(lengths[i] - lengths[i] / 2) : 30;
            cr_assert_eq(len, (int64_t)lengths[i] - n_run, "record %d: cleaned length (the N run dropped)", i);
            const int64_t m = check_record(&b, &batch, i, tsk_genome_candidate_limit(&p, len));
            /* stride 1: every window that fits is a window of the sketch */
            if (tsk_genome_anchor_stride(&p, len) == 1 && len >= p.window) {
                cr_assert_eq(m, len - p.window + 1, "record %d: all windows at stride 1", i);
                every++;
            }
            rows += m;
        }
        cr_assert_eq(batch.n_records, rows);
        cr_assert_eq(b.row_offset[n], rows);
        /* stride 1 below 5 min_keys / 2 bases: 70 (min keys 100); 70, 369, 370, 371, 1170, 2370 (1000) */
        if (min_keys[mi] == 100) cr_assert_eq(every, 1, "the short records take every window");
        if (min_keys[mi] == 1000) cr_assert_eq(every, 6, "the short records take every window");
        if (min_keys[mi] == 0) cr_assert_eq(every, 0);
        tsk_batcher_free(&b);
    }
}

/* --per-file: a genome's length (set for its records) places the anchors of all its records. */
Test(batcher, set_genome_len_moves_the_bound)
{
    tsk_params p;
    test_genome_params(&p, 50, 100, 12); /* floor length 5 * 100 * 50 / 4 = 6250 */
    cr_assert_eq(tsk_genome_floor_length(&p), 6250);
    const size_t lengths[] = {3000, 800, 1500, 600}; /* alone: strides 23, 6, 11, 4 */
    tsk_batcher b;
    tsk_batcher_init(&b, &p);
    add_records(&b, lengths, 4, 99);
    /* records 1..3 are one genome of 10000 bases (stride 50); record 0 stays its own */
    tsk_batcher_set_genome_len(&b, 1, 10000);
    tsk_batch batch = tsk_batcher_batch(&b);
    int64_t own[4], joined[4];
    for (int i = 0; i < 4; i++) {
        const int64_t len = i == 0 ? b.info[0].clean_len : 10000;
        joined[i] = check_record(&b, &batch, i, tsk_genome_candidate_limit(&p, len));
    }
    /* the same records each its own genome: more windows (a smaller stride), a superset */
    tsk_batcher_reset(&b);
    add_records(&b, lengths, 4, 99);
    batch = tsk_batcher_batch(&b);
    for (int i = 0; i < 4; i++) own[i] = check_record(&b, &batch, i, tsk_genome_candidate_limit(&p, b.info[i].clean_len));
    cr_assert_eq(own[0], joined[0]);
    for (int i = 1; i < 4; i++)
        cr_assert_gt(own[i], 2 * joined[i], "record %d: %lld windows alone, %lld in the genome", i, (long long)own[i],
                     (long long)joined[i]);
    /* a length below the record's own: the bound of that length (200: stride 1, every window) */
    tsk_batcher_set_genome_len(&b, 2, 200);
    batch = tsk_batcher_batch(&b);
    cr_assert_eq(check_record(&b, &batch, 2, tsk_genome_candidate_limit(&p, 200)), b.info[2].clean_len - p.window + 1);
    cr_assert_eq(check_record(&b, &batch, 1, tsk_genome_candidate_limit(&p, b.info[1].clean_len)), own[1]);
    /* reset: the next batch's records are their own genomes again */
    tsk_batcher_reset(&b);
    add_records(&b, lengths + 2, 1, 101);
    batch = tsk_batcher_batch(&b);
    check_record(&b, &batch, 0, tsk_genome_candidate_limit(&p, b.info[0].clean_len));
    tsk_batcher_free(&b);
}

/* Plain anchored windows (scaled 0): the stride's anchors, whatever min_keys says. */
Test(batcher, plain_anchored_windows_keep_the_stride)
{
    tsk_params p;
    test_genome_params(&p, 0, 0, 12);
    p.stride = 30;
    const size_t lengths[] = {100, 2000, 7000};
    tsk_batcher b;
    tsk_batcher_init(&b, &p);
    add_records(&b, lengths, 3, 5);
    const tsk_batch batch = tsk_batcher_batch(&b);
    for (int i = 0; i < 3; i++) {
        const int64_t m = check_record(&b, &batch, i, UINT64_MAX / 30 - 1);
        cr_assert_eq(m, tsk_anchor_windows(&p, b.codes + b.offset[i], b.info[i].clean_len, NULL, 0));
    }
    tsk_batcher_free(&b);
}
