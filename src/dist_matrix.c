/* dist_matrix.c: the output stage of the matrix commands (dist_matrix.h; the commands: cmd_dist.h): the distance runner fills
 * an n x n float32 matrix instead of writing a file, and the matrix is handed over. */
#include <stdlib.h>

#include "../io/seqio.h"
#include "cli.h"
#include "dist_matrix.h"

tsk_dist_out *tsk_dist_matrix_open(int64_t n, float **matrix)
{
    const size_t side = (size_t)(n > 0 ? n : 1);
    char err[TSK_ERRLEN];
    tsk_dist_out *out = NULL;
    if (!(*matrix = malloc(side * side * sizeof **matrix))) {
        tsk_error("out of memory for the %lld x %lld distance matrix (%.3g GB)", (long long)n, (long long)n,
                  4e-9 * (double)n * (double)n);
    } else if (!(out = tsk_dist_out_open_matrix(*matrix, n, err, sizeof err))) {
        tsk_error("%s", err);
    }
    return out;
}

int tsk_dist_matrix_deliver(const tsk_matrix_command *cmd, float *matrix, int64_t n, const char *const *names,
                            const char *distance, const char *meaning, const char *output, int threads)
{
    tsk_dist_matrix m = {matrix, n, names, distance, meaning, output, threads};
    return cmd->consume(cmd->ctx, &m);
}
