/*
 * graph_cli.h - what the `dsana graph` subcommands share (cmd_graph.c,
 * cmd_graph_gen.c): their option set and parser, which names the option and
 * its valid range in every usage error, the reader options they build, and
 * the checked open that prints the io layer's warnings on stderr.
 */
#ifndef DSANA_CLI_GRAPH_CLI_H
#define DSANA_CLI_GRAPH_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/graph.h"

/* Long-option codes (getopt_long's val). */
enum {
  GRAPH_OPT_DEDUP = 256,
  GRAPH_OPT_WEIGHTED,
  GRAPH_OPT_UNDIRECTED,
  GRAPH_OPT_REORDER,
  GRAPH_OPT_SCALE,
  GRAPH_OPT_EF,
  GRAPH_OPT_SEED,
  GRAPH_OPT_OUT,
  GRAPH_OPT_VERTICES,
  GRAPH_OPT_EDGES
};

/* Options of every subcommand (each accepts a subset). */
struct graph_cli {
  const char *cmd; /* "convert", "info", "gen", for messages */
  bool dedup, weighted, undirected;
  enum dsana_graph_order reorder;
  bool has_scale, has_vertices, has_edges;
  uint64_t scale, edge_factor, seed, vertices, edges;
  const char *out;
  const char *pos[3];
  int npos;
};

/* Parse argv (argv[0] = subcommand word) against longopts; positional
 * arguments go to c->pos. -h/--help prints help on stdout. Returns -1 to
 * continue, else the exit code (a usage error is one line on stderr). */
int graph_cli_parse(struct graph_cli *c, int argc, char **argv, const struct option *longopts, const char *help);

/* The reader options of c; warnings go to stderr as "dsana: warning: ...". */
struct dsana_graph_opts graph_cli_opts(const struct graph_cli *c);

/* dsana_graph_open plus the O(m) check a mapped binary file only gets on
 * demand: the graph tools read every edge, so they must not trust a
 * corrupt body. */
int graph_cli_open_checked(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                           size_t errlen);

#endif
