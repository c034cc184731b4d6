/*
 * graph_snap.c - SNAP edge lists: "src dst [ignored...]" per line, '#' (or
 * '%') comment lines, any run of spaces/tabs between fields, '\r' ignored.
 * Directed. Original ids (any uint64) are remapped to 0..n-1 in ascending
 * order and kept in orig_id. A hand-written scanner over big blocks; the
 * remap uses a dense rank table when ids are dense enough, else a radix
 * sort and binary search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "io/graph_internal.h"

struct u64vec {
  uint64_t *a;
  size_t len, cap;
};

static bool vec_grow(struct u64vec *v) {
  size_t ncap = v->cap ? v->cap * 2 : (1u << 16);
  uint64_t *na = realloc(v->a, ncap * sizeof *na);
  if (!na)
    return false;
  v->a = na;
  v->cap = ncap;
  return true;
}

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Parse a decimal id at *pp. 0 ok, 1 not a number, 2 negative, 3 overflow. */
static inline int scan_u64(const char **pp, uint64_t *out) {
  const char *p = *pp;
  uint64_t x = 0;
  if (*p == '-')
    return (p[1] >= '0' && p[1] <= '9') ? 2 : 1;
  if (*p == '+')
    p++;
  if ((unsigned)(*p - '0') > 9)
    return 1;
  do {
    unsigned d = (unsigned)(*p - '0');
    if (x > (UINT64_MAX - d) / 10)
      return 3;
    x = x * 10 + d;
    p++;
  } while ((unsigned)(*p - '0') <= 9);
  if (!is_blank(*p) && *p != '\n')
    return 1;
  *pp = p;
  *out = x;
  return 0;
}

static int bad_id(const char *path, uint64_t line, const char *p, int why, char *err, size_t errlen) {
  char tok[48];
  graph_token(p, tok, sizeof tok);
  const char *what = why == 2 ? "negative vertex id" : why == 3 ? "vertex id out of range" : "non-numeric vertex id";
  return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %s '%s'", path, (unsigned long long)line, what, tok);
}

struct snap_edges {
  struct u64vec src, dst;
  uint64_t line;
  uint64_t max_id;
};

static int parse_block(struct snap_edges *se, const char *path, const char *p, const char *end, char *err,
                       size_t errlen) {
  uint64_t line = se->line, max_id = se->max_id;
  while (p < end) {
    line++;
    while (is_blank(*p))
      p++;
    if (*p == '\n') {
      p++;
      continue;
    }
    if (*p == '#' || *p == '%') {
      p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
      continue;
    }
    uint64_t a, b;
    int why = scan_u64(&p, &a);
    if (why)
      return bad_id(path, line, p, why, err, errlen);
    while (is_blank(*p))
      p++;
    if (*p == '\n')
      return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: expected 2 fields (source, destination), found 1",
                        path, (unsigned long long)line);
    why = scan_u64(&p, &b);
    if (why)
      return bad_id(path, line, p, why, err, errlen);
    if (*p != '\n')
      p = (const char *)memchr(p, '\n', (size_t)(end - p));
    p++;
    if (se->src.len == se->src.cap && (!vec_grow(&se->src) || !vec_grow(&se->dst)))
      return graph_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", path, (unsigned long long)line);
    se->src.a[se->src.len++] = a;
    se->dst.a[se->dst.len++] = b;
    if (a > max_id)
      max_id = a;
    if (b > max_id)
      max_id = b;
  }
  se->line = line;
  se->max_id = max_id;
  return 0;
}

/* LSD radix sort of a[0..len) by 16-bit digits, up to the bits of max. */
static bool radix_sort_u64(uint64_t *a, size_t len, uint64_t max) {
  uint64_t *tmp = malloc((len ? len : 1) * sizeof *tmp);
  size_t *cnt = malloc(65536 * sizeof *cnt);
  if (!tmp || !cnt) {
    free(tmp);
    free(cnt);
    return false;
  }
  uint64_t *from = a, *to = tmp;
  for (unsigned shift = 0; shift < 64 && (max >> shift); shift += 16) {
    memset(cnt, 0, 65536 * sizeof *cnt);
    for (size_t i = 0; i < len; i++)
      cnt[(from[i] >> shift) & 0xffff]++;
    size_t s = 0;
    for (size_t d = 0; d < 65536; d++) {
      size_t c = cnt[d];
      cnt[d] = s;
      s += c;
    }
    for (size_t i = 0; i < len; i++)
      to[cnt[(from[i] >> shift) & 0xffff]++] = from[i];
    uint64_t *sw = from;
    from = to;
    to = sw;
  }
  if (from != a)
    memcpy(a, from, len * sizeof *a);
  free(tmp);
  free(cnt);
  return true;
}

