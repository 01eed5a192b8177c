/* ani_synth.h: synthetic segment anchors of planted identities, for the tests of the ANI estimator
 * (tests/cpu/test_genome_ani.c) and of its GPU twin (tests/gpu/ani_pairs_test.c).
 *
 * A synthetic genome is a list of 64-bit anchor hashes per segment, all below 2^58 (kept at rate
 * 2^-6; a genome at rate r keeps those below 2^(64 - r), stored h >> (32 - r)): ~47 anchors a
 * segment at 2^-6. A relative R of Q: per segment of identity I each anchor survives with I^16
 * (else a fresh random hash, the k-mer a substitution made).
 *
 * A loose_synth is a synth with loose anchors (core/genome_ani.h: in no segment), in groups:
 * group s < n_seg the anchors before segment s (contig ends, k-mers across a segment's start), group
 * n_seg the last contig's tail. Each stands for 64 bases in no segment (the rate they are drawn at),
 * so that the share of its length its segments cover, which decides whether its pairs look its
 * loose anchors up (tsk_ani_loose_used), follows them. A relative keeps a group with its segment,
 * each anchor surviving as the segment's do (the tail as the last segment's), so that related
 * genomes share them as they share their segments'. Its functions draw the segments' anchors as
 * synth's do, the loose ones after them. */
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
/* One of a pool of pool_n anchor hashes, drawn at random (synth_skew). */
static inline uint64_t pool_anchor(uint64_t *rng, int pool_n)
{
    uint64_t s = UINT64_C(0x5EED0000) + splitmix64(rng) % (uint64_t)pool_n;
    return splitmix64(&s) >> 6;
}

