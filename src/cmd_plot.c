/* cmd_plot.c: `tsketch plot [options] INPUT... -o OUT.svg`: the distance matrix of every record
 * of the inputs as an SVG heatmap ordered by its neighbour-joining tree, the tree beside it
 * (io/svg_plot.h). The distances are dist's (cmd_dist.h), the tree is `tsketch tree`'s. */
#include <stdio.h>

#include "../io/seqio.h"
#include "../io/svg_plot.h"
#include "cli.h"
#include "commands.h"
#include "cmd_tree.h"
#include "dist_matrix.h"

enum { OPT_TITLE = TSK_OPT_MATRIX_FIRST };

typedef struct {
    const char *title;
} plot_opts;

static int plot_option(void *ctx, int opt, const char *arg)
{
    plot_opts *o = ctx;
    if (opt == OPT_TITLE) o->title = arg;
    return TSK_EXIT_OK;
}

static int write_plot(void *ctx, tsk_dist_matrix *m)
{
    const plot_opts *o = ctx;
    tsk_tree tree;
    int rc = tsk_matrix_nj(m, &tree);
    if (rc) return rc;
    char label[256], err[TSK_ERRLEN];
    snprintf(label, sizeof label, "%s (%s)", m->distance, m->meaning);
    tsk_svg_plot p = {m->d, m->n, m->names, &tree, o->title, label};
    if (tsk_svg_plot_write(m->output ? m->output : "-", &p, err, sizeof err)) {
        tsk_error("%s", err);
        rc = TSK_EXIT_RUNTIME;
    }
    tsk_tree_free(&tree);
    return rc;
}

int tsk_cmd_plot(int argc, char **argv)
{
    static const struct option options[] = {
        {"title", required_argument, 0, OPT_TITLE},
        {0, 0, 0, 0},
    };
    plot_opts o = {0};
    char usage[1024];
    snprintf(usage, sizeof usage,
             "Usage: tsketch plot [options] INPUT... -o OUT.svg\n"
             "\n"
             "SVG heatmap of the distances between every record of the inputs, rows and columns in the\n"
             "order of their neighbour-joining tree (as `tsketch tree`), drawn at the left; a colour bar\n"
             "names the distance. Up to %d records every row and column is labelled; up to %d the\n"
             "image has a pixel per pair, beyond that each pixel is the mean of a block of pairs, so the\n"
             "file stays small (about 1 MB). INPUT: .tsk sketch files or FASTA/FASTQ files.\n"
             "\n"
             "      --title TEXT      a title above the plot\n",
             TSK_PLOT_MAX_LABELS, TSK_PLOT_MAX_PIXELS);
    tsk_matrix_command cmd = {"plot", usage, options, plot_option, write_plot, &o};
    return tsk_matrix_main(argc, argv, &cmd);
}
