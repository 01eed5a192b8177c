/* test_nj.c: neighbour joining (cpu/nj_tree.c) and its Newick text (io/newick.c).
 *
 * - the textbook five-taxon matrix gives quicktree's tree, text for text;
 * - additive matrices (path lengths of a random tree) are reproduced: NJ is exact on them;
 * - the RapidNJ-style search gives the plain O(n^3) scan's tree, bit for bit, on random, tied
 *   and noisy-additive matrices, for 1 and 3 threads;
 * - small n, non-finite input, the input triangle left alone, label quoting.
 * quicktree itself is compared in test_tree.sh (the CLI, on real genomes). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cpu/nj_tree.h"
#include "../../io/newick.h"

static uint64_t rng = 88172645463325252ULL;
static double uniform01(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static char *newick_of(const tsk_tree *t, const char *const *names)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert(f);
    cr_assert_eq(tsk_newick_write(f, t, names), 0);
    fclose(f);
    return text;
}

static const char *const LETTERS[] = {"A", "B", "C", "D", "E", "F"};

/* lower triangle of a symmetric matrix given row by row as "d10 d20 d21 d30 .." */
static float *matrix(int64_t n, const double *lower)
{
    float *d = calloc((size_t)(n * n), sizeof *d);
    int64_t k = 0;
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = 0; j < i; j++) d[i * n + j] = (float)lower[k++];
    return d;
}

Test(nj, textbook_five_taxa_as_quicktree)
{
    /* the Wikipedia example; quicktree 2.5 prints
     * ((C:4.00000,(B:3.00000,A:2.00000):3.00000):2.00000,D:2.00000,E:1.00000); */
    const double lower[] = {5, 9, 10, 9, 10, 8, 8, 9, 7, 3};
    float *d = matrix(5, lower);
    tsk_tree t;
    char err[256];
    cr_assert_eq(tsk_nj_build(d, 5, 1, &t, err, sizeof err), 0, "%s", err);
    char *text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "((C:4,(B:3,A:2):3):2,D:2,E:1);\n");
    free(text);
    tsk_tree_free(&t);
    free(d);
}

Test(nj, small_n)
{
    char err[256];
    tsk_tree t;
    float one = 0;
    cr_assert_eq(tsk_nj_build(&one, 1, 1, &t, err, sizeof err), 0);
    char *text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "(A:0);\n");
    free(text);
    tsk_tree_free(&t);

    float two[4] = {0, 0, 0.25f, 0};
    cr_assert_eq(tsk_nj_build(two, 2, 1, &t, err, sizeof err), 0);
    text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "(A:0.125,B:0.125);\n");
    free(text);
    tsk_tree_free(&t);

    /* three: x = (a + b - c) / 2 for the first, the rest by difference */
    const double lower3[] = {3, 5, 6};
    float *d = matrix(3, lower3);
    cr_assert_eq(tsk_nj_build(d, 3, 1, &t, err, sizeof err), 0);
    text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "(A:1,B:2,C:4);\n");
    free(text);
    tsk_tree_free(&t);
    free(d);

    /* three with a negative length: quicktree clamps it and gives the sisters whole distances */
    const double neg3[] = {1, 1, 5};
    d = matrix(3, neg3);
    cr_assert_eq(tsk_nj_build(d, 3, 1, &t, err, sizeof err), 0);
    text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "(A:0,B:1,C:1);\n");
    free(text);
    tsk_tree_free(&t);
    free(d);
}

Test(nj, not_finite_is_refused)
{
    const double lower[] = {1, 2, INFINITY, 1, 1, 1};
    float *d = matrix(4, lower);
    tsk_tree t;
    char err[256] = "";
    cr_assert_eq(tsk_nj_build(d, 4, 1, &t, err, sizeof err), -1);
    cr_assert(strstr(err, "finite"), "%s", err);
    free(d);
}

/* A random binary tree over n leaves: its path lengths in dist (double, n x n). */
static void random_additive(int64_t n, double *dist)
{
    /* grow by splitting a random edge: nodes 0..n-1 leaves, parents of everything in par */
    int64_t total = 2 * n - 1, next = n;
    int64_t *par = malloc((size_t)total * sizeof *par);
    double *len = malloc((size_t)total * sizeof *len);
    par[0] = -1, len[0] = 0;
    par[1] = 0, len[1] = 0.01 + uniform01();
    int64_t *nodes = malloc((size_t)total * sizeof *nodes), n_nodes = 2;
    nodes[0] = 0, nodes[1] = 1;
    for (int64_t leaf = 2; leaf < n; leaf++) {
        int64_t v = nodes[1 + (int64_t)(uniform01() * (double)(n_nodes - 1))]; /* an edge above v */
        int64_t mid = next++;
        par[mid] = par[v], len[mid] = len[v] * 0.5;
        len[v] -= len[mid];
        par[v] = mid;
        par[leaf] = mid, len[leaf] = 0.01 + uniform01();
        nodes[n_nodes++] = mid, nodes[n_nodes++] = leaf;
    }
    /* depth-based path length: climb both to the common ancestor */
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            int64_t a = i, b = j;
            int64_t *seen = calloc((size_t)next, sizeof *seen);
            for (int64_t x = a; x >= 0; x = par[x]) seen[x] = 1;
            while (!seen[b]) s += len[b], b = par[b];
            for (int64_t x = a; x != b; x = par[x]) s += len[x];
            free(seen);
            dist[i * n + j] = s;
        }
    free(par), free(len), free(nodes);
}

