/* cmd_dist.h: the command line shared by `dist` and `triangle` (cmd_dist.c), and the commands that
 * need the whole distance matrix in memory (`tree`, `plot`) through it.
 *
 * The matrix commands' distances come from dist's command line and runner (dist_run.h): the same
 * inputs, sketch options, engines, -p, --device, --genome and --metric, all inputs as one set as
 * `triangle` takes them. Instead of a writer, the lower triangle fills an n x n float32 matrix that
 * the command's consumer gets (dist_matrix.h): O(N^2) float32 memory, the upper half left free as
 * working space (cpu/nj_tree.h uses it). */
#ifndef TSK_CMD_DIST_H
#define TSK_CMD_DIST_H

#include <getopt.h>
#include <stdint.h>

/* Runs `tsketch dist` (triangle = 0) or `tsketch triangle` (1): argv as the subcommand receives
 * it. Returns a TSK_EXIT_* code. */
int tsk_dist_main(int argc, char **argv, int triangle);

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

/* Runs `tsketch <cmd->name> [options] INPUT...`: argv as the subcommand receives it. */
int tsk_matrix_main(int argc, char **argv, const tsk_matrix_command *cmd);

#endif
