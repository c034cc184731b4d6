/*
 * graph_snap.c - SNAP edge lists: "src dst [weight] [ignored...]" per line,
 * '#' (or '%') comment lines, any run of spaces/tabs between fields, '\r'
 * ignored. Original ids (any uint64) are remapped to 0..n-1 in ascending
 * order and kept in orig_id (graph_snap_ids.c), unless the first line is
 * dsana's dense-id line (see graph.h), which keeps ids as indices 0..K.
 * With opts->weighted the third field is the edge weight; without it,
 * fields after the second are ignored with one warning per file (SNAP's
 * temporal graphs carry timestamps there). A hand-written scanner over big
 * blocks of whole lines, '\n' the sentinel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"

static const char DENSE_LINE[] = "# dsana graph: dense ids 0..";

struct snap_edges {
  const char *path;
  uint64_t *src, *dst;
  double *w; /* weights when weighted */
  size_t len, cap;
  uint64_t line;
  uint64_t max_id;
  bool weighted;
  uint64_t dense_n;    /* 0, or the dense-id line's K + 1: ids must be below it */
  uint64_t extra_line; /* first line with ignored fields, 0 if none */
};

static bool grow(struct snap_edges *se) {
  size_t ncap = se->cap ? se->cap * 2 : 1024;
  uint64_t *ns = realloc(se->src, ncap * sizeof *ns);
  if (!ns)
    return false;
  se->src = ns;
  uint64_t *nd = realloc(se->dst, ncap * sizeof *nd);
  if (!nd)
    return false;
  se->dst = nd;
  if (se->weighted) {
    double *nw = realloc(se->w, ncap * sizeof *nw);
    if (!nw)
      return false;
    se->w = nw;
  }
  se->cap = ncap;
  return true;
}

static int bad_id(const struct snap_edges *se, uint64_t line, const char *p, int why, char *err, size_t errlen) {
  char tok[48];
  graph_token(p, tok, sizeof tok);
  const char *what = why == 2 ? "negative vertex id" : why == 3 ? "vertex id out of range" : "non-numeric vertex id";
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %s '%s'", se->path, (unsigned long long)line, what, tok);
}

static int too_few(const struct snap_edges *se, uint64_t line, int found, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: expected %s, found %d", se->path, (unsigned long long)line,
                 se->weighted ? "3 fields (source, destination, weight)" : "2 fields (source, destination)", found);
}

/* The weight field at p; moves *pp past it. */
static int scan_weight(const struct snap_edges *se, uint64_t line, const char **pp, double *w, char *err,
                       size_t errlen) {
  const char *end;
  if (graph_scan_number(*pp, &end, w) && graph_weight_ok(*w)) {
    *pp = end;
    return 0;
  }
  char tok[48];
  graph_token(*pp, tok, sizeof tok);
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: edge weight '%s' is not a " GRAPH_WEIGHT_RANGE, se->path,
                 (unsigned long long)line, tok);
}

static int outside_dense(const struct snap_edges *se, uint64_t line, uint64_t id, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: vertex id %llu outside 0..%llu (the dense ids of line 1)",
                 se->path, (unsigned long long)line, (unsigned long long)id, (unsigned long long)(se->dense_n - 1));
}

/* One edge line at p (not blank, not a comment); *pp ends past its '\n'. */
static int parse_line(struct snap_edges *se, uint64_t line, const char **pp, const char *end, char *err,
                      size_t errlen) {
  const char *p = *pp;
  uint64_t a, b;
  double w = 0;
  int why = graph_scan_u64(&p, &a);
  if (why)
    return bad_id(se, line, p, why, err, errlen);
  while (graph_is_blank(*p))
    p++;
  if (*p == '\n')
    return too_few(se, line, 1, err, errlen);
  if ((why = graph_scan_u64(&p, &b)) != 0)
    return bad_id(se, line, p, why, err, errlen);
  if (se->dense_n && (a >= se->dense_n || b >= se->dense_n))
    return outside_dense(se, line, a >= se->dense_n ? a : b, err, errlen);
  while (graph_is_blank(*p))
    p++;
  if (se->weighted) {
    if (*p == '\n')
      return too_few(se, line, 2, err, errlen);
    int rc = scan_weight(se, line, &p, &w, err, errlen);
    if (rc)
      return rc;
    while (graph_is_blank(*p))
      p++;
  }
  if (*p != '\n') {
    if (!se->extra_line)
      se->extra_line = line;
    p = (const char *)memchr(p, '\n', (size_t)(end - p));
  }
  *pp = p + 1;
  if (se->len == se->cap && !grow(se))
    return io_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", se->path, (unsigned long long)line);
  se->src[se->len] = a;
  se->dst[se->len] = b;
  if (se->weighted)
    se->w[se->len] = w;
  se->len++;
  if (a > se->max_id)
    se->max_id = a;
  if (b > se->max_id)
    se->max_id = b;
  return 0;
}

