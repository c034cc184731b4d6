/*
 * str.h - small string helpers the command line and the file writers
 * share: what an output's name asks for (.gz, libsvm text ...), and
 * integers written as text without printf (the text writers' hot loops).
 */
#ifndef DSANA_UTIL_STR_H
#define DSANA_UTIL_STR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Does s end with suffix? */
static inline bool str_ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The decimal digits of x at p (no terminating NUL, at most 20 chars);
 * returns the end. */
static inline char *str_put_u64(char *p, uint64_t x) {
  char tmp[24];
  int k = 0;
  do {
    tmp[k++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (k)
    *p++ = tmp[--k];
  return p;
}

#endif
