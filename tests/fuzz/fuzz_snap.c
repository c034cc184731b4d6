/*
 * fuzz_snap.c - libFuzzer target for the SNAP edge-list parser
 * (io/graphfile/graph_snap.c behind the text block reader of
 * io/graph/graph_text.c).
 *
 * The reader takes a path (zlib reads plain and gzip alike), so the input
 * goes into one memfd, rewritten per run, and is opened as /proc/self/fd/N.
 * We call graph_parse_snap() directly rather than dsana_graph_open(), so an input
 * starting with a Matrix Market banner still exercises this parser.
 * Reader options from the input length (fuzz_opts in fuzz_graph.h): dedup,
 * weighted, undirected; warnings go to a sink that allows one line per file.
 *
 * Beyond "no crash", an accepted graph must be internally consistent: every
 * destination range passes dsana_graph_check_range(), out-degrees sum to m,
 * weights are positive with exact out_w sums, undirected input is symmetric,
 * original ids ascend strictly (or are absent, for dsana's dense-id first
 * line, the only way to an edgeless graph), and dedup leaves no duplicates.
 * Dense-id lines of 64 Ki vertices or more are skipped (fuzz_dense_too_big).
 *
 * Semantic mode: the same bytes also go to an independent reference reader
 * (ref_snap.h, written from the format's documented rules, never calling
 * src/io). When dsana accepts, the reference must accept too and the graph
 * must be the one it describes: vertex count, original ids, every arc in
 * CSC order with its weight, out-degrees, and one warning exactly when a line had
 * ignored fields. When dsana refuses, the
 * message names the input, and an input the reference accepts is refused
 * only for a limit (memory, size), never as malformed. A difference aborts
 * with one line naming the first one ("semantic mismatch: ...").
 *
 * Build and run: tests/fuzz/run.sh SECONDS snap
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "fuzz_graph.h"
#include "io/graphfile/graphfile_internal.h"
#include "ref_snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_graph(const struct dsana_graph *g, const struct dsana_graph_opts *o) {
  fuzz_check_csc(g, o);
  if (g->m == 0 && g->orig_id)
    abort();
  for (uint64_t v = 0; v < g->n; v++)
    if (g->orig_id && v > 0 && g->orig_id[v - 1] >= g->orig_id[v])
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz_dense_too_big(data, size))
    return 0;
  int warnings = 0;
  struct dsana_graph_opts opts = fuzz_opts(size, fuzz_warn, &warnings);
  struct graph_text t;
  struct dsana_graph g;
  char err[256] = "";
  const char *path = fuzz_file("fuzz_snap", data, size);
  if (graph_text_open(&t, path, err, sizeof err) != 0)
    abort();
  int rc = graph_parse_snap(&t, &opts, &g, err, sizeof err);
  graph_text_close(&t);
  struct ref_graph ref;
  int verdict = ref_snap_read(data, size, opts.weighted, &ref);
  if (rc == 0) {
    fuzz_check_graph(&g, &opts);
    if (verdict == REF_REFUSE) {
      fprintf(stderr, "semantic mismatch: the reference refuses, dsana accepts\n");
      abort();
    }
    if (verdict == REF_ACCEPT)
      ref_graph_compare(&ref, &g, &opts);
    if (verdict == REF_ACCEPT && warnings != ref.extra_fields) {
      fprintf(stderr, "semantic mismatch: %d warnings, the reference says %d\n", warnings, ref.extra_fields);
      abort();
    }
    dsana_graph_fini(&g);
  } else if (err[0] == '\0' || g.n != 0 || g.in_off != NULL || warnings) {
    abort(); /* a failure names its cause and leaves *g zeroed */
  } else {
    ref_check_refusal(verdict, rc, err, path);
  }
  ref_graph_fini(&ref);
  return 0;
}
