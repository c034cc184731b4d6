/*
 * ref_json.h - the scenario fuzz target's reference JSON reader, written
 * from RFC 8259, independent of cJSON: one value, blanks (space, tab, CR,
 * LF) around it; strings with the RFC's escapes only and no raw control
 * byte (UTF-8 not checked: the RFC leaves invalid sequences to the reader);
 * numbers -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? read with strtod;
 * nesting at most REF_JSON_DEPTH deep. The document is a tree of nodes in
 * one array; an object member's key is kept decoded, with its length (a
 * \u0000 is a byte like the others), and ascii false when an escape made a
 * byte above 0x7f (such a key is none of a schema's ASCII names).
 * Header-only, included once.
 */
#ifndef DSANA_FUZZ_REF_JSON_H
#define DSANA_FUZZ_REF_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define REF_JSON_DEPTH 1000

enum ref_json_type { RJ_NULL, RJ_BOOL, RJ_NUMBER, RJ_STRING, RJ_ARRAY, RJ_OBJECT };

struct ref_json_node {
  enum ref_json_type type;
  double num;
  char key[32]; /* the member's key (decoded, first 31 bytes), when a member */
  size_t key_len;
  bool key_ascii;
  int child, next; /* first child, next sibling: node indices, -1 for none */
};

struct ref_json {
  const char *p, *end;
  int depth;
  struct ref_json_node *node;
  int n, cap;
};

static bool ref_json_value(struct ref_json *j, int *out);

static int ref_json_new(struct ref_json *j, enum ref_json_type type) {
  if (j->n == j->cap) {
    j->cap = j->cap ? 2 * j->cap : 64;
    j->node = realloc(j->node, (size_t)j->cap * sizeof *j->node);
    if (!j->node)
      abort();
  }
  j->node[j->n] = (struct ref_json_node){.type = type, .child = -1, .next = -1, .key_ascii = true};
  return j->n++;
}

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

static bool ref_json_number(struct ref_json *j, double *v) {
  const char *s = j->p;
  char tmp[512];
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
  size_t n = (size_t)(j->p - s);
  char *copy = n < sizeof tmp ? tmp : malloc(n + 1);
  if (!copy)
    abort();
  memcpy(copy, s, n);
  copy[n] = '\0';
  *v = strtod(copy, NULL);
  if (copy != tmp)
    free(copy);
  return true;
}

static int ref_json_hex(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* Append byte b to the node's key (its first 31 bytes are kept). */
static void ref_json_key_byte(struct ref_json_node *k, unsigned char b) {
  if (k && k->key_len < sizeof k->key - 1)
    k->key[k->key_len] = (char)b;
  if (k)
    k->key_len++;
}

/* A string at p; its bytes decoded into k's key when k is not NULL. */
static bool ref_json_string(struct ref_json *j, struct ref_json_node *k) {
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
    if (c != '\\') {
      ref_json_key_byte(k, c);
      continue;
    }
    if (++j->p >= j->end)
      return false;
    const char *esc = strchr("\"\\/bfnrt", *j->p);
    if (esc && *j->p) {
      ref_json_key_byte(k, (unsigned char)"\"\\/\b\f\n\r\t"[esc - "\"\\/bfnrt"]);
      continue;
    }
    if (*j->p != 'u' || j->end - j->p < 5)
      return false;
    unsigned cp = 0;
    for (int i = 1; i <= 4; i++) {
      int h = ref_json_hex(j->p[i]);
      if (h < 0)
        return false;
      cp = cp * 16 + (unsigned)h;
    }
    j->p += 4;
    if (cp < 0x80)
      ref_json_key_byte(k, (unsigned char)cp);
    else if (k)
      k->key_ascii = false;
  }
  return false;
}

/* '{' or '[' at p: members or elements, then the closing bracket. */
static bool ref_json_container(struct ref_json *j, int self, bool object) {
  char close = object ? '}' : ']';
  int last = -1;
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
    struct ref_json_node key = {.key_ascii = true};
    int v;
    if (object) {
      if (!ref_json_string(j, &key))
        return false;
      ref_json_ws(j);
      if (j->p >= j->end || *j->p++ != ':')
        return false;
    }
    if (!ref_json_value(j, &v))
      return false;
    memcpy(j->node[v].key, key.key, sizeof key.key);
    j->node[v].key_len = key.key_len;
    j->node[v].key_ascii = key.key_ascii;
    if (last < 0)
      j->node[self].child = v;
    else
      j->node[last].next = v;
    last = v;
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

/* A value with the blanks around it: its node in *out. */
static bool ref_json_value(struct ref_json *j, int *out) {
  bool ok;
  ref_json_ws(j);
  if (j->p >= j->end)
    return false;
  switch (*j->p) {
  case '{':
    ok = ref_json_container(j, *out = ref_json_new(j, RJ_OBJECT), true);
    break;
  case '[':
    ok = ref_json_container(j, *out = ref_json_new(j, RJ_ARRAY), false);
    break;
  case '"':
    *out = ref_json_new(j, RJ_STRING);
    ok = ref_json_string(j, NULL);
    break;
  case 't':
  case 'f':
    *out = ref_json_new(j, RJ_BOOL);
    ok = ref_json_lit(j, *j->p == 't' ? "true" : "false");
    break;
  case 'n':
    *out = ref_json_new(j, RJ_NULL);
    ok = ref_json_lit(j, "null");
    break;
  default:
    *out = ref_json_new(j, RJ_NUMBER);
    ok = ref_json_number(j, &j->node[*out].num);
  }
  ref_json_ws(j);
  return ok;
}

/* Parse [p, p + n) as one JSON text into j (root: node 0); free j->node. */
static bool ref_json_parse(const char *p, size_t n, struct ref_json *j) {
  int root;
  *j = (struct ref_json){p, p + n, 0, NULL, 0, 0};
  return ref_json_value(j, &root) && j->p == j->end;
}

/* Member `name` of object node obj: its node, -1 if absent. */
static int ref_json_get(const struct ref_json *j, int obj, const char *name) {
  size_t len = strlen(name);
  for (int c = j->node[obj].child; c >= 0; c = j->node[c].next)
    if (j->node[c].key_ascii && j->node[c].key_len == len && memcmp(j->node[c].key, name, len) == 0)
      return c;
  return -1;
}

#endif
