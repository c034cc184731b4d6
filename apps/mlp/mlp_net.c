/*
 * mlp_net.c - the MLP app's network layout in the parameter table, its
 * initial weights, the batch schedule, and the tasks it declares (mlp.h).
 *
 * Any thread: everything here is a pure function of the app's options and
 * its training set.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/shuffle.h"
#include "mlp.h"

uint64_t mlp_offsets(uint32_t L, const uint32_t *width, uint64_t *w_off, uint64_t *b_off) {
  uint64_t k = 0;
  for (uint32_t l = 1; l <= L; l++) {
    w_off[l] = k;
    k += (uint64_t)width[l - 1] * width[l];
    b_off[l] = k;
    k += width[l];
  }
  return k;
}

int mlp_layout(struct mlp_app *a, char *err, size_t errlen) {
  const struct dsana_dataset *ds = &a->d.train;
  if (a->d.n_classes < 2 || a->d.n_classes > MLP_MAX_CLASSES || ds->n_features > MLP_MAX_WIDTH) {
    snprintf(err, errlen,
             "%s: %llu distinct label%s and %llu features (the MLP takes 2 to %d classes, up to %d features)",
             a->d.train_path, (unsigned long long)a->d.n_classes, a->d.n_classes == 1 ? "" : "s",
             (unsigned long long)ds->n_features, MLP_MAX_CLASSES, MLP_MAX_WIDTH);
    return DSANA_EFORMAT;
  }
  a->n_layers = a->n_hidden + 1;
  a->width[0] = (uint32_t)ds->n_features;
  for (uint32_t l = 1; l < a->n_layers; l++)
    a->width[l] = a->hidden[l - 1];
  a->width[a->n_layers] = (uint32_t)a->d.n_classes;
  uint64_t k = mlp_offsets(a->n_layers, a->width, a->w_off, a->b_off);
  if (k > MLP_MAX_PARAMS) {
    snprintf(err, errlen, "%s: the network has %llu parameters, above the limit of %llu", a->d.train_path,
             (unsigned long long)k, MLP_MAX_PARAMS);
    return DSANA_ERANGE;
  }
  a->n_params = k;
  uint64_t n = ds->n_rows, b = a->batch < n ? a->batch : n;
  a->spe = shuffle_steps_per_epoch(n, a->batch);
  a->n_blocks = (uint32_t)((b + MLP_BLOCK - 1) / MLP_BLOCK);
  a->fix = mlp_fix_for(a->n_blocks);
  a->sq = mlp_fix_for(k);
  a->max_iter = a->max_iter_given;
  if (!a->max_iter_given) {
    uint64_t it = (uint64_t)a->epochs * a->spe + !a->no_final_eval;
    if (it > 100000000) {
      snprintf(err, errlen, "--epochs %u: %llu steps, above the limit of 10^8", a->epochs, (unsigned long long)it);
      return DSANA_ERANGE;
    }
    a->max_iter = (uint32_t)it;
  }
  return 0;
}

uint32_t mlp_layer_of(const struct mlp_app *a, uint64_t k, bool *weight) {
  uint32_t l = 1;
  while (l < a->n_layers && k >= a->w_off[l + 1])
    l++;
  *weight = k < a->b_off[l];
  return l;
}

double mlp_initial(const struct mlp_app *a, uint64_t k) {
  bool weight;
  uint32_t l = mlp_layer_of(a, k, &weight);
  double bound = sqrt(6.0 / ((double)a->width[l - 1] + (double)a->width[l]));
  uint64_t h = shuffle_mix64(shuffle_mix64(a->seed ^ 0x243f6a8885a308d3ULL) + k);
  double u = (double)(h >> 11) * 0x1p-53; /* [0, 1) */
  return bound * (2 * u - 1);
}

bool mlp_final(const struct mlp_app *a, uint32_t iter) { return !a->no_final_eval && iter >= a->max_iter; }

double mlp_rate(const struct mlp_app *a, uint32_t iter) {
  uint32_t n_steps = a->max_iter - !a->no_final_eval; /* the final evaluation takes none */
  if (!a->cosine || n_steps < 1)
    return a->lr;
  double s = (double)(iter - 1), steps = (double)n_steps;
  return a->lr * 0.5 * (1.0 + cos(M_PI * s / steps));
}

