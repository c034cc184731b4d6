/*
 * scenario.c - emulated cluster descriptions: parse and validate scenario
 * files (JSON, via cJSON) and answer "how much slower is worker w in
 * iteration t". The runtime's workers use the answer to stretch their task
 * times and the transport uses the links to shape traffic; nothing here
 * changes results, only timing.
 *
 * The JSON is RFC 8259's: what cJSON would also take (control bytes as
 * blanks or in strings, numbers such as 01 or 1.) is refused first.
 * Validation is strict: exactly the schema in scenario.h, and every error
 * is one line naming the file and the key path ("s.json: workers[2].speed:
 * must be > 0"), because a typo in an experiment's scenario should stop the
 * run, not silently emulate a different cluster.
 */
#include "io/scenario/scenario.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dsana/error.h"
#include "util/numeric/splitmix.h"

#define SEED_MAX 9007199254740992.0 /* 2^53: the largest exactly representable run */
/* The links dsana emulates: 1 bit/s to 1 Pbit/s, 1 ns to 1000 s of latency. */
#define LINK_MIN_MBIT 1e-6
#define LINK_MAX_MBIT 1e9
#define LINK_MIN_MS 1e-6
#define LINK_MAX_MS 1e6

/* Where messages go while parsing one file. */
struct parse_ctx {
  const char *name;
  char *err;
  size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(const struct parse_ctx *c, int code, const char *fmt, ...) {
  if (c->err != NULL && c->errlen > 0) {
    int n = snprintf(c->err, c->errlen, "%s: ", c->name);
    if (n >= 0 && (size_t)n < c->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return code;
}

/* Every key of obj must be in allowed[] (NULL-terminated) and appear once. */
static int check_keys(const struct parse_ctx *c, const cJSON *obj, const char *const *allowed, const char *where) {
  for (const cJSON *k = obj->child; k != NULL; k = k->next) {
    bool known = false;
    for (const char *const *a = allowed; *a != NULL && !known; a++)
      known = strcmp(k->string, *a) == 0;
    if (!known)
      return fail(c, DSANA_EFORMAT, "unknown key '%s' %s", k->string, where);
    for (const cJSON *j = obj->child; j != k; j = j->next)
      if (strcmp(j->string, k->string) == 0)
        return fail(c, DSANA_EFORMAT, "duplicate key '%s' %s", k->string, where);
  }
  return 0;
}

/* obj.key as a finite number into *out; absent leaves *out and *present
 * false (or fails when required). path names obj ("" at top level). */
static int get_number(const struct parse_ctx *c, const cJSON *obj, const char *path, const char *key, bool required,
                      double *out, bool *present) {
  const char *dot = path[0] != '\0' ? "." : "";
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (present != NULL)
    *present = v != NULL;
  if (v == NULL)
    return required ? fail(c, DSANA_EFORMAT, "%s%s%s: missing (required)", path, dot, key) : 0;
  if (!cJSON_IsNumber(v))
    return fail(c, DSANA_EFORMAT, "%s%s%s: must be a number", path, dot, key);
  if (!isfinite(v->valuedouble))
    return fail(c, DSANA_EFORMAT, "%s%s%s: must be a finite number", path, dot, key);
  *out = v->valuedouble;
  return 0;
}

/* A link object at path: fields it gives replace those of *link. */
static int parse_link(const struct parse_ctx *c, const cJSON *obj, const char *path, struct scenario_link *link) {
  static const char *const keys[] = {"bandwidth_mbit", "latency_ms", NULL};
  char where[64];
  if (!cJSON_IsObject(obj))
    return fail(c, DSANA_EFORMAT, "%s: must be an object", path);
  snprintf(where, sizeof(where), "in %s", path);
  int rc = check_keys(c, obj, keys, where);
  double mbit = 0, ms = 0;
  bool has_bw = false, has_lat = false;
  if (rc == 0)
    rc = get_number(c, obj, path, "bandwidth_mbit", false, &mbit, &has_bw);
  if (rc == 0)
    rc = get_number(c, obj, path, "latency_ms", false, &ms, &has_lat);
  if (rc != 0)
    return rc;
  if (mbit < 0)
    return fail(c, DSANA_EFORMAT, "%s.bandwidth_mbit: must be >= 0 (0 = unlimited)", path);
  if (ms < 0)
    return fail(c, DSANA_EFORMAT, "%s.latency_ms: must be >= 0", path);
  /* Past these the link's figures (ns per byte, latency in whole ns) under-
   * or overflow: a tiny bandwidth ran as an unlimited link, a tiny latency
   * as none. */
  if (mbit != 0 && !(mbit >= LINK_MIN_MBIT && mbit <= LINK_MAX_MBIT))
    return fail(c, DSANA_EFORMAT,
                "%s.bandwidth_mbit: %g out of range (0 = unlimited, else %g to %g: 1 bit/s to 1 Pbit/s)", path, mbit,
                LINK_MIN_MBIT, LINK_MAX_MBIT);
  if (ms != 0 && !(ms >= LINK_MIN_MS && ms <= LINK_MAX_MS))
    return fail(c, DSANA_EFORMAT, "%s.latency_ms: %g out of range (0, else %g to %g: 1 ns to 1000 s)", path, ms,
                LINK_MIN_MS, LINK_MAX_MS);
  if (has_bw)
    link->bandwidth_bytes_per_s = mbit * 1e6 / 8.0;
  if (has_lat)
    link->latency_s = ms / 1000.0;
  return 0;
}

static int parse_transient(const struct parse_ctx *c, const cJSON *obj, struct scenario *sc) {
  static const char *const keys[] = {"probability", "slowdown", "seed", NULL};
  if (!cJSON_IsObject(obj))
    return fail(c, DSANA_EFORMAT, "transient: must be an object");
  int rc = check_keys(c, obj, keys, "in transient");
  double p = 0, k = 1, seed = 0;
  if (rc == 0)
    rc = get_number(c, obj, "transient", "probability", false, &p, NULL);
  if (rc == 0)
    rc = get_number(c, obj, "transient", "slowdown", false, &k, NULL);
  if (rc == 0)
    rc = get_number(c, obj, "transient", "seed", false, &seed, NULL);
  if (rc != 0)
    return rc;
  if (!(p >= 0 && p <= 1))
    return fail(c, DSANA_EFORMAT, "transient.probability: must be in [0, 1]");
  if (!(k >= 1))
    return fail(c, DSANA_EFORMAT, "transient.slowdown: must be >= 1");
  if (!(seed >= 0 && seed <= SEED_MAX && floor(seed) == seed))
    return fail(c, DSANA_EFORMAT, "transient.seed: must be an integer in [0, 2^53]");
  sc->transient_p = p;
  sc->transient_slowdown = k;
  sc->transient_seed = (uint64_t)seed;
  return 0;
}

/* One worker's description at path ("workers[2]", "default_worker",
 * "groups[0]": keys lists what it may hold): its speed and link. */
static int parse_node(const struct parse_ctx *c, const cJSON *obj, const char *path, const char *const *keys,
                      const struct scenario *sc, double *speed, struct scenario_link *l) {
  char where[64];
  snprintf(where, sizeof(where), "in %s", path);
  if (!cJSON_IsObject(obj))
    return fail(c, DSANA_EFORMAT, "%s: must be an object", path);
  int rc = check_keys(c, obj, keys, where);
  if (rc == 0)
    rc = get_number(c, obj, path, "speed", true, speed, NULL);
  if (rc != 0)
    return rc;
  if (!(*speed > 0))
    return fail(c, DSANA_EFORMAT, "%s.speed: must be > 0", path);
  /* scenario_slowdown() must stay finite: workers sleep for it. */
  if (!isfinite(1.0 / *speed * (sc->transient_p > 0 ? sc->transient_slowdown : 1.0)))
    return fail(c, DSANA_EFORMAT, "%s.speed: too small (1/speed x transient.slowdown overflows)", path);
  *l = sc->global_link;
  const cJSON *link = cJSON_GetObjectItemCaseSensitive(obj, "link");
  if (link == NULL)
    return 0;
  char lpath[64];
  snprintf(lpath, sizeof(lpath), "%s.link", path);
  return parse_link(c, link, lpath, l);
}

static int parse_worker(const struct parse_ctx *c, const cJSON *obj, uint32_t i, struct scenario *sc) {
  static const char *const keys[] = {"speed", "link", NULL};
  char path[48];
  snprintf(path, sizeof(path), "workers[%u]", i);
  return parse_node(c, obj, path, keys, sc, &sc->speed[i], &sc->link[i]);
}

/* "default_worker" and its "groups" (both optional). */
static int parse_default(const struct parse_ctx *c, const cJSON *root, struct scenario *sc) {
  static const char *const dkeys[] = {"speed", "link", NULL}, *const gkeys[] = {"fraction", "speed", "link", NULL};
  const cJSON *def = cJSON_GetObjectItemCaseSensitive(root, "default_worker");
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(root, "groups");
  if (def == NULL)
    return groups == NULL ? 0 : fail(c, DSANA_EFORMAT, "groups: needs a \"default_worker\" (the rest of the workers)");
  int rc = parse_node(c, def, "default_worker", dkeys, sc, &sc->default_speed, &sc->default_link);
  sc->has_default = rc == 0;
  if (rc || groups == NULL)
    return rc;
  if (!cJSON_IsArray(groups) || cJSON_GetArraySize(groups) > SCENARIO_MAX_GROUPS)
    return fail(c, DSANA_EFORMAT, "groups: must be an array of at most %d entries", SCENARIO_MAX_GROUPS);
  double total = 0;
  for (const cJSON *g = groups->child; g != NULL; g = g->next) {
    struct scenario_group *sg = &sc->groups[sc->n_groups];
    char path[32];
    snprintf(path, sizeof(path), "groups[%u]", sc->n_groups);
    if ((rc = parse_node(c, g, path, gkeys, sc, &sg->speed, &sg->link)) != 0 ||
        (rc = get_number(c, g, path, "fraction", true, &sg->fraction, NULL)) != 0)
      return rc;
    if (!(sg->fraction > 0 && sg->fraction <= 1))
      return fail(c, DSANA_EFORMAT, "%s.fraction: must be in (0, 1]", path);
    if ((total += sg->fraction) > 1 + 1e-9)
      return fail(c, DSANA_EFORMAT, "%s.fraction: the groups' fractions add up to more than 1", path);
    sc->n_groups++;
  }
  return 0;
}

/* Validate the document into *sc (zeroed by the caller; partly filled on error). */
static int parse_root(const struct parse_ctx *c, const cJSON *root, struct scenario *sc) {
  static const char *const keys[] = {"workers", "default_worker", "groups",      "transient",
                                     "link",    "time_scale",     "ns_per_cost", NULL};
  if (!cJSON_IsObject(root))
    return fail(c, DSANA_EFORMAT, "top level: must be an object");
  int rc = check_keys(c, root, keys, "at top level");
  if (rc != 0)
    return rc;
  sc->transient_slowdown = 1;
  sc->time_scale = 1;
  if ((rc = get_number(c, root, "", "time_scale", false, &sc->time_scale, NULL)) != 0)
    return rc;
  if (!(sc->time_scale >= 1) || sc->time_scale > 1e6)
    return fail(c, DSANA_EFORMAT, "time_scale: must be in [1, 1e6]");
  bool has_cost = false;
  if ((rc = get_number(c, root, "", "ns_per_cost", false, &sc->ns_per_cost, &has_cost)) != 0)
    return rc;
  if (has_cost && !(sc->ns_per_cost > 0 && sc->ns_per_cost <= 1e9))
    return fail(c, DSANA_EFORMAT, "ns_per_cost: must be in (0, 1e9]");
  const cJSON *link = cJSON_GetObjectItemCaseSensitive(root, "link");
  if (link != NULL && (rc = parse_link(c, link, "link", &sc->global_link)) != 0)
    return rc;
  const cJSON *tr = cJSON_GetObjectItemCaseSensitive(root, "transient");
  if (tr != NULL && (rc = parse_transient(c, tr, sc)) != 0)
    return rc;
  if ((rc = parse_default(c, root, sc)) != 0)
    return rc;
  const cJSON *workers = cJSON_GetObjectItemCaseSensitive(root, "workers");
  if (workers == NULL && sc->has_default)
    return 0;
  if (workers == NULL)
    return fail(c, DSANA_EFORMAT, "workers: missing (required without a \"default_worker\")");
  if (!cJSON_IsArray(workers))
    return fail(c, DSANA_EFORMAT, "workers: must be an array");
  int n = cJSON_GetArraySize(workers);
  if (n < 1 && !sc->has_default)
    return fail(c, DSANA_EFORMAT, "workers: must have at least one entry");
  if (n < 1)
    return 0;
  sc->n_workers = (uint32_t)n;
  sc->speed = calloc((size_t)n, sizeof(double));
  sc->link = calloc((size_t)n, sizeof(struct scenario_link));
  if (sc->speed == NULL || sc->link == NULL)
    return fail(c, DSANA_ENOMEM, "out of memory");
  uint32_t i = 0;
  for (const cJSON *w = workers->child; w != NULL; w = w->next, i++)
    if ((rc = parse_worker(c, w, i, sc)) != 0)
      return rc;
  return 0;
}

/* Line and column (1-based) of byte offset `at` in text. */
static void locate(const char *text, size_t at, unsigned long *line, unsigned long *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < at && text[i] != '\0'; i++) {
    if (text[i] == '\n') {
      (*line)++;
      *col = 1;
    } else {
      (*col)++;
    }
  }
}

/* An RFC 8259 number at p: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?;
 * its length, 0 if p does not start one. */
static size_t json_number_len(const char *p) {
  const char *q = p + (*p == '-');
  if (*q == '0')
    q++;
  else if (*q >= '1' && *q <= '9')
    while (*q >= '0' && *q <= '9')
      q++;
  else
    return 0;
  if (*q == '.') {
    if (!(q[1] >= '0' && q[1] <= '9'))
      return 0;
    for (q++; *q >= '0' && *q <= '9';)
      q++;
  }
  if (*q == 'e' || *q == 'E') {
    q += 1 + (q[1] == '+' || q[1] == '-');
    if (!(*q >= '0' && *q <= '9'))
      return 0;
    while (*q >= '0' && *q <= '9')
      q++;
  }
  return (size_t)(q - p);
}

/* What cJSON takes but JSON (RFC 8259) does not: control bytes (only tab,
 * CR and LF separate tokens; none may stand in a string) and numbers such
 * as 01, 1. or -.5; and what it reads as another text: a \u0000 escape
 * ends its C string there ("speed\u0000x" would be the key "speed"), and
 * so does a \u escape without 4 hex digits, which it reads as 0. The
 * offset of the first, and what it is; NULL if none. */
static const char *json_lax_at(const char *text, size_t *at) {
  bool in_string = false;
  for (size_t i = 0; text[i]; i++) {
    unsigned char ch = (unsigned char)text[i];
    *at = i;
    if (ch < 0x20 && (in_string || (ch != '\t' && ch != '\n' && ch != '\r')))
      return in_string ? "a control byte in a string" : "a control byte";
    if (in_string) {
      if (ch == '\\' && text[i + 1] == 'u') {
        size_t hex = strspn(text + i + 2, "0123456789abcdefABCDEF");
        if (hex < 4)
          return "a \\u escape without 4 hex digits";
        if (strncmp(text + i + 2, "0000", 4) == 0)
          return "a \\u0000 escape (cJSON would end the string there)";
        i += 5;
      } else if (ch == '\\' && text[i + 1]) {
        i++;
      } else if (ch == '"') {
        in_string = false;
      }
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
      size_t n = json_number_len(text + i), tok = strspn(text + i, "0123456789+-.eE");
      if (n == 0 || n != tok)
        return "a number not in JSON's syntax";
      i += n - 1;
    }
  }
  return NULL;
}

/* Parse len bytes of text (text[len] == '\0'). */
static int parse_text(const struct parse_ctx *c, const char *text, size_t len, struct scenario *sc) {
  memset(sc, 0, sizeof(*sc));
  size_t nul = strlen(text);
  if (nul != len)
    return fail(c, DSANA_EFORMAT, "invalid JSON near byte %zu (NUL byte)", nul);
  size_t lax_at;
  const char *lax = json_lax_at(text, &lax_at);
  if (lax) {
    unsigned long line, col;
    locate(text, lax_at, &line, &col);
    return fail(c, DSANA_EFORMAT, "invalid JSON near byte %zu (line %lu, column %lu): %s", lax_at, line, col, lax);
  }
  const char *end = NULL;
  /* Length includes the terminator: cJSON's require_null_terminated check
   * looks for it inside the buffer. */
  cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
  if (root == NULL) {
    size_t at = end != NULL && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    unsigned long line, col;
    locate(text, at, &line, &col);
    return fail(c, DSANA_EFORMAT, "invalid JSON near byte %zu (line %lu, column %lu)", at, line, col);
  }
  int rc = parse_root(c, root, sc);
  cJSON_Delete(root);
  if (rc == 0 && (sc->name = strdup(c->name)) == NULL)
    rc = fail(c, DSANA_ENOMEM, "out of memory");
  if (rc != 0)
    scenario_fini(sc);
  return rc;
}

int scenario_parse(const char *name, const char *json, struct scenario *sc, char *err, size_t errlen) {
  struct parse_ctx c = {name != NULL ? name : "scenario", err, errlen};
  if (sc == NULL || json == NULL)
    return fail(&c, DSANA_EINVAL, "no scenario text");
  return parse_text(&c, json, strlen(json), sc);
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen) {
  struct parse_ctx c = {path != NULL ? path : "scenario", err, errlen};
  if (sc == NULL || path == NULL)
    return fail(&c, DSANA_EINVAL, "no scenario file");
  memset(sc, 0, sizeof(*sc));
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return fail(&c, DSANA_EIO, "%s", strerror(errno));
  struct stat st;
  int rc = 0;
  char *text = NULL;
  if (fstat(fileno(f), &st) != 0) {
    rc = fail(&c, DSANA_EIO, "%s", strerror(errno));
    goto out;
  }
  if (!S_ISREG(st.st_mode)) {
    rc = fail(&c, DSANA_EIO, "not a regular file");
    goto out;
  }
  if (st.st_size > (off_t)SCENARIO_MAX_BYTES) {
    rc = fail(&c, DSANA_EFORMAT, "file too large (%lld bytes, limit %u)", (long long)st.st_size, SCENARIO_MAX_BYTES);
    goto out;
  }
  size_t size = (size_t)st.st_size;
  text = malloc(size + 1);
  if (text == NULL) {
    rc = fail(&c, DSANA_ENOMEM, "out of memory");
    goto out;
  }
  if (fread(text, 1, size, f) != size) {
    rc = fail(&c, DSANA_EIO, "%s", ferror(f) ? strerror(errno) : "file shrank while reading");
    goto out;
  }
  text[size] = '\0';
  rc = parse_text(&c, text, size, sc);
out:
  free(text);
  fclose(f);
  return rc;
}

int scenario_default(uint32_t n_workers, struct scenario *sc) {
  if (sc == NULL || n_workers < 1)
    return DSANA_EINVAL;
  memset(sc, 0, sizeof(*sc));
  sc->speed = calloc(n_workers, sizeof(double));
  sc->link = calloc(n_workers, sizeof(struct scenario_link));
  if (sc->speed == NULL || sc->link == NULL) {
    scenario_fini(sc);
    return DSANA_ENOMEM;
  }
  sc->n_workers = n_workers;
  for (uint32_t w = 0; w < n_workers; w++)
    sc->speed[w] = 1.0;
  sc->transient_slowdown = 1.0;
  sc->time_scale = 1.0;
  return 0;
}

void scenario_fini(struct scenario *sc) {
  if (sc == NULL)
    return;
  free(sc->name);
  free(sc->speed);
  free(sc->link);
  memset(sc, 0, sizeof(*sc));
}

/* Uniform in [0,1) from (seed, w, iter) alone. Multiplying the packed
 * (w, iter) by an odd constant is a bijection, so distinct pairs never
 * collide before the final mix. */
static double transient_unit(uint64_t seed, uint32_t w, uint32_t iter) {
  uint64_t key = ((uint64_t)w << 32 | iter) * SPLITMIX64_GOLDEN;
  uint64_t h = splitmix64_mix(splitmix64_mix(seed + SPLITMIX64_GOLDEN) ^ key);
  return (double)(h >> 11) * 0x1.0p-53;
}

double scenario_slowdown(const struct scenario *sc, uint32_t w, uint32_t iter) {
  if (sc == NULL || w >= sc->n_workers)
    return 1.0;
  double f = sc->time_scale / sc->speed[w];
  if (sc->transient_p > 0 && transient_unit(sc->transient_seed, w, iter) < sc->transient_p)
    f *= sc->transient_slowdown;
  return f;
}

/* Workers [from, n) of the grown arrays: each group takes round(f * U) of
 * the U workers past the list, evenly spread over those still free. */
static void make_rest(struct scenario *sc, uint32_t from, uint32_t n, uint32_t *free_at) {
  uint32_t n_free = n - from;
  for (uint32_t w = from; w < n; w++) {
    sc->speed[w] = sc->default_speed;
    sc->link[w] = sc->default_link;
    free_at[w - from] = w;
  }
  for (uint32_t g = 0; g < sc->n_groups && n_free > 0; g++) {
    uint64_t want = (uint64_t)llround(sc->groups[g].fraction * (double)(n - from));
    uint32_t take = want < n_free ? (uint32_t)want : n_free, kept = 0;
    for (uint32_t j = 0, next = 0; j < n_free; j++) {
      bool taken = next < take && j == (uint32_t)(((uint64_t)next * 2 + 1) * n_free / (2 * (uint64_t)take));
      if (taken) {
        sc->speed[free_at[j]] = sc->groups[g].speed;
        sc->link[free_at[j]] = sc->groups[g].link;
        next++;
      } else {
        free_at[kept++] = free_at[j];
      }
    }
    n_free = kept;
  }
}

int scenario_fit_workers(struct scenario *sc, uint32_t n_workers, char *err, size_t errlen) {
  struct parse_ctx c = {sc != NULL && sc->name != NULL ? sc->name : "scenario", err, errlen};
  if (sc == NULL)
    return fail(&c, DSANA_EINVAL, "no scenario");
  if (sc->n_workers >= n_workers)
    return 0;
  if (!sc->has_default)
    return fail(&c, DSANA_EINVAL, "workers: %u %s for %u workers (or give a \"default_worker\" for the rest)",
                sc->n_workers, sc->n_workers == 1 ? "entry" : "entries", n_workers);
  double *speed = realloc(sc->speed, sizeof(double) * n_workers);
  if (speed)
    sc->speed = speed;
  struct scenario_link *link = realloc(sc->link, sizeof(struct scenario_link) * n_workers);
  if (link)
    sc->link = link;
  uint32_t *free_at = malloc(sizeof(uint32_t) * (n_workers - sc->n_workers));
  if (!speed || !link || !free_at) {
    free(free_at);
    return fail(&c, DSANA_ENOMEM, "out of memory");
  }
  make_rest(sc, sc->n_workers, n_workers, free_at);
  sc->n_workers = n_workers;
  free(free_at);
  return 0;
}
