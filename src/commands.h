/* commands.h: the subcommands main.c dispatches, each defined in its cmd_NAME.c (`tsketch NAME`).
 * Each takes argv as the subcommand receives it and returns a TSK_EXIT_* code. */
#ifndef TSK_COMMANDS_H
#define TSK_COMMANDS_H

int tsk_cmd_sketch(int argc, char **argv);
int tsk_cmd_info(int argc, char **argv);
int tsk_cmd_export(int argc, char **argv);
int tsk_cmd_dist(int argc, char **argv);
int tsk_cmd_triangle(int argc, char **argv);
int tsk_cmd_paste(int argc, char **argv);
int tsk_cmd_tree(int argc, char **argv);
int tsk_cmd_plot(int argc, char **argv);
int tsk_cmd_cluster(int argc, char **argv);

#endif