static inline void synth_skew(uint64_t *rng, synth *g, int pool_n, double share)
{
    for (int64_t j = 0; j < g->first[g->n_seg]; j++)
        if (uniform(rng) < share) g->h[j] = pool_anchor(rng, pool_n);
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

/* A synth with loose anchors (the header). */
typedef struct {
    synth s;
    int64_t *lfirst; /* NULL: no loose anchors; else s.n_seg + 2 offsets into l, a group each */
    uint64_t *l;
} loose_synth;

static inline int64_t loose_n(const loose_synth *g) { return g->lfirst ? g->lfirst[g->s.n_seg + 1] : 0; }

/* g as a loose_synth without loose anchors (it takes g's arrays). */
static inline loose_synth loose_none(synth g) { return (loose_synth){g, NULL, NULL}; }

/* synth_random's genome with loose anchors: about per_boundary (0 to twice that) before each
 * segment but the first, and tail in the contig's tail. */
static inline loose_synth loose_random(uint64_t *rng, int64_t n_seg, int per_boundary, int tail)
{
    loose_synth g = {synth_random(rng, n_seg), malloc((size_t)(n_seg + 2) * sizeof(int64_t)),
                     malloc((size_t)(n_seg * (2 * per_boundary + 1) + tail + 1) * sizeof(uint64_t))};
    g.lfirst[0] = 0;
    for (int64_t s = 0; s <= n_seg; s++) {
        const int n = s == n_seg ? tail : s == 0 ? 0 : (int)(splitmix64(rng) % (uint64_t)(2 * per_boundary + 1));
        for (int j = 0; j < n; j++) g.l[g.lfirst[s] + j] = splitmix64(rng) >> 6;
        g.lfirst[s + 1] = g.lfirst[s] + n;
    }
    return g;
}

/* synth_relative of q, its loose anchors as the segments they go with (the header). */
static inline loose_synth loose_relative(uint64_t *rng, const loose_synth *q, const double *ident)
{
    loose_synth g = loose_none(synth_relative(rng, &q->s, ident));
    if (!q->lfirst) return g;
    const int64_t n_seg = q->s.n_seg;
    g.lfirst = malloc((size_t)(g.s.n_seg + 2) * sizeof(int64_t));
    g.l = malloc((size_t)(loose_n(q) + 1) * sizeof(uint64_t));
    g.lfirst[0] = 0;
    int64_t t = 0; /* g's group */
    for (int64_t s = 0; s <= n_seg; s++) {
        const double id = n_seg == 0 ? 1 : ident[s < n_seg ? s : n_seg - 1];
        if (id < 0) continue;
        double p = 1;
        for (int u = 0; u < K; u++) p *= id;
        int64_t at = g.lfirst[t];
        for (int64_t j = q->lfirst[s]; j < q->lfirst[s + 1]; j++)
            g.l[at++] = uniform(rng) < p ? q->l[j] : splitmix64(rng) >> 6;
        g.lfirst[++t] = at;
    }
    for (; t <= g.s.n_seg; t++) g.lfirst[t + 1] = g.lfirst[t]; /* no tail: its last segment is missing */
    return g;
}

/* Segments [s0, s1) of g become loose anchors, as where a draft's contigs are under 3 kb: their
 * anchors and the groups from s0's to s1's make one group, before the segment that was s1 (the
 * tail when s1 is past the last). */
static inline void loose_loosen(loose_synth *g, int64_t s0, int64_t s1)
{
    if (!g->lfirst) {
        g->lfirst = calloc((size_t)(g->s.n_seg + 2), sizeof(int64_t));
        g->l = malloc(sizeof(uint64_t));
    }
    const synth *o = &g->s;
    const int64_t n = o->n_seg - (s1 - s0), moved = o->first[s1] - o->first[s0];
    int64_t *first = malloc((size_t)(n + 1) * sizeof *first), *lfirst = malloc((size_t)(n + 2) * sizeof *lfirst);
    uint64_t *h = malloc((size_t)(o->first[o->n_seg] - moved + 1) * sizeof *h);
    uint64_t *l = malloc((size_t)(loose_n(g) + moved + 1) * sizeof *l);
    int64_t t = 0, at = 0, lat = 0;
    first[0] = 0, lfirst[0] = 0;
    for (int64_t s = 0; s <= o->n_seg; s++) {
        for (int64_t j = g->lfirst[s]; j < g->lfirst[s + 1]; j++) l[lat++] = g->l[j];
        if (s == o->n_seg) break;
        if (s >= s0 && s < s1) { /* into the group being made */
            for (int64_t j = o->first[s]; j < o->first[s + 1]; j++) l[lat++] = o->h[j];
            continue;
        }
        lfirst[t + 1] = lat;
        for (int64_t j = o->first[s]; j < o->first[s + 1]; j++) h[at++] = o->h[j];
        first[++t] = at;
    }
    lfirst[t + 1] = lat;
    synth_free(&g->s);
    free(g->lfirst), free(g->l);
    g->s = (synth){n, first, h};
    g->lfirst = lfirst, g->l = l;
}

/* synth_skew of g's segments' anchors, then of its loose ones. */
static inline void loose_skew(uint64_t *rng, loose_synth *g, int pool_n, double share)
{
    synth_skew(rng, &g->s, pool_n, share);
    for (int64_t j = 0; j < loose_n(g); j++)
        if (uniform(rng) < share) g->l[j] = pool_anchor(rng, pool_n);
}

static inline void loose_free(loose_synth *g)
{
    synth_free(&g->s);
    free(g->lfirst);
    free(g->l);
}

/* The stored form of g at rate 2^-rate, its loose anchors after the segments', its length its
 * segments' and 64 bases a loose anchor (stored_free frees it). */
static inline tsk_ani_genome loose_stored(const loose_synth *g, int rate)
{
    tsk_ani_genome a = stored(&g->s, rate);
    uint32_t *hash = realloc((void *)a.hash, (size_t)(a.n_anchors + loose_n(g) + 1) * sizeof *hash);
    if (!hash) abort();
    for (int64_t j = 0; j < loose_n(g); j++)
        if (g->l[j] < UINT64_C(1) << (64 - rate)) hash[a.n_anchors + a.n_loose++] = (uint32_t)(g->l[j] >> (32 - rate));
    a.hash = hash;
    a.length += 64 * loose_n(g);
    return a;
}

#endif
