/*
 * mlp.h - private to the multilayer-perceptron app: its options, the
 * network's layout in the parameter table, and the tables, sums and
 * globals, shared by
 *   mlp.c        options, setup, the app table
 *   mlp_net.c    the layer layout, initial weights, batches and tasks
 *   mlp_view.c   the network as a task sees it, block by block
 *   mlp_packs.c  the first layer packed once an iteration for every task
 *   mlp_task.c   a task: forward and backward over blocks of rows
 *   mlp_server.c init(), finish() (the gradient and the SGD step), reduce()
 *   mlp_model.c  the model file, and scoring new data with it
 * and the dense block products, which have their own header, mlp_mm.h
 * (included here; their files include only it):
 *   mlp_mm.c     portable and AVX2 (the same bits), the kernels' helpers
 *   mlp_mm512.c  the same products in AVX-512
 *   mlp_mm_pick.c which of them runs (apps/common/cpu.h)
 *
 * Network: F inputs, hidden layers h_1..h_{L-1} (ReLU or tanh), K softmax
 * outputs (K = the training set's classes). Loss: the mean cross-entropy
 * over a batch plus (l2 / 2B) |W|^2 over the weights (not the biases),
 * as scikit-learn's MLPClassifier (alpha = l2).
 *
 * Parameters: one table, one double per key, layer by layer: W_l
 * (n_{l-1} x n_l, row-major: input i's n_l weights together), then b_l.
 * The first layer's keys come first, so its chunks are the first to reach
 * a worker (the forward pass needs them first).
 *
 * Training: mini-batch SGD, B rows a step in an order shuffled per epoch
 * (apps/common/shuffle.h). Iteration t = 1, 2, ... takes step t - 1 on its
 * batch; the last (--max-iter, or --epochs E: E epochs of steps, then
 * one) evaluates every training row and takes no step, unless
 * --final-eval off (then every iteration is a step: the same model).
 *
 * Precision: a task computes in single precision, as deep-learning
 * frameworks train: the weights it reads are rounded to floats, its
 * layers' outputs, deltas and block products are floats (every product a
 * chain of fused multiply-adds in float). Everything that accumulates
 * over steps stays double: the parameters, the velocity, the batch's
 * gradient (summed exactly, below), the loss sums; the softmax and its
 * loss are computed in double from the float scores. Twice the products
 * a cycle of double's and half the bytes, at a gradient within float's
 * rounding of the double one (tests/ref/ref_mlp.c's check).
 *
 * Exactness: a batch of B rows is cut into ceil(B / MLP_BLOCK) blocks of
 * consecutive positions, as equal as can be (B = 200: 4 of 50, so that 2
 * tasks of 2 blocks take 100 rows each, not 128 and 72); each
 * block's rows are taken in the order mlp_group_rows gives them (a
 * function of the rows alone), its gradient computed in float in an
 * order fixed by mlp_mm.c,
 * then rounded to two fixed-point integers (struct mlp_fix) whose sums
 * over the blocks are exact in any order, as plain doubles. Tasks are
 * runs of blocks: the model is bit-identical for any worker, server, task
 * or thread count, any mode and any straggler pattern.
 *
 * Tables (n_keys = P parameters):
 *   w      DERIVED  the parameters (what tasks read); written by finish()
 *   gh, gl ISUM     the batch's summed loss gradient: per key the sums of
 *                    its two fixed-point integers (struct mlp_fix)
 *   state  STATE    per key: the velocity (the step's gradient lives only in
 *                    finish(), a run of MLP_FINISH_RUN keys at a time)
 */
#ifndef DSANA_APPS_MLP_H
#define DSANA_APPS_MLP_H

#include <stdbool.h>
#include <stdint.h>

#include "apps/common/bufpool.h"
#include "apps/common/cpu.h"
#include "apps/common/sup_data.h"
#include "mlp_packs.h"
#include "dsana/dsana.h"
#include "mlp_mm.h"

#define MLP_MAX_HIDDEN 7                    /* hidden layers (--hidden) */
#define MLP_MAX_LAYERS (MLP_MAX_HIDDEN + 1) /* weight layers: hidden layers + 1 */
#define MLP_MAX_WIDTH 65536                 /* units of a hidden layer, inputs */
#define MLP_MAX_CLASSES 1024
#define MLP_MAX_PARAMS (1ull << 31)
#define MLP_BANDS_SET (1ull << 63)      /* mlp_app.bands: computed */
#define MLP_BANDS_MAX_ROWS (1ull << 24) /* training rows up to which their bands are kept */

