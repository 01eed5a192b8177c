/* genome_ani.h: ANI over the aligned part and the aligned fraction of two genomes, from their
 * segment anchors (docs/algorithm.md, "ANI and aligned fraction"; bench/ani/FINDINGS.md for how
 * the estimator was chosen).
 *
 * A genome's segment anchors: its cleaned contigs are cut into consecutive segments of
 * TSK_ANI_SEGMENT bases (a contig's tail shorter than that is no segment), as fastANI cuts a
 * query into fragments. Every canonical anchor k-mer (the k-mers the genome sketch hashes,
 * tsk_anchor_windows_below: same k, same hash) whose hash h is below 2^(64 - rate_log2) is an
 * anchor: of its segment when it lies wholly inside one, else a loose anchor (a contig's tail,
 * or across two segments). Each is stored as the 32 bits of h below its zero top bits,
 * h >> (32 - rate_log2). rate_log2 is the genome's own (tsk_ani_rate_log2): one k-mer in
 * 2^rate_log2 is kept, the finest rate whose expected anchors fit TSK_ANI_MAX_ANCHORS.
 *
 * A direction Q -> R: n_g = Q's anchors in segment g, a_g = those whose hash R holds in a segment,
 * or loose where R's segments cover less than TSK_ANI_MIN_COVER of it (tsk_ani_loose_used; both cut
 * to the sparser genome's rate): fastANI maps a query's fragments on the whole reference, and in a
 * draft of short contigs the tails are too much of it to go without. Segments are a mixture of
 * identities; with p(I) = I^k the chance an anchor survives identity I, and an atom "not homologous" whose p is the chance of a match by
 * accident (tsk_ani_atom: random sequence's, or Q's own as its repeats with itself measure it),
 * a_g ~ sum_i w_i Binomial(n_g, p(I_i)). The weights w over an identity grid are fitted
 * by maximum likelihood (EM, stopped early: TSK_ANI_EM_STEPS), and
 *
 *     ANI_Q = mean of 1 + s ln I over the weight at or above TSK_ANI_CUTOFF (s = TSK_ANI_SCALE)
 *     AF_Q  = (that weight) x (segments with anchors) / (all segments of Q)
 *
 * 1 + s ln I is the identity fastANI reports for a fragment of identity I: one minus its Mash
 * distance -ln(I^k) / k (the share of k-mers that survive is I^k), read a little lower still
 * (s > 1) because its winnowed minimizers lose more than the k-mers a mutation touches. It reads
 * 0.13 s points under I at 95 % and 2.3 s under it at 80 %, so averaging it, as fastANI averages
 * its fragments, is what makes the mean over the aligned part fastANI's; averaging I itself read
 * even divergence 0.3 points above fastANI (bench/ani/FINDINGS.md, "fastANI's scale").
 *
 * The pair: ANI = (ANI_Q + ANI_R) / 2 (fastANI's mean of both directions), AF = the AF of the
 * genome with fewer segments. Near identity the anchors are too few to order pairs a few SNPs apart
 * (a segment keeps ~47 of its 3,000 k-mers), while the genome sketch's keys hold the same windows
 * many times over; there the level comes from the keys (tsk_ani_level_from_keys). Unrelated
 * (either direction's AF below TSK_ANI_MIN_AF): ANI 0, AF 0, distance 1. Every computation is
 * plain double arithmetic in a fixed order on the host, so a pair gives the same bytes whichever
 * engine found it. */
#ifndef TSK_GENOME_ANI_H
#define TSK_GENOME_ANI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSK_ANI_SEGMENT 3000           /* bases a segment (fastANI's fragment) */
#define TSK_ANI_MIN_RATE_LOG2 6        /* the finest sampling: one anchor k-mer in 64 */
#define TSK_ANI_MAX_RATE_LOG2 31
#define TSK_ANI_MAX_ANCHORS 49152      /* expected anchors a genome keeps at most: 192 KB */
/* The least share of a genome's length its segments must cover for its loose anchors to stay out of
 * its pairs. Where its contigs are long, a segment of the other genome over one of its contigs' tails
 * mostly also runs past the contig's end: fastANI leaves such fragments unmapped, and so does the
 * estimator when the tail holds no hits (a partly covered segment with hits reads as a diverged
 * one). Where the tails are more than a tenth of it (drafts of contigs under ~15 kb, short
 * genomes), they hold too much of it to leave out: their loose anchors are looked up too
 * (tsk_ani_loose_used). On drafts of 8 kb contigs that took the error against fastANI from the
 * keys' 0.81-1.0 points to 0.27-0.34 (bench/ani/FINDINGS.md, "Loose anchors"). */
#define TSK_ANI_MIN_COVER 0.9

