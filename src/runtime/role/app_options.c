/*
 * app_options.c - an app's option table as the one place each fact about
 * an option is written (dsana.h): create() applies the defaults through
 * the app's own set_option (dsana_app_set_defaults), which hands the rows
 * with a type to dsana_app_parse_option; the range a row carries makes the
 * error message and --help's text (dsana_app_option_rule).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"

int dsana_app_set_defaults(const struct dsana_app *app, void *state) {
  char err[512];
  for (size_t i = 0; app->options && app->options[i].name; i++) {
    const struct dsana_app_option *o = &app->options[i];
    if (!o->arg || !o->default_value)
      continue;
    int rc = app->set_option(state, o->name, o->default_value, err, sizeof err);
    if (rc)
      return rc;
  }
  return 0;
}

/* A bound as typed: powers of two from 2^32 as 2^N, else plain. */
static void print_bound(char *buf, size_t len, double v) {
  int e;
  if (v >= 0x1p32 && frexp(v, &e) == 0.5)
    snprintf(buf, len, "2^%d", e - 1);
  else
    snprintf(buf, len, "%.15g", v);
}

static void double_rule(const struct dsana_app_option *o, char *buf, size_t len) {
  char lo[32], hi[32];
  print_bound(lo, sizeof lo, o->min);
  print_bound(hi, sizeof hi, o->max);
  if (isinf(o->max))
    snprintf(buf, len, "a finite number %s %s", o->open & DSANA_OPEN_MIN ? ">" : ">=", lo);
  else
    snprintf(buf, len, "a number in %s%s, %s%s", o->open & DSANA_OPEN_MIN ? "(" : "[", lo, hi,
             o->open & DSANA_OPEN_MAX ? ")" : "]");
}

/* "a|b|c" as "a, b or c". */
static void choice_rule(const char *arg, char *buf, size_t len) {
  size_t n = 0;
  buf[0] = 0;
  for (const char *w = arg; *w && n + 1 < len;) {
    size_t wl = strcspn(w, "|");
    const char *sep = !w[wl] ? "" : strchr(w + wl + 1, '|') ? ", " : " or ";
    n += (size_t)snprintf(buf + n, len - n, "%.*s%s", (int)wl, w, sep);
    w += wl + (w[wl] ? 1 : 0);
  }
}

void dsana_app_option_rule(const struct dsana_app_option *o, char *buf, size_t len) {
  char lo[32], hi[32];
  if (!len)
    return;
  buf[0] = 0;
  switch (o->type) {
  case DSANA_VALUE_UINT:
    print_bound(lo, sizeof lo, o->min);
    print_bound(hi, sizeof hi, o->max);
    snprintf(buf, len, "an integer in %s..%s", lo, hi);
    break;
  case DSANA_VALUE_DOUBLE:
    double_rule(o, buf, len);
    break;
  case DSANA_VALUE_CHOICE:
    choice_rule(o->arg ? o->arg : "", buf, len);
    break;
  case DSANA_VALUE_PATH:
    snprintf(buf, len, "a file name");
    break;
  default:
    break;
  }
}

static int parse_uint(const struct dsana_app_option *o, const char *s, char *field) {
  char *end;
  errno = 0;
  if (s[0] < '0' || s[0] > '9')
    return DSANA_EINVAL;
  unsigned long long v = strtoull(s, &end, 10); /* every digit counts: 2^53 + 1 is not 2^53 */
  if (errno || *end || v < (unsigned long long)o->min || v > (unsigned long long)o->max) /* app_check: integers */
    return DSANA_EINVAL;
  if (o->size == sizeof(uint32_t)) {
    uint32_t u = (uint32_t)v;
    memcpy(field, &u, sizeof u);
  } else {
    uint64_t u = v;
    memcpy(field, &u, sizeof u);
  }
  return 0;
}

static int parse_double(const struct dsana_app_option *o, const char *s, char *field) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !isfinite(v) || v < o->min || v > o->max ||
      (o->open & DSANA_OPEN_MIN && v == o->min) || (o->open & DSANA_OPEN_MAX && v == o->max))
    return DSANA_EINVAL;
  memcpy(field, &v, sizeof v);
  return 0;
}

static int parse_choice(const struct dsana_app_option *o, const char *s, char *field) {
  int i = 0;
  size_t len = strlen(s);
  for (const char *w = o->arg; *w; i++) {
    size_t wl = strcspn(w, "|");
    if (wl == len && strncmp(w, s, len) == 0) {
      if (o->size == sizeof(bool)) {
        bool b = i != 0;
        memcpy(field, &b, sizeof b);
      } else
        memcpy(field, &i, sizeof i);
      return 0;
    }
    w += wl + (w[wl] ? 1 : 0);
  }
  return DSANA_EINVAL;
}

static int parse_value(const struct dsana_app_option *o, const char *s, char *field) {
  switch (o->type) {
  case DSANA_VALUE_UINT:
    return parse_uint(o, s, field);
  case DSANA_VALUE_DOUBLE:
    return parse_double(o, s, field);
  case DSANA_VALUE_CHOICE:
    return parse_choice(o, s, field);
  case DSANA_VALUE_PATH:
    if (!s[0] || strlen(s) >= o->size)
      return DSANA_EINVAL;
    memcpy(field, s, strlen(s) + 1);
    return 0;
  case DSANA_VALUE_FLAG: {
    bool on = true;
    memcpy(field, &on, sizeof on);
    return 0;
  }
  default:
    return DSANA_ENOTSUP;
  }
}

int dsana_app_parse_option(const struct dsana_app_option *options, void *state, const char *name, const char *value,
                           char *err, size_t errlen) {
  const struct dsana_app_option *o = options;
  while (o && o->name && (!name || strcmp(o->name, name) != 0))
    o++;
  if (!o || !o->name) {
    snprintf(err, errlen, "unknown option --%s", name ? name : "");
    return DSANA_EINVAL;
  }
  if (o->type == DSANA_VALUE_APP)
    return DSANA_ENOTSUP;
  int rc = parse_value(o, value ? value : "", (char *)state + o->offset);
  if (rc) {
    char rule[128];
    dsana_app_option_rule(o, rule, sizeof rule);
    snprintf(err, errlen, "--%s %s: invalid value (%s)", name, value ? value : "", rule);
  }
  return rc;
}
