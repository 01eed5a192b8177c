/* io_error.h: how io/ reports a failure (internal to io/, not a public header).
 *
 * Every io/ function that can fail takes a caller's buffer (err, errlen) and writes one message
 * there, naming the file and the reason; it never prints. */
#ifndef TSK_IO_ERROR_H
#define TSK_IO_ERROR_H

#include <stddef.h>

/* printf into err (when err is non-NULL and errlen > 0). */
void tsk_io_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
