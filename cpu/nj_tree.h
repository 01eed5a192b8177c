/* nj_tree.h: neighbour joining (Saitou & Nei 1987) of a float32 distance matrix, with the exact
 * arithmetic of quicktree 2.5 and a RapidNJ-style search (Simonsen, Mailund & Pedersen 2008).
 *
 * Result: the tree quicktree builds from the same PHYLIP matrix, same joins in the same order,
 * same child order and the same branch lengths (quicktree prints them to 5 decimals; these are
 * the full values). Like quicktree it keeps the working matrix and the row sums in float32
 * (sums accumulated in double), takes the first pair of smallest Q in its scan order (larger
 * slot ascending, then smaller slot ascending), moves a negative branch length to its sister
 * and clamps both at 0 (Bill Bruno's rule, also for the last three nodes), and puts a join in the
 * slot of its higher-numbered child.
 *
 * Search: each row's entries are kept sorted by distance at the time the row was made; the scan of
 * a row stops at the first entry whose lower bound d - (r_i + r_max) exceeds the best Q so far, so
 * an iteration reads a few entries per row instead of the whole matrix (O(N^2 log N) in all for
 * typical data instead of O(N^3)). A pair is listed in the row of its newer node only. The bound
 * uses the same float operations as Q, so it never prunes the pair quicktree would take, ties
 * included (docs/tree.md). */
#ifndef TSK_NJ_TREE_H
#define TSK_NJ_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/tsk_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds the neighbour-joining tree of the n items of the n x n row-major matrix d, reading the
 * lower triangle d[i * n + j], j < i. The upper triangle is the working matrix: overwritten; the
 * lower triangle and the diagonal are left as they were. Extra memory: about 2 n^2 bytes (the
 * sorted rows, uint32 node ids). Every distance of the lower triangle must be finite.
 * threads: OpenMP threads of the search (the result does not depend on it).
 * Returns 0, or -1 with a message in err (out of memory, a distance not finite). */
int tsk_nj_build(float *d, int64_t n, int threads, tsk_tree *tree, char *err, size_t errlen);

/* The plain O(n^3) scan of every pair each iteration, with the same arithmetic: the reference the
 * tests hold tsk_nj_build to. Same contract. */
int tsk_nj_build_naive(float *d, int64_t n, tsk_tree *tree, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
