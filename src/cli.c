/* cli.c: messages, number parsing and the command line string shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/tsk_knobs.h"
#include "../io/atomic_file.h"

int tsk_quiet = 0;

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
    fprintf(stderr, "tsketch: %s", prefix);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void tsk_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void tsk_warn(const char *fmt, ...)
{
    if (tsk_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning: ", fmt, ap);
    va_end(ap);
}

void tsk_note(const char *fmt, ...)
{
    if (tsk_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

int tsk_usage_error(const char *cmd)
{
    fprintf(stderr, "tsketch: see 'tsketch %s -h' for the options\n", cmd);
    return TSK_EXIT_USAGE;
}

int tsk_parse_int64(const char *opt, const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (end == s || *end != '\0') {
        tsk_error("option %s: '%s' is not an integer", opt, s);
        return -1;
    }
    if (errno == ERANGE) { /* an integer, but beyond 64 bits: it is out of range, not malformed */
        tsk_error("option %s: %s is outside %lld..%lld", opt, s, (long long)min, (long long)max);
        return -1;
    }
    if (v < min || v > max) {
        tsk_error("option %s: %s is outside %lld..%lld", opt, s, (long long)min, (long long)max);
        return -1;
    }
    *out = v;
    return 0;
}

int tsk_parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (end != s && !*end && *out >= lo && *out <= hi) return TSK_EXIT_OK;
    if (isinf(hi)) tsk_error("option %s: '%s' is not a number of at least %g", opt, s, lo);
    else tsk_error("option %s: '%s' is not a number from %g to %g", opt, s, lo, hi);
    return TSK_EXIT_USAGE;
}

char *tsk_join_argv(int argc, char **argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; i++) len += strlen(argv[i]) + 1;
    char *s = malloc(len), *p = s;
    if (!s) return NULL;
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (i) *p++ = ' ';
        memcpy(p, argv[i], n);
        p += n;
    }
    *p = '\0';
    return s;
}

/* The directory an output goes in must exist and take new files (the output is written to a
 * temporary file there, then renamed): checked before any work, so a long run never ends in
 * "cannot create". Returns TSK_EXIT_OK or TSK_EXIT_USAGE after the message. */
static int check_output_place(const char *output)
{
    if (!*output) {
        tsk_error("-o/--output: an empty file name");
        return TSK_EXIT_USAGE;
    }
    if (!strcmp(output, "-")) return TSK_EXIT_OK; /* stdout */
    struct stat st;
    const char *slash = strrchr(output, '/');
    char *dir = slash ? strndup(output, slash == output ? 1 : (size_t)(slash - output)) : strdup(".");
    if (!dir) {
        tsk_error("out of memory");
        return TSK_EXIT_RUNTIME;
    }
    int rc = TSK_EXIT_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        tsk_error("%s: the directory %s does not exist: create it first", output, dir);
        rc = TSK_EXIT_USAGE;
    } else if (access(dir, W_OK | X_OK) != 0) {
        tsk_error("%s: the directory %s is not writable", output, dir);
        rc = TSK_EXIT_USAGE;
    }
    free(dir);
    return rc;
}

/* Standard input can be read once: "-" twice among the inputs would read nothing the second
 * time (or fail on a closed descriptor). */
static int check_stdin_once(const char *const *inputs, size_t n)
{
    int seen = 0;
    for (size_t i = 0; i < n; i++)
        if (inputs[i] && !strcmp(inputs[i], "-") && seen++) {
            tsk_error("-: standard input is given more than once; it can be read only once (save it to a file)");
            return TSK_EXIT_USAGE;
        }
    return TSK_EXIT_OK;
}

int tsk_check_output(const char *output, const char *const *inputs, size_t n)
{
    int rc = check_stdin_once(inputs, n);
    if (rc == TSK_EXIT_OK && output) rc = check_output_place(output);
    if (rc != TSK_EXIT_OK) return rc;
    for (size_t i = 0; output && i < n; i++)
        if (inputs[i] && tsk_same_file(output, inputs[i])) {
            if (strcmp(output, inputs[i]))
                tsk_error("%s: is also the input %s (the same file): writing it would destroy that input; "
                          "give another output", output, inputs[i]);
            else
                tsk_error("%s: is also an input: writing it would destroy that input; give another output", output);
            return TSK_EXIT_USAGE;
        }
    return TSK_EXIT_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tsk_warn_name_problems(const char *const *names, int64_t n, const char *where)
{
    if (tsk_quiet || n < 1) return 0;
    const char **sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted) return -1;
    memcpy(sorted, names, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_names);
    int64_t empty = 0, repeated = 0;
    const char *example = NULL;
    for (int64_t i = 0; i < n; i++) {
        if (!sorted[i][0]) empty++;
        else if (i > 0 && !strcmp(sorted[i], sorted[i - 1])) {
            repeated++;
            if (!example) example = sorted[i];
        }
    }
    if (empty)
        tsk_warn("%s: %lld record%s with an empty name", where, (long long)empty, empty == 1 ? "" : "s");
    if (repeated)
        tsk_warn("%s: %lld record%s repeat%s a name of another (e.g. '%s'): the output tells them apart only by "
                 "their order", where, (long long)repeated, repeated == 1 ? "" : "s", repeated == 1 ? "s" : "",
                 example);
    free(sorted);
    return 0;
}

int tsk_start_detached(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    int e = pthread_attr_init(&attr);
    if (e) return e;
    pthread_t t;
    e = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (!e) e = pthread_create(&t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return e;
}

int tsk_timing_wanted(void) { return tsk_knobs_get()->timing; }

void tsk_timing_loaded(int64_t n_items, double since)
{
    if (tsk_timing_wanted())
        fprintf(stderr, "tsketch: timing: %lld items loaded in %.3f s\n", (long long)n_items, tsk_seconds() - since);
}

double tsk_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double clock_started;

void tsk_clock_start(void) { clock_started = tsk_seconds(); }

double tsk_since_start(double at) { return at - clock_started; }
