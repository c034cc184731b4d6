/*
 * graph_write_snap.c - write a graph as a SNAP edge list (plain or gzip):
 * "src<TAB>dst[<TAB>weight]" per arc in CSC order, ids through orig_id.
 * A graph without orig_id (generated, ids == indices) gets dsana's dense-id
 * first line, so the SNAP reader (graph_snap.c) reads back the very same
 * CSC arrays, isolated vertices included; weights are printed with 17
 * significant digits, which read back to the same doubles.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"
#include "util/text/str.h"

/* Buffered output to a plain or gzip file. */
struct out {
  FILE *f;
  gzFile z;
  char *buf, *p;
  bool ok;
};
enum { OUT_BUF = 1 << 20 };

static void out_flush(struct out *o) {
  size_t n = (size_t)(o->p - o->buf);
  if (o->ok && n)
    o->ok = o->z ? gzwrite(o->z, o->buf, (unsigned)n) == (int)n : fwrite(o->buf, 1, n, o->f) == n;
  o->p = o->buf;
}

/* The edge in_src[k] -> v as a line. */
static void put_edge(struct out *o, const struct dsana_graph *g, uint64_t v, uint64_t k) {
  o->p = str_put_u64(o->p, dsana_graph_orig_id(g, g->in_src[k]));
  *o->p++ = '\t';
  o->p = str_put_u64(o->p, dsana_graph_orig_id(g, v));
  if (g->in_w)
    o->p += snprintf(o->p, 32, "\t%.17g", g->in_w[k]);
  *o->p++ = '\n';
  if (o->p - o->buf >= OUT_BUF)
    out_flush(o);
}

int dsana_graph_write_snap(const struct dsana_graph *g, const char *path, const char *comment, char *err,
                           size_t errlen) {
  size_t plen = strlen(path);
  bool gz = plen >= 3 && strcmp(path + plen - 3, ".gz") == 0;
  struct out o = {.buf = malloc(OUT_BUF + 128)};
  o.ok = o.buf != NULL;
  if (o.ok && gz)
    o.ok = (o.z = gzopen(path, "wb3")) != NULL;
  else if (o.ok)
    o.ok = (o.f = fopen(path, "wb")) != NULL;
  if (!o.ok) {
    int rc = io_errf(err, errlen, o.buf ? DSANA_EIO : DSANA_ENOMEM, "%s: %s", path,
                     o.buf ? strerror(errno) : "out of memory");
    free(o.buf);
    return rc;
  }
  o.p = o.buf;
  if (!g->orig_id && g->n)
    o.p += snprintf(o.p, 64, "# dsana graph: dense ids 0..%" PRIu64 "\n", g->n - 1);
  o.p += snprintf(o.p, OUT_BUF, "%s# Nodes: %" PRIu64 " Edges: %" PRIu64 "\n# FromNodeId\tToNodeId%s\n",
                  comment ? comment : "", g->n, g->m, g->in_w ? "\tWeight" : "");
  for (uint64_t v = 0; v < g->n && o.ok; v++)
    for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1] && o.ok; k++)
      put_edge(&o, g, v, k);
  out_flush(&o);
  int saved = errno;
  bool ok = o.ok;
  if (gz)
    ok = gzclose(o.z) == Z_OK && ok;
  else
    ok = fclose(o.f) == 0 && ok;
  free(o.buf);
  if (!ok) {
    unlink(path);
    return io_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", path, strerror(saved));
  }
  return 0;
}
