/* paths.c - checking a run's input and output files up front (paths.h). */
#include "cli/core/paths.h"

#include <stdio.h>
#include <string.h>

#include "dsana/outfile.h"

#define PATHS_MAX (MSG_MAX_ARGS + 8)

/* A file of the run and how the user named it ("--out", "GRAPH"). */
struct named_path {
  char label[MSG_NAME_MAX + 8];
  const char *path;
};

struct run_paths {
  struct named_path in[PATHS_MAX], out[PATHS_MAX];
  int n_in, n_out;
};

static void add(struct named_path *list, int *n, const char *label, const char *path) {
  if (!path || !path[0] || *n >= PATHS_MAX)
    return;
  snprintf(list[*n].label, sizeof list[*n].label, "%s", label);
  list[*n].path = path;
  (*n)++;
}

static enum dsana_option_kind kind_of(const struct dsana_app *app, const char *name) {
  for (size_t i = 0; app->options && app->options[i].name; i++)
    if (strcmp(app->options[i].name, name) == 0)
      return app->options[i].kind;
  return DSANA_OPT_PARAM;
}

static void collect(const struct cli_run *r, struct run_paths *p) {
  memset(p, 0, sizeof *p);
  for (uint32_t i = 0; i < r->args.n; i++) {
    const char *name = r->args.name[i], *value = r->args.value[i];
    char label[MSG_NAME_MAX + 8];
    snprintf(label, sizeof label, "--%s", name);
    if (!name[0])
      add(p->in, &p->n_in, r->app->args, value);
    else if (kind_of(r->app, name) == DSANA_OPT_INPUT)
      add(p->in, &p->n_in, label, value);
    else if (kind_of(r->app, name) == DSANA_OPT_OUTPUT)
      add(p->out, &p->n_out, label, value);
  }
  add(p->in, &p->n_in, "--scenario", r->cfg.scenario_path);
  add(p->in, &p->n_in, "--token-file", r->cfg.token_path);
  add(p->out, &p->n_out, "--metrics", r->cfg.metrics_path);
  add(p->out, &p->n_out, "--trace", r->cfg.trace_path);
}

/* Outputs that clash: one names an input, or two replace one file. */
static int check_clashes(const char *who, const struct run_paths *p) {
  for (int i = 0; i < p->n_out; i++) {
    const struct named_path *o = &p->out[i];
    for (int j = 0; j < p->n_in; j++)
      if (dsana_outfile_same(o->path, p->in[j].path)) {
        fprintf(stderr, "dsana %s: %s %s is the input %s %s: refusing to overwrite an input\n", who, o->label, o->path,
                p->in[j].label, p->in[j].path);
        return DSANA_EUSAGE;
      }
    /* streams written in place (stdout, a FIFO, /dev/null) may be shared */
    for (int j = i + 1; j < p->n_out; j++)
      if (dsana_outfile_replaces(o->path) && dsana_outfile_same(o->path, p->out[j].path)) {
        fprintf(stderr, "dsana %s: %s and %s name the same file %s\n", who, o->label, p->out[j].label, o->path);
        return DSANA_EUSAGE;
      }
  }
  return 0;
}

/* An output named "-": stdout carries data, the reports go to stderr. */
static int claim_stdout(const char *who, const struct run_paths *p) {
  for (int i = 0; i < p->n_out; i++)
    if (strcmp(p->out[i].path, "-") == 0) {
      int e = dsana_outfile_stdout_for_data();
      if (e)
        fprintf(stderr, "dsana %s: %s -: cannot keep standard output for the data: %s\n", who, p->out[i].label,
                strerror(e));
      return e ? DSANA_EIO : 0;
    }
  return 0;
}

int cli_check_paths(const struct cli_run *r) {
  struct run_paths p;
  char err[1200];
  const char *who = cli_command(r);
  collect(r, &p);
  for (int i = 0; i < p.n_out; i++)
    if (dsana_outfile_check(p.out[i].path, err, sizeof err) != 0) {
      fprintf(stderr, "dsana %s: %s %s\n", who, p.out[i].label, err);
      return DSANA_EUSAGE;
    }
  if (r->cfg.checkpoint_dir[0] && dsana_outfile_check_dir(r->cfg.checkpoint_dir, err, sizeof err) != 0) {
    fprintf(stderr, "dsana %s: --checkpoint %s\n", who, err);
    return DSANA_EUSAGE;
  }
  int rc = check_clashes(who, &p);
  return rc ? rc : claim_stdout(who, &p);
}

int cli_check_predict_paths(const char *model, const char *data, const char *out) {
  struct run_paths p = {0};
  char err[1200];
  add(p.in, &p.n_in, "MODEL", model);
  add(p.in, &p.n_in, "DATA", data);
  add(p.out, &p.n_out, "--out", out);
  if (dsana_outfile_check(out, err, sizeof err) != 0) {
    fprintf(stderr, "dsana logreg predict: --out %s\n", err);
    return DSANA_EUSAGE;
  }
  int rc = check_clashes("logreg predict", &p);
  return rc ? rc : claim_stdout("logreg predict", &p);
}

int cli_check_tool_output(const char *who, const char *out, const char *const *ins, int n_ins) {
  struct run_paths p = {0};
  char err[1200];
  for (int i = 0; i < n_ins; i++)
    add(p.in, &p.n_in, "IN", ins[i]);
  add(p.out, &p.n_out, "OUT", out);
  if (dsana_outfile_check(out, err, sizeof err) != 0) {
    fprintf(stderr, "dsana %s: %s\n", who, err);
    return DSANA_EUSAGE;
  }
  return check_clashes(who, &p);
}