/* The identity I below which a segment does not map (counts neither in ANI nor in AF). fastANI
 * maps a fragment when the upper end of its estimate's 90 % interval reaches 0.80 on its own scale
 * (1 + ln I = 0.80 is I = 0.819), and the mixture smears segments near it both ways (a 16-mer
 * survives 80 % identity with 2.8 %: one hit a segment). On the generated sets 0.79 gave the least
 * error against fastANI (0.78 read uneven divergence 0.25 points low, 0.80 0.40 high;
 * bench/ani/FINDINGS.md, "fastANI's scale"); lower cutoffs took an AT-rich genome's chance matches
 * for homology (0.74-0.76 did on the Blochmannia ancestor). */
#define TSK_ANI_CUTOFF 0.79
/* s of fastANI's scale 1 + s ln I (above). fastANI reads pure substitutions 0.35-0.5 points under
 * 1 + ln I (s ~ 1.1 at 95-98 %); with the generated sets' indels and this cutoff, s = 1.025 gave
 * even divergence's error 0.145 points against 0.204 with s = 1, uneven divergence's 0.266 against
 * 0.237 (bench/ani/FINDINGS.md, "Winnowing"). */
#define TSK_ANI_SCALE 1.025
/* The least AF of each direction for a related pair: chance matches and a few shared repeats give
 * under 1 % of segments above the cutoff; a 25 % piece of a genome gives 25 %. */
#define TSK_ANI_MIN_AF 0.02
/* The identity grid of the mixture: the atom "not homologous", then TSK_ANI_GRID_LOW, ..., 1 in
 * steps of 1 / TSK_ANI_GRID_DIV. FINDINGS.md used steps of 0.0025; steps of 0.01 fit fastANI as
 * well (7 seeds, both rates; bench/ani/FINDINGS.md, "The C estimator") at a quarter of the EM's
 * work: the segments' ~25 anchors cannot tell identities 0.0025 apart anyway. */
#define TSK_ANI_GRID_LOW 0.70
#define TSK_ANI_GRID_DIV 100
/* The weights start from the segments' likeliest identities, with TSK_ANI_START_UNIFORM of them
 * spread evenly over the grid, and take TSK_ANI_EM_STEPS plain EM steps. Stopping early regularizes:
 * on the generated sets it fits fastANI better than the EM run to convergence (uneven 0.25 against
 * 0.34 points, even 0.33 against 0.33; bench/ani/FINDINGS.md, "Stopping early"), at a tenth of the work. */
#define TSK_ANI_EM_STEPS 10
/* A likelihood row's entries below this share of its largest are 0, so each row is read over a band
 * of the grid only (about half of it): a cell's weight there adds under 2^-50 of what its band adds. */
#define TSK_ANI_ROW_FLOOR 0x1p-50
#define TSK_ANI_START_UNIFORM 0.2
/* Above TSK_ANI_KEYS_LOW the pair's ANI moves to the keys' level, wholly from TSK_ANI_KEYS_HIGH
 * (tsk_ani_level_from_keys). Below it the anchors alone decide: that is where the estimator was
 * fitted to fastANI (93-97 %), and where a segment's identity is spread widely enough that the
 * mixture's shape, not the keys' count, is what tells uneven divergence apart. */
#define TSK_ANI_KEYS_LOW 0.98
#define TSK_ANI_KEYS_HIGH 0.99

/* One genome's segment anchors, as stored (docs/format.md): segments in genome order (contig after
 * contig), each with its anchors' count; the anchors' stored hashes, segment after segment, in
 * any order within a segment. */
typedef struct {
    int64_t n_segments;          /* all its segments, with or without anchors */
    int64_t n_anchors;           /* sum of seg_count */
    int64_t n_loose;             /* its loose anchors: the anchor k-mers in no segment (contigs' tails,
                                  * k-mers across two segments), stored after the segments' anchors
                                  * in hash; looked up where tsk_ani_loose_used says */
    int32_t rate_log2;           /* its anchors are the k-mers whose hash is below 2^(64 - rate_log2) */
    const uint16_t *seg_count;   /* n_segments counts */
    const uint32_t *hash;        /* n_anchors + n_loose stored hashes: h >> (32 - rate_log2) */
    int64_t length;              /* its cleaned length (the chance of a match by accident grows with it) */
    int64_t *repeats;            /* where tsk_ani_repeats keeps its count (-1 until counted; shared by
                                  * threads); NULL: counted at each use */
} tsk_ani_genome;

/* The genomes of one set (the references, or the queries), item i as in its tsk_key_sets. */
typedef struct {
    int64_t n_items;
    const tsk_ani_genome *genome;
} tsk_ani_set;

