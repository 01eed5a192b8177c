/* bench_clock.h: what every bench times with: wall-clock seconds and the median of repeated runs. */
#ifndef TSK_BENCH_CLOCK_H
#define TSK_BENCH_CLOCK_H

/* Seconds of CLOCK_MONOTONIC. */
double bench_now(void);

/* The median of t[0..n) (sorted in place; the mean of the middle two when n is even). */
double bench_median(double *t, int n);

#endif
