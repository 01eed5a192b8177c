/* cli.h: what every tsketch subcommand shares: exit codes, messages, option helpers. */
#ifndef TSK_CLI_H
#define TSK_CLI_H

#include <stdarg.h>
#include <stddef.h>
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

/* Parses a number option value in [lo, hi] (hi may be INFINITY; NaN is never one); on failure
 * prints "option -X: 'S' is not a number from LO to HI" (or "of at least LO") and returns
 * TSK_EXIT_USAGE, else TSK_EXIT_OK. */
int tsk_parse_double(const char *opt, const char *s, double lo, double hi, double *out);

/* Refuses an output that is one of the inputs (the same regular file by device and inode, so
 * also through links): writing it would destroy the input. Returns TSK_EXIT_OK, or prints
 * "OUT: is also the input IN ..." and returns TSK_EXIT_USAGE. Every command that writes calls it
 * before reading anything. NULL entries and a NULL output are skipped. */
int tsk_check_output(const char *output, const char *const *inputs, size_t n);

/* Warns once when names[0..n) holds empty names or one name twice (rows of a distance table or
 * leaves of a tree that only their order tells apart); where names the set ("the references").
 * Returns 0, or -1 when out of memory (nothing checked). */
int tsk_warn_name_problems(const char *const *names, int64_t n, const char *where);

/* The command line as one string (for the .tsk header), malloc'd. */
char *tsk_join_argv(int argc, char **argv);

/* Seconds on the monotonic clock (TSKETCH_TIMING=1 reports). */
double tsk_seconds(void);

/* The process's start on that clock, as main took it first thing (tsk_clock_start): the reports
 * that place a stage in the whole run say "at X s" from it. */
void tsk_clock_start(void);
double tsk_since_start(double at);

/* Whether TSKETCH_TIMING=1 asks for those reports. */
int tsk_timing_wanted(void);

/* Under TSKETCH_TIMING=1, "tsketch: timing: N items loaded in X s" (since `since`, tsk_seconds):
 * the load report of the distance commands (dist, cluster), which bench/load.sh reads. */
void tsk_timing_loaded(int64_t n_items, double since);

/* Runs fn(arg) on a detached thread (nobody joins it). Returns 0, or pthread's error (nothing
 * started). */
int tsk_start_detached(void *(*fn)(void *), void *arg);

#endif
