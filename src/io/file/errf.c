/*
 * errf.c - io_errf(): format one line into the caller's err buffer and
 * return the code. Every reader, writer and mapper of the io layer fails
 * through it (file_internal.h), the file plumbing included, which is why
 * it lives with that plumbing and not with the graph readers' helpers.
 */
#include <stdarg.h>
#include <stdio.h>

#include "io/file/file_internal.h"

int io_errf(char *err, size_t errlen, int code, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}
