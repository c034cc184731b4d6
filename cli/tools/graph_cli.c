/*
 * graph_cli.c - option parsing and the checked open shared by the
 * `dsana graph` subcommands (see graph_cli.h). Numeric options carry their
 * valid range here, so every "bad value" message states it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/core/exit_codes.h"
#include "cli/core/opts.h"
#include "cli/tools/graph_cli.h"
#include "dsana/dsana.h"

/* The range of each numeric option. */
struct num_opt {
  int code;
  const char *name;
  uint64_t min, max;
};

static const struct num_opt NUM_OPTS[] = {
    {GRAPH_OPT_SCALE, "scale", 1, 31},
    {GRAPH_OPT_EF, "edge-factor", 1, UINT32_MAX},
    {GRAPH_OPT_SEED, "seed", 0, UINT64_MAX},
    {GRAPH_OPT_VERTICES, "vertices", 1, UINT32_MAX},
    {GRAPH_OPT_EDGES, "edges", 0, UINT64_MAX >> 3},
};

static uint64_t *num_target(struct graph_cli *c, int code) {
  switch (code) {
  case GRAPH_OPT_SCALE:
    c->has_scale = true;
    return &c->scale;
  case GRAPH_OPT_EF:
    return &c->edge_factor;
  case GRAPH_OPT_SEED:
    return &c->seed;
  case GRAPH_OPT_VERTICES:
    c->has_vertices = true;
    return &c->vertices;
  case GRAPH_OPT_EDGES:
    c->has_edges = true;
    return &c->edges;
  default:
    return NULL;
  }
}

/* A numeric option's value, range-checked. -1 ok, else an exit code. */
static int parse_num(struct graph_cli *c, int code, const char *arg) {
  const struct num_opt *o = NULL;
  for (size_t i = 0; i < sizeof NUM_OPTS / sizeof NUM_OPTS[0]; i++)
    if (NUM_OPTS[i].code == code)
      o = &NUM_OPTS[i];
  uint64_t v;
  if (!o || !cli_parse_decimal(arg, &v) || v < o->min || v > o->max) {
    fprintf(stderr, "dsana graph %s: bad value '%s' for --%s (want an integer in %llu..%llu)\n", c->cmd, arg,
            o ? o->name : "?", o ? (unsigned long long)o->min : 0ull, o ? (unsigned long long)o->max : 0ull);
    return CLI_EXIT_USAGE;
  }
  *num_target(c, code) = v;
  return -1;
}

static int parse_reorder(struct graph_cli *c, const char *arg) {
  if (strcmp(arg, "none") == 0)
    c->reorder = DSANA_GRAPH_ORDER_NONE;
  else if (strcmp(arg, "degree") == 0)
    c->reorder = DSANA_GRAPH_ORDER_DEGREE;
  else {
    fprintf(stderr, "dsana graph %s: bad value '%s' for --reorder (want none or degree)\n", c->cmd, arg);
    return CLI_EXIT_USAGE;
  }
  return -1;
}

/* One option; -1 to continue, else an exit code. */
static int take_opt(struct graph_cli *c, int ch, char **argv, const char *help) {
  switch (ch) {
  case 'h':
    fputs(help, stdout);
    return CLI_EXIT_OK;
  case GRAPH_OPT_DEDUP:
    c->dedup = true;
    return -1;
  case GRAPH_OPT_WEIGHTED:
    c->weighted = true;
    return -1;
  case GRAPH_OPT_UNDIRECTED:
    c->undirected = true;
    return -1;
  case GRAPH_OPT_OUT:
    c->out = optarg;
    return -1;
  case GRAPH_OPT_REORDER:
    return parse_reorder(c, optarg);
  case ':':
    fprintf(stderr, "dsana graph %s: option '%s' needs a value\n", c->cmd, argv[optind - 1]);
    return CLI_EXIT_USAGE;
  case '?':
    fprintf(stderr, "dsana graph %s: unknown option '%s' (see --help)\n", c->cmd, argv[optind - 1]);
    return CLI_EXIT_USAGE;
  default:
    return parse_num(c, ch, optarg);
  }
}

int graph_cli_parse(struct graph_cli *c, int argc, char **argv, const struct option *longopts, const char *help) {
  int ch;
  bool seen[64] = {false}; /* (the graph commands' tables are shorter) */
  optind = 0;              /* glibc: full re-initialisation, the main CLI may have used getopt */
  opterr = 0;
  while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    const char *twice = cli_repeated_option(longopts, seen, ch);
    if (twice) {
      fprintf(stderr, "dsana graph %s: --%s given twice (give each option once)\n", c->cmd, twice);
      return CLI_EXIT_USAGE;
    }
    int rc = take_opt(c, ch, argv, help);
    if (rc >= 0)
      return rc;
  }
  for (int i = optind; i < argc; i++) {
    if (c->npos == 3) {
      fprintf(stderr, "dsana graph %s: too many arguments ('%s')\n", c->cmd, argv[i]);
      return CLI_EXIT_USAGE;
    }
    c->pos[c->npos++] = argv[i];
  }
  return -1;
}

static void print_warning(void *ctx, const char *msg) {
  (void)ctx;
  fprintf(stderr, "dsana: warning: %s\n", msg);
}

struct dsana_graph_opts graph_cli_opts(const struct graph_cli *c) {
  return (struct dsana_graph_opts){
      .dedup = c->dedup, .weighted = c->weighted, .undirected = c->undirected, .warn = print_warning};
}

int graph_cli_open_checked(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                           size_t errlen) {
  int rc = dsana_graph_open(path, opts, g, err, errlen);
  if (rc)
    return rc;
  char why[400];
  rc = dsana_graph_check_range(g, 0, g->n, why, sizeof why);
  if (rc) {
    snprintf(err, errlen, "%s: %s", path, why);
    dsana_graph_fini(g);
  }
  return rc;
}
