/* detached_exit.h: ending the process without making its caller wait for the kernel's cleanup.
 *
 * After the last output is in place, a process that used the GPU (the sketch, distance and cluster
 * engines are left open: tsk_dist_engine_leave) still has CUDA's teardown ahead (the driver frees the context and unpins its buffers when
 * the process's memory and files go: 0.11-0.19 s on the H100 machine, even with _exit), and one
 * that replaced a big output has that file's page cache to free (0.1 s for a million reads'
 * 448 MB). The shell, Snakemake or Nextflow waits for all of it. Here the process ends at once and
 * a helper process left behind does that work: created with clone(CLONE_VM), it shares the
 * process's memory and holds copies of its file descriptors, so the last reference to each (and
 * the work of dropping it) is the helper's. It closes standard input, output and error first (a
 * pipe reader sees its end when the process ends), waits for the process to end, then exits.
 *
 * The helper is an ordinary child: once the process has ended, whoever adopts orphans (init, a
 * subreaper, a container's first process) reaps it; where that never happens, each run would leave
 * a zombie (TSKETCH_DETACHED_EXIT=0).
 *
 * Not done where another process could notice: an engine on a device in an exclusive compute mode
 * (the next job's context would be refused while the helper holds this one), or a GPU opening
 * still running (gpu_start.h). TSKETCH_DETACHED_EXIT=0 turns it off. */
#ifndef TSK_DETACHED_EXIT_H
#define TSK_DETACHED_EXIT_H

/* Whether the process has such work left: a GPU engine left to the exit or a replaced output
 * held (and so should end through tsk_exit_detached or _exit, never through exit's teardown). */
int tsk_exit_work_left(void);

/* Ends the process with status rc (its output flushed), leaving the work above to a helper when
 * it may (see above); otherwise with _exit(rc). Never returns. */
void tsk_exit_detached(int rc) __attribute__((noreturn));

#endif
