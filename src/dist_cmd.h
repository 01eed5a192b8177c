/* dist_cmd.h: the command line shared by `dist` and `triangle` (cmd_dist.c); `tree` and `plot` reach
 * it through matrix_cmd.h. */
#ifndef TSK_DIST_CMD_H
#define TSK_DIST_CMD_H

/* Runs `tsketch dist` (triangle = 0) or `tsketch triangle` (1): argv as the subcommand receives
 * it. Returns a TSK_EXIT_* code. */
int tsk_dist_main(int argc, char **argv, int triangle);

#endif
