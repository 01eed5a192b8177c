/* wait_policy.h: sleeping OpenMP waits (wait_policy.c): our users share nodes. */
#ifndef TSK_WAIT_POLICY_H
#define TSK_WAIT_POLICY_H

/* Makes waiting OpenMP threads sleep instead of spin (OMP_WAIT_POLICY=passive unless the user set
 * it): call first thing in main; it starts the program again with the variable set (exec), since
 * the OpenMP runtime reads it before main. Returns only when nothing needs doing or exec failed. */
void tsk_sleeping_waits(char **argv);

#endif
