/*
 * cmd_graph.c - `dsana graph ...`: convert any input format to the binary
 * format (optionally weighted, undirected, deduplicated, renumbered for
 * locality), print a graph's statistics, and dispatch `gen` to
 * cmd_graph_gen.c. Thin: all the work is in src/io/graph/ and
 * src/io/graphfile/; this file parses options (graph_cli.c) and reports.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tools/cmd_graph.h"
#include "cli/core/exit_codes.h"
#include "cli/core/paths.h"
#include "cli/tools/graph_cli.h"
#include "dsana/dsana.h"
#include "dsana/graph.h"

static const char GRAPH_USAGE[] =
    "usage: dsana graph convert IN OUT [--weighted] [--undirected] [--dedup] [--reorder none|degree]\n"
    "                                               any input format -> binary\n"
    "       dsana graph info FILE [--weighted] [--undirected] [--dedup]\n"
    "                                               vertices, edges, degrees, self loops, duplicates\n"
    "       dsana graph gen kron --scale S [--edge-factor E] [--seed X] --out FILE [GEN OPTIONS]\n"
    "       dsana graph gen uniform --vertices N --edges M [--seed X] --out FILE [GEN OPTIONS]\n"
    "       GEN OPTIONS: [--weighted] [--undirected] [--dedup] [--reorder none|degree]\n"
    "Inputs: SNAP edge lists (plain or .gz), Matrix Market coordinate files, dsana binary graphs.\n"
    "gen writes a SNAP edge list for FILE ending in .txt or .txt.gz, the binary format otherwise.\n"
    "dsana graph SUBCOMMAND --help explains each.\n";

/* Flags every reading subcommand takes. */
#define READ_OPTS                                                                                     \
  {"dedup", no_argument, NULL, GRAPH_OPT_DEDUP}, {"weighted", no_argument, NULL, GRAPH_OPT_WEIGHTED}, \
      {"undirected", no_argument, NULL, GRAPH_OPT_UNDIRECTED}, {                                      \
    "help", no_argument, NULL, 'h'                                                                    \
  }

static const char CONVERT_HELP[] =
    "usage: dsana graph convert IN OUT [--weighted] [--undirected] [--dedup] [--reorder none|degree]\n"
    "Read IN (SNAP edge list, plain or gzip; Matrix Market; binary) and write OUT in dsana's\n"
    "binary format (atomically).\n"
    "  --weighted     read edge weights: SNAP's third column, a Matrix Market real/integer value\n"
    "                 (positive finite numbers); they are kept in OUT (binary format)\n"
    "  --undirected   each edge u v read is the two arcs u->v and v->u (a self loop once)\n"
    "  --dedup        collapse duplicate edges (weighted: the last weight read wins, as networkx)\n"
    "  --reorder none|degree   degree: renumber vertices by descending in-degree for cache\n"
    "                 locality (original ids are kept for output); none (default): keep the order\n";

static const char INFO_HELP[] =
    "usage: dsana graph info FILE [--weighted] [--undirected] [--dedup]\n"
    "Print vertices, edges, dangling and isolated vertices, self loops, duplicate edges and\n"
    "min/max in- and out-degree, one 'key: value' per line (and min/max/total edge weight with\n"
    "--weighted). --dedup collapses duplicates first; --undirected reads each edge both ways.\n";

