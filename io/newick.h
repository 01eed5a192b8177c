/* newick.h: a tsk_tree as one line of Newick (New Hampshire) text.
 *
 * The layout is quicktree's: "(A:0.1,(B:0.2,C:0.3):0.05,D:0.4);", the top node's children in
 * order, each join written (left,right). Lengths carry enough digits to read back the computed
 * value to 1e-9 relative (quicktree prints 5 decimals). Labels are written bare unless Newick
 * would misread them: a label holding white space, a control character or one of ( ) [ ] ' : ; ,
 * is quoted ('it''s' for it's). Underscores stay bare: read strictly they mean blanks, but every
 * common reader (ete, dendropy, Bio.Phylo, R ape) keeps them, and genome names are full of them. */
#ifndef TSK_NEWICK_H
#define TSK_NEWICK_H

#include <stdio.h>

#include "../core/tsk_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the tree, names[leaf] as labels, and a newline. 0, or -1 (write error or out of
 * memory; errno tells which). */
int tsk_newick_write(FILE *f, const tsk_tree *t, const char *const *names);

/* Writes one label, quoted when needed (as above). */
void tsk_newick_label(FILE *f, const char *name);

#ifdef __cplusplus
}
#endif
#endif