/* Distinct sorted ids of both endpoint arrays -> *ids, *n. */
static int distinct_ids(const struct snap_edges *se, uint64_t **ids, uint64_t *n) {
  size_t m = se->src.len, k = 0;
  uint64_t *all = malloc(2 * m * sizeof *all);
  if (!all)
    return DSANA_ENOMEM;
  memcpy(all, se->src.a, m * sizeof *all);
  memcpy(all + m, se->dst.a, m * sizeof *all);
  if (!radix_sort_u64(all, 2 * m, se->max_id)) {
    free(all);
    return DSANA_ENOMEM;
  }
  for (size_t i = 0; i < 2 * m; i++)
    if (i == 0 || all[i] != all[k - 1])
      all[k++] = all[i];
  uint64_t *shrunk = realloc(all, k * sizeof *all);
  *ids = shrunk ? shrunk : all;
  *n = k;
  return 0;
}

static inline uint32_t rank_of(const uint64_t *ids, uint64_t n, uint64_t x) {
  uint64_t lo = 0, hi = n; /* x is present */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (ids[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return (uint32_t)lo;
}

/* Remap to 0..n-1 in ascending original id; fills src32/dst32/orig. */
static int remap(const struct snap_edges *se, uint32_t *src32, uint32_t *dst32, uint64_t **orig, uint64_t *n) {
  size_t m = se->src.len;
  if (se->max_id < (uint64_t)UINT32_MAX && se->max_id / 4 <= m) {
    /* Dense enough: a rank table indexed by original id. */
    uint64_t span = se->max_id + 1, k = 0;
    uint32_t *rank = calloc(span, sizeof *rank);
    if (!rank)
      return DSANA_ENOMEM;
    for (size_t i = 0; i < m; i++)
      rank[se->src.a[i]] = rank[se->dst.a[i]] = 1;
    for (uint64_t x = 0; x < span; x++)
      k += rank[x];
    uint64_t *ids = malloc(k * sizeof *ids);
    if (!ids) {
      free(rank);
      return DSANA_ENOMEM;
    }
    k = 0;
    for (uint64_t x = 0; x < span; x++)
      if (rank[x]) {
        ids[k] = x;
        rank[x] = (uint32_t)k++;
      }
    for (size_t i = 0; i < m; i++) {
      src32[i] = rank[se->src.a[i]];
      dst32[i] = rank[se->dst.a[i]];
    }
    free(rank);
    *orig = ids;
    *n = k;
    return 0;
  }
  uint64_t *ids, k;
  int rc = distinct_ids(se, &ids, &k);
  if (rc)
    return rc;
  if (k > GRAPH_MAX_VERTICES) {
    free(ids);
    return DSANA_ERANGE;
  }
  for (size_t i = 0; i < m; i++) {
    src32[i] = rank_of(ids, k, se->src.a[i]);
    dst32[i] = rank_of(ids, k, se->dst.a[i]);
  }
  *orig = ids;
  *n = k;
  return 0;
}

int graph_parse_snap(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                     size_t errlen) {
  struct snap_edges se = {0};
  const char *p, *end;
  int rc;
  memset(g, 0, sizeof *g);
  while ((rc = graph_text_next(t, &p, &end, err, errlen)) == 1) {
    rc = parse_block(&se, t->path, p, end, err, errlen);
    if (rc)
      break;
  }
  if (rc)
    goto out;
  uint64_t m = se.src.len, n = 0;
  if (m == 0) {
    rc = graph_errf(err, errlen, DSANA_EFORMAT, "%s: empty graph (no edges)", t->path);
    goto out;
  }
  uint32_t *src32 = malloc(m * sizeof *src32), *dst32 = malloc(m * sizeof *dst32);
  uint64_t *orig = NULL;
  rc = (src32 && dst32) ? remap(&se, src32, dst32, &orig, &n) : DSANA_ENOMEM;
  free(se.src.a);
  free(se.dst.a);
  se.src.a = se.dst.a = NULL;
  if (rc) {
    free(src32);
    free(dst32);
    if (rc == DSANA_ERANGE)
      graph_errf(err, errlen, rc, "%s: more than %llu distinct vertex ids", t->path,
                 (unsigned long long)GRAPH_MAX_VERTICES);
    else
      graph_errf(err, errlen, rc, "%s: out of memory remapping %llu edges", t->path, (unsigned long long)m);
    goto out;
  }
  rc = graph_build(n, m, src32, dst32, true, orig, opts && opts->dedup, g, err, errlen);
out:
  free(se.src.a);
  free(se.dst.a);
  return rc;
}
