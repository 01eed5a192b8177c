/* kernel_v1_dp.c: the CPU sketch kernel as it was before the SIMD kernels (tests/cpu/v1/, frozen
 * copies of cpu/sketch_dp.c, sketch_dp.h, sketch_kernel.h, sketch_slide.c), built under v1_ names
 * so that test_kernel can check the new kernels against it bit for bit (kernel_v1.h). */
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
#define kernel_consume_f v1_dp_kernel_consume_f
#define kernel_consume_d v1_dp_kernel_consume_d
#include "v1/sketch_dp.c"
