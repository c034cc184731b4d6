/*
 * ref_json.h - the scenario fuzz target's reference for the syntax under
 * a scenario file: a strict JSON (RFC 8259) checker written from the RFC,
 * independent of cJSON. One value, blanks (space, tab, CR, LF) around it;
 * strings with the RFC's escapes only, no raw control character, UTF-8 not
 * checked (RFC 8259 leaves invalid sequences to the reader); numbers
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; nesting at most
 * REF_JSON_DEPTH deep. Header-only, included once.
 */
#ifndef DSANA_FUZZ_REF_JSON_H
#define DSANA_FUZZ_REF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define REF_JSON_DEPTH 1000

struct ref_json {
  const char *p, *end;
  int depth;
};

static bool ref_json_value(struct ref_json *j);

static void ref_json_ws(struct ref_json *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
    j->p++;
}

static bool ref_json_lit(struct ref_json *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
    return false;
  j->p += n;
  return true;
}

static bool ref_json_digits(struct ref_json *j) {
  const char *s = j->p;
  while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
    j->p++;
  return j->p > s;
}

static bool ref_json_number(struct ref_json *j) {
  if (j->p < j->end && *j->p == '-')
    j->p++;
  if (j->p < j->end && *j->p == '0')
    j->p++;
  else if (!ref_json_digits(j))
    return false;
  if (j->p < j->end && *j->p == '.' && (j->p++, !ref_json_digits(j)))
    return false;
  if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
    j->p++;
    if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
      j->p++;
    if (!ref_json_digits(j))
      return false;
  }
  return true;
}

static bool ref_json_hex4(struct ref_json *j) {
  for (int i = 0; i < 4; i++, j->p++)
    if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || *j->p == '\0')
      return false;
  return true;
}

static bool ref_json_string(struct ref_json *j) {
  if (j->p >= j->end || *j->p != '"')
    return false;
  for (j->p++; j->p < j->end; j->p++) {
    unsigned char c = (unsigned char)*j->p;
    if (c == '"') {
      j->p++;
      return true;
    }
    if (c < 0x20)
      return false;
    if (c == '\\') {
      if (++j->p >= j->end)
        return false;
      if (*j->p == 'u') {
        j->p++;
        if (!ref_json_hex4(j))
          return false;
        j->p--;
      } else if (!strchr("\"\\/bfnrt", *j->p) || *j->p == '\0') {
        return false;
      }
    }
  }
  return false;
}

/* '{' or '[' at p: members or elements, then the closing bracket. */
static bool ref_json_container(struct ref_json *j, char close, bool object) {
  if (++j->depth > REF_JSON_DEPTH)
    return false;
  j->p++;
  ref_json_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    j->depth--;
    return true;
  }
  for (;;) {
    if (object) {
      if (!ref_json_string(j))
        return false;
      ref_json_ws(j);
      if (j->p >= j->end || *j->p++ != ':')
        return false;
    }
    if (!ref_json_value(j))
      return false;
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      ref_json_ws(j);
      continue;
    }
    if (j->p < j->end && *j->p == close) {
      j->p++;
      j->depth--;
      return true;
    }
    return false;
  }
}

/* A value with the blanks around it. */
static bool ref_json_value(struct ref_json *j) {
  bool ok;
  ref_json_ws(j);
  if (j->p >= j->end)
    return false;
  switch (*j->p) {
  case '{':
    ok = ref_json_container(j, '}', true);
    break;
  case '[':
    ok = ref_json_container(j, ']', false);
    break;
  case '"':
    ok = ref_json_string(j);
    break;
  case 't':
    ok = ref_json_lit(j, "true");
    break;
  case 'f':
    ok = ref_json_lit(j, "false");
    break;
  case 'n':
    ok = ref_json_lit(j, "null");
    break;
  default:
    ok = ref_json_number(j);
  }
  ref_json_ws(j);
  return ok;
}

/* Is [p, p + n) one JSON text? */
static bool ref_json_valid(const char *p, size_t n) {
  struct ref_json j = {p, p + n, 0};
  return ref_json_value(&j) && j.p == j.end;
}

#endif
