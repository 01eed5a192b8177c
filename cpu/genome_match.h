/* genome_match.h: genome mode for anchored rows: how many windows two genomes share.
 *
 * Anchored windows (docs/algorithm.md) sit where the sequence puts them, so a stretch two genomes
 * share gives the same row in both: bit for bit from one engine, within float rounding across
 * engines and precisions. A window of w bases survives a per-base divergence d intact with
 * probability (1 - d)^w, so the share f of rows that find their twin in the other genome estimates
 * (1 - d)^w, and
 *
 *     distance = 1 - f^(1/w)
 *
 * estimates d = 1 - ANI the way Mash's distance does from shared k-mers (docs/distances.md,
 * "Genome mode"; docs/accuracy.md measures it). Exactly:
 *
 *   - a row a of genome A is *matched* when genome B has a row b with
 *     sum_i (a_i - b_i)^2 <= TSK_GENOME_MATCH_EPS^2 * sum_i a_i^2   (float rows, sums in double);
 *   - f = (matched_A / rows_A + matched_B / rows_B) / 2;
 *   - distance = 1 - f^(1/w) (1 when nothing matches, 0 for identical row sets); a genome without
 *     rows is at +inf from every other, two such genomes at 0.
 *
 * The relative radius is far above float rounding (GPU and CPU rows of one window differ by about
 * 1e-6 of their norm) and far below the distance of a window with one substitution (more than 0.1
 * of the norm at the genome defaults), so "matched" means "the same window". The search sorts each
 * genome's rows by their projection on a fixed unit vector u once; |u.(a - b)| <= |a - b| bounds
 * the candidates to a narrow band, so the count is the brute-force count at
 * O(n log n) per pair. No GPU is needed: the cost is far below that of sketching the genomes. */
#ifndef TSK_GENOME_MATCH_H
#define TSK_GENOME_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_def.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TSK_GENOME_MATCH_EPS 1e-4

/* Both sets' rows sorted per item by projection; q == r for one set against itself. */
typedef struct tsk_genome_match tsk_genome_match;

/* window: the rows' window w (the exponent 1/w); threads: OpenMP threads over pairs.
 * NULL when memory runs out (err says so). */
tsk_genome_match *tsk_genome_match_open(const tsk_sketch_set *q, const tsk_sketch_set *r, int64_t window,
                                        int threads, char *err, size_t errlen);
void tsk_genome_match_close(tsk_genome_match *m);

/* out[i * ld + j] = distance(item q0 + i of q, item r0 + j of r), as float; the values do not
 * depend on the thread count. Returns 0, or -1 on bad arguments. */
int tsk_genome_match_block(const tsk_genome_match *m, int64_t q0, int64_t nq, int64_t r0, int64_t nr, float *out,
                           int64_t ld);

/* The rows of a (na x dim) matched by some row of b, by the definition above, brute force: the
 * reference the tests compare the sorted search with. */
int64_t tsk_genome_matched_ref(const float *rows_a, int64_t na, const float *rows_b, int64_t nb, int dim);

/* The distance from the two directions' matched counts (the definition above). */
double tsk_genome_match_distance(int64_t matched_a, int64_t na, int64_t matched_b, int64_t nb, int64_t window);

#ifdef __cplusplus
}
#endif
#endif