static int parse_block(struct snap_edges *se, const char *p, const char *end, char *err, size_t errlen) {
  while (p < end) {
    se->line++;
    while (graph_is_blank(*p))
      p++;
    if (*p == '\n') {
      p++;
      continue;
    }
    if (*p == '#' || *p == '%') {
      p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
      continue;
    }
    int rc = parse_line(se, se->line, &p, end, err, errlen);
    if (rc)
      return rc;
  }
  return 0;
}

/* dsana's dense-id line, if the block (the file's first) starts with it. */
static int dense_line(struct snap_edges *se, const char *p, char *err, size_t errlen) {
  if (strncmp(p, DENSE_LINE, sizeof DENSE_LINE - 1) != 0) /* stops at the block's '\n' at the latest */
    return 0;
  const char *q = p + sizeof DENSE_LINE - 1;
  uint64_t k = 0;
  bool ok = (unsigned)(*q - '0') <= 9 && graph_scan_u64(&q, &k) == 0;
  if (ok && *q == '\r')
    q++;
  if (!ok || *q != '\n')
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: malformed dense-id line (want '%sK', K = vertices - 1)", se->path,
                   DENSE_LINE);
  if (k >= GRAPH_MAX_VERTICES)
    return io_errf(err, errlen, DSANA_ERANGE, "%s:1: dense ids 0..%llu: more than %llu vertices", se->path,
                   (unsigned long long)k, (unsigned long long)GRAPH_MAX_VERTICES);
  se->dense_n = k + 1;
  return 0;
}

static int read_all(struct graph_text *t, struct snap_edges *se, char *err, size_t errlen) {
  const char *p, *end;
  int rc;
  bool first = true;
  while ((rc = graph_text_next(t, se->line, &p, &end, err, errlen)) == 1) {
    if (first && (rc = dense_line(se, p, err, errlen)) != 0)
      return rc;
    first = false;
    if ((rc = parse_block(se, p, end, err, errlen)) != 0)
      return rc;
  }
  return rc;
}

/* Ids as indices (dense-id line) or remapped to the distinct ids seen. */
static int to_indices(struct snap_edges *se, uint32_t *src32, uint32_t *dst32, uint64_t **orig, uint64_t *n, char *err,
                      size_t errlen) {
  if (se->dense_n) {
    for (size_t i = 0; i < se->len; i++) {
      src32[i] = (uint32_t)se->src[i];
      dst32[i] = (uint32_t)se->dst[i];
    }
    *orig = NULL;
    *n = se->dense_n;
    return 0;
  }
  struct graph_ids ids = {.src = se->src, .dst = se->dst, .m = se->len, .max_id = se->max_id};
  int rc = graph_remap_ids(&ids, src32, dst32, orig, n);
  if (rc == DSANA_ERANGE)
    return io_errf(err, errlen, rc, "%s: more than %llu distinct vertex ids", se->path,
                   (unsigned long long)GRAPH_MAX_VERTICES);
  if (rc)
    return io_errf(err, errlen, rc, "%s: out of memory remapping %zu edges", se->path, se->len);
  return 0;
}

static void warn_extra(const struct snap_edges *se, const struct dsana_graph_opts *opts) {
  if (!se->extra_line)
    return;
  if (se->weighted)
    graph_warnf(opts, "%s: extra columns after the first three ignored", se->path);
  else
    graph_warnf(opts,
                "%s: extra columns after the first two ignored (use --weighted to read the third as edge "
                "weights)",
                se->path);
}

int graph_parse_snap(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                     size_t errlen) {
  struct snap_edges se = {.path = t->path, .weighted = opts && opts->weighted};
  uint32_t *src32 = NULL, *dst32 = NULL;
  memset(g, 0, sizeof *g);
  int rc = read_all(t, &se, err, errlen);
  if (rc)
    goto out;
  uint64_t m = se.len, n = 0;
  if (m == 0 && !se.dense_n) {
    rc = io_errf(err, errlen, DSANA_EFORMAT, "%s: empty graph (no edges)", t->path);
    goto out;
  }
  src32 = malloc((m ? m : 1) * sizeof *src32);
  dst32 = malloc((m ? m : 1) * sizeof *dst32);
  if (se.weighted && !se.w) /* no edges (dense ids): still a weighted graph */
    se.w = malloc(sizeof *se.w);
  uint64_t *orig = NULL;
  if (!src32 || !dst32 || (se.weighted && !se.w)) {
    rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory for %llu edges", t->path, (unsigned long long)m);
    goto out;
  }
  if ((rc = to_indices(&se, src32, dst32, &orig, &n, err, errlen)) != 0)
    goto out;
  free(se.src);
  free(se.dst);
  se.src = se.dst = NULL;
  struct graph_edges e = {.path = t->path,
                          .n = n,
                          .m = m,
                          .src = src32,
                          .dst = dst32,
                          .w = se.w,
                          .orig_id = orig,
                          .owned = true,
                          .dedup = opts && opts->dedup,
                          .mirror = opts && opts->undirected};
  src32 = dst32 = NULL;
  se.w = NULL;
  rc = graph_build(&e, g, err, errlen);
  if (rc == 0)
    warn_extra(&se, opts);
out:
  free(src32);
  free(dst32);
  free(se.src);
  free(se.dst);
  free(se.w);
  return rc;
}
