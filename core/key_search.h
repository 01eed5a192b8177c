/* key_search.h: the searches of sorted genome keys and of an inverted index of them, one definition
 * for the host and the device (gpu/genome_sets_kernels.cuh calls the same functions as the CPU).
 *
 * An index lays every (key, reference) posting end to end, sorted by key and, within a key, by
 * reference. Positions in it are int64_t: a part of 10^5 bacterial genomes holds about 10^9
 * postings and 2x10^5 about 2x10^9, past 2^31, and the midpoint is lo + (hi - lo) / 2, which
 * cannot overflow where (lo + hi) / 2 does once a range passes 2^30 (the crash of 120,000 genomes
 * on the GPU). tests/cpu/test_key_search.c runs them at positions 2^30 .. 2^32. */
#ifndef TSK_KEY_SEARCH_H
#define TSK_KEY_SEARCH_H

#include <stdint.h>

#include "tsk_def.h" /* TSK_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

/* The first position in [lo, hi) whose key is at least key (hi when none); keys ascending. */
static inline TSK_HOST_DEVICE int64_t tsk_first_key_at_least(const uint64_t *keys, int64_t lo, int64_t hi,
                                                              uint64_t key)
{
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (keys[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* How many of keys[0..n) (ascending) are at most bound. */
static inline TSK_HOST_DEVICE int64_t tsk_keys_at_most(const uint64_t *keys, int64_t n, uint64_t bound)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (keys[mid] <= bound) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The first position in [lo, hi) whose reference is at least ref (hi when none); refs ascending
 * there (one key's run of postings). */
static inline TSK_HOST_DEVICE int64_t tsk_first_ref_at_least(const int32_t *refs, int64_t lo, int64_t hi, int32_t ref)
{
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (refs[mid] < ref) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The end of the run of keys[at] in keys[at..n) (keys ascending): the first position past at whose
 * key differs, or n. Gallops, then bisects: most runs are a few postings long, but the run of a key
 * that every genome has is as long as the part. */
static inline TSK_HOST_DEVICE int64_t tsk_key_run_end(const uint64_t *keys, int64_t at, int64_t n)
{
    const uint64_t key = keys[at];
    int64_t in = at, step = 1;  /* keys[in] == key */
    while (step < n - in && keys[in + step] == key) in += step, step *= 2;
    int64_t out = step < n - in ? in + step : n;  /* keys[out] != key, or out == n */
    while (out - in > 1) {
        const int64_t mid = in + ((out - in) >> 1);
        if (keys[mid] == key) in = mid;
        else out = mid;
    }
    return out;
}

#ifdef __cplusplus
}
#endif
#endif
