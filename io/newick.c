/* newick.c: Newick text of a tsk_tree (see newick.h). */
#include "newick.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int needs_quotes(const char *s)
{
    if (!*s) return 1;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= ' ' || *p == 127 || strchr("()[]':;,", *p)) return 1;
    return 0;
}

void tsk_newick_label(FILE *f, const char *name)
{
    if (!needs_quotes(name)) {
        fputs(name, f);
        return;
    }
    putc('\'', f);
    for (const char *p = name; *p; p++) {
        if (*p == '\'') putc('\'', f);
        putc(*p, f);
    }
    putc('\'', f);
}

/* %.10g, but never an exponent: some tree readers take only plain decimals. */
static void put_length(FILE *f, double x)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.10g", x);
    if (strchr(buf, 'e')) {
        int decimals = x > 0 ? 10 - (int)floor(log10(x)) : 0;
        snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals > 40 ? 40 : decimals, x);
    }
    fputs(buf, f);
}

int tsk_newick_write(FILE *f, const tsk_tree *t, const char *const *names)
{
    /* Depth first with an explicit stack (a 100,000-leaf caterpillar is that deep). An entry is
     * a node to open (>= 0) or, encoded as -1 - v, the close of internal node v. */
    int64_t cap = 2 * (t->n_joins + 4), n_stack = 0;
    int64_t *stack = malloc((size_t)cap * sizeof *stack);
    if (!stack) {
        errno = ENOMEM;
        return -1;
    }
    putc('(', f);
    for (int i = t->n_top - 1; i >= 0; i--) stack[n_stack++] = t->top[i];
    int after_open = 1; /* the last thing written was '(': the next node is a first child */
    while (n_stack) {
        int64_t e = stack[--n_stack];
        if (e < 0) {
            int64_t v = -1 - e;
            putc(')', f);
            putc(':', f);
            put_length(f, t->length[v]);
            after_open = 0;
            continue;
        }
        if (!after_open) putc(',', f);
        if (e < t->n_leaves) {
            tsk_newick_label(f, names[e]);
            putc(':', f);
            put_length(f, t->length[e]);
            after_open = 0;
            continue;
        }
        putc('(', f);
        const int64_t *c = t->children[e - t->n_leaves];
        stack[n_stack++] = -1 - e;
        stack[n_stack++] = c[1];
        stack[n_stack++] = c[0];
        after_open = 1;
    }
    fputs(");\n", f);
    free(stack);
    return ferror(f) ? -1 : 0;
}
