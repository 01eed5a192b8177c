/* ani_synth.h: synthetic segment anchors of planted identities, for the tests of the ANI estimator
 * (tests/cpu/test_genome_ani.c) and of its GPU twin (tests/gpu/ani_pairs_test.c).
 *
 * A synthetic genome is a list of 64-bit anchor hashes per segment, all below 2^58 (kept at rate
 * 2^-6; a genome at rate r keeps those below 2^(64 - r), stored h >> (32 - r)): ~47 anchors a
 * segment at 2^-6. A relative R of Q: per segment of identity I each anchor survives with I^16
 * (else a fresh random hash, the k-mer a substitution made). */
#ifndef TSK_TESTS_ANI_SYNTH_H
#define TSK_TESTS_ANI_SYNTH_H

#include <stdint.h>
#include <stdlib.h>

#include "../core/genome_ani.h"

#define K 16

static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static inline double uniform(uint64_t *s) { return (double)(splitmix64(s) >> 11) / 9007199254740992.0; }

/* A genome's anchor hashes below 2^58, segment after segment. */
typedef struct {
    int64_t n_seg;
    int64_t *first; /* n_seg + 1 offsets into h */
    uint64_t *h;
} synth;

static inline synth synth_random(uint64_t *rng, int64_t n_seg)
{
    synth g = {n_seg, malloc((size_t)(n_seg + 1) * sizeof(int64_t)),
               malloc((size_t)(n_seg * 80 + 1) * sizeof(uint64_t))};
    g.first[0] = 0;
    for (int64_t s = 0; s < n_seg; s++) {
        const int n = 35 + (int)(splitmix64(rng) % 25); /* 35..59, mean 47 */
        for (int j = 0; j < n; j++) g.h[g.first[s] + j] = splitmix64(rng) >> 6;
        g.first[s + 1] = g.first[s] + n;
    }
    return g;
}

/* A relative of q: segment s at identity ident[s] (each anchor kept with ident^16), or missing
 * when ident[s] < 0. */
static inline synth synth_relative(uint64_t *rng, const synth *q, const double *ident)
{
    synth g = {0, malloc((size_t)(q->n_seg + 1) * sizeof(int64_t)),
               malloc((size_t)(q->first[q->n_seg] + 1) * sizeof(uint64_t))};
    g.first[0] = 0;
    for (int64_t s = 0; s < q->n_seg; s++) {
        if (ident[s] < 0) continue;
        double p = 1;
        for (int t = 0; t < K; t++) p *= ident[s];
        int64_t at = g.first[g.n_seg];
        for (int64_t j = q->first[s]; j < q->first[s + 1]; j++)
            g.h[at++] = uniform(rng) < p ? q->h[j] : splitmix64(rng) >> 6;
        g.first[++g.n_seg] = at;
    }
    return g;
}

/* Skews g's composition as an AT-rich genome's is: each anchor becomes, with probability share, one
 * of pool_n fixed values (the k-mers such a genome holds in excess), so that its anchors recur in
 * its other segments and meet an unrelated segment's pool values by chance. */
static inline void synth_skew(uint64_t *rng, synth *g, int pool_n, double share)
{
    for (int64_t j = 0; j < g->first[g->n_seg]; j++)
        if (uniform(rng) < share) {
            uint64_t s = UINT64_C(0x5EED0000) + splitmix64(rng) % (uint64_t)pool_n;
            g->h[j] = splitmix64(&s) >> 6;
        }
}

static inline void synth_free(synth *g)
{
    free(g->first);
    free(g->h);
}

/* The stored form of g at rate 2^-rate (the caller frees seg_count and hash). */
static inline tsk_ani_genome stored(const synth *g, int rate)
{
    uint16_t *count = malloc((size_t)(g->n_seg + 1) * sizeof *count);
    uint32_t *hash = malloc((size_t)(g->first[g->n_seg] + 1) * sizeof *hash);
    int64_t n = 0;
    for (int64_t s = 0; s < g->n_seg; s++) {
        count[s] = 0;
        for (int64_t j = g->first[s]; j < g->first[s + 1]; j++)
            if (g->h[j] < UINT64_C(1) << (64 - rate)) {
                hash[n++] = (uint32_t)(g->h[j] >> (32 - rate));
                count[s]++;
            }
    }
    return (tsk_ani_genome){.n_segments = g->n_seg, .n_anchors = n, .rate_log2 = rate, .seg_count = count,
                            .hash = hash, .length = g->n_seg * TSK_ANI_SEGMENT};
}

static inline void stored_free(tsk_ani_genome *g)
{
    free((void *)g->seg_count);
    free((void *)g->hash);
}

#endif
