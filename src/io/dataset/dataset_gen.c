/*
 * dataset_gen.c - dsana_dataset_gen_logreg(): a learnable sparse
 * classification problem from a hidden linear model, for tests and
 * benchmarks of the learning apps at any scale.
 *
 * Randomness is counter-based, as in graph_gen.c: every number is
 * splitmix64's output at a fixed stream position under a seed-derived key
 * (columns of row r at positions r*k .. r*k+k-1, its values likewise under
 * another key, its label draw at r, weight (feature f, class c) at f*C+c).
 * So any row can be made on its own, the hidden model needs no memory, and
 * the result never depends on how rows are split among threads. Columns are
 * k distinct draws by Floyd's algorithm (exactly k draws, uniform over
 * k-subsets), checked against a small per-thread hash set, then sorted.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"
#include "util/numeric/splitmix.h"

#define GEN_MAX_CLASSES 1024u
#define GEN_MAX_NNZ (1ull << 40)

/* Uniform in [0, 1) with 53 bits. */
static inline double unit(uint64_t x) { return (double)(x >> 11) * 0x1p-53; }

struct gen {
  uint64_t first_row; /* the rows are rows first_row.. of the endless sequence the seed gives */
  uint64_t n_rows, n_features;
  uint32_t k, n_classes;
  uint64_t key_col, key_val, key_w, key_label;
  double w_scale;
  uint64_t *row_off;
  uint32_t *col;
  float *val;
  double *label;
  bool failed[8]; /* a thread could not allocate its scratch */
};

/* Open-addressing set of columns for one row; stamps avoid clearing. */
struct colset {
  uint64_t *stamp;
  uint32_t *v;
  uint64_t mask;
};

static bool colset_init(struct colset *s, uint32_t k) {
  uint64_t size = 16;
  while (size < 2 * (uint64_t)k)
    size *= 2;
  s->mask = size - 1;
  s->stamp = calloc(size, sizeof *s->stamp);
  s->v = malloc(size * sizeof *s->v);
  return s->stamp && s->v;
}

