/* test_key_search.c: the index searches of core/key_search.h (which the GPU genome engine's kernels
 * call too) at positions past 2^30, 2^31 and 2^32, where the engine's old int positions and
 * (a + b) >> 1 midpoints broke (120,000 genomes crashed dist and cluster).
 *
 * The arrays are anonymous mappings that are never written but for small islands: untouched pages
 * read as zeros and cost no memory, so a 2^32-entry array of references (16 GiB) or of keys
 * (32 GiB) costs a few pages. Each search runs over a range that holds zeros and then one island
 * of larger values (the array is sorted only there): the answer is the island's start. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <sys/mman.h>

#include "../../core/key_search.h"

#define P30 (INT64_C(1) << 30)
#define P31 (INT64_C(1) << 31)
#define P32 (INT64_C(1) << 32)
#define ISLAND 4096 /* entries of each island */

static void *map_zeros(int64_t bytes)
{
    void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert(p != MAP_FAILED, "mmap of %lld bytes (never touched) failed", (long long)bytes);
    return p;
}

/* Island starts, ascending, zeros between each two, past 2^30; two islands cross 2^31 and 2^32. */
static const int64_t starts[] = {P30 + 1, P31 - 2 * ISLAND - 3, P31 - 3, P31 + 2 * ISLAND + 5, 3 * P30 + 7,
                                 P32 - 2 * ISLAND, P32 - 5};
#define N_STARTS ((int)(sizeof starts / sizeof starts[0]))
#define ENTRIES (P32 - 5 + ISLAND)

Test(key_search, references_past_2_to_the_32)
{
    int32_t *refs = map_zeros(ENTRIES * (int64_t)sizeof *refs);
    for (int i = 0; i < N_STARTS; i++)
        for (int64_t j = starts[i]; j < starts[i] + ISLAND; j++) refs[j] = 7 + (int32_t)(j - starts[i]);
    for (int i = 0; i < N_STARTS; i++) {
        const int64_t lo = i ? starts[i - 1] + ISLAND : 0, hi = starts[i] + ISLAND;
        cr_expect_eq(tsk_first_ref_at_least(refs, lo, hi, 7), starts[i], "island %d: first ref >= 7", i);
        cr_expect_eq(tsk_first_ref_at_least(refs, lo, hi, 7 + 100), starts[i] + 100, "island %d: first >= 107", i);
        cr_expect_eq(tsk_first_ref_at_least(refs, lo, hi, INT32_MAX), hi, "island %d: none", i);
        cr_expect_eq(tsk_first_ref_at_least(refs, starts[i] + 5, hi, 0), starts[i] + 5, "island %d: the first", i);
    }
    munmap(refs, (size_t)(ENTRIES * (int64_t)sizeof *refs));
}

Test(key_search, keys_past_2_to_the_32)
{
    uint64_t *keys = map_zeros(ENTRIES * (int64_t)sizeof *keys);
    for (int i = 0; i < N_STARTS; i++)
        for (int64_t j = starts[i]; j < starts[i] + ISLAND; j++)
            keys[j] = UINT64_C(1) << 40 | (uint64_t)(j - starts[i]) << 8;
    for (int i = 0; i < N_STARTS; i++) {
        const int64_t lo = i ? starts[i - 1] + ISLAND : 0, hi = starts[i] + ISLAND;
        const uint64_t first = UINT64_C(1) << 40;
        cr_expect_eq(tsk_first_key_at_least(keys, lo, hi, 1), starts[i], "island %d: first key >= 1", i);
        cr_expect_eq(tsk_first_key_at_least(keys, lo, hi, first + (9 << 8)), starts[i] + 9, "island %d: key 9", i);
        cr_expect_eq(tsk_first_key_at_least(keys, lo, hi, first + (9 << 8) + 1), starts[i] + 10, "island %d: past 9", i);
        cr_expect_eq(tsk_first_key_at_least(keys, lo, hi, UINT64_MAX), hi, "island %d: none", i);
        /* the same from position 0: how many keys of keys[0..hi) are at most a bound */
        cr_expect_eq(tsk_keys_at_most(keys + lo, hi - lo, 0), starts[i] - lo, "island %d: zeros at most 0", i);
        cr_expect_eq(tsk_keys_at_most(keys + lo, hi - lo, first + (3 << 8)), starts[i] + 4 - lo, "island %d", i);
    }
    /* runs, each within its sorted range (zeros, then an island): the zeros before the first
     * island are one run of 2^30 + 1 postings (a key that every genome of a part has), and so are
     * those between two islands */
    cr_expect_eq(tsk_key_run_end(keys, 0, starts[0] + ISLAND), starts[0]);
    cr_expect_eq(tsk_key_run_end(keys, 12345, starts[0] + ISLAND), starts[0]);
    for (int i = 1; i < N_STARTS; i++) {
        const int64_t hi = starts[i] + ISLAND;
        cr_expect_eq(tsk_key_run_end(keys, starts[i - 1] + ISLAND, hi), starts[i], "zeros before island %d", i);
        cr_expect_eq(tsk_key_run_end(keys, starts[i], hi), starts[i] + 1, "island %d: a run of one", i);
        cr_expect_eq(tsk_key_run_end(keys, starts[i - 1] + ISLAND, starts[i]), starts[i], "island %d: to the end", i);
    }
    cr_expect_eq(tsk_key_run_end(keys, ENTRIES - 1, ENTRIES), ENTRIES, "the last key");
    munmap(keys, (size_t)(ENTRIES * (int64_t)sizeof *keys));
}
