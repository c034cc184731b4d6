/*
 * mlp_model.c - the MLP model file and scoring new data with it.
 *
 * Model file (text, written through dsana/outfile.h: a regular file is
 * replaced atomically; gzip for a name ending in ".gz", read back either way):
 *   # dsana mlp model
 *   # layers L widths n_0 n_1 ... n_L activation relu|tanh
 *   # labels l_0 ... l_K-1          (%.17g, ascending: class c is l_c)
 *   then one parameter per line (%.17g) in the table's order (mlp.h):
 *   W_1 row by row (input i's n_1 weights together), b_1, W_2, b_2, ...
 * Predictions (`dsana mlp predict`): "label<TAB>probability" of the
 * predicted class per row, in row order, scored by the same forward pass
 * as training's test set.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/apps.h"
#include "apps/common/model_text.h"
#include "apps/common/softmax.h"
#include "mlp.h"

static const char *const act_name[] = {"relu", "tanh"};

/* "# layers L widths n_0 .. n_L activation A": at most 8 layers of
 * 10-digit widths, well within the buffer. */
static void layers_header(const struct mlp_app *a, char *buf, size_t len) {
  size_t at = (size_t)snprintf(buf, len, "# layers %u widths", a->n_layers);
  for (uint32_t l = 0; l <= a->n_layers && at < len; l++)
    at += (size_t)snprintf(buf + at, len - at, " %u", a->width[l]);
  if (at < len)
    snprintf(buf + at, len - at, " activation %s", act_name[a->act]);
}

int mlp_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
               char *err, size_t errlen) {
  struct mlp_app *a = app;
  (void)n, (void)width;
  if (a->model_out[0]) {
    char header[256];
    layers_header(a, header, sizeof header);
    struct model_text_file m = {"mlp", header, a->d.labels, a->d.n_classes, values, a->n_params};
    int rc = model_text_write_model(a->model_out, &m, err, errlen);
    if (rc)
      return rc;
  }
  if (!run->quiet) {
    printf("mlp: %llu rows, %llu features, %llu classes, %llu parameters, %u iterations, %.4f s/iteration\n",
           (unsigned long long)a->d.train.n_rows, (unsigned long long)a->d.train.n_features,
           (unsigned long long)a->d.n_classes, (unsigned long long)a->n_params, run->iters, run->median_iter_s);
    fflush(stdout);
  }
  return 0;
}

/* ---- scoring with a model file ----------------------------------------- */

struct model {
  uint32_t L, width[MLP_MAX_LAYERS + 1];
  enum mlp_act act;
  uint64_t w_off[MLP_MAX_LAYERS + 1], b_off[MLP_MAX_LAYERS + 1], n_params;
  double *labels, *p;
};

/* "# layers L widths w_0 .. w_L activation A" (the line in in->buf). */
static bool layers_line(const char *p, struct model *m, unsigned *L, char act[8]) {
  int n = -1;
  if (sscanf(p, "# layers %u widths%n", L, &n) != 1 || n < 0 || *L < 1 || *L > MLP_MAX_LAYERS)
    return false;
  p += n;
  for (uint32_t l = 0; l <= *L; l++, p += n) {
    n = -1;
    if (sscanf(p, "%u%n", &m->width[l], &n) != 1 || n < 0 || m->width[l] < 1 ||
        m->width[l] > (l == *L ? MLP_MAX_CLASSES : MLP_MAX_WIDTH))
      return false;
  }
  n = -1;
  if (sscanf(p, " activation %7s%n", act, &n) != 1 || n < 0 || p[n] || m->width[*L] < 2)
    return false;
  return strcmp(act, "relu") == 0 || strcmp(act, "tanh") == 0;
}