/* Path length between two leaves of a built tree. */
static double tree_path(const tsk_tree *t, int64_t a, int64_t b)
{
    const int64_t n_nodes = t->n_leaves + t->n_joins;
    int64_t *par = malloc((size_t)(n_nodes + 1) * sizeof *par);
    tsk_tree_parents(t, par);
    char *seen = calloc((size_t)n_nodes + 1, 1);
    for (int64_t x = a; x >= 0; x = par[x]) seen[x] = 1;
    double s = 0;
    while (!seen[b]) s += t->length[b], b = par[b];
    for (int64_t x = a; x != b; x = par[x]) s += t->length[x];
    free(seen);
    free(par);
    return s;
}

Test(nj, additive_matrices_are_reproduced)
{
    for (int64_t n = 4; n <= 64; n += 15) {
        double *truth = malloc((size_t)(n * n) * sizeof *truth);
        random_additive(n, truth);
        float *d = calloc((size_t)(n * n), sizeof *d);
        for (int64_t i = 0; i < n * n; i++) d[i] = (float)truth[i];
        tsk_tree t;
        char err[256];
        cr_assert_eq(tsk_nj_build(d, n, 1, &t, err, sizeof err), 0, "%s", err);
        for (int64_t i = 1; i < n; i++)
            for (int64_t j = 0; j < i; j++)
                cr_assert(fabs(tree_path(&t, i, j) - truth[i * n + j]) < 1e-5, "n %lld pair %lld %lld: %g vs %g",
                          (long long)n, (long long)i, (long long)j, tree_path(&t, i, j), truth[i * n + j]);
        tsk_tree_free(&t);
        free(d);
        free(truth);
    }
}

static void assert_same_tree(const tsk_tree *a, const tsk_tree *b, const char *what)
{
    cr_assert_eq(a->n_top, b->n_top, "%s", what);
    for (int i = 0; i < a->n_top; i++) cr_assert_eq(a->top[i], b->top[i], "%s: top %d", what, i);
    for (int64_t k = 0; k < a->n_joins; k++)
        cr_assert(a->children[k][0] == b->children[k][0] && a->children[k][1] == b->children[k][1], "%s: join %lld",
                  what, (long long)k);
    for (int64_t v = 0; v < a->n_leaves + a->n_joins; v++)
        cr_assert(memcmp(&a->length[v], &b->length[v], sizeof(double)) == 0, "%s: length of %lld: %.17g vs %.17g",
                  what, (long long)v, a->length[v], b->length[v]);
}

Test(nj, rapid_search_equals_plain_scan)
{
    const int64_t sizes[] = {4, 5, 7, 16, 33, 64, 130, 257};
    for (int kind = 0; kind < 4; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const int64_t n = sizes[s];
            double *truth = malloc((size_t)(n * n) * sizeof *truth);
            if (kind >= 2) random_additive(n, truth);
            float *d = calloc((size_t)(n * n), sizeof *d);
            for (int64_t i = 1; i < n; i++)
                for (int64_t j = 0; j < i; j++) {
                    double v = kind == 0   ? uniform01()                        /* no structure */
                               : kind == 1 ? (double)(1 + (int)(uniform01() * 4)) /* ties everywhere */
                               : kind == 2 ? truth[i * n + j] * (0.8 + 0.4 * uniform01()) /* noisy tree */
                                           : truth[i * n + j];                    /* exact tree */
                    d[i * n + j] = (float)v;
                }
            float *copy = malloc((size_t)(n * n) * sizeof *copy);
            float *copy3 = malloc((size_t)(n * n) * sizeof *copy3);
            memcpy(copy, d, (size_t)(n * n) * sizeof *d);
            memcpy(copy3, d, (size_t)(n * n) * sizeof *d);
            tsk_tree fast, fast3, slow;
            char err[256], what[64];
            cr_assert_eq(tsk_nj_build(d, n, 1, &fast, err, sizeof err), 0, "%s", err);
            cr_assert_eq(tsk_nj_build(copy3, n, 3, &fast3, err, sizeof err), 0, "%s", err);
            cr_assert_eq(tsk_nj_build_naive(copy, n, &slow, err, sizeof err), 0, "%s", err);
            snprintf(what, sizeof what, "kind %d n %lld", kind, (long long)n);
            assert_same_tree(&fast, &slow, what);
            assert_same_tree(&fast3, &slow, what);
            /* the lower triangle is the input still */
            for (int64_t i = 1; i < n; i++)
                for (int64_t j = 0; j < i; j++) cr_assert_eq(d[i * n + j], copy[i * n + j]);
            tsk_tree_free(&fast), tsk_tree_free(&fast3), tsk_tree_free(&slow);
            free(d), free(copy), free(copy3), free(truth);
        }
}

Test(newick, labels_quoted_when_needed)
{
    const char *const names[] = {"plain_name.1", "a b", "x:y(z)", "it's", ""};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (int i = 0; i < 5; i++) {
        tsk_newick_label(f, names[i]);
        putc('|', f);
    }
    fclose(f);
    cr_assert_str_eq(text, "plain_name.1|'a b'|'x:y(z)'|'it''s'|''|");
    free(text);
}

Test(newick, lengths_have_no_exponent)
{
    tsk_tree t;
    cr_assert_eq(tsk_tree_alloc(&t, 2), 0);
    t.n_top = 2, t.top[0] = 0, t.top[1] = 1;
    t.length[0] = 1.25e-7, t.length[1] = 0.5;
    char *text = newick_of(&t, LETTERS);
    cr_assert_str_eq(text, "(A:0.00000012500000000,B:0.5);\n");
    free(text);
    tsk_tree_free(&t);
}
