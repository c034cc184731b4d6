/*
 * power.c - an app written outside the dsana tree, built against the
 * installed library only (dsana/dsana.h, dsana/launch.h, dsana/outfile.h):
 * the power iteration for the largest eigenvalue of the n x n symmetric
 * matrix A(i, j) = 1 / (1 + |i - j|), computed on the fly (no input file).
 *
 * Table Y (n keys, ASSIGN) holds y_t = A x_{t-1} with x = y / |y|. A task
 * owns rows [lo, hi): it reads all of y_{t-1}, writes its rows of y_t, and
 * adds exactly (dsana_xsum) its share of |y_t|^2 and of the Rayleigh
 * quotient x_{t-1} . A x_{t-1}. reduce() turns them into the norm (a global
 * the next iteration's tasks divide by) and the eigenvalue estimate;
 * the run stops when that moves less than --tol (relative). Every y_i is
 * one task's sum in a fixed order and the other sums are exact, so the
 * result is bit-identical for any worker count, server count, mode or
 * straggler pattern. output() writes the eigenvalue and the unit vector.
 *
 *   dsana-power power --n 1000 --out x.txt [--workers 3 --servers 2 ...]
 *
 * main() is the whole dsana command knowing this app: every runtime
 * option (--workers, --scenario, --metrics ...) and --help work.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dsana/dsana.h>
#include <dsana/launch.h>
#include <dsana/outfile.h>

enum { T_Y = 0 };                  /* the only table */
enum { S_NORM2 = 0, S_RQ = 1 };    /* the sums tasks add */
enum { G_NORM = 0, G_LAMBDA = 1 }; /* the globals reduce() sets */

struct power {
  uint64_t n;
  double tol;
  uint32_t max_iter;
  char out[4096];
  double lambda; /* the scheduler's: the last estimate, for output() */
};

/* Each row names its field and range: dsana_app_parse_option parses the
 * value there, and --help shows the range. */
static const struct dsana_app_option power_options[] = {
    {"n", "N", "matrix size", DSANA_OPT_PARAM, "1000", .type = DSANA_VALUE_UINT, DSANA_FIELD(struct power, n), .min = 1,
     .max = 100000},
    {"tol", "TOL", "stop when the eigenvalue moves less than TOL (relative); 0: run --max-iter", DSANA_OPT_REPORT,
     "1e-12", .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct power, tol), .max = INFINITY},
    {"max-iter", "K", "iteration cap", DSANA_OPT_REPORT, "100", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct power, max_iter), .max = UINT32_MAX},
    {"out", "FILE", "eigenvalue, then the unit eigenvector, one value a line", DSANA_OPT_OUTPUT, NULL,
     .type = DSANA_VALUE_PATH, DSANA_FIELD(struct power, out)},
    {NULL}};

static int power_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  if (!name) {
    snprintf(err, errlen, "unexpected argument '%s' (power takes no input file)", value);
    return DSANA_EINVAL;
  }
  return dsana_app_parse_option(power_options, app, name, value, err, errlen);
}

extern const struct dsana_app power_app;

static int power_create(void **app) {
  struct power *p = calloc(1, sizeof *p);
  *app = p;
  return !p ? DSANA_ENOMEM : dsana_app_set_defaults(&power_app, p);
}

static void power_destroy(void *app) { free(app); }

/* Row ranges of about equal size, as many as the workers asked for, each
 * writing its own rows of y and reading all of it; a task's cost is its
 * row count. Declarations keep their first error: one check at the end. */
static int power_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct power *p = app;
  dsana_job_add_table_id(job, T_Y, "y", p->n, 1, DSANA_RULE_ASSIGN);
  struct dsana_row_tasks rows = {
      .n_rows = p->n, .cost_row = 1, .tables = {{T_Y, DSANA_ROWS_WRITE | DSANA_ROWS_OWN}, {T_Y, DSANA_ROWS_READ}}};
  dsana_job_add_row_tasks(job, &rows, NULL, NULL);
  dsana_job_set_result_table(job, T_Y);
  dsana_job_set_sums(job, 2);
  dsana_job_set_convergence(job, p->tol, p->max_iter);
  return dsana_job_status(job, NULL, err, errlen);
}

/* y_0 = (1, ..., 1). */
static int power_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values) {
  (void)app, (void)table;
  for (uint64_t k = lo; k < hi; k++)
    values[k] = 1.0;
  return 0;
}

static int power_run_task(void *app, struct dsana_task_ctx *ctx) {
  const struct power *p = app;
  const double *y = dsana_read(ctx, T_Y);
  double *out = dsana_push_buf(ctx, T_Y);
  double norm = ctx->globals[G_NORM] > 0 ? ctx->globals[G_NORM] : sqrt((double)p->n); /* |y_0| */
  for (uint64_t i = ctx->lo; i < ctx->hi; i++) {
    double s = 0;
    for (uint64_t j = 0; j < p->n; j++)
      s += y[j] / (1.0 + fabs((double)i - (double)j));
    out[i] = s / norm; /* (A x)_i */
    dsana_xsum_add(&ctx->sums[S_NORM2], out[i] * out[i]);
    dsana_xsum_add(&ctx->sums[S_RQ], y[i] / norm * out[i]);
  }
  ctx->cost = (double)(ctx->hi - ctx->lo);
  return 0;
}

static int power_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  struct power *p = app;
  double lambda = ctx->sums[S_RQ], before = ctx->globals[G_LAMBDA];
  ctx->residual = fabs(lambda - before) / fabs(lambda);
  ctx->converged = ctx->iter > 1 && ctx->residual < p->tol;
  ctx->globals[G_NORM] = sqrt(ctx->sums[S_NORM2]);
  ctx->globals[G_LAMBDA] = lambda;
  p->lambda = lambda;
  return dsana_reduce_metric(ctx, "lambda", lambda);
}

static int power_output(void *app, const double *values, uint64_t n_keys, uint32_t width,
                        const struct dsana_run_summary *run, char *err, size_t errlen) {
  const struct power *p = app;
  double norm2 = 0;
  (void)width; /* 1 */
  for (uint64_t k = 0; k < n_keys; k++)
    norm2 += values[k] * values[k];
  if (!run->quiet)
    printf("lambda: %.15g after %u iterations\n", p->lambda, run->iters);
  if (!p->out[0])
    return 0;
  struct dsana_outfile *f;
  int rc = dsana_outfile_open(p->out, 0, &f, err, errlen);
  if (rc)
    return rc;
  dsana_outfile_printf(f, "%.17g\n", p->lambda);
  for (uint64_t k = 0; k < n_keys; k++)
    dsana_outfile_printf(f, "%.17g\n", values[k] / sqrt(norm2));
  return dsana_outfile_commit(f, err, errlen);
}

const struct dsana_app power_app = {
    .name = "power",
    .summary = "largest eigenvalue of A(i,j) = 1/(1+|i-j|) by power iteration (an out-of-tree example)",
    .args = "",
    .options = power_options,
    .create = power_create,
    .destroy = power_destroy,
    .set_option = power_set_option,
    .setup = power_setup,
    .init = power_init,
    .run_task = power_run_task,
    .reduce = power_reduce,
    .output = power_output,
};

int main(int argc, char **argv) {
  const struct dsana_app *apps[] = {&power_app};
  return dsana_main(argc, argv, apps, 1);
}
