/* io_error.c: see io_error.h. */
#include "io_error.h"

#include <stdarg.h>
#include <stdio.h>

void tsk_io_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