static int read_header(struct model_text_in *in, struct model *m, char *err, size_t errlen) {
  unsigned L = 0;
  char act[8];
  int rc = model_text_expect(in, "# dsana mlp model", "mlp", err, errlen);
  if (!rc)
    rc = model_text_line(in, err, errlen);
  if (rc < 0)
    return rc;
  if (rc == 0 || !layers_line(in->buf, m, &L, act)) {
    snprintf(err, errlen, "%s:%llu: not a dsana mlp model (bad header)", in->path, (unsigned long long)in->line);
    return DSANA_EFORMAT;
  }
  m->L = L;
  m->act = strcmp(act, "relu") == 0 ? MLP_RELU : MLP_TANH;
  m->n_params = mlp_offsets(L, m->width, m->w_off, m->b_off);
  if (m->n_params > MLP_MAX_PARAMS) {
    snprintf(err, errlen, "%s:%llu: %llu parameters, above the limit of %llu", in->path, (unsigned long long)in->line,
             (unsigned long long)m->n_params, MLP_MAX_PARAMS);
    return DSANA_EFORMAT;
  }
  m->labels = malloc(sizeof *m->labels * m->width[L]);
  m->p = malloc(sizeof *m->p * m->n_params);
  if (!m->labels || !m->p)
    return DSANA_ENOMEM;
  return model_text_get_labels(in, m->labels, m->width[L], err, errlen);
}

static int read_model(const char *path, struct model *m, char *err, size_t errlen) {
  struct model_text_in in;
  int rc = model_text_open(path, &in, err, errlen);
  if (!rc)
    rc = read_header(&in, m, err, errlen);
  if (!rc)
    rc = model_text_get_values(&in, "parameter", m->p, m->n_params, err, errlen);
  model_text_close(&in);
  return rc;
}

struct scored {
  const struct model *m;
  const struct dsana_dataset *ds;
  struct mlp_view *v;
  uint64_t right;
};

static int fill_predictions(struct dsana_outfile *f, const void *arg) {
  struct scored *sc = (struct scored *)arg;
  const struct model *m = sc->m;
  uint32_t K = m->width[m->L];
  uint64_t rows[MLP_BLOCK];
  int bad = 0;
  for (uint64_t i = 0; i < sc->ds->n_rows && !bad; i += MLP_BLOCK) {
    uint32_t n = (uint32_t)(sc->ds->n_rows - i < MLP_BLOCK ? sc->ds->n_rows - i : MLP_BLOCK);
    for (uint32_t s = 0; s < n; s++)
      rows[s] = i + s;
    mlp_forward(sc->v, 0, sc->ds, rows, n);
    for (uint32_t s = 0; s < n && !bad; s++) {
      const float *zf = sc->v->out[m->L] + (size_t)s * sc->v->np[m->L];
      double z[MLP_MAX_CLASSES], prob;
      for (uint32_t k = 0; k < K; k++)
        z[k] = zf[k];
      uint32_t best = softmax_top(z, K, &prob);
      sc->right += m->labels[best] == sc->ds->label[i + s];
      bad = dsana_outfile_printf(f, "%.17g\t%.6f\n", m->labels[best], prob) < 0;
    }
  }
  return bad;
}

int mlp_predict(const char *model_path, const char *data_path, const char *out_path, double *accuracy, char *err,
                size_t errlen) {
  struct model m = {0};
  struct dsana_dataset ds = {0};
  struct mlp_view v = {0};
  int rc = read_model(model_path, &m, err, errlen);
  if (!rc)
    rc = dsana_dataset_open(data_path, NULL, &ds, err, errlen);
  if (!rc && ds.n_features > m.width[0])
    fprintf(stderr, "dsana mlp predict: warning: %s has features up to %llu, the model %u: the others are ignored\n",
            data_path, (unsigned long long)ds.n_features, m.width[0]);
  if (!rc && (rc = mlp_view_open(&v, m.L, m.width, m.act, m.p, m.w_off, m.b_off, false, 1, NULL, NULL, 0)) != 0)
    snprintf(err, errlen, "%s: %s", model_path, dsana_strerror(rc));
  struct scored sc = {.m = &m, .ds = &ds, .v = &v};
  if (!rc)
    rc = model_text_write(out_path, fill_predictions, &sc, err, errlen);
  if (!rc && accuracy)
    *accuracy = (double)sc.right / (double)ds.n_rows;
  mlp_view_close(&v);
  dsana_dataset_fini(&ds);
  free(m.labels);
  free(m.p);
  return rc;
}
