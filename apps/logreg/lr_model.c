/*
 * lr_model.c - the logistic-regression model file and scoring new data.
 *
 * Model file (text, written through dsana/outfile.h: a regular file is
 * replaced atomically, a FIFO or device written in place; gzip for a name
 * ending in ".gz", read back either way):
 *   # dsana logreg model
 *   # features F classes K weights_per_feature K' l2 L
 *   # labels l_0 ... l_K-1          (%.17g, ascending: class c is l_c)
 *   then (F + 1) * K' lines, one weight each (%.17g): feature 0's K'
 *   weights, feature 1's, ..., the bias's last. Two classes have one
 *   weight vector (K' = 1, the score of class 1 = l_1); more have K.
 * Predictions (`dsana logreg predict`): one line per row of the data,
 * "label<TAB>probability" of the predicted class, in row order (gzip
 * for a name ending in ".gz").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/apps.h"
#include "apps/common/model_text.h"
#include "apps/common/softmax.h"
#include "logreg.h"

int lr_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen) {
  struct lr_app *a = app;
  (void)n, (void)width;
  if (a->model_out[0]) {
    char header[160];
    snprintf(header, sizeof header, "# features %llu classes %llu weights_per_feature %u l2 %.17g",
             (unsigned long long)a->d.train.n_features, (unsigned long long)a->d.n_classes, a->kw, a->l2);
    struct model_text_file m = {"logreg", header, a->d.labels, a->d.n_classes, values, a->n_keys * a->kw};
    int rc = model_text_write_model(a->model_out, &m, err, errlen);
    if (rc)
      return rc;
  }
  if (!run->quiet) {
    printf("logreg: %llu rows, %llu features, %llu classes, %u iterations%s, %.4f s/iteration\n",
           (unsigned long long)a->d.train.n_rows, (unsigned long long)a->d.train.n_features,
           (unsigned long long)a->d.n_classes, run->iters, run->converged ? " (converged)" : "", run->median_iter_s);
    fflush(stdout);
  }
  return 0;
}

/* ---- scoring with a model file ----------------------------------------- */

struct model {
  uint64_t features, classes;
  uint32_t kw;
  double *labels, *w;
};

static int read_header(struct model_text_in *in, struct model *m, char *err, size_t errlen) {
  unsigned long long F, K;
  unsigned kw;
  double l2;
  int end = -1;
  int rc = model_text_expect(in, "# dsana logreg model", "logreg", err, errlen);
  if (!rc)
    rc = model_text_line(in, err, errlen);
  if (rc < 0)
    return rc;
  if (rc == 0 ||
      sscanf(in->buf, "# features %llu classes %llu weights_per_feature %u l2 %lf%n", &F, &K, &kw, &l2, &end) != 4 ||
      end < 0 || in->buf[end] || !isfinite(l2) || K < 2 || K > LR_MAX_CLASSES || kw != (K == 2 ? 1 : K) ||
      F >= UINT32_MAX) {
    snprintf(err, errlen, "%s:%llu: not a dsana logreg model (bad header)", in->path, (unsigned long long)in->line);
    return DSANA_EFORMAT;
  }
  m->features = F;
  m->classes = K;
  m->kw = kw;
  m->labels = malloc(sizeof *m->labels * K);
  m->w = malloc(sizeof *m->w * (F + 1) * kw);
  if (!m->labels || !m->w)
    return DSANA_ENOMEM;
  return model_text_get_labels(in, m->labels, K, err, errlen);
}

static int read_model(const char *path, struct model *m, char *err, size_t errlen) {
  struct model_text_in in;
  int rc = model_text_open(path, &in, err, errlen);
  if (!rc)
    rc = read_header(&in, m, err, errlen);
  if (!rc)
    rc = model_text_get_values(&in, "weight", m->w, (m->features + 1) * m->kw, err, errlen);
  model_text_close(&in);
  return rc;
}

struct scored {
  const struct model *m;
  const struct dsana_dataset *ds;
  uint64_t right;
};

/* Predicted class of row i and its probability. */
static uint32_t predict_row(const struct model *m, const struct dsana_dataset *ds, uint64_t i, double *prob) {
  double z[LR_MAX_CLASSES];
  uint32_t K = m->kw;
  struct lr_row r = lr_row_of(ds, i, m->features);
  lr_row_scores(&r, m->w, K, m->w + m->features * K, K, z); /* as training scores its test rows */
  if (K == 1) {
    double p = 1 / (1 + exp(-z[0]));
    *prob = z[0] > 0 ? p : 1 - p;
    return z[0] > 0;
  }
  return softmax_top(z, K, prob);
}

static int fill_predictions(struct dsana_outfile *f, const void *arg) {
  struct scored *sc = (struct scored *)arg;
  int bad = 0;
  for (uint64_t i = 0; i < sc->ds->n_rows && !bad; i++) {
    double p;
    uint32_t c = predict_row(sc->m, sc->ds, i, &p);
    sc->right += sc->m->labels[c] == sc->ds->label[i];
    bad = dsana_outfile_printf(f, "%.17g\t%.6f\n", sc->m->labels[c], p) < 0;
  }
  return bad;
}

/* What the model cannot know, said as training's --test says it: features
 * beyond the model's (ignored), labels it never saw (always counted wrong). */
static void warn_unknown(const struct model *m, const struct dsana_dataset *ds, const char *data_path) {
  uint64_t unknown = 0, c;
  for (uint64_t i = 0; i < ds->n_rows; i++)
    unknown += dsana_dataset_class_of(m->labels, m->classes, ds->label[i], &c) != 0;
  if (ds->n_features > m->features)
    fprintf(stderr,
            "dsana logreg predict: warning: %s has features up to %llu, the model %llu: the others are ignored\n",
            data_path, (unsigned long long)ds->n_features, (unsigned long long)m->features);
  if (unknown)
    fprintf(stderr,
            "dsana logreg predict: warning: %s: %llu of %llu rows have a label the model never saw (counted "
            "as errors)\n",
            data_path, (unsigned long long)unknown, (unsigned long long)ds->n_rows);
}

int logreg_predict(const char *model_path, const char *data_path, const char *out_path, double *accuracy, char *err,
                   size_t errlen) {
  struct model m = {0};
  struct dsana_dataset ds = {0};
  int rc = read_model(model_path, &m, err, errlen);
  if (!rc)
    rc = dsana_dataset_open(data_path, NULL, &ds, err, errlen);
  struct scored sc = {.m = &m, .ds = &ds};
  if (!rc)
    warn_unknown(&m, &ds, data_path);
  if (!rc)
    rc = model_text_write(out_path, fill_predictions, &sc, err, errlen);
  if (!rc && accuracy)
    *accuracy = (double)sc.right / (double)ds.n_rows;
  dsana_dataset_fini(&ds);
  free(m.labels);
  free(m.w);
  return rc;
}
