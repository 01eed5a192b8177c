/* synthetic_sets.h: synthetic genome sketches for the genome-engine benchmarks
 * (bench/gpu/genome_sets_bench.c, bench/cpu/genome_index_bench.c), one generator for both, and
 * their timing helpers. What the sketches are: genome_sets_bench.c's header. Deterministic in
 * (N, KEYS). */
#ifndef TSK_BENCH_SYNTHETIC_SETS_H
#define TSK_BENCH_SYNTHETIC_SETS_H

#include <stdint.h>

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

enum { T_CLUSTER = 1, T_GENUS, T_OWN, T_POOL, T_KEEP, T_SIZE, T_GFRAC, T_CSIZE, T_SMALL, T_STRIDE, T_LEN };

typedef struct {
    tsk_key_sets s;
    uint64_t *keys;
    int64_t *offset;
    uint64_t *tau;     /* per genome: its threshold */
    int64_t *length;   /* per genome: its length (what a reader computes tau from) */
    int64_t min_keys;
} owned_sets;

/* The parameters of the sketches: the genome defaults of `tsketch sketch --genome` with a floor
 * of min_keys. */
tsk_params genome_params(int64_t min_keys);

/* n genomes of about keys keys each (a floor of keys / 2). */
owned_sets make_genomes(int64_t n, int64_t keys);
void free_sets(owned_sets *o);

/* Wall-clock seconds, and the median of t[0..n) (sorted in place). */
double bench_now(void);
double bench_median(double *t, int n);

#endif
