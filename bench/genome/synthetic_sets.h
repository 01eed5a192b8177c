/* synthetic_sets.h: synthetic genome sketches for the genome-engine benchmarks
 * (bench/gpu/genome_sets_bench.c, bench/cpu/genome_index_bench.c), one generator for both, and
 * their timing helpers. What the sketches are: genome_sets_bench.c's header. Deterministic in
 * (N, KEYS). */
#ifndef TSK_BENCH_SYNTHETIC_SETS_H
#define TSK_BENCH_SYNTHETIC_SETS_H

#include <stdint.h>

#include "../../core/genome_ani.h"
#include "../../core/genome_keys.h"
#include "../../core/tsk_def.h"

/* the genome defaults of `tsketch sketch --genome` (the floor: KEYS / 2) */
#define SCALED 500
#define STRIDE SCALED
#define WINDOW 20
#define ANCHOR_K 16
#define GENOME_T 4
#define GENOME_DIM 16

static inline uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint64_t h3(uint64_t tag, uint64_t a, uint64_t b) { return mix(mix(mix(tag) ^ a) ^ b); }
static inline double u01(uint64_t tag, uint64_t a, uint64_t b) { return (double)(h3(tag, a, b) >> 11) / 9007199254740992.0; }

enum { T_CLUSTER = 1, T_GENUS, T_OWN, T_POOL, T_KEEP, T_SIZE, T_GFRAC, T_CSIZE, T_SMALL, T_STRIDE, T_LEN, T_ANCHOR, T_ASURV,
       T_LOOSE, T_DRAFT };

typedef struct {
    tsk_key_sets s;
    uint64_t *keys;
    int64_t *offset;
    uint64_t *tau;     /* per genome: its threshold */
    int64_t *length;   /* per genome: its length (what a reader computes tau from) */
    int64_t min_keys;
    int64_t *cluster;  /* per genome: its cluster (species), and the share of the centre it keeps */
    double *keep;
} owned_sets;

/* The parameters of the sketches: the genome defaults of `tsketch sketch --genome` with a floor
 * of min_keys. */
tsk_params genome_params(int64_t min_keys);

/* n genomes of about keys keys each (a floor of keys / 2). */
owned_sets make_genomes(int64_t n, int64_t keys);
void free_sets(owned_sets *o);

/* Segment anchors of genome i of o (core/genome_ani.h) at its rate: a cluster's centre has random
 * anchors, about 2^-rate of its length; a member keeps each with probability I^16, I = keep^(1/W)
 * the identity its share of the centre's keys stands for, and has fresh ones in their place; the
 * first 2-20 % of segments are the genus's (as the genus share of the keys), kept alike. Then its
 * loose anchors (core/genome_ani.h), the centre's kept alike: those across its segments'
 * boundaries, and its tail's, the start of the centre's next segment (whose anchors a longer
 * member's segment there finds among this one's loose anchors only). A genome is one contig, or,
 * for SYNTHETIC_DRAFTS of the members, a draft: a segment's place is where two contigs meet with
 * chance SYNTHETIC_BREAKS (contigs of ~20 kb), its anchors loose, so that its segments cover about
 * 85 % of it and its pairs look its loose anchors up (tsk_ani_loose_used), the other members'
 * segments there finding their hits among them only. seg_count must hold synthetic_segments(o, i)
 * (the most it has), hash synthetic_anchor_cap(o, i) values. */
#define SYNTHETIC_DRAFTS 0.25
#define SYNTHETIC_BREAKS 0.15
typedef struct {
    int64_t n_segments, n_anchors, n_loose; /* as tsk_ani_genome's; the loose anchors after the segments' */
    int64_t n_contigs, n50;
} synthetic_shape;
int64_t synthetic_segments(const owned_sets *o, int64_t i);
int64_t synthetic_anchor_cap(const owned_sets *o, int64_t i);
synthetic_shape synthetic_anchors(const owned_sets *o, int64_t i, uint16_t *seg_count, uint32_t *hash);

#endif
