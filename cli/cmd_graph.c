/*
 * cmd_graph.c - `dsana graph ...`: convert any input format to the binary
 * format, print a graph's statistics, and generate Kronecker or uniform
 * graphs (binary, or a SNAP edge list for .txt / .txt.gz). Thin: all the
 * work is in src/io/graph_*.c; this file parses options and reports.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "cmd_graph.h"
#include "dsana/dsana.h"
#include "dsana/graph.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char GRAPH_USAGE[] =
    "usage: dsana graph convert IN OUT [--dedup]    any input format -> binary\n"
    "       dsana graph info FILE [--dedup]         vertices, edges, degrees, self loops, duplicates\n"
    "       dsana graph gen kron --scale S [--edge-factor E] [--seed X] --out FILE [--dedup]\n"
    "       dsana graph gen uniform --vertices N --edges M [--seed X] --out FILE [--dedup]\n"
    "Inputs: SNAP edge lists (plain or .gz), Matrix Market coordinate files, dsana binary graphs.\n"
    "gen writes a SNAP edge list for FILE ending in .txt or .txt.gz, the binary format otherwise.\n";

/* Exit code for a failed read of an input. */
static int input_exit(int rc) { return rc == DSANA_ENOMEM ? EXIT_FAIL : EXIT_USAGE; }

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s || *s == '-' || *s == '+')
    return false;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end)
    return false;
  *out = v;
  return true;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Options shared by every subcommand. */
struct graph_cli {
  const char *cmd; /* "convert", "info", "gen kron", ... for messages */
  bool dedup;
  bool has_scale, has_vertices, has_edges;
  uint64_t scale, edge_factor, seed, vertices, edges;
  const char *out;
  const char *pos[3];
  int npos;
};

enum { OPT_DEDUP = 256, OPT_SCALE, OPT_EF, OPT_SEED, OPT_OUT, OPT_VERTICES, OPT_EDGES };

/* Parse argv (argv[0] = subcommand word) against longopts; positional
 * arguments go to c->pos. Returns -1 to continue, else an exit code. */
