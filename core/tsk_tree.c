/* tsk_tree.c: storage and traversal of tsk_tree (see tsk_tree.h). */
#include "tsk_tree.h"

#include <stdlib.h>
#include <string.h>

int tsk_tree_alloc(tsk_tree *t, int64_t n_leaves)
{
    memset(t, 0, sizeof *t);
    t->n_leaves = n_leaves;
    t->n_joins = n_leaves > 3 ? n_leaves - 3 : 0;
    t->children = malloc((size_t)(t->n_joins ? t->n_joins : 1) * sizeof *t->children);
    t->length = calloc((size_t)(n_leaves + t->n_joins + 1), sizeof *t->length);
    if (!t->children || !t->length) {
        tsk_tree_free(t);
        return -1;
    }
    return 0;
}

void tsk_tree_free(tsk_tree *t)
{
    free(t->children);
    free(t->length);
    t->children = NULL;
    t->length = NULL;
}

void tsk_tree_parents(const tsk_tree *t, int64_t *parent)
{
    const int64_t top = t->n_leaves + t->n_joins;
    parent[top] = -1;
    for (int i = 0; i < t->n_top; i++) parent[t->top[i]] = top;
    for (int64_t k = 0; k < t->n_joins; k++) parent[t->children[k][0]] = parent[t->children[k][1]] = t->n_leaves + k;
}

int tsk_tree_leaf_order(const tsk_tree *t, int64_t *order)
{
    /* an explicit stack: a caterpillar tree of 100,000 leaves is that deep */
    int64_t *stack = malloc((size_t)(t->n_joins + 4) * sizeof *stack);
    if (!stack) return -1;
    int64_t n_stack = 0, n_out = 0;
    for (int i = t->n_top - 1; i >= 0; i--) stack[n_stack++] = t->top[i];
    while (n_stack) {
        int64_t v = stack[--n_stack];
        if (v < t->n_leaves) {
            order[n_out++] = v;
            continue;
        }
        stack[n_stack++] = t->children[v - t->n_leaves][1];
        stack[n_stack++] = t->children[v - t->n_leaves][0];
    }
    free(stack);
    return 0;
}
