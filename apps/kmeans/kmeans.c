/*
 * kmeans.c - k-means clustering (Lloyd's algorithm) on dsana: options,
 * the launcher's checks (prepare), setup and the app table. The design is
 * in kmeans.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/apps.h"
#include "kmeans.h"

static const struct dsana_app_option km_options[] = {
    {"k", "K", "number of clusters (required), at most the rows", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct km_app, k), .min = 1, .max = KM_MAX_K},
    {"init", "kmeans++|random", "initial centroids: k-means++ (scikit-learn's) or K distinct random rows",
     DSANA_OPT_PARAM, "kmeans++", .type = DSANA_VALUE_CHOICE, DSANA_FIELD(struct km_app, init)},
    {"init-centroids", "FILE", "initial centroids from FILE instead: K lines of D values (what --out writes)",
     DSANA_OPT_INPUT, NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct km_app, init_path)},
    {"seed", "S", "seed of --init", DSANA_OPT_PARAM, "1", .type = DSANA_VALUE_UINT, DSANA_FIELD(struct km_app, seed),
     .max = 0x1p53},
    {"max-iter", "N", "Lloyd iterations at most", DSANA_OPT_REPORT, "300", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct km_app, max_iter), .min = 1, .max = 1000000},
    {"tol", "T", "also stop when the objective changes by at most T relative (0: only when nothing moves)",
     DSANA_OPT_PARAM, "1e-4", .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct km_app, tol), .max = INFINITY},
    {"out", "FILE", "write the centroids: one line each, D values (%.17g); FILE.gz: gzip; -: stdout", DSANA_OPT_OUTPUT,
     NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct km_app, out_path)},
    {NULL}};

static int km_create(void **out) {
  struct km_app *a = calloc(1, sizeof *a);
  if (!a)
    return DSANA_ENOMEM;
  sup_data_init(&a->d);
  a->d.unlabelled = true;
  a->d.arg_name = "DATA";
  int rc = dsana_app_set_defaults(&kmeans_app, a); /* --init, --seed, --max-iter, --tol */
  if (rc) {
    free(a);
    return rc;
  }
  *out = a;
  return 0;
}

static void km_destroy(void *app) {
  struct km_app *a = app;
  if (!a)
    return;
  km_data_fini(a);
  free(a->init_c);
  free(a);
}

/* Options: their rows above; the one positional argument, DATA. */
static int km_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  struct km_app *a = app;
  if (name)
    return dsana_app_parse_option(km_options, a, name, value, err, errlen);
  return sup_data_set_train(&a->d, value, err, errlen);
}

/* In the process that starts the job: every row checked, the shape
 * checked against --k, text converted once to a binary copy every role
 * maps, the initial centroids made once (the roles it forks inherit them;
 * roles started on their own, or run as its threads, make their own). */
static int km_prepare(void *app, char *err, size_t errlen) {
  struct km_app *a = app;
  if (!a->d.train_path[0]) {
    snprintf(err, errlen, "missing DATA argument");
    return DSANA_EUSAGE;
  }
  if (!a->k) {
    snprintf(err, errlen, "--k K is required (the number of clusters)");
    return DSANA_EUSAGE;
  }
  int rc = km_load(a, true, err, errlen);
  if (!rc)
    rc = sup_data_convert(&a->d, "dsana kmeans", err, errlen);
  return rc ? rc : km_seed(a, err, errlen);
}

/* Every role: the data (a binary file mapped), its tasks and tables; then
 * the pages that pass touched leave the role's memory. */
static int km_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct km_app *a = app;
  int rc = km_load(a, false, err, errlen);
  if (!rc)
    rc = km_declare(a, job, err, errlen);
  sup_data_forget_pages(&a->d);
  return rc;
}

const struct dsana_app kmeans_app = {
    .name = "kmeans",
    .summary = "k-means clustering (Lloyd's algorithm, k-means++ or given initial centroids, exact)",
    .args = "DATA",
    .help = "DATA: libsvm/svmlight text (plain or .gz; indices from 1; labels are read and ignored) or a dsana\n"
            "binary dataset (dsana data convert; Fashion-MNIST: dsana data convert --idx IMAGES LABELS OUT).\n"
            "Rows are points of D = the largest feature index dimensions (absent features are 0).\n"
            "Lloyd's algorithm as scikit-learn's KMeans(algorithm='lloyd'): each iteration assigns every row\n"
            "to its nearest centroid (squared Euclidean distance, ties to the lowest index) and moves each\n"
            "centroid to the mean of its rows; a cluster left without rows keeps its centroid (scikit-learn\n"
            "moves it to a far point instead). It stops when no row changes cluster or no centroid moves,\n"
            "when the objective (the sum of squared distances) changes by at most --tol relative to the\n"
            "iteration before (--tol 0: never), or after --max-iter iterations.\n"
            "Initial centroids: --init-centroids FILE, else --init kmeans++ (scikit-learn's greedy k-means++:\n"
            "the first centre a random row, then 2 + ln K candidates per centre drawn with probability\n"
            "proportional to the squared distance, the best kept) or random (K distinct rows), from --seed.\n"
            "Figures per iteration: objective (of the centroids the iteration assigned rows to), changed\n"
            "(rows whose cluster changed), empty (clusters without rows), shift (sum of the centroids'\n"
            "squared moves), moved (centroids that moved); the residual is the objective's relative change\n"
            "(1 at the first iteration). The summary line gives the objective of the centroids --out writes\n"
            "(scikit-learn's inertia_) and the iterations (its n_iter_). The centroids are bit-identical for\n"
            "any --workers, --servers, --threads, --mode, chunk size or straggler pattern.\n",
    .options = km_options,
    .create = km_create,
    .destroy = km_destroy,
    .set_option = km_set_option,
    .prepare = km_prepare,
    .setup = km_setup,
    .init = km_init,
    .run_task = km_run_task,
    .finish = km_finish,
    .reduce = km_reduce,
    .output = km_output,
};