uint64_t mlp_batch_rows(const struct mlp_app *a, uint32_t iter) {
  if (mlp_final(a, iter))
    return a->d.train.n_rows;
  struct shuffle_batch sb = shuffle_batch_of(a->d.train.n_rows, a->batch, iter - 1);
  return sb.p1 - sb.p0;
}

bool mlp_scores_test(const struct mlp_app *a, uint32_t iter) {
  return a->d.test_path[0] && (mlp_final(a, iter) || (iter - 1) % a->spe == 0);
}

uint32_t mlp_block_rows(const struct mlp_app *a, uint32_t iter, uint64_t blk, uint64_t *rows) {
  uint64_t n = a->d.train.n_rows;
  struct shuffle_batch sb = shuffle_batch_of(n, a->batch, iter - 1);
  uint64_t len = sb.p1 - sb.p0, nblk = (len + MLP_BLOCK - 1) / MLP_BLOCK;
  if (blk >= nblk)
    return 0;
  uint64_t lo = sb.p0 + len * blk / nblk, hi = sb.p0 + len * (blk + 1) / nblk;
  struct shuffle f;
  shuffle_init(&f, a->seed, sb.epoch, n);
  uint32_t m = 0;
  for (uint64_t p = lo; p < hi; p++)
    rows[m++] = shuffle_row(&f, p);
  return m;
}

/* Whether one of x[0..n) is not 0 (as C's !=: NaN is). */
static bool any_f32(const float *x, uint64_t n) {
  bool any = false;
  for (uint64_t i = 0; i < n; i++)
    any |= x[i] != 0;
  return any;
}

static bool any_f64(const double *x, uint64_t n) {
  bool any = false;
  for (uint64_t i = 0; i < n; i++)
    any |= x[i] != 0;
  return any;
}

/* A row's nonzero pattern, coarsely: bit b set when a feature of band b
 * (bands of w features, w a multiple of 8 with at most 63 bands) is not 0.
 * A row that stores every feature (a NumPy array's) is read a band at a
 * time (vector compares), any other by its entries. */
static uint64_t row_bands(const struct dsana_dataset *ds, uint64_t r) {
  uint64_t nf = ds->n_features, w = ((nf + 62) / 63 + 7) & ~7ull, lo = ds->row_off[r], len = ds->row_off[r + 1] - lo;
  uint64_t bands = 0;
  if (len == nf) {
    for (uint64_t b = 0, j = 0; j < nf; b++, j += w) {
      uint64_t n = nf - j < w ? nf - j : w;
      bool any = ds->val_f64 ? any_f64(ds->val_f64 + lo + j, n) : any_f32(ds->val_f32 + lo + j, n);
      bands |= (uint64_t)any << b;
    }
    return bands;
  }
  uint64_t band = 0, start = 0; /* the band of the last entry, its first feature */
  for (uint64_t e = lo; e < lo + len; e++) {
    uint64_t c = ds->col[e];
    if (c >= nf || dsana_dataset_val(ds, e) == 0)
      continue;
    if (c < start || c >= start + w) { /* a division only where the band changes */
      band = c / w;
      start = band * w;
    }
    bands |= 1ull << band;
  }
  return bands;
}

/* Row r's bands, computed once a process where the training set is small
 * enough to keep them (tasks of a worker's threads may compute one at the
 * same time: both store the same word). */
static uint64_t row_bands_of(const struct mlp_app *a, uint64_t r) {
  if (!a->bands)
    return row_bands(&a->d.train, r);
  uint64_t b = __atomic_load_n(&a->bands[r], __ATOMIC_RELAXED);
  if (!(b & MLP_BANDS_SET)) {
    b = row_bands(&a->d.train, r) | MLP_BANDS_SET;
    __atomic_store_n(&a->bands[r], b, __ATOMIC_RELAXED);
  }
  return b & ~MLP_BANDS_SET;
}

void mlp_group_rows(const struct mlp_app *a, uint64_t *rows, uint32_t m) {
  uint64_t bands[MLP_BLOCK];
  uint32_t count[MLP_BLOCK];
  for (uint32_t s = 0; s < m; s++) {
    uint64_t r = rows[s], b = row_bands_of(a, r);
    uint32_t c = (uint32_t)__builtin_popcountll(b), t = s;
    for (; t > 0 && (count[t - 1] > c || (count[t - 1] == c && bands[t - 1] > b)); t--) {
      rows[t] = rows[t - 1];
      bands[t] = bands[t - 1];
      count[t] = count[t - 1];
    }
    rows[t] = r;
    bands[t] = b;
    count[t] = c;
  }
}

