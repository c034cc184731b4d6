/*
 * km_output.c - the end of a k-means run, in the scheduler: the centroid
 * file and the summary line.
 *
 * Centroid file (--out, through dsana/outfile.h: a regular file replaced
 * atomically, a FIFO or device written in place, gzip for a name ending
 * in ".gz"): K lines, centroid 0 first, each D values (%.17g, so they read
 * back exactly) separated by spaces: what --init-centroids reads.
 *
 * Summary: the objective of these centroids, scikit-learn's inertia_ (one
 * more assignment pass, serial, over the rows this process has: the last
 * iteration reported the objective of the centroids before its update),
 * the iterations (scikit-learn's n_iter_) and why the run stopped.
 */
#include <stdio.h>

#include "dsana/outfile.h"
#include "kmeans.h"

static int write_centroids(const struct km_app *a, const double *c, char *err, size_t errlen) {
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(a->out_path, DSANA_OUT_GZIP_SUFFIX, &o, err, errlen);
  if (rc)
    return rc;
  uint64_t d = a->d.train.n_features;
  int bad = 0;
  for (uint64_t m = 0; m < a->k && !bad; m++)
    for (uint64_t j = 0; j < d && !bad; j++)
      bad = dsana_outfile_printf(o, "%.17g%c", c[m * d + j], j + 1 < d ? ' ' : '\n') < 0;
  return dsana_outfile_commit(o, err, errlen); /* a failed write is kept by o and reported here */
}

static void print_summary(const struct km_app *a, double obj, const struct dsana_run_summary *run) {
  char why[160];
  if (run->converged && a->last_changed == 0)
    snprintf(why, sizeof why, "converged: no row changed cluster");
  else if (run->converged && a->last_moved == 0)
    snprintf(why, sizeof why, "converged: no centroid moved");
  else if (run->converged)
    snprintf(why, sizeof why, "converged: the objective changed by %.3g <= --tol %g", a->last_rel, a->tol);
  else
    snprintf(why, sizeof why, "--max-iter %u reached, %.0f rows still changing", a->max_iter, a->last_changed);
  printf("kmeans: %llu rows, %llu features, %llu clusters: objective %.17g after %u iteration%s (%s), "
         "%.4f s/iteration\n",
         (unsigned long long)a->d.train.n_rows, (unsigned long long)a->d.train.n_features, (unsigned long long)a->k,
         obj, run->iters, run->iters == 1 ? "" : "s", why, run->median_iter_s);
  fflush(stdout);
}

int km_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen) {
  struct km_app *a = app;
  (void)n, (void)width;
  int rc = a->out_path[0] ? write_centroids(a, values, err, errlen) : 0;
  if (rc || run->quiet)
    return rc;
  double obj;
  if ((rc = km_validate(a, err, errlen)) != 0)
    return rc;
  if ((rc = km_objective(&a->d.train, values, (uint32_t)a->k, &obj)) != 0) {
    snprintf(err, errlen, "%s: out of memory for the final objective", a->d.train_path);
    return rc;
  }
  print_summary(a, obj, run);
  return 0;
}
