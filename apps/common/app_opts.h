/*
 * app_opts.h - parsing the values of the apps' options (their set_option
 * hooks): numbers checked whole and in range, paths that fit their buffer.
 * Each returns 0 or DSANA_EINVAL; the app writes the message naming the
 * option.
 */
#ifndef DSANA_APPS_COMMON_APP_OPTS_H
#define DSANA_APPS_COMMON_APP_OPTS_H

#include <stddef.h>
#include <stdint.h>

/* An integer in [lo, hi]: decimal digits, every one counted (through a
 * double, 2^53 + 1 would round to 2^53 and pass). */
int app_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A non-empty path shorter than cap, copied into dst. */
int app_set_path(char *dst, size_t cap, const char *v);

#endif