/* Tasks: runs of the batch's blocks (each pushes a whole gradient: more
 * tasks balance stragglers finer but cost a gradient's transfer and sum
 * each). On the iterations that score the test set, task i also scores
 * the i-th of as many row ranges of it (mlp_test_rows): no task is there
 * for the test set alone, so the other iterations schedule nothing more. */
/* Blocks a task takes at least when the count is ours to choose
 * (dsana_job_info.tasks_auto): a block's forward and backward products
 * cost about 256 flops a parameter (some 6 ns at 40 GFLOP/s), a task's
 * push of the whole gradient a few ns a parameter (zeroing, sending,
 * summing its two tables): two blocks keep the pushes under a fifth. */
#define MLP_MIN_TASK_BLOCKS 2

/* n_workers * tasks_per_worker tasks, fewer when the count is ours to
 * choose and they would be shorter than MLP_MIN_TASK_BLOCKS blocks (at
 * least one a worker); 0: the runtime's count. The model is the same
 * bits for any count (mlp.h). */
static uint32_t task_count(const struct mlp_app *a, const struct dsana_job *job) {
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  uint64_t want = (uint64_t)info.n_workers * info.tasks_per_worker, fit = a->n_blocks / MLP_MIN_TASK_BLOCKS;
  if (!info.tasks_auto || fit >= want)
    return 0;
  return (uint32_t)(fit > info.n_workers ? fit : info.n_workers);
}

/* A task is a run of whole blocks of the batch (about equal counts),
 * pushing the whole gradient. */
static void declare_tasks(struct mlp_app *a, struct dsana_job *job) {
  struct dsana_row_tasks blocks = {.n_rows = a->n_blocks,
                                   .max_tasks = task_count(a, job),
                                   .cost_row = MLP_BLOCK,
                                   .tables = {{MLP_T_GH, DSANA_ROWS_WRITE}, {MLP_T_GL, DSANA_ROWS_WRITE}}};
  dsana_job_add_row_tasks(job, &blocks, NULL, &a->n_tasks);
  free(a->checked); /* a setup() run before (the launcher's check) */
  a->checked = calloc((size_t)a->n_tasks + 1, 1);
  if (!a->checked)
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
}

void mlp_test_rows(const struct mlp_app *a, uint32_t task, uint64_t *lo, uint64_t *hi) {
  uint64_t tn = a->d.test_path[0] ? a->d.test.n_rows : 0;
  *lo = tn * task / a->n_tasks;
  *hi = tn * (task + 1) / a->n_tasks;
}

int mlp_declare(struct mlp_app *a, struct dsana_job *job, char *err, size_t errlen) {
  dsana_job_add_table_id(job, MLP_T_GH, "gh", a->n_params, 1, DSANA_RULE_ISUM);
  dsana_job_add_table_id(job, MLP_T_GL, "gl", a->n_params, 1, DSANA_RULE_ISUM);
  dsana_job_add_table_id(job, MLP_T_W, "w", a->n_params, 1, DSANA_RULE_DERIVED);
  dsana_job_add_table_id(job, MLP_T_STATE, "state", a->n_params, MLP_STATE_SLOTS, DSANA_RULE_STATE);
  declare_tasks(a, job);
  dsana_job_task_reads(job, DSANA_ALL_TASKS, MLP_T_W, 0, a->n_params);
  dsana_job_set_result_table(job, MLP_T_W);
  dsana_job_set_sums(job, MLP_N_SUMS);
  dsana_job_set_convergence(job, 0, a->max_iter);
  dsana_job_add_fact(job, "rows", (double)a->d.train.n_rows);
  dsana_job_add_fact(job, "features", (double)a->d.train.n_features);
  dsana_job_add_fact(job, "classes", (double)a->d.n_classes);
  /* the kernels this process runs (0 scalar, 1 avx2, 2 avx512: apps/common/cpu.h) */
  dsana_job_add_fact(job, "kernel_level", (double)app_cpu_level());
  dsana_job_add_fact(job, "parameters", (double)a->n_params);
  if (a->d.test_path[0])
    dsana_job_add_fact(job, "test_rows", (double)a->d.test.n_rows);
  return dsana_job_status(job, a->d.train_path, err, errlen);
}