/* the gradient's tables first: a diverged run is named by them (the servers
 * check tables in order), not by the parameters finish() derives from them */
enum { MLP_T_GH = 0, MLP_T_GL = 1, MLP_T_W = 2, MLP_T_STATE = 3 };
enum { MLP_STATE_SLOTS = 1 }; /* per key: the velocity */

/* sums: tasks, then finish() */
enum {
  MLP_SUM_LOSS = 0, /* batch rows' cross-entropy */
  MLP_SUM_CORRECT,
  MLP_SUM_TLOSS, /* test rows */
  MLP_SUM_TCORRECT,
  MLP_SUM_WW, /* |W|^2, weights only */
  MLP_SUM_GG, /* |step gradient|^2 */
  MLP_N_SUMS
};

/* globals */
enum {
  MLP_G_EP_LOSS = 0, /* the current epoch's batches so far: loss sum, right, rows */
  MLP_G_EP_RIGHT,
  MLP_G_EP_ROWS,
  MLP_N_GLOBALS
};

enum mlp_act { MLP_RELU = 0, MLP_TANH = 1 };

struct mlp_app {
  /* options */
  struct sup_data d; /* paths, sets, classes */
  char model_out[SUP_PATH_MAX];
  uint32_t hidden[MLP_MAX_LAYERS]; /* hidden layer widths */
  uint32_t n_hidden;
  enum mlp_act act;
  uint64_t batch, seed;
  uint32_t epochs, max_iter_given; /* --epochs, --max-iter (0: not given) */
  bool no_final_eval;              /* --final-eval off: every iteration takes a step */
  uint32_t max_iter;               /* --max-iter, else from --epochs */
  double lr, momentum, l2;
  bool classical, cosine; /* classical: --nesterov off; cosine: the rate anneals over the steps (mlp_rate) */
  /* network */
  uint32_t n_layers;                  /* weight layers L */
  uint32_t width[MLP_MAX_LAYERS + 1]; /* n_0 = F .. n_L = K */
  uint64_t w_off[MLP_MAX_LAYERS + 1]; /* key of W_l[0][0] (l = 1..L) */
  uint64_t b_off[MLP_MAX_LAYERS + 1]; /* key of b_l[0] */
  uint64_t n_params;
  uint64_t spe;           /* steps an epoch */
  uint32_t n_blocks;      /* blocks of a full batch */
  struct bufpool views;   /* the tasks' views' memory, reused (mlp_view_open) */
  struct mlp_packs packs; /* the first layer's weights packed once an iteration for the tasks' views */
  struct mlp_fix fix;     /* the gradient's blocks */
  struct mlp_fix sq;      /* the squares of |W|^2 and |g|^2, one a parameter */
  uint32_t n_tasks;
  uint8_t *checked; /* per task: its test rows passed dsana_dataset_check; then the training set */
  uint64_t
      *bands; /* per training row: its nonzero bands | MLP_BANDS_SET once a task computed them (mlp_task.c), or NULL */
};

/* mlp_net.c */
/* Keys of W_l and b_l (l = 1..L) for layer widths width[0..L]; the parameter count. */
uint64_t mlp_offsets(uint32_t L, const uint32_t *width, uint64_t *w_off, uint64_t *b_off);
/* The layer layout from the options and the training set; err names what is too big. */
int mlp_layout(struct mlp_app *a, char *err, size_t errlen);
/* Initial value of parameter k: uniform in +-sqrt(6 / (fan_in + fan_out)) of its layer (Glorot). */
double mlp_initial(const struct mlp_app *a, uint64_t k);
/* The layer (1..L) of parameter k, and whether it is a weight (not a bias). */
uint32_t mlp_layer_of(const struct mlp_app *a, uint64_t k, bool *weight);
bool mlp_final(const struct mlp_app *a, uint32_t iter);
/* The learning rate of iteration iter's step (step iter - 1 of the run's
 * max_iter - 1, or max_iter with --final-eval off). */
double mlp_rate(const struct mlp_app *a, uint32_t iter);
/* The test rows [lo, hi) task `task` scores (on iterations that score the test set). */
void mlp_test_rows(const struct mlp_app *a, uint32_t task, uint64_t *lo, uint64_t *hi);
/* Rows iteration `iter` evaluates: its batch, or (the last) every training row. */
uint64_t mlp_batch_rows(const struct mlp_app *a, uint32_t iter);
/* Whether iteration iter scores the test set (the first, each epoch's start, the last). */
bool mlp_scores_test(const struct mlp_app *a, uint32_t iter);
/* The training rows of block `blk` of iteration iter's batch, in batch order,
 * into rows (MLP_BLOCK capacity); their count (0 past the batch's blocks). */