static int cmd_convert(int argc, char **argv) {
  static const struct option lo[] = {READ_OPTS, {"reorder", required_argument, NULL, GRAPH_OPT_REORDER}, {0}};
  struct graph_cli c = {.cmd = "convert"};
  int rc = graph_cli_parse(&c, argc, argv, lo, CONVERT_HELP);
  if (rc >= 0)
    return rc;
  if (c.npos != 2) {
    fprintf(stderr, "dsana graph convert: want IN and OUT (see --help)\n");
    return CLI_EXIT_USAGE;
  }
  if (cli_check_tool_output("graph convert", c.pos[1], (const char *const *)c.pos, 1) != 0)
    return CLI_EXIT_USAGE;
  char err[512];
  struct dsana_graph g, r;
  struct dsana_graph_opts opts = graph_cli_opts(&c);
  rc = graph_cli_open_checked(c.pos[0], &opts, &g, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return cli_exit_input(rc);
  }
  if (c.reorder != DSANA_GRAPH_ORDER_NONE) {
    rc = dsana_graph_reorder(&g, c.reorder, &r, err, sizeof err);
    dsana_graph_fini(&g);
    if (rc) {
      fprintf(stderr, "dsana: %s: %s\n", c.pos[0], err);
      return CLI_EXIT_FAIL;
    }
    g = r;
  }
  rc = dsana_graph_write_binary(&g, c.pos[1], err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana: %s\n", err);
  else
    printf("%s: %" PRIu64 " vertices, %" PRIu64 " edges%s\n", c.pos[1], g.n, g.m, g.in_w ? ", weighted" : "");
  dsana_graph_fini(&g);
  return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

static void print_weights(const struct dsana_graph *g) {
  double lo = g->m ? g->in_w[0] : 0, hi = lo, total = 0;
  for (uint64_t k = 0; k < g->m; k++) {
    lo = g->in_w[k] < lo ? g->in_w[k] : lo;
    hi = g->in_w[k] > hi ? g->in_w[k] : hi;
    total += g->in_w[k];
  }
  printf("min_weight: %.17g\nmax_weight: %.17g\ntotal_weight: %.17g\n", lo, hi, total);
}

static void print_stats(const struct dsana_graph *g) {
  struct dsana_graph_stats st;
  dsana_graph_stats(g, &st);
  printf("vertices: %" PRIu64 "\n", st.n);
  printf("edges: %" PRIu64 "\n", st.m);
  printf("dangling_vertices: %" PRIu64 "\n", st.dangling);
  printf("isolated_vertices: %" PRIu64 "\n", st.isolated);
  printf("self_loops: %" PRIu64 "\n", st.self_loops);
  printf("duplicate_edges: %" PRIu64 "\n", st.duplicates);
  printf("min_in_degree: %" PRIu64 "\n", st.min_in);
  printf("max_in_degree: %" PRIu64 "\n", st.max_in);
  printf("min_out_degree: %" PRIu64 "\n", st.min_out);
  printf("max_out_degree: %" PRIu64 "\n", st.max_out);
  if (g->in_w)
    print_weights(g);
}

static int cmd_info(int argc, char **argv) {
  static const struct option lo[] = {READ_OPTS, {0}};
  struct graph_cli c = {.cmd = "info"};
  int rc = graph_cli_parse(&c, argc, argv, lo, INFO_HELP);
  if (rc >= 0)
    return rc;
  if (c.npos != 1) {
    fprintf(stderr, "dsana graph info: want one FILE (see --help)\n");
    return CLI_EXIT_USAGE;
  }
  char err[512];
  struct dsana_graph g;
  struct dsana_graph_opts opts = graph_cli_opts(&c);
  rc = graph_cli_open_checked(c.pos[0], &opts, &g, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return cli_exit_input(rc);
  }
  print_stats(&g);
  dsana_graph_fini(&g);
  return CLI_EXIT_OK;
}

int cmd_graph_main(int argc, char **argv) {
  if (argc < 2) {
    fputs(GRAPH_USAGE, stderr);
    return CLI_EXIT_USAGE;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
    fputs(GRAPH_USAGE, stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(sub, "convert") == 0)
    return cmd_convert(argc - 1, argv + 1);
  if (strcmp(sub, "info") == 0)
    return cmd_info(argc - 1, argv + 1);
  if (strcmp(sub, "gen") == 0)
    return cmd_graph_gen(argc - 1, argv + 1);
  fprintf(stderr, "dsana graph: unknown subcommand '%s' (want convert, info or gen)\n", sub);
  return CLI_EXIT_USAGE;
}
