/* kernel_v1_slide.c: the frozen slide engine (see kernel_v1_dp.c). */
#define tsk_binom_frexp v1_binom_frexp
#define tsk_cpu_chunk_length v1_chunk_length
#define tsk_cpu_counts_in_double v1_counts_in_double
#define tsk_cpu_chunk_scratch v1_chunk_scratch
#define tsk_cpu_chunk_levels v1_chunk_levels
#define tsk_cpu_combine v1_combine
#define tsk_cpu_record_sketch v1_record_sketch
#define tsk_cpu_slide_group v1_slide_group
#define tsk_cpu_slide_rows v1_slide_rows
#define tsk_cpu_revcomp_tables v1_revcomp_tables
#define kernel_consume_d v1_slide_kernel_consume_d
#include "v1/sketch_slide.c"
#include "kernel_v1.h"

int v1_slide_rows_mode(const tsk_params *p, const uint8_t *codes, int64_t n, int64_t r0, int64_t r1, int mode,
                       tsk_precision prec, void *out)
{
    return v1_slide_rows(p, codes, n, r0, r1, (tsk_slide_mode)mode, prec, out);
}
