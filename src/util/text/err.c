/* err.c - dsana_strerror(), generated from the DSANA_ERRNO_MAP X-macro. */
#include "dsana/error.h"

const char *dsana_strerror(int err) {
  switch (err) {
  case DSANA_OK:
    return "success";
#define DSANA_ERR_CASE(name, val, text) \
  case DSANA_##name:                    \
    return text;
    DSANA_ERRNO_MAP(DSANA_ERR_CASE)
#undef DSANA_ERR_CASE
  default:
    return "unknown error";
  }
}
