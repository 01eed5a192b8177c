/* float_text.h: a float32 as text, the bytes of printf's "%.9g" at a tenth of its cost.
 *
 * Distances print with %.9g (nine significant digits read back the exact float32). glibc's printf
 * formats through multi-precision arithmetic and the locale machinery: over half of the time of
 * `dist --top-k` writing millions of lines. A float32 is M * 2^E with M < 2^24, so its nine
 * correctly rounded digits come from one 128-bit product or quotient (M * 5^s shifted, or
 * M * 2^k / 5^s) rounded half to even, as glibc rounds in the default rounding mode. Values
 * outside [1e-30, 1e30], NaN and infinities go to snprintf. tests/io/test_float_text.c compares the
 * two on every float32 of several ranges and on random bit patterns. */
#ifndef TSK_FLOAT_TEXT_H
#define TSK_FLOAT_TEXT_H

#include <stddef.h>

/* Writes v as snprintf(b, 32, "%.9g", (double)v) does, NUL included; b holds at least 32 bytes.
 * Returns the length without the NUL. */
size_t tsk_float_g9(char *b, float v);

#endif
