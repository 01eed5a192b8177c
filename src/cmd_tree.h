/* cmd_tree.h: `tsketch tree` (cmd_tree.c), and its neighbour joining, which `plot` draws too. */
#ifndef TSK_CMD_TREE_H
#define TSK_CMD_TREE_H

#include "../core/tsk_tree.h"
#include "cmd_dist.h"

/* The neighbour-joining tree of m (cmd_tree.c): checks that there is an item and that every
 * distance is finite (naming the pair otherwise), then builds it in m's upper triangle. Returns
 * an exit code after printing the message; on success *tree is the caller's to free. */
int tsk_matrix_nj(const tsk_dist_matrix *m, tsk_tree *tree);

#endif