/* The loose anchors of g that its pairs look up: all of them when its segments cover less than
 * TSK_ANI_MIN_COVER of its length, else none. */
static inline int64_t tsk_ani_loose_used(const tsk_ani_genome *g)
{
    return (double)g->n_segments * TSK_ANI_SEGMENT < TSK_ANI_MIN_COVER * (double)g->length ? g->n_loose : 0;
}

/* The rate a genome of length cleaned bases keeps: the least r >= TSK_ANI_MIN_RATE_LOG2 with
 * length / 2^r <= TSK_ANI_MAX_ANCHORS. */
int32_t tsk_ani_rate_log2(int64_t length);

/* The largest hash an anchor of rate r has: hashes below 2^(64 - r). */
static inline uint64_t tsk_ani_max_hash(int32_t rate_log2) { return UINT64_MAX >> rate_log2; }

/* Both directions and the pair. */
typedef struct {
    double ani_q, af_q;     /* Q -> R: Q's segments against R's anchors */
    double ani_r, af_r;     /* R -> Q */
    double m_q, m_r;        /* each direction's mean of I^W over its aligned weight (the share of its
                             * W-base windows the mixture expects to survive); 0 without a window
                             * (tsk_ani_work_set_window) */
    double ani, af;         /* the pair (ANI a fraction, 0..1); 0 and 0 when unrelated */
    int defined;            /* 0 when either genome has no segment with anchors (no contig of 3 kb):
                             * no estimate, the caller falls back to the key distance */
} tsk_ani_result;

/* Per-thread scratch of tsk_ani_pair (the query's sorted anchors, histograms, the EM's tables). */
typedef struct tsk_ani_work tsk_ani_work;
tsk_ani_work *tsk_ani_work_new(void);
void tsk_ani_work_free(tsk_ani_work *w);

/* ANI and AF of q and r, whose anchors are anchor_k-mers. Returns 0, or -1 when out of memory. */
int tsk_ani_pair(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, int anchor_k,
                 tsk_ani_result *out);

/* A query for many pairs: tsk_ani_work_query sorts q's anchors into the work once (about 8 bytes an
 * anchor, and 256 KB), then tsk_ani_pair_query(w, r, ...) gives tsk_ani_pair(w, q, r, ...)'s bytes
 * for any r, looking r's anchors up among q's (r is not sorted). The work keeps q's address: q
 * must stay as it is while it is the query. tsk_ani_pair makes its q the work's query. Both
 * return 0, or -1 when out of memory or on a genome out of range. */
int tsk_ani_work_query(tsk_ani_work *w, const tsk_ani_genome *q);
int tsk_ani_pair_query(tsk_ani_work *w, const tsk_ani_genome *r, int anchor_k, tsk_ani_result *out);
/* The work's query (NULL before the first). */
const tsk_ani_genome *tsk_ani_work_current_query(const tsk_ani_work *w);

/* The counts the estimator starts from: per segment of q (of r) its anchors at the pair's common
 * rate, n_q (n_r), and those whose value the other genome holds, a_q (a_r); arrays of n_segments.
 * Returns 0, or -1 when out of memory. */
int tsk_ani_segment_hits(tsk_ani_work *w, const tsk_ani_genome *q, const tsk_ani_genome *r, uint32_t *n_q,
                         uint32_t *a_q, uint32_t *n_r, uint32_t *a_r);

/* For benches and tests: em_steps EM steps (TSK_ANI_EM_STEPS by default) from a start with the share
 * start_uniform spread evenly (TSK_ANI_START_UNIFORM), on a grid of step 1 / grid_div (a divisor of
 * 400, at least 10; TSK_ANI_GRID_DIV by default). Returns 0, or -1 on values out of range. */
int tsk_ani_work_set_em(tsk_ani_work *w, int em_steps, int grid_div, double start_uniform);

/* The window W of the genome sketch whose anchors the work compares: the exponent of the results'
 * m_q and m_r (0, the default: not computed). Returns 0, or -1 when out of 0..TSK_ANI_MAX_WINDOW. */
#define TSK_ANI_MAX_WINDOW 64
int tsk_ani_work_set_window(tsk_ani_work *w, int window);

/* Near identity, the pair's level from its keys. A W-base window of the aligned part survives with
 * the mean of I^W, which is m_q; the keys measure it directly: c_q = shared / n_q (Q's keys below
 * the pair's bound found in R) is AF_q times it. So (c_q / AF_q)^(1/W) is the identity that mean
 * implies, over thousands of windows, less the part of m_q^(1/W) - ANI_q that comes from spread
 * (uneven divergence) rather than from the grid (a point mass between two grid identities is
 * spread over both), all in the identity's own scale (ANI_q read back from fastANI's as a point
 * mass, exp(ANI_q - 1)); the result is reported on fastANI's, 1 + ln of it. The direction's ANI
 * moves to that linearly from TSK_ANI_KEYS_LOW to
 * TSK_ANI_KEYS_HIGH of the pair's ANI; above, it is that. Leaves res as it is when it is not
 * defined, unrelated, below TSK_ANI_KEYS_LOW, without m or without shared keys. Plain host
 * arithmetic: a pair gives the same bytes whichever engine estimated it. */
