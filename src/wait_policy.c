/* wait_policy.c: OpenMP threads that wait sleep (wait_policy.h, tsk_sleeping_waits).
 *
 * Why a new process image: GNU libgomp reads OMP_WAIT_POLICY in its library constructor, before
 * main, so setting it in main changes nothing. Its default spins a waiting thread for a while
 * before it sleeps, and on a machine whose cores are busy with other work a spinning thread takes
 * the core that the thread it waits for needs: measured on a loaded 2-core machine, -p 2 took 2.08 s
 * spinning and 0.52 s with passive waits (issue 16). */
#include <stdlib.h>
#include <unistd.h>

#include "wait_policy.h"

void tsk_sleeping_waits(char **argv)
{
    if (getenv("OMP_WAIT_POLICY")) return; /* the user's choice, or this process already re-ran */
    if (setenv("OMP_WAIT_POLICY", "passive", 1)) return;
    execv("/proc/self/exe", argv);
    /* no /proc: go on with the default policy */
}
