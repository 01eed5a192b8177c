/* cli.c: messages, number parsing and the command line string shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (errno || end == s || *end != '\0') {
        tsk_error("option %s: '%s' is not an integer", opt, s);
        return -1;
    }
    if (v < min || v > max) {
        tsk_error("option %s: %s is outside %lld..%lld", opt, s, (long long)min, (long long)max);
        return -1;
    }
    *out = v;
    return 0;
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
