/* fuzz_util.h: what the libFuzzer targets share: the input as a file the readers can open. */
#ifndef TSK_FUZZ_UTIL_H
#define TSK_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Writes data to an in-memory file (memfd, a regular file to fstat and mmap) and returns its path
 * "/proc/self/fd/N", valid until the next call. Aborts when the file cannot be made: a fuzz run
 * without its input would find nothing. */
const char *fuzz_input_file(const uint8_t *data, size_t size);

#endif
