/* device.h: the CUDA devices of this machine, as every GPU engine and src/ see them: one count
 * (the sketch, genome-scan and distance engines, the --device policy and the tests all ask here)
 * and whether any is in an exclusive compute mode. Without CUDA (device_none.c) there are none. */
#ifndef TSK_GPU_DEVICE_H
#define TSK_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when there is no driver, no device, or the build has no CUDA).
 * When 0 and why is non-NULL, a short reason is written there ("no CUDA device found", "no usable
 * CUDA driver (missing or older than CUDA 13)", "this tsketch was built without CUDA"). */
int tsk_gpu_device_count(char *why, size_t whylen);

/* 1 when a CUDA device of this machine is in an exclusive compute mode (or that cannot be told),
 * else 0. For a process that has used CUDA already (it asks the runtime). */
int tsk_gpu_any_exclusive(void);

/* Free bytes of device `device`'s memory now (0 when it cannot be told: no such device, no CUDA). */
size_t tsk_gpu_free_bytes(int device);

/* The most host threads the GPU engines copy through pinned memory with (-p; at most 8): the
 * genome engines' uploads of a mapped file's keys and anchors. */
void tsk_gpu_host_threads(int threads);

/* Starts the driver and makes the contexts of devices[0..n) (n = 0: every device) on threads of
 * their own (0.2-0.4 s each, side by side), so that engines opened once the inputs are loaded find
 * them there; a caller that asks for either sooner (a device count, an engine) waits in the
 * runtime. A device that does not exist is left alone. One at a time (a second call while one
 * runs does nothing). tsk_gpu_warm_wait waits for it: before the process exits, whose teardown of
 * CUDA must not race with it. */
void tsk_gpu_warm_start(const int *devices, int n);
void tsk_gpu_warm_wait(void);

/* When the warm start's work was done (TSKETCH_TIMING), on the monotonic clock (tsk_seconds): the
 * driver started (*driver_at), device d's context made (made_at[d], d < n). 0 for what it has not
 * done (yet, or at all). */
void tsk_gpu_warm_times(double *driver_at, double *made_at, int n);

#ifdef __cplusplus
}
#endif
#endif
