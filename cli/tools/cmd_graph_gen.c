/*
 * cmd_graph_gen.c - `dsana graph gen kron|uniform`: generate a graph and
 * write it in the binary format, or as a SNAP edge list for a .txt /
 * .txt.gz output (dsana_graph_write_snap: its dense-id first line makes the
 * text and the binary output of one generator the same graph).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/exit_codes.h"
#include "cli/core/paths.h"
#include "cli/tools/cmd_graph.h"
#include "cli/tools/graph_cli.h"
#include "dsana/dsana.h"
#include "dsana/graph.h"
#include "util/text/str.h"

static const char GEN_HELP[] =
    "usage: dsana graph gen kron --scale S [--edge-factor E] [--seed X] --out FILE [GEN OPTIONS]\n"
    "       dsana graph gen uniform --vertices N --edges M [--seed X] --out FILE [GEN OPTIONS]\n"
    "kron: Graph500 Kronecker, 2^S vertices (S in 1..31), E*2^S edges (default E 16), A=0.57 B=0.19\n"
    "C=0.19, ids permuted. uniform: M edges with independent uniform endpoints over N vertices.\n"
    "Same seed (default 1), same graph. FILE ending in .txt: SNAP edge list (with a first line that\n"
    "keeps all vertices when read back); .txt.gz: gzipped; else the binary format.\n"
    "GEN OPTIONS:\n"
    "  --weighted     each edge gets a weight uniform in (0, 1] from the seed (a third column)\n"
    "  --undirected   each generated edge u v becomes the arcs u->v and v->u\n"
    "  --dedup        collapse duplicate edges (the last weight wins)\n"
    "  --reorder none|degree   renumber by descending in-degree (binary FILE only)\n";

/* Usage checks after parsing; -1 if fine, else the exit code. */
static int check_gen(const struct graph_cli *c, const char *kind, bool kron, bool text) {
  if (c->npos > 1) {
    fprintf(stderr, "dsana graph gen: unexpected argument '%s'\n", c->pos[1]);
    return CLI_EXIT_USAGE;
  }
  if (!c->out) {
    fprintf(stderr, "dsana graph gen %s: --out FILE is required\n", kind);
    return CLI_EXIT_USAGE;
  }
  if (kron && (!c->has_scale || c->has_vertices || c->has_edges)) {
    fprintf(stderr, "dsana graph gen kron: takes --scale (and --edge-factor), not --vertices/--edges\n");
    return CLI_EXIT_USAGE;
  }
  if (!kron && (!c->has_vertices || !c->has_edges || c->has_scale)) {
    fprintf(stderr, "dsana graph gen uniform: takes --vertices and --edges, not --scale\n");
    return CLI_EXIT_USAGE;
  }
  if (text && c->reorder != DSANA_GRAPH_ORDER_NONE) {
    fprintf(stderr,
            "dsana graph gen: --reorder degree needs a binary --out (an edge list is read back in id "
            "order); want --reorder none with %s\n",
            c->out);
    return CLI_EXIT_USAGE;
  }
  return cli_check_tool_output(kron ? "graph gen kron" : "graph gen uniform", c->out, NULL, 0) != 0 ? CLI_EXIT_USAGE
                                                                                                    : -1;
}

/* The generator's command line, as the edge list's second comment line. */
static void gen_header(const struct graph_cli *c, bool kron, char *h, size_t len) {
  int k = kron ? snprintf(h, len, "# dsana graph gen kron --scale %" PRIu64 " --edge-factor %" PRIu64, c->scale,
                          c->edge_factor)
               : snprintf(h, len, "# dsana graph gen uniform --vertices %" PRIu64 " --edges %" PRIu64, c->vertices,
                          c->edges);
  snprintf(h + k, len - (size_t)k, " --seed %" PRIu64 "%s%s%s\n", c->seed, c->weighted ? " --weighted" : "",
           c->undirected ? " --undirected" : "", c->dedup ? " --dedup" : "");
}

/* Generate, reorder if asked, write. */
static int generate(const struct graph_cli *c, bool kron, bool text) {
  char err[512], header[320];
  struct dsana_graph g, r;
  struct dsana_graph_opts opts = graph_cli_opts(c);
  int rc = kron
               ? dsana_graph_gen_kron((unsigned)c->scale, (unsigned)c->edge_factor, c->seed, &opts, &g, err, sizeof err)
               : dsana_graph_gen_uniform(c->vertices, c->edges, c->seed, &opts, &g, err, sizeof err);
  if (!rc && c->reorder != DSANA_GRAPH_ORDER_NONE) {
    rc = dsana_graph_reorder(&g, c->reorder, &r, err, sizeof err);
    dsana_graph_fini(&g);
    g = r;
  }
  if (rc) {
    fprintf(stderr, "dsana graph gen %s: %s\n", kron ? "kron" : "uniform", err);
    return rc == DSANA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  gen_header(c, kron, header, sizeof header);
  if (text)
    rc = dsana_graph_write_snap(&g, c->out, header, err, sizeof err);
  else
    rc = dsana_graph_write_binary(&g, c->out, err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana: %s\n", err);
  else
    printf("%s: %" PRIu64 " vertices, %" PRIu64 " edges%s\n", c->out, g.n, g.m, g.in_w ? ", weighted" : "");
  dsana_graph_fini(&g);
  return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cmd_graph_gen(int argc, char **argv) {
  static const struct option lo[] = {{"scale", required_argument, NULL, GRAPH_OPT_SCALE},
                                     {"edge-factor", required_argument, NULL, GRAPH_OPT_EF},
                                     {"vertices", required_argument, NULL, GRAPH_OPT_VERTICES},
                                     {"edges", required_argument, NULL, GRAPH_OPT_EDGES},
                                     {"seed", required_argument, NULL, GRAPH_OPT_SEED},
                                     {"out", required_argument, NULL, GRAPH_OPT_OUT},
                                     {"dedup", no_argument, NULL, GRAPH_OPT_DEDUP},
                                     {"weighted", no_argument, NULL, GRAPH_OPT_WEIGHTED},
                                     {"undirected", no_argument, NULL, GRAPH_OPT_UNDIRECTED},
                                     {"reorder", required_argument, NULL, GRAPH_OPT_REORDER},
                                     {"help", no_argument, NULL, 'h'},
                                     {0}};
  struct graph_cli c = {.cmd = "gen", .edge_factor = 16, .seed = 1};
  int rc = graph_cli_parse(&c, argc, argv, lo, GEN_HELP);
  if (rc >= 0)
    return rc;
  const char *kind = c.npos ? c.pos[0] : NULL;
  bool kron = kind && strcmp(kind, "kron") == 0, uni = kind && strcmp(kind, "uniform") == 0;
  if (!kron && !uni) {
    fprintf(stderr, "dsana graph gen: want 'kron' or 'uniform'%s%s (see --help)\n", kind ? ", not " : "",
            kind ? kind : "");
    return CLI_EXIT_USAGE;
  }
  bool text = c.out && (str_ends_with(c.out, ".txt") || str_ends_with(c.out, ".txt.gz"));
  if ((rc = check_gen(&c, kind, kron, text)) >= 0)
    return rc;
  return generate(&c, kron, text);
}
