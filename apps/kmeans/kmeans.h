/*
 * kmeans.h - private to the k-means app: its options, data and the layout
 * of its tables, sums and globals, shared by
 *   kmeans.c     options, prepare, setup and the app table
 *   km_data.c    the data set (apps/common/sup_data.h, unlabelled), tasks, declarations
 *   km_file.c    reading a centroid file (--init-centroids)
 *   km_seed.c    the initial centroids: k-means++, random rows or the file
 *   km_kernel.c  the nearest centroid of a row (pure)
 *   km_task.c    a task: assign its rows, sum them per cluster, the objective
 *   km_server.c  init(), and finish(): the next centroids from the sums
 *   km_reduce.c  reduce(): objective, convergence, metrics
 *   km_output.c  output(): the centroid file, the final objective, the summary
 *
 * Lloyd's algorithm (scikit-learn's KMeans(algorithm='lloyd')): iteration t
 * (1, 2, ...) assigns every row to its nearest centroid of iteration t-1
 * (squared Euclidean distance, ties to the lowest index) and makes the
 * means of the clusters iteration t's centroids; a cluster without rows
 * keeps its centroid (scikit-learn moves it to a far point instead).
 * Iteration t reports the objective of the centroids it assigned to (the
 * sum of the rows' squared distances to them, scikit-learn's inertia of
 * iteration t-1's centroids). It converges when no row changed cluster
 * (scikit-learn's "strict convergence") or no centroid moved (its center
 * shift of 0, with tol=0) or, with --tol T > 0, when the objective
 * changed by at most T relative to the iteration before; else --max-iter
 * stops it. The run writes the last iteration's centroids, and
 * its summary gives their objective (one more assignment pass, serial, in
 * the scheduler's output()).
 *
 * Tables (ids in declaration order):
 *   centroids DERIVED  K keys x D     what tasks read; init(): the initial
 *                                     centroids, finish(): the means
 *   sums      SUM      K keys x D+1   per cluster: the sums of its rows'
 *                                     coordinates, then its row count
 *   labels    ASSIGN   N keys x 1     each row's cluster (-1 at first): a
 *                                     task reads its rows' previous labels
 *                                     and writes their new ones
 * centroids and sums share a key space (K keys): finish() sees both.
 *
 * Exactness: a task adds its rows' coordinates in double over fixed blocks
 * of rows (km_block_rows(N) rows, aligned on the row index, so a block's
 * contents do not depend on how rows are split into tasks; tasks are cut
 * at block edges) and pushes each block's partial exactly
 * (dsana_push_xsum). Distances, counts and shifts are summed exactly too.
 * So the centroids are bit-identical for any worker, server, thread or
 * task count, mode, chunk size or straggler pattern.
 *
 * Costs: a task holds the centroids twice (as read, and transposed for
 * the kernel) and its exact push of K x (D+1) sums (32 bytes each): dense
 * in D, which suits data such as images; data with millions of sparse
 * features would want sparse pushes (dsana_push_xsum_keys) instead.
 */
#ifndef DSANA_APPS_KMEANS_H
#define DSANA_APPS_KMEANS_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/common/cpu.h"
#include "apps/common/sup_data.h"
#include "dsana/dataset.h"
#include "dsana/dsana.h"

#define KM_PATH_MAX 1024
#define KM_MAX_K (1u << 24) /* clusters at most (and at most the rows) */
#define KM_BLOCK_MIN 64     /* rows per exact partial: a power of two ... */
#define KM_BLOCK_MAX 1024   /* ... between these, about N / 128 */

enum { KM_T_CENT = 0, KM_T_SUMS = 1, KM_T_LABELS = 2 };
/* sums: tasks (0, 1), finish() (2, 3, 4) */
enum { KM_SUM_OBJ = 0, KM_SUM_CHANGED, KM_SUM_EMPTY, KM_SUM_SHIFT, KM_SUM_MOVED, KM_N_SUMS };
/* globals: what reduce() keeps between iterations (checkpoints carry them) */
enum { KM_G_PREV_OBJ = 0 };

enum km_init { KM_INIT_PLUSPLUS = 0, KM_INIT_RANDOM = 1 };

