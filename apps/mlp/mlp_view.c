/*
 * mlp_view.c - the network as a task (or `dsana mlp predict`) sees it
 * (mlp.h), in floats: the parameters rounded, with every layer padded to
 * a multiple of 4 units (the products' vectors), the transposed weights
 * for the backward pass, and per block of rows each layer's outputs and
 * deltas; with the AVX-512 kernels, every weight matrix packed in their
 * panels instead, once, straight from the parameters.
 *
 * Any thread: a view belongs to the task that opened it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

static size_t round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Bytes of the view, laid out as mlp_view_open() carves them. */
static size_t view_bytes(const struct mlp_view *v, bool backward, size_t *idx_n) {
  size_t total = 0, widest = 0;
  bool packed = mlp_mm_takes_packed();
  for (uint32_t l = 0; l <= v->L; l++) {
    widest = v->np[l] > widest ? v->np[l] : widest;
    total += 2 * round64(sizeof(float) * MLP_BLOCK * v->nb * v->np[l]); /* out, delta */
    if (l == 0)
      continue;
    total += round64(sizeof(float) * v->np[l]); /* b_l */
    bool bw = backward && l >= 2;
    if (packed)
      total += round64(sizeof(float) * mlp_packed_b_floats(v->n[l - 1], v->np[l])) +
               (bw ? round64(sizeof(float) * mlp_packed_b_floats(v->n[l], v->np[l - 1])) : 0);
    else
      total +=
          round64(sizeof(float) * v->n[l - 1] * v->np[l]) + (bw ? round64(sizeof(float) * v->n[l] * v->np[l - 1]) : 0);
  }
  *idx_n = MLP_IDX(widest);
  return total + round64(sizeof(uint32_t) * *idx_n);
}

/* b_l as floats, padded with zeros, from m; the new m. */
static char *copy_bias(struct mlp_view *v, uint32_t l, const double *p, uint64_t b_off, char *m) {
  float *b = v->b[l] = (float *)m;
  for (uint32_t c = 0; c < v->np[l]; c++)
    b[c] = c < v->n[l] ? (float)p[b_off + c] : 0;
  return m + round64(sizeof(float) * v->np[l]);
}

/* W_l as floats (rows np_l wide, zeros past n_l), from m; the new m. */
static char *copy_layer(struct mlp_view *v, uint32_t l, const double *p, uint64_t w_off, char *m) {
  uint32_t ni = v->n[l - 1], no = v->n[l], npo = v->np[l];
  float *w = v->w[l] = (float *)m;
  for (uint32_t i = 0; i < ni; i++)
    for (uint32_t c = 0; c < npo; c++)
      w[(size_t)i * npo + c] = c < no ? (float)p[w_off + (size_t)i * no + c] : 0;
  return m + round64(sizeof(float) * ni * npo);
}

/* W_l^T as floats (n_l rows np_{l-1} wide, zeros past n_{l-1}), from m; the new m. */
static char *transpose_layer(struct mlp_view *v, uint32_t l, const double *p, uint64_t w_off, char *m) {
  uint32_t ni = v->n[l - 1], no = v->n[l], npi = v->np[l - 1];
  float *wt = v->wt[l] = (float *)m;
  for (uint32_t c = 0; c < no; c++)
    for (uint32_t i = 0; i < npi; i++)
      wt[(size_t)c * npi + i] = i < ni ? (float)p[w_off + (size_t)i * no + c] : 0;
  return m + round64(sizeof(float) * no * npi);
}

/* W_l (and, for the backward pass, W_l^T) packed for the AVX-512
 * forward product once, for every block the view runs, straight from the
 * parameters (the first layer from the shared copy where there is one:
 * mlp_packs.h); the new m. */
static char *pack_layer(struct mlp_view *v, uint32_t l, const double *w, bool backward, uint32_t iter, char *m) {
  uint32_t ni = v->n[l - 1], no = v->n[l];
  if (l == 1 && v->packs)
    v->wp[l] = mlp_packs_get(v->packs, w, iter, ni, no, &v->held);
  if (!v->wp[l]) {
    mlp_pack_b(ni, no, w, no, (float *)m);
    v->wp[l] = (const float *)m;
  }
  m += round64(sizeof(float) * mlp_packed_b_floats(ni, v->np[l]));
  if (backward && l >= 2) {
    mlp_pack_bt(no, ni, w, no, (float *)m);
    v->wtp[l] = (const float *)m;
    m += round64(sizeof(float) * mlp_packed_b_floats(no, v->np[l - 1]));
  }
  return m;
}

int mlp_view_open(struct mlp_view *v, uint32_t L, const uint32_t *n, enum mlp_act act, const double *p,
                  const uint64_t *w_off, const uint64_t *b_off, bool backward, uint32_t nb, struct bufpool *pool,
                  struct mlp_packs *packs, uint32_t iter) {
  memset(v, 0, sizeof *v);
  v->L = L;
  v->act = act;
  v->nb = nb;
  for (uint32_t l = 0; l <= L; l++) {
    v->n[l] = n[l];
    v->np[l] = mlp_pad4(n[l]);
  }
  size_t idx_n, bytes = view_bytes(v, backward, &idx_n);
  char *m = bufpool_get(pool, bytes, &v->mem_cap);
  if (!m)
    return DSANA_ENOMEM;
  v->mem = m;
  v->pool = pool;
  v->packs = packs;
  for (uint32_t l = 0; l <= L; l++) {
    size_t blocks = round64(sizeof(float) * MLP_BLOCK * nb * v->np[l]);
    v->out[l] = (float *)m;
    v->delta[l] = (float *)(m + blocks);
    m += 2 * blocks;
    if (l == 0)
      continue;
    m = copy_bias(v, l, p, b_off[l], m);
    if (mlp_mm_takes_packed()) {
      m = pack_layer(v, l, p + w_off[l], backward, iter, m);
      continue;
    }
    m = copy_layer(v, l, p, w_off[l], m);
    if (l >= 2 && backward)
      m = transpose_layer(v, l, p, w_off[l], m);
  }
  v->idx = (uint32_t *)m;
  return 0;
}

