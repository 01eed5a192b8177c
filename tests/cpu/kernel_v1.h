/* kernel_v1.h: the frozen pre-SIMD CPU kernel (kernel_v1_dp.c, kernel_v1_slide.c, tests/cpu/v1/):
 * the same contracts as tsk_cpu_chunk_scratch, tsk_cpu_chunk_levels and tsk_cpu_slide_rows of
 * cpu/sketch_dp.h (mode: a tsk_slide_mode value). */
#ifndef TSK_TEST_KERNEL_V1_H
#define TSK_TEST_KERNEL_V1_H

#include <stddef.h>
#include <stdint.h>

#include "tsk_def.h"

size_t v1_chunk_scratch(const tsk_params *p, int starts);
void v1_chunk_levels(const tsk_params *p, const uint8_t *codes, int64_t q, int starts, int in_double, void *scratch,
                     double *levels);
int v1_slide_rows_mode(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t r0, int64_t r1, int mode,
                       tsk_precision prec, void *out);

#endif
