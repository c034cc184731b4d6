/*
 * pr_options.c - PageRank's command-line options, the launcher's check and
 * conversion of the input (prepare), and loading it in every role.
 *
 * The launcher reads the graph once with the options that shape it
 * (--dedup, --weighted, --undirected) and writes a binary copy into an
 * anonymous file (dsana_outfile_anon): the roles it forks map it through
 * their inherited descriptor, and nothing is left on disk however the run
 * ends. Roles started on their own read GRAPH themselves.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsana/outfile.h"
#include "apps/common/app_opts.h"
#include "apps/common/prepared.h"
#include "pagerank.h"

const struct dsana_app_option pr_options[] = {
    {"damping", "D", "damping factor", DSANA_OPT_PARAM, "0.85", .type = DSANA_VALUE_DOUBLE,
     DSANA_FIELD(struct pr_app, damping), .max = 1, .open = DSANA_OPEN_MIN | DSANA_OPEN_MAX},
    {"tol", "TOL", "stop when the L1 change of the ranks is below TOL", DSANA_OPT_PARAM, "1e-6",
     .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct pr_app, tol), .max = INFINITY},
    {"max-iter", "N", "stop after N iterations at most (warns if still above --tol)", DSANA_OPT_REPORT, "100",
     .type = DSANA_VALUE_UINT, DSANA_FIELD(struct pr_app, max_iter), .min = 1, .max = UINT32_MAX},
    {"out", "FILE", "write 'vertex<TAB>rank' per vertex (original ids; FILE.gz: gzip; -: stdout)", DSANA_OPT_OUTPUT,
     NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct pr_app, out_path)},
    {"top", "K", "print the K highest-ranked vertices (0 = none)", DSANA_OPT_REPORT, "10", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct pr_app, top_k), .max = UINT32_MAX},
    {"weighted", NULL, "the third column is a positive edge weight (networkx weight='weight')", DSANA_OPT_PARAM, NULL,
     .type = DSANA_VALUE_FLAG, DSANA_FIELD(struct pr_app, weighted)},
    {"undirected", NULL, "each edge u v is both u->v and v->u (an undirected graph)", DSANA_OPT_PARAM, NULL,
     .type = DSANA_VALUE_FLAG, DSANA_FIELD(struct pr_app, undirected)},
    {"personalization", "FILE", "'vertex weight' lines: teleports and dangling mass follow them", DSANA_OPT_INPUT, NULL,
     .type = DSANA_VALUE_PATH, DSANA_FIELD(struct pr_app, pers_path)},
    {"dedup", NULL, "collapse duplicate edges, the last weight wins (a networkx DiGraph)", DSANA_OPT_PARAM, NULL,
     .type = DSANA_VALUE_FLAG, DSANA_FIELD(struct pr_app, dedup)},
    {NULL}};

/* Options: their rows above; the one positional argument, GRAPH. */
int pr_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  struct pr_app *pr = app;
  if (name)
    return dsana_app_parse_option(pr_options, pr, name, value, err, errlen);
  int rc = pr->graph_path[0] ? DSANA_EINVAL : app_set_path(pr->graph_path, sizeof pr->graph_path, value);
  if (rc)
    snprintf(err, errlen, "unexpected argument '%s' (one GRAPH only)", value);
  return rc;
}

/* The reader's warnings (extra columns ignored ...), one line each. */
static void pr_warn(void *ctx, const char *msg) {
  (void)ctx;
  fprintf(stderr, "dsana pagerank: warning: %s\n", msg);
}

static struct dsana_graph_opts pr_graph_opts(const struct pr_app *pr, bool warn) {
  return (struct dsana_graph_opts){
      .dedup = pr->dedup, .weighted = pr->weighted, .undirected = pr->undirected, .warn = warn ? pr_warn : NULL};
}

/* The options that shape the graph read from a file: the key of the
 * binary copy prepare() makes (apps/common/prepared.h). */
static void pr_shape(const struct pr_app *pr, char *shape, size_t len) {
  snprintf(shape, len, "dedup=%d weighted=%d undirected=%d", pr->dedup, pr->weighted, pr->undirected);
}

