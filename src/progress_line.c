/* progress_line.c: one progress line on a terminal (progress_line.h). */
#include "progress_line.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

void tsk_progress_start(tsk_progress *p, int wanted, double interval)
{
    *p = (tsk_progress){.on = wanted && !tsk_quiet && isatty(STDERR_FILENO), .interval = interval, .last = -INFINITY};
}

void tsk_progress_show(tsk_progress *p, int force, const char *fmt, ...)
{
    if (!p->on) return;
    const double now = tsk_seconds();
    if (!force && now - p->last < p->interval) return;
    p->last = now;
    va_list ap;
    va_start(ap, fmt);
    fputc('\r', stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    p->shown = 1;
}

void tsk_progress_end(tsk_progress *p, int keep)
{
    if (p->shown) fputs(keep ? "\n" : "\r\033[K", stderr);
    p->on = p->shown = 0;
}
