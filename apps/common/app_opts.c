/* app_opts.c - the apps' option values (app_opts.h). */
#include "app_opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"

int app_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  if (s[0] < '0' || s[0] > '9')
    return DSANA_EINVAL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return DSANA_EINVAL;
  *out = v;
  return 0;
}

int app_set_path(char *dst, size_t cap, const char *v) {
  if (!v[0] || strlen(v) >= cap)
    return DSANA_EINVAL;
  memcpy(dst, v, strlen(v) + 1);
  return 0;
}
