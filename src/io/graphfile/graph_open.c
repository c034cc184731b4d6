/*
 * graph_open.c - dsana_graph_open(): pick the reader by content. Binary files
 * (by magic) are memory-mapped (weights hidden unless asked for), and
 * copied to the heap only for dedup of a file that has duplicates;
 * anything else goes through the text block reader (plain or gzip) and is
 * Matrix Market when its first line is the "%%MatrixMarket" banner, a SNAP
 * edge list otherwise. A first line that looks like a misspelt banner
 * ("%MatrixMarket", "%% Matrix Market", "%%MatrixMarkt") is refused rather
 * than read as a SNAP comment, which would make the entries edges and the
 * size line an edge too.
 */
#include <string.h>
#include <strings.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"

static const char MTX_BANNER[] = "%%MatrixMarket";

/* A first line at p (not the banner) meant as one: "%%" then anything, or
 * '%'s and blanks then "matrix" in any case. SNAP comments (KONECT's
 * "% sym unweighted", say) start with one '%' and go on otherwise. */
static bool misspelt_banner(const char *p) {
  if (p[0] != '%')
    return false;
  if (p[1] == '%')
    return true;
  while (*p == '%' || graph_is_blank(*p))
    p++;
  return strncasecmp(p, "matrix", 6) == 0;
}

/* Whether a mapped graph can be handed out as it is for opts (after its
 * weights were hidden, if unasked for). */
static bool binary_as_is(const struct dsana_graph *g, const struct dsana_graph_opts *opts) {
  return !(opts && opts->dedup) || (graph_binary_flags(g) & GRAPH_BIN_NO_DUPLICATES);
}

static int open_binary(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                       size_t errlen) {
  if (opts && opts->undirected)
    return io_errf(err, errlen, DSANA_EINVAL,
                   "%s: a binary graph is stored as directed arcs; read the text edge list as undirected "
                   "(dsana graph convert --undirected) instead",
                   path);
  int rc = dsana_graph_map_binary(path, g, err, errlen);
  if (rc)
    return rc;
  if (opts && opts->weighted && !g->in_w) {
    dsana_graph_fini(g);
    return io_errf(err, errlen, DSANA_EFORMAT,
                   "%s: no edge weights in this binary graph (convert the text with --weighted)", path);
  }
  if (!(opts && opts->weighted)) {
    g->in_w = NULL; /* an unweighted view: the mapping stays, its weights unused */
    g->out_w = NULL;
  }
  if (binary_as_is(g, opts))
    return 0;
  /* The copy indexes by every offset and source: check them all first. */
  char why[200];
  rc = dsana_graph_check_range(g, 0, g->n, why, sizeof why);
  if (rc) {
    io_errf(err, errlen, rc, "%s: %s", path, why);
    dsana_graph_fini(g);
    return rc;
  }
  struct dsana_graph copy;
  rc = graph_copy(g, opts && opts->dedup, opts && opts->weighted, &copy, err, errlen);
  dsana_graph_fini(g);
  if (rc)
    return rc;
  *g = copy;
  return 0;
}

int dsana_graph_open(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                     size_t errlen) {
  struct graph_text t;
  const char *p, *end;
  memset(g, 0, sizeof *g);
  if (!path)
    return io_errf(err, errlen, DSANA_EINVAL, "graph_open: NULL path");
  if (dsana_graph_is_binary(path))
    return open_binary(path, opts, g, err, errlen);
  int rc = graph_text_open(&t, path, err, errlen);
  if (rc)
    return rc;
  rc = graph_text_next(&t, 0, &p, &end, err, errlen);
  if (rc < 0) {
    graph_text_close(&t);
    return rc;
  }
  bool mtx =
      rc == 1 && (size_t)(end - p) >= sizeof MTX_BANNER - 1 && strncasecmp(p, MTX_BANNER, sizeof MTX_BANNER - 1) == 0;
  if (rc == 1 && !mtx && misspelt_banner(p)) {
    char tok[48];
    graph_token(p, tok, sizeof tok);
    rc = io_errf(err, errlen, DSANA_EFORMAT,
                 "%s:1: misspelt Matrix Market banner '%s' (want '%s matrix coordinate ...'; SNAP comments start "
                 "with '#')",
                 path, tok, MTX_BANNER);
    graph_text_close(&t);
    return rc;
  }
  t.replay = true;
  rc = mtx ? graph_parse_mtx(&t, opts, g, err, errlen) : graph_parse_snap(&t, opts, g, err, errlen);
  graph_text_close(&t);
  return rc;
}
