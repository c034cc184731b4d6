/*
 * error.h - dsana's error codes: 0 is success, every failure a negative
 * DSANA_E* value, with dsana_strerror() for its words (util/text/err.c). Its
 * own header so that the layers below the app contract (util, io, net,
 * policy) name errors without including dsana.h; dsana.h includes it.
 */
#ifndef DSANA_ERROR_H
#define DSANA_ERROR_H

#include "dsana/export.h"

/* Error codes: 0 is success, every failure is a negative DSANA_E* value. */
#define DSANA_ERRNO_MAP(X)                               \
  X(ENOMEM, -1, "out of memory")                         \
  X(EINVAL, -2, "invalid argument")                      \
  X(EIO, -3, "input/output error")                       \
  X(EFORMAT, -4, "malformed input")                      \
  X(EPROTO, -5, "protocol error (bad message)")          \
  X(ETIMEDOUT, -6, "timed out")                          \
  X(ENET, -7, "network error")                           \
  X(EPEER, -8, "a peer failed")                          \
  X(ERANGE, -9, "value out of range")                    \
  X(EAGAIN, -10, "nothing available now")                \
  X(ESTATE, -11, "operation not valid in this state")    \
  X(EUSAGE, -12, "bad command-line usage")               \
  X(ENOTSUP, -13, "not supported here")                  \
  X(EINTR, -14, "stopped by a signal")                   \
  X(ERESTART, -15, "rolled back to the last checkpoint") \
  X(EENDED, -16, "the scheduler ended the job")

enum dsana_err {
  DSANA_OK = 0,
#define DSANA_ERR_ENUM(name, val, text) DSANA_##name = (val),
  DSANA_ERRNO_MAP(DSANA_ERR_ENUM)
#undef DSANA_ERR_ENUM
};

/* Words for an error code; never NULL, static storage. */
DSANA_API const char *dsana_strerror(int err);

#endif /* DSANA_ERROR_H */
