/*
 * graph_pers.c - personalization (teleport) vectors for a graph: a text
 * file (plain or gzip, through the block reader of graph_text.c) of
 * "vertex weight" lines in original ids, turned into n probabilities in
 * vertex index order. Every rejected line is named by file and line.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"

struct pers {
  const char *path;
  const struct dsana_graph *g;
  const uint32_t *order; /* indices by ascending original id, or NULL: index order is */
  double *raw;           /* n weights as read */
  uint8_t *seen;         /* bitmap of the vertices listed */
  uint64_t line;
};

/* Index of original id x in g, or false. */
static bool find_vertex(const struct pers *ps, uint64_t x, uint64_t *v) {
  const struct dsana_graph *g = ps->g;
  if (!g->orig_id) {
    *v = x;
    return x < g->n;
  }
  uint64_t lo = 0, hi = g->n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2, idx = ps->order ? ps->order[mid] : mid;
    if (g->orig_id[idx] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == g->n)
    return false;
  *v = ps->order ? ps->order[lo] : lo;
  return g->orig_id[*v] == x;
}

static int line_err(const struct pers *ps, const char *what, const char *p, char *err, size_t errlen) {
  char tok[48];
  graph_token(p, tok, sizeof tok);
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %s '%s'", ps->path, (unsigned long long)ps->line, what, tok);
}

static int too_few(const struct pers *ps, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: expected 2 fields (vertex, weight), found 1", ps->path,
                 (unsigned long long)ps->line);
}

/* One "vertex weight" line at p (not blank, not a comment). */
static int parse_line(struct pers *ps, const char *p, char *err, size_t errlen) {
  uint64_t id, v;
  double w;
  const char *end;
  int why = graph_scan_u64(&p, &id);
  if (why)
    return line_err(ps,
                    why == 2   ? "negative vertex id"
                    : why == 3 ? "vertex id out of range"
                               : "non-numeric vertex id",
                    p, err, errlen);
  while (graph_is_blank(*p))
    p++;
  if (*p == '\n')
    return too_few(ps, err, errlen);
  if (!graph_scan_number(p, &end, &w) || !(w >= 0.0 && isfinite(w))) {
    char tok[48];
    graph_token(p, tok, sizeof tok);
    return io_errf(err, errlen, DSANA_EFORMAT,
                   "%s:%llu: personalization weight '%s' is not a non-negative finite number", ps->path,
                   (unsigned long long)ps->line, tok);
  }
  for (p = end; graph_is_blank(*p); p++)
    ;
  if (*p != '\n')
    return line_err(ps, "expected 2 fields (vertex, weight), found more:", p, err, errlen);
  if (!find_vertex(ps, id, &v))
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: vertex %llu is not in the graph", ps->path,
                   (unsigned long long)ps->line, (unsigned long long)id);
  if (ps->seen[v / 8] & (1u << (v % 8)))
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: vertex %llu listed twice", ps->path,
                   (unsigned long long)ps->line, (unsigned long long)id);
  ps->seen[v / 8] |= (uint8_t)(1u << (v % 8));
  ps->raw[v] = w + 0.0; /* -0 becomes +0 */
  return 0;
}

static int parse_block(struct pers *ps, const char *p, const char *end, char *err, size_t errlen) {
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    ps->line++;
    while (graph_is_blank(*p))
      p++;
    if (*p != '\n' && *p != '#') {
      int rc = parse_line(ps, p, err, errlen);
      if (rc)
        return rc;
    }
    p = nl + 1;
  }
  return 0;
}

static int read_file(struct pers *ps, char *err, size_t errlen) {
  struct graph_text t;
  const char *p, *end;
  int rc = graph_text_open(&t, ps->path, err, errlen);
  if (rc)
    return rc;
  while ((rc = graph_text_next(&t, ps->line, &p, &end, err, errlen)) == 1)
    if ((rc = parse_block(ps, p, end, err, errlen)) != 0)
      break;
  graph_text_close(&t);
  return rc;
}

/* An in-memory vector (mem_source.c): n weights, each >= 0 and finite. */
static int copy_memory(struct pers *ps, char *err, size_t errlen) {
  const struct io_mem_vector *m = io_mem_find(ps->path, IO_MEM_VECTOR);
  if (!m)
    return io_errf(err, errlen, DSANA_EIO, "%s: no such in-memory vector (unregistered)", ps->path);
  if (m->n != ps->g->n)
    return io_errf(err, errlen, DSANA_EINVAL, "%s: %llu weights for %llu vertices", ps->path, (unsigned long long)m->n,
                   (unsigned long long)ps->g->n);
  for (uint64_t v = 0; v < m->n; v++) {
    if (!(m->v[v] >= 0) || !isfinite(m->v[v]))
      return io_errf(err, errlen, DSANA_ERANGE, "%s: vertex %llu: weight %g (want >= 0, finite)", ps->path,
                     (unsigned long long)v, m->v[v]);
    ps->raw[v] = m->v[v];
  }
  return 0;
}

/* Divide by the sum (in vertex index order); errors if 0 or infinite. */
static int normalise(const struct pers *ps, char *err, size_t errlen) {
  double sum = 0.0;
  for (uint64_t v = 0; v < ps->g->n; v++)
    sum += ps->raw[v];
  if (sum == 0.0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: personalization weights are all zero (or none listed)", ps->path);
  if (!isfinite(sum))
    return io_errf(err, errlen, DSANA_ERANGE, "%s: personalization weights sum to infinity", ps->path);
  for (uint64_t v = 0; v < ps->g->n; v++)
    ps->raw[v] /= sum;
  return 0;
}

int dsana_graph_load_personalization(const char *path, const struct dsana_graph *g, double **vec, char *err,
                                     size_t errlen) {
  struct pers ps = {.path = path, .g = g};
  uint32_t *order = NULL;
  *vec = NULL;
  if (!path || !g)
    return io_errf(err, errlen, DSANA_EINVAL, "load_personalization: NULL %s", path ? "graph" : "path");
  int rc = dsana_graph_orig_order(g, &order, err, errlen);
  if (rc)
    return rc;
  ps.order = order;
  ps.raw = calloc(g->n ? g->n : 1, sizeof *ps.raw);
  ps.seen = calloc(g->n / 8 + 1, 1);
  if (!ps.raw || !ps.seen)
    rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory for %llu vertices", path, (unsigned long long)g->n);
  if (!rc)
    rc = io_mem_is_name(path) ? copy_memory(&ps, err, errlen) : read_file(&ps, err, errlen);
  if (!rc)
    rc = normalise(&ps, err, errlen);
  free(order);
  free(ps.seen);
  if (rc) {
    free(ps.raw);
    return rc;
  }
  *vec = ps.raw;
  return 0;
}