static int pr_check_graph(const struct pr_app *pr, const struct dsana_graph *g, char *err, size_t errlen) {
  if (g->m == 0 || g->n == 0) {
    snprintf(err, errlen, "%s: empty graph (no edges)", pr->graph_path);
    return DSANA_EFORMAT;
  }
  if (pr->weighted && !g->in_w) {
    snprintf(err, errlen, "%s: --weighted, but the graph has no edge weights", pr->graph_path);
    return DSANA_EFORMAT;
  }
  return 0;
}

/* The whole graph's range check, its message naming the graph's file. */
static int check_whole(const struct pr_app *pr, const struct dsana_graph *g, char *err, size_t errlen) {
  char why[400];
  int rc = dsana_graph_check_range(g, 0, g->n, why, sizeof why);
  if (rc)
    snprintf(err, errlen, "%s: %s", pr->graph_path, why);
  return rc;
}

/* In the launcher: read the graph once with the options that shape it,
 * check it whole, and keep a binary copy every role maps (text formats,
 * and binary files --dedup rebuilds); load the personalization. */
int pr_prepare(void *app, char *err, size_t errlen) {
  struct pr_app *pr = app;
  if (!pr->graph_path[0]) {
    snprintf(err, errlen, "missing GRAPH argument");
    return DSANA_EUSAGE;
  }
  struct dsana_graph_opts opts = pr_graph_opts(pr, true);
  struct dsana_graph g;
  int rc = dsana_graph_open(pr->graph_path, &opts, &g, err, errlen);
  if (rc)
    return rc;
  if ((rc = pr_check_graph(pr, &g, err, errlen)) == 0 && pr->pers_path[0] && !pr->pers)
    rc = dsana_graph_load_personalization(pr->pers_path, &g, &pr->pers, err, errlen);
  if (!rc && dsana_graph_is_binary(pr->graph_path) && !pr->dedup) {
    rc = check_whole(pr, &g, err, errlen);
    pr->validated = rc == 0;
  } else if (!rc &&
             (rc = dsana_outfile_anon(pr->converted, sizeof pr->converted, &pr->converted_fd, err, errlen)) == 0) {
    rc = dsana_graph_write_binary(&g, pr->converted, err, errlen);
    pr->validated = rc == 0;
    char shape[64];
    pr_shape(pr, shape, sizeof shape);
    if (!rc && prepared_note(pr->graph_path, shape, pr->converted) != 0)
      fprintf(stderr, "dsana pagerank: warning: %s: roles run as threads will read it again\n", pr->graph_path);
  }
  dsana_graph_fini(&g);
  return rc;
}

int pr_load(struct pr_app *pr, char *err, size_t errlen) {
  if (pr->loaded)
    return 0;
  /* this state's binary copy, else (a role run as a thread of the process
   * that made one) the copy prepare() made, else the graph itself */
  char shape[64], found[PR_PATH_MAX];
  pr_shape(pr, shape, sizeof shape);
  const char *path = pr->converted[0]                                            ? pr->converted
                     : prepared_find(pr->graph_path, shape, found, sizeof found) ? found
                                                                                 : pr->graph_path;
  struct dsana_graph_opts opts = pr_graph_opts(pr, false); /* the launcher warned */
  bool map = path != pr->graph_path || (dsana_graph_is_binary(path) && !pr->dedup && !pr->undirected);
  int rc = map ? dsana_graph_map_binary(path, &pr->g, err, errlen) : dsana_graph_open(path, &opts, &pr->g, err, errlen);
  if (rc)
    return rc;
  pr->loaded = true;
  if (!pr->validated && (rc = check_whole(pr, &pr->g, err, errlen)) != 0)
    return rc;
  pr->validated = true;
  if ((rc = pr_check_graph(pr, &pr->g, err, errlen)) != 0)
    return rc;
  if (pr->pers_path[0] && !pr->pers)
    rc = dsana_graph_load_personalization(pr->pers_path, &pr->g, &pr->pers, err, errlen);
  return rc;
}