/* Insert x for stamp; false if it was there already. */
static bool colset_add(struct colset *s, uint64_t stamp, uint32_t x) {
  uint64_t i = splitmix64_mix(x) & s->mask;
  for (; s->stamp[i] == stamp; i = (i + 1) & s->mask)
    if (s->v[i] == x)
      return false;
  s->stamp[i] = stamp;
  s->v[i] = x;
  return true;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void sort_cols(uint32_t *c, uint32_t k) {
  if (k > 32) {
    qsort(c, k, sizeof *c, cmp_u32);
    return;
  }
  for (uint32_t i = 1; i < k; i++) {
    uint32_t x = c[i], j = i;
    for (; j > 0 && c[j - 1] > x; j--)
      c[j] = c[j - 1];
    c[j] = x;
  }
}

/* Floyd: k distinct columns of [0, F) for row r, ascending, into c. */
static void draw_cols(const struct gen *q, struct colset *s, uint64_t r, uint32_t *c) {
  uint64_t F = q->n_features, base = r * q->k;
  for (uint32_t j = 0; j < q->k; j++) {
    uint64_t top = F - q->k + j; /* draw t uniform in [0, top] */
    uint32_t t = (uint32_t)(((unsigned __int128)splitmix64_at(q->key_col, base + j) * (top + 1)) >> 64);
    if (!colset_add(s, r + 1, t)) { /* taken: top itself is new (every earlier draw was below it) */
      t = (uint32_t)top;
      colset_add(s, r + 1, t);
    }
    c[j] = t;
  }
  sort_cols(c, q->k);
}

/* Hidden weight of (feature f, class c), uniform in [-s, s]. */
static inline double weight(const struct gen *q, uint64_t f, uint32_t c) {
  return q->w_scale * (2.0 * unit(splitmix64_at(q->key_w, f * q->n_classes + c)) - 1.0);
}

/* The label of a row from its margins: sigmoid (two classes) or softmax. */
static double draw_label(const struct gen *q, uint64_t r, const uint32_t *c, const float *v, double *z) {
  uint32_t classes = q->n_classes == 2 ? 1 : q->n_classes;
  double zmax = -INFINITY, sum = 0, u = unit(splitmix64_at(q->key_label, r));
  for (uint32_t m = 0; m < classes; m++) {
    z[m] = 0;
    for (uint32_t j = 0; j < q->k; j++)
      z[m] += weight(q, c[j], m) * v[j];
    zmax = z[m] > zmax ? z[m] : zmax;
  }
  if (q->n_classes == 2)
    return u < 1.0 / (1.0 + exp(-z[0])) ? 1.0 : -1.0;
  for (uint32_t m = 0; m < classes; m++)
    sum += (z[m] = exp(z[m] - zmax));
  double cum = 0;
  for (uint32_t m = 0; m + 1 < classes; m++)
    if (u * sum < (cum += z[m]))
      return m;
  return classes - 1;
}

static void gen_part(void *arg, unsigned t, unsigned nt) {
  struct gen *q = arg;
  uint64_t lo = q->n_rows * t / nt, hi = q->n_rows * (t + 1) / nt;
  struct colset s;
  double *z = malloc(q->n_classes * sizeof *z);
  if (!colset_init(&s, q->k) || !z) {
    q->failed[t] = true;
  } else {
    for (uint64_t r = lo; r < hi; r++) {
      uint64_t g = q->first_row + r; /* what the row's random draws depend on */
      uint32_t *c = q->col + r * q->k;
      float *v = q->val + r * q->k;
      draw_cols(q, &s, g, c);
      for (uint32_t j = 0; j < q->k; j++)
        v[j] = (float)((double)((splitmix64_at(q->key_val, g * q->k + j) >> 40) + 1) * 0x1p-24);
      q->row_off[r + 1] = (r + 1) * q->k;
      q->label[r] = draw_label(q, g, c, v, z);
    }
  }
  free(s.stamp);
  free(s.v);
  free(z);
}

static int check_args(uint64_t n_rows, uint64_t n_features, uint32_t k, uint32_t n_classes, char *err, size_t errlen) {
  if (n_rows < 1 || k < 1 || n_features < 1)
    return io_errf(err, errlen, DSANA_EINVAL, "gen logreg: rows, features and nnz per row must be >= 1");
  if (n_features > DSANA_DATASET_MAX_FEATURES)
    return io_errf(err, errlen, DSANA_EINVAL, "gen logreg: %llu features: at most %llu", (unsigned long long)n_features,
                   (unsigned long long)DSANA_DATASET_MAX_FEATURES);
  if (k > n_features)
    return io_errf(err, errlen, DSANA_EINVAL, "gen logreg: %u nonzeros per row but only %llu features", k,
                   (unsigned long long)n_features);
  if (n_classes < 2 || n_classes > GEN_MAX_CLASSES)
    return io_errf(err, errlen, DSANA_EINVAL, "gen logreg: %u classes: must be 2..%u", n_classes, GEN_MAX_CLASSES);
  if (n_rows > GEN_MAX_NNZ / k)
    return io_errf(err, errlen, DSANA_EINVAL, "gen logreg: %llu rows x %u nonzeros: more than 2^40 entries",
                   (unsigned long long)n_rows, k);
  return 0;
}

int dsana_dataset_gen_logreg(uint64_t n_rows, uint64_t n_features, uint32_t nnz_per_row, uint32_t n_classes,
                             uint64_t seed, struct dsana_dataset *ds, char *err, size_t errlen) {
  return dsana_dataset_gen_logreg_rows(0, n_rows, n_features, nnz_per_row, n_classes, seed, ds, err, errlen);
}

int dsana_dataset_gen_logreg_rows(uint64_t first_row, uint64_t n_rows, uint64_t n_features, uint32_t nnz_per_row,
                                  uint32_t n_classes, uint64_t seed, struct dsana_dataset *ds, char *err,
                                  size_t errlen) {
  memset(ds, 0, sizeof *ds);
  /* the draws index rows up to first_row + n_rows: the same limits hold for that many */
  int rc = first_row > UINT64_MAX - n_rows
               ? DSANA_EINVAL
               : check_args(first_row + n_rows, n_features, nnz_per_row, n_classes, err, errlen);
  if (rc)
    return rc == DSANA_EINVAL && first_row > UINT64_MAX - n_rows
               ? io_errf(err, errlen, DSANA_EINVAL, "gen logreg: rows beyond 2^64")
               : rc;
  uint64_t key = splitmix64_mix(seed ^ 0x6C6F677265670000ull), nnz = n_rows * nnz_per_row;
  struct gen q = {.first_row = first_row,
                  .n_rows = n_rows,
                  .n_features = n_features,
                  .k = nnz_per_row,
                  .n_classes = n_classes,
                  .key_col = splitmix64_at(key, 0),
                  .key_val = splitmix64_at(key, 1),
                  .key_w = splitmix64_at(key, 2),
                  .key_label = splitmix64_at(key, 3),
                  .w_scale = 12.0 / sqrt((double)nnz_per_row)};
  q.row_off = graph_big_alloc((n_rows + 1) * sizeof *q.row_off);
  q.col = graph_big_alloc(nnz * sizeof *q.col);
  q.val = graph_big_alloc(nnz * sizeof *q.val);
  q.label = graph_big_alloc(n_rows * sizeof *q.label);
  if (q.row_off && q.col && q.val && q.label) {
    q.row_off[0] = 0;
    graph_parallel(gen_part, &q, n_rows >= 4096 ? graph_threads() : 1);
  }
  bool failed = !q.row_off || !q.col || !q.val || !q.label;
  for (int t = 0; t < 8; t++)
    failed = failed || q.failed[t];
  if (failed) {
    free(q.row_off);
    free(q.col);
    free(q.val);
    free(q.label);
    return io_errf(err, errlen, DSANA_ENOMEM, "gen logreg: out of memory for %llu rows x %u nonzeros",
                   (unsigned long long)n_rows, nnz_per_row);
  }
  return ds_adopt(ds, NULL, n_rows, n_features, nnz, q.row_off, q.col, q.val, true, q.label, err, errlen);
}
