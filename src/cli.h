/* cli.h: what every tsketch subcommand shares: exit codes, messages, option helpers. */
#ifndef TSK_CLI_H
#define TSK_CLI_H

#include <stdarg.h>
#include <stdint.h>

/* Exit codes (documented in README.md). */
enum {
    TSK_EXIT_OK = 0,
    TSK_EXIT_RUNTIME = 1,       /* runtime failure: out of memory, disk full, GPU error */
    TSK_EXIT_USAGE = 2,         /* bad command line or parameters */
    TSK_EXIT_INPUT = 3,         /* bad input file */
    TSK_EXIT_INCOMPATIBLE = 4,  /* sketches made with different parameters */
    TSK_EXIT_NO_GPU = 5,        /* --device cuda asked for and no usable GPU */
};

/* "tsketch: <message>\n" on stderr. */
void tsk_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "tsketch: warning: <message>\n" on stderr (unless --quiet). */
void tsk_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "tsketch: <message>\n" on stderr for progress notes (unless --quiet). */
void tsk_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int tsk_quiet;

/* A usage error of subcommand cmd whose reason is already on stderr (getopt's, or the caller's):
 * adds where to read the options, not the whole usage text that would bury the reason. Returns
 * TSK_EXIT_USAGE. */
int tsk_usage_error(const char *cmd);

/* Parses a positive integer option value; on failure prints "option -X: ..." and returns -1. */
int tsk_parse_int64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out);

/* The command line as one string (for the .tsk header), malloc'd. */
char *tsk_join_argv(int argc, char **argv);

/* Subcommands: each returns an exit code. */
int tsk_cmd_sketch(int argc, char **argv);
int tsk_cmd_info(int argc, char **argv);
int tsk_cmd_export(int argc, char **argv);
int tsk_cmd_dist(int argc, char **argv);
int tsk_cmd_triangle(int argc, char **argv);
int tsk_cmd_paste(int argc, char **argv);

#endif
