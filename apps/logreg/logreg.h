/*
 * logreg.h - private to the logistic-regression app: its options, data and
 * the layout of its tables, sums and globals, shared by
 *   logreg.c    options, setup, the app table, output
 *   lr_data.c   the training and test sets, classes, tasks
 *   lr_keys.c   sparse models: a task's key list, built per run
 *   lr_kernel.c a task: loss, accuracy and exact gradient of its rows
 *   lr_rows.c   a dense model's inner loops: a row's scores and gradient
 *   lr_server.c finish(): dot products; update(): the L-BFGS vectors
 *   lr_opt.c    reduce(): line search and the two-loop recursion on scalars
 *   lr_sgd.c    --batch: mini-batch SGD (batches, step, its finish/update/reduce)
 *   lr_model.c  the model file, and scoring new data with it
 *   lr_posmap.c sparse tasks: a pool of feature -> position-in-keys maps
 *
 * Objective (scikit-learn's LogisticRegression with C = 1/l2):
 *   f(w) = (1/N) [ sum_i loss_i(w) + (l2/2) |w|^2 ],  the bias not penalised,
 * loss_i the logistic loss (two classes: one weight vector, sigmoid) or
 * the softmax cross-entropy (K > 2 classes: K weight vectors).
 *
 * Optimiser: L-BFGS, vector-free (Chen, Wang, Zhou, Gao, NIPS 2014): every
 * vector (the point x, the gradient, the direction d, the last m pairs
 * s = x' - x, y = g' - g) lives on the servers, sharded like the model;
 * the scheduler holds only their Gram matrix (in the globals, so
 * checkpoints carry it) and runs the two-loop recursion on it, giving the
 * direction as coefficients of the basis [s_0..s_m-1, y_0..y_m-1, g] that
 * every server applies to its shard. One iteration = one evaluation of f
 * and its gradient at the trial point x = xb + alpha d; a backtracking
 * line search (Armijo) accepts it or shortens alpha.
 *
 * Tables (n_keys = F + 1: features, then the bias; width K' = 1 or K):
 *   x     DERIVED  the trial point (what tasks read); written by update()
 *   g     SUM      sum of the examples' loss gradients at x (exact partials)
 *   state STATE    per key: xb, gb, d, gt, s[m], y[m] (each K' wide);
 *                  with --batch only gt (K' wide), see lr_sgd.c
 * Exactness: each task adds its gradient in double over fixed blocks of
 * a->block rows (aligned on the row index, so block contents do not depend
 * on how rows are split into tasks) and pushes the blocks' exact partial
 * sums: the model is bit-identical for any worker, server or task count.
 */
#ifndef DSANA_APPS_LOGREG_H
#define DSANA_APPS_LOGREG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "apps/common/sup_data.h"
#include "dsana/dataset.h"
#include "dsana/dsana.h"

#define LR_PATH_MAX 1024
#define LR_BLOCK_MIN 256            /* rows per exact partial sum (dense models): */
#define LR_BLOCK_MAX 2048           /* a power of two in this range, lr_block_rows() */
#define LR_MEM 10                   /* L-BFGS pairs kept */
#define LR_DENSE_MAX_FEATURES 65536 /* above: tasks read and push key lists */
#define LR_MAX_CLASSES 1024

enum { LR_T_X = 0, LR_T_G = 1, LR_T_STATE = 2 };
/* state slots (each K' wide) */
enum { LR_S_XB = 0, LR_S_GB = 1, LR_S_D = 2, LR_S_GT = 3, LR_S_HIST = 4 }; /* s_i at 4+i, y_i at 4+m+i */
#define LR_STATE_SLOTS (LR_S_HIST + 2 * LR_MEM)

/* sums: tasks (0..3), finish() (4..) */
enum {
  LR_SUM_LOSS = 0,
  LR_SUM_CORRECT,
  LR_SUM_TLOSS,
  LR_SUM_TCORRECT,
  LR_SUM_XX, /* |x|^2 without the bias */
  LR_SUM_GD, /* gt . d */
  LR_SUM_GG, /* gt . gt */
  LR_SUM_SS, /* s . s  (s = x - xb) */
  LR_SUM_SY, /* s . y  (y = gt - gb) */
  LR_SUM_YY,
  LR_SUM_GS,  /* gt . s */
  LR_SUM_GY,  /* gt . y */
  LR_SUM_HIST /* per history pair i: s.s_i, s.y_i, y.s_i, y.y_i, gt.s_i, gt.y_i */
};
#define LR_SUM_PER_PAIR 6
#define LR_N_SUMS (LR_SUM_HIST + LR_SUM_PER_PAIR * LR_MEM)

/* globals: decisions for update() and the optimiser's scalars */
enum {
  LR_G_ACTION = 0,                        /* LR_ACT_* */
  LR_G_ALPHA,                             /* step of the next trial */
  LR_G_SLOT,                              /* history slot the accepted pair goes to, -1: none */
  LR_G_FINAL,                             /* 1: stop, x = xb */
  LR_G_PAIRS,                             /* pairs in the history */
  LR_G_NEWEST,                            /* slot of the newest pair */
  LR_G_FB,                                /* f at xb */
  LR_G_GBD,                               /* gb . d */
  LR_G_TRIES,                             /* trials of the current line search */
  LR_G_GNORM,                             /* |gb| */
  LR_G_DELTA,                             /* 2m+1 coefficients of d over [s, y, g] */
  LR_G_GRAM = LR_G_DELTA + 2 * LR_MEM + 1 /* (2m+1)^2 Gram matrix of [s, y, g] */
};
#define LR_BASIS (2 * LR_MEM + 1)
enum { LR_ACT_INIT = 0, LR_ACT_ACCEPT = 1, LR_ACT_REJECT = 2 };

