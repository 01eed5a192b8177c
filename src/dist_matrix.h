/* dist_matrix.h: the output stage of the matrix commands (dist_matrix.c; the commands: cmd_dist.h). */
#ifndef TSK_DIST_MATRIX_H
#define TSK_DIST_MATRIX_H

#include <stdint.h>

#include "../io/dist_out.h"
#include "cmd_dist.h"

/* The output stage of the matrix commands (dist_matrix.c): the in-memory output of an n x n float32
 * matrix (*matrix, the caller's to free) or NULL after the message; once the run has filled it,
 * tsk_dist_matrix_deliver hands the matrix to cmd's consumer, which writes the command's output to
 * output (NULL: stdout) and returns its exit code. distance and meaning name the distance for
 * legends. */
tsk_dist_out *tsk_dist_matrix_open(int64_t n, float **matrix);
int tsk_dist_matrix_deliver(const tsk_matrix_command *cmd, float *matrix, int64_t n, const char *const *names,
                            const char *distance, const char *meaning, const char *output, int threads);

#endif
