/* matrix_cmd.h: commands that need the whole distance matrix in memory (`tree`, `plot`).
 *
 * The distances come from dist's command line and runner (cmd_dist.c, dist_run.h): the same
 * inputs, sketch options, engines, -p, --device, --genome and --metric, all inputs as one set as
 * `triangle` takes them. Instead of a writer, the lower triangle fills an n x n float32 matrix that
 * the command's consumer gets: O(N^2) float32 memory, the upper half left free as working space
 * (cpu/nj_tree.h uses it). */
#ifndef TSK_MATRIX_CMD_H
#define TSK_MATRIX_CMD_H

#include <getopt.h>
#include <stdint.h>

#include "../core/tsk_tree.h"
#include "../io/dist_out.h"

/* getopt_long codes of the matrix commands' own options start here (dist's own end below). */
#define TSK_OPT_MATRIX_FIRST 1200

typedef struct {
    float *d;                   /* n x n: d[i * n + j] for j < i, 0 on the diagonal; the upper
                                   triangle is the consumer's */
    int64_t n;
    const char *const *names;   /* the items, in input order */
    const char *distance;       /* what was computed: "genome distance", "l2 distance", ... */
    const char *meaning;        /* how to read it, for legends: "1 - ANI, estimated", ... */
    const char *output;         /* -o FILE, or NULL for stdout */
    int threads;                /* -p */
} tsk_dist_matrix;

typedef struct tsk_matrix_command {
    const char *name;                  /* "tree" (messages) */
    const char *usage;                 /* -h: usage line, description and the command's options */
    const struct option *options;      /* the command's own long options, {0}-terminated, or NULL */
    /* one of those options: TSK_EXIT_OK, or an exit code after printing the message */
    int (*option)(void *ctx, int opt, const char *arg);
    /* the matrix, once computed: writes the output; returns an exit code */
    int (*consume)(void *ctx, tsk_dist_matrix *m);
    void *ctx;
} tsk_matrix_command;

/* The neighbour-joining tree of m (cmd_tree.c): checks that there is an item and that every
 * distance is finite (naming the pair otherwise), then builds it in m's upper triangle. Returns
 * an exit code after printing the message; on success *tree is the caller's to free. */
int tsk_matrix_nj(const tsk_dist_matrix *m, tsk_tree *tree);

/* The output stage of the matrix commands (dist_matrix.c): the in-memory output of an n x n float32
 * matrix (*matrix, the caller's to free) or NULL after the message; once the run has filled it,
 * tsk_dist_matrix_deliver hands the matrix to cmd's consumer, which writes the command's output to
 * output (NULL: stdout) and returns its exit code. distance and meaning name the distance for
 * legends. */
tsk_dist_out *tsk_dist_matrix_open(int64_t n, float **matrix);
int tsk_dist_matrix_deliver(const tsk_matrix_command *cmd, float *matrix, int64_t n, const char *const *names,
                            const char *distance, const char *meaning, const char *output, int threads);

/* Runs `tsketch <cmd->name> [options] INPUT...`: argv as the subcommand receives it. */
int tsk_matrix_main(int argc, char **argv, const tsk_matrix_command *cmd);

#endif
