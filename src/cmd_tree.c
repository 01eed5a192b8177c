/* cmd_tree.c: `tsketch tree [options] INPUT...`: the neighbour-joining tree of every record of
 * the inputs (cpu/nj_tree.h), as Newick (io/newick.h). The distances are dist's
 * (cmd_dist.h); the tree needs them all at once: an n x n float32 matrix. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cpu/nj_tree.h"
#include "../io/atomic_file.h"
#include "../io/newick.h"
#include "../io/seqio.h"
#include "cli.h"
#include "commands.h"
#include "cmd_tree.h"
#include "dist_matrix.h"

int tsk_matrix_nj(const tsk_dist_matrix *m, tsk_tree *tree)
{
    if (m->n == 0) {
        tsk_error("no sketches in the inputs: no tree to build");
        return TSK_EXIT_INPUT;
    }
    for (int64_t i = 1; i < m->n; i++)
        for (int64_t j = 0; j < i; j++)
            if (!isfinite(m->d[i * m->n + j])) {
                tsk_error("%s and %s: %s %g: a tree needs finite distances (drop the item, or sketch it so "
                          "that it has rows)",
                          m->names[j], m->names[i], m->distance, (double)m->d[i * m->n + j]);
                return TSK_EXIT_INPUT;
            }
    char err[TSK_ERRLEN];
    if (tsk_nj_build(m->d, m->n, m->threads, tree, err, sizeof err)) {
        tsk_error("%s", err);
        return TSK_EXIT_RUNTIME;
    }
    return TSK_EXIT_OK;
}

static int write_tree(void *ctx, tsk_dist_matrix *m)
{
    (void)ctx;
    tsk_tree tree;
    int rc = tsk_matrix_nj(m, &tree);
    if (rc) return rc;
    char err[TSK_ERRLEN];
    const char *path = m->output ? m->output : "-";
    tsk_atomic_file *f = tsk_atomic_open(path, err, sizeof err);
    if (!f) {
        tsk_error("%s", err);
        rc = TSK_EXIT_RUNTIME;
    } else if (tsk_newick_write(tsk_atomic_stream(f), &tree, m->names)) {
        tsk_error("%s: write failed: %s", path, strerror(errno));
        tsk_atomic_abort(f);
        rc = TSK_EXIT_RUNTIME;
    } else if (tsk_atomic_commit(f, err, sizeof err)) {
        tsk_error("%s", err);
        rc = TSK_EXIT_RUNTIME;
    }
    tsk_tree_free(&tree);
    return rc;
}

int tsk_cmd_tree(int argc, char **argv)
{
    static const tsk_matrix_command cmd = {
        "tree",
        "Usage: tsketch tree [options] INPUT...\n"
        "\n"
        "Neighbour-joining tree (Saitou-Nei, quicktree's joins and branch lengths; negative lengths\n"
        "clamped to 0) of every record of the inputs, in Newick. INPUT: .tsk sketch files or\n"
        "FASTA/FASTQ files (sketched with the options below). The distances are dist's (genome\n"
        "distances for genome sketches, or with --genome for FASTA); the whole matrix is held in\n"
        "memory, 4 N^2 bytes (400 MB for 10,000), the tree's working space included. Labels are\n"
        "quoted when Newick needs it. Exit 3 when a distance is not finite (the pair is named).\n"
        "\n",
        NULL, NULL, write_tree, NULL,
    };
    return tsk_matrix_main(argc, argv, &cmd);
}