void tsk_ani_level_from_keys(tsk_ani_result *res, int64_t shared, int64_t n_q, int64_t n_r, int window);

/* For the GPU twin, which must read and compute the same values.
 *
 * The grid of grid_div (its identities and their p = I^k into grid[1 .. g-1], p[1 .. g-1]; entry 0,
 * the atom, is a direction's own) and the powers pw_p[e * g + j] = p_j^e, pw_q[e * g + j] =
 * (1 - p_j)^e for e < TSK_ANI_POWER_ROWS and j >= 1, by repeated multiplication (g * 256 doubles
 * each). Returns g (32 for TSK_ANI_GRID_DIV). */
#define TSK_ANI_POWER_ROWS 256
int tsk_ani_grid_powers(int anchor_k, int grid_div, double *grid, double *p, double *pw_p, double *pw_q);
/* reported[j] = 1 + TSK_ANI_SCALE ln grid[j], the identity fastANI reports for grid identity j >= 1
 * (reported[0] = 0): what a direction's ANI averages. */
void tsk_ani_grid_reported(const double *grid, int g, double *reported);
/* gw[j] = grid[j]^window for the grid's identities j >= 1 (gw[0] = 0), by repeated multiplication. */
void tsk_ani_grid_window_powers(const double *grid, int g, int window, double *gw);
/* The atom's p: the chance that an anchor of a direction's segment hits by accident, the other
 * genome having length_r bases and anchors_r anchors compared on value_bits bits: the larger of
 * 2 length_r / 4^k (random sequence) and self_rate (tsk_ani_self_rate), plus the chance of equal
 * values on value_bits bits; at most 0.5. */
double tsk_ani_atom(int anchor_k, int64_t length_r, int64_t anchors_r, int value_bits, double self_rate);

/* A direction's chance rate from its own genome: 16-mers match by chance far more often than in
 * random sequence where the genome's composition is skewed (28 times in a 32 % GC Blochmannia
 * genome: bench/ani/FINDINGS.md, "Chance hits in AT-rich genomes"), and the genome's matches with
 * itself measure it without the other genome's homology: repeats (tsk_ani_repeats) of its
 * n_anchors over length_q bases, scaled to the other genome's length_r, that is
 * repeats / n_anchors * length_r / length_q (0 without anchors). */
double tsk_ani_self_rate(int64_t repeats, int64_t n_anchors, int64_t length_q, int64_t length_r);

/* The anchors of g whose value it also holds in another of its segments, at most
 * TSK_ANI_REPEAT_CAP a segment (chance matches are spread thin over the segments; a segment of a
 * repeat family, whose anchors all recur, is homology with itself, not chance). Counted once per
 * genome into *g->repeats when it is not NULL (the work's scratch sorts g's anchors; the work's
 * query is read as it is sorted). -1 when out of memory. */
#define TSK_ANI_REPEAT_CAP 8
int64_t tsk_ani_repeats(tsk_ani_work *w, const tsk_ani_genome *g);
/* One direction's estimate: ANI and AF (0 and 0 below TSK_ANI_MIN_AF) and its segments with anchors. */
typedef struct {
    double ani, af;
    int64_t with_anchors;
    double m;   /* the mean of I^W over the aligned weight (0 without a window) */
} tsk_ani_direction;
/* The pair from its two directions (q -> r, r -> q), as tsk_ani_pair ends. */
void tsk_ani_pair_finish(const tsk_ani_genome *q, const tsk_ani_genome *r, const tsk_ani_direction *dq,
                         const tsk_ani_direction *dr, tsk_ani_result *out);

/* The result tsk_ani_pair gives for (r, q) from res, its result for (q, r): each direction's
 * estimate depends on the two genomes only, not on which is the query, so the directions are
 * swapped and the pair's AF taken again (the genome with fewer segments; q's when even, so the
 * other direction's for r). The same bytes, without the estimate. */
void tsk_ani_result_swap(const tsk_ani_genome *q, const tsk_ani_genome *r, const tsk_ani_result *res,
                         tsk_ani_result *out);

/* The distance of a result: 1 - ani as float (1 when unrelated). */
float tsk_ani_distance(const tsk_ani_result *r);

#ifdef __cplusplus
}
#endif
#endif