static int parse_opts(struct graph_cli *c, int argc, char **argv, const struct option *longopts,
                      const char *help) {
  int ch;
  optind = 0; /* glibc: full re-initialisation, the main CLI may have used getopt */
  opterr = 0;
  int idx = -1;
  while ((ch = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
    uint64_t *dst = NULL;
    switch (ch) {
    case 'h':
      fputs(help, stdout);
      return EXIT_OK;
    case OPT_DEDUP:
      c->dedup = true;
      continue;
    case OPT_OUT:
      c->out = optarg;
      continue;
    case OPT_SCALE:
      dst = &c->scale;
      c->has_scale = true;
      break;
    case OPT_EF:
      dst = &c->edge_factor;
      break;
    case OPT_SEED:
      dst = &c->seed;
      break;
    case OPT_VERTICES:
      dst = &c->vertices;
      c->has_vertices = true;
      break;
    case OPT_EDGES:
      dst = &c->edges;
      c->has_edges = true;
      break;
    case ':':
      fprintf(stderr, "dsana graph %s: option '%s' needs a value\n", c->cmd, argv[optind - 1]);
      return EXIT_USAGE;
    default:
      fprintf(stderr, "dsana graph %s: unknown option '%s' (see --help)\n", c->cmd, argv[optind - 1]);
      return EXIT_USAGE;
    }
    if (!parse_u64(optarg, dst)) {
      fprintf(stderr, "dsana graph %s: bad value '%s' for --%s (want a non-negative integer)\n", c->cmd, optarg,
              idx >= 0 ? longopts[idx].name : "?");
      return EXIT_USAGE;
    }
  }
  for (int i = optind; i < argc; i++) {
    if (c->npos == 3) {
      fprintf(stderr, "dsana graph %s: too many arguments ('%s')\n", c->cmd, argv[i]);
      return EXIT_USAGE;
    }
    c->pos[c->npos++] = argv[i];
  }
  return -1;
}

/* graph_open, plus the O(m) check a mapped binary file only gets on demand:
 * these tools read every edge, so they must not trust a corrupt body. */
static int open_checked(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
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

static int cmd_convert(int argc, char **argv) {
  static const struct option lo[] = {{"dedup", no_argument, NULL, OPT_DEDUP}, {"help", no_argument, NULL, 'h'}, {0}};
  struct graph_cli c = {.cmd = "convert"};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana graph convert IN OUT [--dedup]\n"
                      "Read IN (SNAP edge list, plain or gzip; Matrix Market; binary) and write OUT in dsana's\n"
                      "binary format (atomically). --dedup collapses duplicate edges.\n");
  if (rc >= 0)
    return rc;
  if (c.npos != 2) {
    fprintf(stderr, "dsana graph convert: want IN and OUT (see --help)\n");
    return EXIT_USAGE;
  }
  char err[512];
  struct dsana_graph g;
  struct dsana_graph_opts opts = {.dedup = c.dedup};
  rc = open_checked(c.pos[0], &opts, &g, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return input_exit(rc);
  }
  rc = dsana_graph_write_binary(&g, c.pos[1], err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana: %s\n", err);
  else
    printf("%s: %" PRIu64 " vertices, %" PRIu64 " edges\n", c.pos[1], g.n, g.m);
  dsana_graph_fini(&g);
  return rc ? EXIT_FAIL : EXIT_OK;
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
}

static int cmd_info(int argc, char **argv) {
  static const struct option lo[] = {{"dedup", no_argument, NULL, OPT_DEDUP}, {"help", no_argument, NULL, 'h'}, {0}};
  struct graph_cli c = {.cmd = "info"};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana graph info FILE [--dedup]\n"
                      "Print vertices, edges, dangling and isolated vertices, self loops, duplicate edges and\n"
                      "min/max in- and out-degree, one 'key: value' per line. --dedup collapses duplicates first.\n");
  if (rc >= 0)
    return rc;
  if (c.npos != 1) {
    fprintf(stderr, "dsana graph info: want one FILE (see --help)\n");
    return EXIT_USAGE;
  }
  char err[512];
  struct dsana_graph g;
  struct dsana_graph_opts opts = {.dedup = c.dedup};
  rc = open_checked(c.pos[0], &opts, &g, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return input_exit(rc);
  }
  print_stats(&g);
  dsana_graph_fini(&g);
  return EXIT_OK;
}

/* Decimal digits of x at p; returns the end. */
static char *put_u64(char *p, uint64_t x) {
  char tmp[24];
  int k = 0;
  do {
    tmp[k++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (k)
    *p++ = tmp[--k];
  return p;
}

/* Write g as a SNAP edge list (gzip when gz); ids are the original ids. */
static int write_snap(const struct dsana_graph *g, const char *path, bool gz, const char *header, char *err,
                      size_t errlen) {
  enum { BUF = 1 << 20 };
  FILE *f = NULL;
  gzFile z = NULL;
  char *buf = malloc(BUF + 64);
  bool ok = buf != NULL;
  if (ok && gz)
    ok = (z = gzopen(path, "wb3")) != NULL;
  else if (ok)
    ok = (f = fopen(path, "wb")) != NULL;
  if (!ok) {
    snprintf(err, errlen, "%s: %s", path, buf ? strerror(errno) : "out of memory");
    free(buf);
    return DSANA_EIO;
  }
  int len = snprintf(buf, BUF, "%s# Nodes: %" PRIu64 " Edges: %" PRIu64 "\n# FromNodeId\tToNodeId\n", header, g->n, g->m);
  char *p = buf + len;
  for (uint64_t v = 0; v < g->n && ok; v++) {
    for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1] && ok; k++) {
      p = put_u64(p, dsana_graph_orig_id(g, g->in_src[k]));
      *p++ = '\t';
      p = put_u64(p, dsana_graph_orig_id(g, v));
      *p++ = '\n';
      if (p - buf >= BUF) {
        size_t n = (size_t)(p - buf);
        ok = gz ? gzwrite(z, buf, (unsigned)n) == (int)n : fwrite(buf, 1, n, f) == n;
        p = buf;
      }
    }
  }
  size_t n = (size_t)(p - buf);
  if (ok && n)
    ok = gz ? gzwrite(z, buf, (unsigned)n) == (int)n : fwrite(buf, 1, n, f) == n;
  int saved = errno;
  if (gz)
    ok = gzclose(z) == Z_OK && ok;
  else
    ok = fclose(f) == 0 && ok;
  free(buf);
  if (!ok) {
    unlink(path);
    snprintf(err, errlen, "%s: write failed: %s", path, strerror(saved));
    return DSANA_EIO;
  }
  return 0;
}

static int cmd_gen(int argc, char **argv) {
  static const struct option lo[] = {{"scale", required_argument, NULL, OPT_SCALE},
                                     {"edge-factor", required_argument, NULL, OPT_EF},
                                     {"vertices", required_argument, NULL, OPT_VERTICES},
                                     {"edges", required_argument, NULL, OPT_EDGES},
                                     {"seed", required_argument, NULL, OPT_SEED},
                                     {"out", required_argument, NULL, OPT_OUT},
                                     {"dedup", no_argument, NULL, OPT_DEDUP},
                                     {"help", no_argument, NULL, 'h'},
                                     {0}};
  struct graph_cli c = {.cmd = "gen", .edge_factor = 16, .seed = 1};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana graph gen kron --scale S [--edge-factor E] [--seed X] --out FILE [--dedup]\n"
                      "       dsana graph gen uniform --vertices N --edges M [--seed X] --out FILE [--dedup]\n"
                      "kron: Graph500 Kronecker, 2^S vertices, E*2^S edges (default E 16), A=0.57 B=0.19 C=0.19,\n"
                      "ids permuted. uniform: M edges with independent uniform endpoints. Same seed (default 1),\n"
                      "same graph. FILE ending in .txt: SNAP edge list; .txt.gz: gzipped; else binary format.\n");
  if (rc >= 0)
    return rc;
  const char *kind = c.npos ? c.pos[0] : NULL;
  bool kron = kind && strcmp(kind, "kron") == 0, uni = kind && strcmp(kind, "uniform") == 0;
  if (!kron && !uni) {
    fprintf(stderr, "dsana graph gen: want 'kron' or 'uniform'%s%s (see --help)\n", kind ? ", not " : "",
            kind ? kind : "");
    return EXIT_USAGE;
  }
  if (c.npos > 1) {
    fprintf(stderr, "dsana graph gen: unexpected argument '%s'\n", c.pos[1]);
    return EXIT_USAGE;
  }
  if (!c.out) {
    fprintf(stderr, "dsana graph gen %s: --out FILE is required\n", kind);
    return EXIT_USAGE;
  }
  if (kron && (!c.has_scale || c.has_vertices || c.has_edges)) {
    fprintf(stderr, "dsana graph gen kron: takes --scale (and --edge-factor), not --vertices/--edges\n");
    return EXIT_USAGE;
  }
  if (uni && (!c.has_vertices || !c.has_edges || c.has_scale)) {
    fprintf(stderr, "dsana graph gen uniform: takes --vertices and --edges, not --scale\n");
    return EXIT_USAGE;
  }
  if (kron && (c.scale < 1 || c.scale > 31 || c.edge_factor < 1 || c.edge_factor > UINT32_MAX)) {
    fprintf(stderr, "dsana graph gen kron: --scale must be 1..31 and --edge-factor 1..%u\n", UINT32_MAX);
    return EXIT_USAGE;
  }
  char err[512], header[256];
  struct dsana_graph g;
  struct dsana_graph_opts opts = {.dedup = c.dedup};
  if (kron) {
    rc = dsana_graph_gen_kron((unsigned)c.scale, (unsigned)c.edge_factor, c.seed, &opts, &g, err, sizeof err);
    snprintf(header, sizeof header, "# dsana graph gen kron --scale %" PRIu64 " --edge-factor %" PRIu64
             " --seed %" PRIu64 "%s\n", c.scale, c.edge_factor, c.seed, c.dedup ? " --dedup" : "");
  } else {
    rc = dsana_graph_gen_uniform(c.vertices, c.edges, c.seed, &opts, &g, err, sizeof err);
    snprintf(header, sizeof header, "# dsana graph gen uniform --vertices %" PRIu64 " --edges %" PRIu64
             " --seed %" PRIu64 "%s\n", c.vertices, c.edges, c.seed, c.dedup ? " --dedup" : "");
  }
  if (rc) {
    fprintf(stderr, "dsana graph gen %s: %s\n", kind, err);
    return rc == DSANA_EINVAL ? EXIT_USAGE : EXIT_FAIL;
  }
  if (ends_with(c.out, ".txt") || ends_with(c.out, ".txt.gz"))
    rc = write_snap(&g, c.out, ends_with(c.out, ".gz"), header, err, sizeof err);
  else
    rc = dsana_graph_write_binary(&g, c.out, err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana: %s\n", err);
  else
    printf("%s: %" PRIu64 " vertices, %" PRIu64 " edges\n", c.out, g.n, g.m);
  dsana_graph_fini(&g);
  return rc ? EXIT_FAIL : EXIT_OK;
}

int cmd_graph_main(int argc, char **argv) {
  if (argc < 2) {
    fputs(GRAPH_USAGE, stderr);
    return EXIT_USAGE;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
    fputs(GRAPH_USAGE, stdout);
    return EXIT_OK;
  }
  if (strcmp(sub, "convert") == 0)
    return cmd_convert(argc - 1, argv + 1);
  if (strcmp(sub, "info") == 0)
    return cmd_info(argc - 1, argv + 1);
  if (strcmp(sub, "gen") == 0)
    return cmd_gen(argc - 1, argv + 1);
  fprintf(stderr, "dsana graph: unknown subcommand '%s' (want convert, info or gen)\n", sub);
  return EXIT_USAGE;
}
