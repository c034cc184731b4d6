/*
 * fdwrite.h - write(2) a whole buffer: what every writer of files under
 * src/io ends in (binary graphs and datasets, libsvm text, outfile.h).
 */
#ifndef DSANA_UTIL_FDWRITE_H
#define DSANA_UTIL_FDWRITE_H

#include <stdbool.h>
#include <stdint.h>

/* Write all len bytes of p to fd, at most 1 GiB a call, retrying on EINTR.
 * false on an error, errno saying which (EIO when write() wrote nothing). */
bool fd_write_all(int fd, const void *p, uint64_t len);

#endif