struct lr_task_data {
  uint64_t lo, hi; /* rows of its set */
  uint64_t *keys;  /* sparse models: features touched + the bias, ascending (lr_keys.c) */
  uint64_t n_keys;
  uint32_t key_refs; /* runs of the task holding keys */
  bool checked;      /* rows passed dsana_dataset_check */
};

#define LR_POSMAPS 256 /* position maps at most: tasks running at once in a worker */
struct lr_posmaps {
  pthread_mutex_t lock;      /* guards the rest (compute threads take and put maps) */
  uint32_t *map[LR_POSMAPS]; /* n_features entries each */
  bool busy[LR_POSMAPS];
  uint32_t n;
};

struct lr_app {
  /* options */
  struct sup_data d; /* the training and test sets' paths, data and classes */
  char model_out[LR_PATH_MAX];
  double l2, tol;
  uint32_t max_iter;
  uint64_t batch; /* rows per SGD step; 0: full-batch L-BFGS */
  uint64_t seed;  /* of the SGD batches */
  double lr;      /* SGD's base learning rate */
  /* data */
  bool validated;
  uint32_t kw;     /* weights per feature: 1 (two classes) or n_classes */
  uint64_t n_keys; /* features + bias */
  uint64_t block;  /* rows per exact partial sum, from the training set alone */
  bool sparse;     /* tasks read and push key lists */
  uint32_t n_train_tasks, n_test_tasks;
  struct lr_task_data *td;
  uint64_t *key_bits;        /* lr_keys.c: a bitmap over the features, all clear between uses */
  struct lr_posmaps posmaps; /* sparse models' tasks */
};

/* lr_data.c */
int lr_load(struct lr_app *a, bool check, char *err, size_t errlen);
int lr_convert_inputs(struct lr_app *a, char *err, size_t errlen);
int lr_declare(struct lr_app *a, struct dsana_job *job, char *err, size_t errlen);
void lr_data_fini(struct lr_app *a);
/* lr_keys.c */
int lr_task_keys(void *app, uint32_t task, uint32_t table, const uint64_t **keys, uint64_t *n);
void lr_task_keys_done(void *app, uint32_t task, uint32_t table);
/* The class (0..K-1) of training row i. */
uint32_t lr_class_of(const struct lr_app *a, double label);

/* lr_kernel.c */
int lr_run_task(void *app, struct dsana_task_ctx *ctx);

/* lr_rows.c: one row of a dense model, vectorised over the classes; every
 * implementation gives the same bits (the order is in lr_rows.c). */
struct lr_row {
  const uint32_t *col; /* n entries, every col below the model's features */
  const float *vf;     /* values: exactly one of vf, vd is non-NULL */
  const double *vd;
  uint64_t n;
};
/* Row i of ds without its features at or above F (a model's features). */
struct lr_row lr_row_of(const struct dsana_dataset *ds, uint64_t i, uint64_t F);
/* Classes padded to a multiple of 4: the stride of a gradient partial. */
static inline uint32_t lr_padded(uint32_t K) { return (K + 3) & ~3u; }
/* z[c] = bias[c] + sum over the entries of v W[j][c], W row-major with
 * rows ldw >= K apart (a multiple of 4: lanes past K are read, unused). */
void lr_row_scores(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K, double *z);
/* part[j*Kp + c] += v gz[c] for each entry (j, v), c < K, Kp = lr_padded(K);
 * gz has Kp values, those past K zero. */
void lr_row_grad(const struct lr_row *r, const double *gz, uint32_t K, double *part);
/* Whether the vector kernel runs on this CPU, and the portable twins (tests). */
bool lr_rows_simd(void);
void lr_row_scores_portable(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K,
                            double *z);
void lr_row_grad_portable(const struct lr_row *r, const double *gz, uint32_t K, double *part);

/* lr_server.c */
int lr_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values);
int lr_finish(void *app, struct dsana_shard_ctx *ctx);
int lr_update(void *app, struct dsana_shard_ctx *ctx);

/* lr_opt.c */
int lr_reduce(void *app, struct dsana_reduce_ctx *ctx);

/* lr_sgd.c (with --batch; iter >= 1) */
/* Rows of the training set iteration `iter` evaluates: the batch, or all at the last. */
uint64_t lr_sgd_batch_rows(const struct lr_app *a, uint32_t iter);
/* Whether iteration `iter` scores the test set (the first, every epoch's start, the last). */
bool lr_sgd_scores_test(const struct lr_app *a, uint32_t iter);
/* The task's rows of its iteration's batch, ascending, into *rows (malloc'd, the
 * caller frees), their count into *n_rows. DSANA_ENOMEM. */
int lr_sgd_task_rows(const struct lr_app *a, const struct dsana_task_ctx *ctx, uint64_t **rows, uint64_t *n_rows);
int lr_sgd_finish(const struct lr_app *a, struct dsana_shard_ctx *ctx);
int lr_sgd_update(const struct lr_app *a, struct dsana_shard_ctx *ctx);
int lr_sgd_reduce(const struct lr_app *a, struct dsana_reduce_ctx *ctx);

/* lr_posmap.c */
int lr_posmap_init(struct lr_app *a);
void lr_posmap_fini(struct lr_app *a);
/* A map (n_features uint32, contents unspecified) for the calling task alone
 * until lr_posmap_put; DSANA_ENOMEM. */
int lr_posmap_take(struct lr_app *a, uint32_t **map);
void lr_posmap_put(struct lr_app *a, uint32_t *map);

/* lr_model.c */
int lr_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen);

#endif
