/*
 * fuzz_mtx.c - libFuzzer target for the Matrix Market parser
 * (io/graphfile/graph_mtx.c behind the text block reader of
 * io/graph/graph_text.c).
 *
 * The reader takes a path (zlib reads plain and gzip alike), so the input
 * goes into one memfd, rewritten per run, and is opened as /proc/self/fd/N.
 * We call graph_parse_mtx() directly rather than dsana_graph_open(), so the first
 * line is always read as the banner, whatever dsana_graph_open() would detect.
 * Reader options from the input length (fuzz_opts in fuzz_graph.h): dedup,
 * weighted, undirected; warnings go to a sink that allows one line per file.
 *
 * Beyond "no crash", an accepted graph must be internally consistent: every
 * destination range passes dsana_graph_check_range(), out-degrees sum to m,
 * weights are positive with exact out_w sums, undirected input is symmetric,
 * original ids are the 1-based indices, and dedup leaves no duplicates.
 *
 * Semantic mode: the same bytes also go to an independent reference reader
 * (ref_mtx.h, written from the format's documented rules, never calling
 * src/io). When dsana accepts, the reference must accept too and the graph
 * must be the one it describes: vertex count, original ids, every arc in
 * CSC order with its weight, out-degrees. When dsana refuses, the
 * message names the input, and an input the reference accepts is refused
 * only for a limit (memory, size), never as malformed. A difference aborts
 * with one line naming the first one ("semantic mismatch: ...").
 *
 * Build and run: tests/fuzz/run.sh SECONDS mtx
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "fuzz_graph.h"
#include "io/graphfile/graphfile_internal.h"
#include "ref_mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_graph(const struct dsana_graph *g, const struct dsana_graph_opts *o) {
  fuzz_check_csc(g, o);
  if (g->m == 0)
    abort();
  for (uint64_t v = 0; v < g->n; v++)
    if (!g->orig_id || g->orig_id[v] != v + 1) /* 1-based indices kept */
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int warnings = 0;
  struct dsana_graph_opts opts = fuzz_opts(size, fuzz_warn, &warnings);
  struct graph_text t;
  struct dsana_graph g;
  char err[256] = "";
  const char *path = fuzz_file("fuzz_mtx", data, size);
  if (graph_text_open(&t, path, err, sizeof err) != 0)
    abort();
  int rc = graph_parse_mtx(&t, &opts, &g, err, sizeof err);
  graph_text_close(&t);
  struct ref_graph ref;
  int verdict = ref_mtx_read(data, size, opts.weighted, &ref);
  if (rc == 0) {
    fuzz_check_graph(&g, &opts);
    if (verdict == REF_REFUSE) {
      fprintf(stderr, "semantic mismatch: the reference refuses, dsana accepts\n");
      abort();
    }
    if (verdict == REF_ACCEPT)
      ref_graph_compare(&ref, &g, &opts);
    dsana_graph_fini(&g);
  } else if (err[0] == '\0' || g.n != 0 || g.in_off != NULL || warnings) {
    abort(); /* a failure names its cause and leaves *g zeroed */
  } else {
    ref_check_refusal(verdict, rc, err, path);
  }
  ref_graph_fini(&ref);
  return 0;
}
