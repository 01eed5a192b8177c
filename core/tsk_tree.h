/* tsk_tree.h: an unrooted binary tree over the items of a distance matrix, as neighbour joining
 * builds it (cpu/nj_tree.h) and the writers draw it (io/newick.h, io/svg_plot.h).
 *
 * Nodes are numbered: leaves 0 .. n_leaves-1 are the matrix's items in order; internal node
 * n_leaves + k is the k-th join. The unrooted tree hangs from a top node with n_top children
 * (3, or all the leaves when there are fewer than 3), the way quicktree writes it. */
#ifndef TSK_TREE_H
#define TSK_TREE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t n_leaves;
    int64_t n_joins;            /* internal nodes besides the top one */
    int64_t (*children)[2];     /* children[k]: the two nodes join k joined (left, right) */
    double *length;             /* length[v]: the branch above node v, >= 0 */
    int n_top;
    int64_t top[3];             /* the top node's children, in the order they are written */
} tsk_tree;

/* Allocates a tree for n_leaves leaves (n_joins = max(n_leaves - 3, 0), lengths 0). 0 or -1. */
int tsk_tree_alloc(tsk_tree *t, int64_t n_leaves);
void tsk_tree_free(tsk_tree *t);

/* The parent of every node: parent[v] for v < n_leaves + n_joins, the top node being
 * n_leaves + n_joins (its own entry -1). parent must hold n_leaves + n_joins + 1 entries. */
void tsk_tree_parents(const tsk_tree *t, int64_t *parent);

/* The leaves in the order the tree is written: depth first, the top's children in order, left
 * before right. order must hold n_leaves entries. 0, or -1 (out of memory). */
int tsk_tree_leaf_order(const tsk_tree *t, int64_t *order);

#ifdef __cplusplus
}
#endif
#endif
