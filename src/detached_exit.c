/* detached_exit.c: the process ends, a helper that shares its memory frees it (detached_exit.h). */
#include "detached_exit.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../core/tsk_knobs.h"
#include "../io/atomic_file.h"
#include "gpu_start.h"

#define HELPER_STACK (64 * 1024)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* A sanitizer build ends through exit for a replaced output, so that its leak check still runs. */
int tsk_exit_work_left(void) { return tsk_gpu_start_pending() > 0 || (!SANITIZED && tsk_tmp_held_count() > 0); }

/* The helper: on its own stack, sharing the process's memory and its thread's TLS, so it makes
 * plain system calls only (no sanitizer interceptor or libc state is touched). Its file table is
 * a copy: closing the write end of the pipe leaves the process's copy as the only one, whose
 * closing at the process's end wakes the read. */
static int helper_main(void *arg)
{
    const int *ends = arg;
    syscall(SYS_close, ends[1]);
    for (int fd = 0; fd <= 2; fd++) syscall(SYS_close, fd);
    char c;
    while (syscall(SYS_read, ends[0], &c, 1) < 0) {} /* 0 (EOF) once the process has ended */
    return 0; /* the helper exits: the last references to the memory and files go with it */
}

static int detaching_allowed(void)
{
    return tsk_knobs_get()->detached_exit && tsk_gpu_start_detachable();
}

void tsk_exit_detached(int rc)
{
    fflush(NULL);
    static int ends[2];
    if (detaching_allowed() && pipe2(ends, O_CLOEXEC) == 0) {
        /* the helper's copy of the handlers must not remove temporary files (every output is in
         * place or removed by now): an interrupt just ends it */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        char *stack = mmap(NULL, HELPER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        /* SIGCHLD: an ordinary child, reaped by whoever adopts it once this process has ended */
        if (stack == MAP_FAILED || clone(helper_main, stack + HELPER_STACK, CLONE_VM | SIGCHLD, ends) < 0) {
            close(ends[0]);
            close(ends[1]);
        }
    }
    _exit(rc);
}