struct km_app {
  /* options */
  char out_path[KM_PATH_MAX], init_path[KM_PATH_MAX];
  uint64_t k, seed;
  enum km_init init;
  double tol;
  uint32_t max_iter;
  /* data (every role): DATA is d.train_path, its rows d.train (unlabelled,
   * no test set); d.train_checked: every row checked (else a task checks
   * its own) */
  struct sup_data d;
  uint64_t block; /* rows per exact partial sum */
  uint32_t n_tasks;
  uint8_t *checked; /* per task: its rows checked (a mapped file) */
  double *init_c;   /* K x D initial centroids (km_seed.c), NULL until made */
  /* the scheduler's: what the last reduce() saw, for the summary */
  double last_changed, last_moved, last_rel;
};

/* km_data.c */
/* Read DATA once (every row checked when `check`, else a binary file is
 * mapped and its rows checked by whoever reads them). */
int km_load(struct km_app *a, bool check, char *err, size_t errlen);
/* Check every row of a mapped file before reading them all (seeding, the
 * final objective). */
int km_validate(struct km_app *a, char *err, size_t errlen);
int km_declare(struct km_app *a, struct dsana_job *job, char *err, size_t errlen);
void km_data_fini(struct km_app *a);
/* Rows per exact partial sum for a data set of n rows. */
uint64_t km_block_rows(uint64_t n);

/* km_file.c */
/* Read k centroids of d values each from path into c (k x d, the caller's):
 * one line each, values separated by spaces, tabs or commas; blank lines
 * and lines starting with '#' are skipped; plain or gzip. One line in err
 * naming the file and line on failure (DSANA_EIO, DSANA_EFORMAT). */
int km_read_centroids(const char *path, uint64_t k, uint64_t d, double *c, char *err, size_t errlen);

/* km_seed.c */
/* k-means++ as scikit-learn's (greedy: 2 + floor(ln k) candidates per
 * centre, drawn with probability proportional to D(x)^2, the one that
 * lowers the potential most kept); the first centre a uniformly random
 * row. Serial, deterministic for a seed. c: k x n_features (the caller's).
 * DSANA_ENOMEM. */
int km_seed_plusplus(const struct dsana_dataset *ds, uint64_t k, uint64_t seed, double *c);
/* k distinct rows drawn uniformly (the first k of a seeded shuffle). */
int km_seed_random(const struct dsana_dataset *ds, uint64_t k, uint64_t seed, double *c);
/* The app's initial centroids into a->init_c, once (file, k-means++ or
 * random; every row checked first). */
int km_seed(struct km_app *a, char *err, size_t errlen);

/* km_kernel.c */
/* Centroids as the distance kernel reads them: transposed, each feature's
 * kp values side by side (centroid c's feature j at ct[j * kp + c]; kp
 * is k rounded up to a multiple of KM_GROUP, the padding 0), and their
 * squared norms. */
#define KM_GROUP 4
struct km_centres {
  uint32_t k, kp;
  uint64_t d;
  double *ct, *cc;
};
/* From k x d centroids (c[c * d + j]); DSANA_ENOMEM. Free with km_centres_fini. */
int km_centres_init(struct km_centres *cs, const double *c, uint32_t k, uint64_t d);
void km_centres_fini(struct km_centres *cs);
/* The centroid nearest to row i of ds (ties: the lowest index) and its
 * squared distance |x|^2 - 2 x.c + |c|^2 (at least 0) into *dist; dot:
 * kp doubles of scratch. Any thread. */
uint32_t km_nearest(const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t i, double *dot, double *dist);
/* The same by the kernel of `level` (at most app_cpu_detect()'s): the
 * same bits at every level. For tests and benchmarks. */
uint32_t km_nearest_at(enum app_cpu level, const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t i,
                       double *dot, double *dist);
/* The sum of every row's squared distance to its nearest centroid, in
 * row order, exactly (dsana_xsum). DSANA_ENOMEM. */
int km_objective(const struct dsana_dataset *ds, const double *c, uint32_t k, double *obj);

/* km_task.c */
int km_run_task(void *app, struct dsana_task_ctx *ctx);

/* km_server.c */
int km_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values);
int km_finish(void *app, struct dsana_shard_ctx *ctx);

/* km_reduce.c */
int km_reduce(void *app, struct dsana_reduce_ctx *ctx);

/* km_output.c */
int km_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen);

#endif
