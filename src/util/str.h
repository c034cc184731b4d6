/*
 * str.h - small string tests the command line and the file writers share
 * (what an output's name asks for: .gz, libsvm text ...).
 */
#ifndef DSANA_UTIL_STR_H
#define DSANA_UTIL_STR_H

#include <stdbool.h>
#include <string.h>

/* Does s end with suffix? */
static inline bool str_ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

#endif
