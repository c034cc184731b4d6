/*
 * pr_output.c - PageRank results: the --out file (dsana/outfile.h: a
 * regular file replaced atomically, a FIFO or device written in place,
 * gzip for a name ending in ".gz") and the top-K table with the run's
 * speed on stdout.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dsana/outfile.h"
#include "pagerank.h"

static int pr_write_file(const struct pr_app *pr, const double *rank, uint64_t n, char *err, size_t errlen) {
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(pr->out_path, DSANA_OUT_GZIP_SUFFIX, &o, err, errlen);
  for (uint64_t v = 0; !rc && v < n; v++)
    rc = dsana_outfile_printf(o, "%llu\t%.12g\n", (unsigned long long)dsana_graph_orig_id(&pr->g, v), rank[v]);
  return o ? dsana_outfile_commit(o, err, errlen) : rc;
}

/* Keep the k best (rank desc, id asc) in top[0..k) by insertion. */
static uint32_t pr_select_top(const double *rank, uint64_t n, uint32_t k, uint64_t *top) {
  uint32_t have = 0;
  for (uint64_t v = 0; v < n; v++) {
    if (have == k && rank[v] <= rank[top[k - 1]])
      continue;
    uint32_t at = have < k ? have++ : k - 1;
    while (at > 0 && rank[top[at - 1]] < rank[v]) {
      top[at] = top[at - 1];
      at--;
    }
    top[at] = v;
  }
  return have;
}

static void pr_print_top(const struct pr_app *pr, const double *rank, uint64_t n) {
  uint32_t k = pr->top_k;
  if (k == 0)
    return;
  uint64_t *top = malloc(sizeof *top * k);
  if (!top)
    return;
  uint32_t got = pr_select_top(rank, n, k, top);
  /* 19 columns hold any %.12g ("-1.23456789012e-300"): the table stays aligned */
  printf("top %u vertices by rank:\n%6s %20s %19s\n", got, "#", "vertex", "rank");
  for (uint32_t i = 0; i < got; i++)
    printf("%6u %20llu %19.12g\n", i + 1, (unsigned long long)dsana_graph_orig_id(&pr->g, top[i]), rank[top[i]]);
  free(top);
}

int pr_output(void *app, const double *rank, uint64_t n, uint32_t width, const struct dsana_run_summary *run, char *err,
              size_t errlen) {
  struct pr_app *pr = app;
  (void)width; /* ranks are one value per vertex */
  if (pr->out_path[0]) {
    int rc = pr_write_file(pr, rank, n, err, errlen);
    if (rc)
      return rc;
  }
  if (run->quiet)
    return 0;
  pr_print_top(pr, rank, n);
  double eps = run->median_iter_s > 0 ? (double)pr->g.m / run->median_iter_s : 0;
  printf("pagerank: %llu vertices, %llu edges, %u iterations, residual %.3e, %.4f s/iteration, %.3g edges/s\n",
         (unsigned long long)n, (unsigned long long)pr->g.m, run->iters, run->residual, run->median_iter_s, eps);
  fflush(stdout);
  return 0;
}