uint32_t mlp_block_rows(const struct mlp_app *a, uint32_t iter, uint64_t blk, uint64_t *rows);
/* A block's m rows (m <= MLP_BLOCK) in the order its products take them:
 * by how many bands of features hold a value that is not 0 (at most 63
 * bands of a multiple of 8 features each), then by which (as the bit
 * pattern), ties in batch order; so that each group of 4 rows the forward
 * product takes together has fewer columns where one of them is not 0
 * (Fashion-MNIST: 68 % of the columns, 79 % in batch order). The order
 * depends on the rows alone: the same in every layout. A row's bands are
 * kept in a->bands when it is not NULL. */
void mlp_group_rows(const struct mlp_app *a, uint64_t *rows, uint32_t m);
int mlp_declare(struct mlp_app *a, struct dsana_job *job, char *err, size_t errlen);

/* mlp_view.c: the network as a task sees it, in floats, with buffers for nb blocks */
struct mlp_view {
  uint32_t L, act, nb;
  uint32_t n[MLP_MAX_LAYERS + 1], np[MLP_MAX_LAYERS + 1]; /* widths, padded to 4 */
  /* without packed kernels: W_l, n_{l-1} x np_l (padding 0), and W_l^T,
   * n_l x np_{l-1} (l >= 2, with backward); with them, both packed
   * (mlp_pack_b, mlp_pack_bt) instead */
  float *w[MLP_MAX_LAYERS + 1], *wt[MLP_MAX_LAYERS + 1];
  const float *wp[MLP_MAX_LAYERS + 1], *wtp[MLP_MAX_LAYERS + 1];
  float *b[MLP_MAX_LAYERS + 1]; /* b_l, np_l */
  /* per layer l = 0..L and block, MLP_BLOCK x np_l: the layer's output
   * (l = 0: the input rows; L: the scores), and dloss/d(its pre-activation) */
  float *out[MLP_MAX_LAYERS + 1], *delta[MLP_MAX_LAYERS + 1];
  uint32_t *idx; /* the products' scratch */
  void *mem;
  size_t mem_cap;
  struct bufpool *pool;    /* where mem came from and goes back (NULL: malloc) */
  struct mlp_packs *packs; /* where wp[1] came from (NULL: packed in mem) */
  struct mlp_pack *held;   /* and the copy it holds, or NULL */
};
/* Layer l's buffer of block b. */
static inline float *mlp_blk(const struct mlp_view *v, float *const *buf, uint32_t l, uint32_t b) {
  return buf[l] + (size_t)b * MLP_BLOCK * v->np[l];
}
/* A view of parameters p (the table's layout, keys w_off/b_off) for layer
 * widths n[0..L], with room for nb <= MLP_MAX_BLOCKS blocks; `backward`
 * adds the transposed weights; p must outlive the view (a shared pack is
 * made from it); its memory from pool (NULL: malloc; the tasks' views:
 * 1-2 MB for Fashion-MNIST's 784-256-10, fresh pages for every task
 * otherwise); with packs, the first layer's packed weights are the copy
 * shared by the views of p in iteration iter (mlp_packs.h). 0 or
 * DSANA_ENOMEM. */
int mlp_view_open(struct mlp_view *v, uint32_t L, const uint32_t *n, enum mlp_act act, const double *p,
                  const uint64_t *w_off, const uint64_t *b_off, bool backward, uint32_t nb, struct bufpool *pool,
                  struct mlp_packs *packs, uint32_t iter);
void mlp_view_close(struct mlp_view *v);
/* Rows rows[0..m) of ds through the network in block b: out[L] gets the scores. */
void mlp_forward(struct mlp_view *v, uint32_t b, const struct dsana_dataset *ds, const uint64_t *rows, uint32_t m);
/* Block b's deltas below the top (delta[L], set by the caller, padded with 0). */
void mlp_backprop(struct mlp_view *v, uint32_t b, uint32_t m);

/* mlp_task.c */
int mlp_run_task(void *app, struct dsana_task_ctx *ctx);

/* mlp_server.c */
int mlp_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values);
int mlp_finish(void *app, struct dsana_shard_ctx *ctx);
int mlp_reduce(void *app, struct dsana_reduce_ctx *ctx);

/* mlp_model.c */
int mlp_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
               char *err, size_t errlen);

#endif