void mlp_view_close(struct mlp_view *v) {
  if (v->packs)
    mlp_packs_put(v->packs, v->held);
  v->held = NULL;
  bufpool_put(v->pool, v->mem, v->mem_cap);
  v->mem = NULL;
}

/* Row r of ds as x[0..np0) (features below n0, zeros past them) when it
 * stores every feature (a dense array's row, as Python hands NumPy arrays
 * over: its columns are then 0, 1, ... strictly ascending below
 * n_features), copied as a run; false otherwise. */
static bool load_dense_row(const struct dsana_dataset *ds, uint64_t r, uint32_t n0, uint32_t np0, float *x) {
  uint64_t lo = ds->row_off[r], len = ds->row_off[r + 1] - lo;
  if (len != ds->n_features)
    return false;
  uint64_t k = len < n0 ? len : n0;
  if (ds->val_f32)
    memcpy(x, ds->val_f32 + lo, sizeof(float) * k);
  else
    for (uint64_t j = 0; j < k; j++)
      x[j] = (float)ds->val_f64[lo + j];
  memset(x + k, 0, sizeof(float) * (np0 - k));
  return true;
}

/* The rows as a dense matrix of floats (features below n_0), zero rows up to the 4-padding. */
static void load_rows(struct mlp_view *v, float *x, const struct dsana_dataset *ds, const uint64_t *rows, uint32_t m) {
  uint32_t np0 = v->np[0];
  for (uint32_t s = 0; s < m; s++) {
    float *xs = x + (size_t)s * np0;
    if (load_dense_row(ds, rows[s], v->n[0], np0, xs))
      continue;
    memset(xs, 0, sizeof(float) * np0);
    for (uint64_t e = ds->row_off[rows[s]]; e < ds->row_off[rows[s] + 1] && ds->col[e] < v->n[0]; e++)
      xs[ds->col[e]] = (float)dsana_dataset_val(ds, e);
  }
  memset(x + (size_t)m * np0, 0, sizeof(float) * (mlp_pad4(m) - m) * np0);
}

/* tanh in double, rounded: the same float wherever libm's tanh is. */
static void activate(const struct mlp_view *v, float *z, size_t count) {
  if (v->act == MLP_RELU)
    for (size_t i = 0; i < count; i++)
      z[i] = z[i] > 0 ? z[i] : 0;
  else
    for (size_t i = 0; i < count; i++)
      z[i] = (float)tanh((double)z[i]);
}

void mlp_forward(struct mlp_view *v, uint32_t b, const struct dsana_dataset *ds, const uint64_t *rows, uint32_t m) {
  uint32_t mp = mlp_pad4(m);
  load_rows(v, mlp_blk(v, v->out, 0, b), ds, rows, m);
  for (uint32_t l = 1; l <= v->L; l++) {
    float *z = mlp_blk(v, v->out, l, b);
    const float *a = mlp_blk(v, v->out, l - 1, b);
    if (v->wp[l])
      mlp_mm_nn_packed(mp, v->n[l - 1], v->np[l], a, v->np[l - 1], v->wp[l], v->b[l], z, v->np[l], v->idx);
    else
      mlp_mm_nn(mp, v->n[l - 1], v->np[l], a, v->np[l - 1], v->w[l], v->np[l], v->b[l], z, v->np[l], v->idx);
    if (l < v->L)
      activate(v, z, (size_t)mp * v->np[l]);
  }
}

void mlp_backprop(struct mlp_view *v, uint32_t b, uint32_t m) {
  uint32_t mp = mlp_pad4(m);
  for (uint32_t l = v->L; l >= 2; l--) { /* delta_{l-1} = (delta_l W_l^T) * act'(out_{l-1}) */
    uint32_t np = v->np[l - 1];
    float *d = mlp_blk(v, v->delta, l - 1, b);
    const float *h = mlp_blk(v, v->out, l - 1, b);
    if (v->wtp[l])
      mlp_mm_nn_packed(mp, v->n[l], np, mlp_blk(v, v->delta, l, b), v->np[l], v->wtp[l], NULL, d, np, v->idx);
    else
      mlp_mm_nn(mp, v->n[l], np, mlp_blk(v, v->delta, l, b), v->np[l], v->wt[l], np, NULL, d, np, v->idx);
    size_t count = (size_t)mp * np;
    if (v->act == MLP_RELU)
      for (size_t i = 0; i < count; i++)
        d[i] = h[i] > 0 ? d[i] : 0;
    else
      for (size_t i = 0; i < count; i++)
        d[i] *= 1 - h[i] * h[i];
  }
}
