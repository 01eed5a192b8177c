/* progress_line.h: the progress line of a long run (sketch, dist, genome sketches) on standard
 * error, rewritten in place with \r at most every `interval` seconds. It is drawn only when
 * standard error is a terminal and -q was not given, so a log file or a pipe never gets control
 * characters. Not thread-safe: the caller serializes the calls (one thread, or under its lock). */
#ifndef TSK_PROGRESS_LINE_H
#define TSK_PROGRESS_LINE_H

typedef struct {
    int on;          /* the line is drawn at all */
    int shown;       /* something was drawn: tsk_progress_end has a line to finish */
    double interval; /* seconds between redraws; 0: every call */
    double last;     /* when it was last drawn (tsk_seconds) */
} tsk_progress;

/* Starts a line, on when `wanted` (the caller's own condition, such as "the results do not go to
 * the same terminal"), standard error is a terminal and not --quiet. The first show draws. */
void tsk_progress_start(tsk_progress *p, int wanted, double interval);

/* Redraws the line from the printf format, unless it was drawn less than interval seconds ago
 * (force: draw all the same, for the last state). */
void tsk_progress_show(tsk_progress *p, int force, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Finishes the line if one was drawn: keep leaves its last state and goes to the next line (totals
 * worth reading), else it is erased so that what follows starts clean. The line is off then. */
void tsk_progress_end(tsk_progress *p, int keep);

#endif
