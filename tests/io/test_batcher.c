/* test_batcher.c: the batcher's anchored windows (io/batcher.h, --anchored: params.anchor_k > 0):
 * each record's windows are the anchors of the stride's bound (hash at most UINT64_MAX / stride - 1),
 * in order, their codes copied out as records of their own. The reference is
 * tsk_anchor_windows_below, itself checked against a recomputation in tests/cpu/test_genome_sets.c. */
#include <criterion/criterion.h>
#include <stdint.h>

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
 * max_hash of its cleaned codes, each window's W codes those at its start. */
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

/* Anchored windows: the stride's anchors, whatever min_keys says. */
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
