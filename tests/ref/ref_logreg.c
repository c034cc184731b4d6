/*
 * ref_logreg.c - an independent, deliberately plain logistic regression
 * for the tests: it shares no code with dsana (its own libsvm reader, its
 * own loss and gradient) and computes the same objective as `dsana logreg`
 * (mean logistic or softmax loss + l2/(2N)|w|^2, bias not penalised; two
 * classes: one weight vector, class 1 = the larger label).
 *
 *   ref_logreg check DATA MODEL [--l2 L]   objective and gradient at a
 *        dsana model file: "f=... gnorm=... accuracy=..."
 *   ref_logreg train DATA [--l2 L] [--iters N]  gradient descent with a
 *        backtracking line search from w = 0: "f=... gnorm=... accuracy=..."
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct data {
  int n, d, k;        /* rows, features, classes */
  int *off, *col, *y; /* CSR, y: class index */
  double *val, labels[64];
};

static void die(const char *m) {
  fprintf(stderr, "ref_logreg: %s\n", m);
  exit(2);
}

static int label_index(struct data *x, double l, int add) {
  for (int c = 0; c < x->k; c++)
    if (x->labels[c] == l)
      return c;
  if (!add || x->k == 64)
    die("too many labels");
  x->labels[x->k] = l;
  return x->k++;
}

static void read_data(const char *path, struct data *x) {
  FILE *f = fopen(path, "r");
  if (!f)
    die("cannot open the data");
  int cap = 1024, ecap = 1 << 16, e = 0;
  double *lab = malloc(sizeof *lab * (size_t)cap);
  x->off = malloc(sizeof(int) * ((size_t)cap + 1));
  x->col = malloc(sizeof(int) * (size_t)ecap);
  x->val = malloc(sizeof(double) * (size_t)ecap);
  x->n = x->d = x->k = 0;
  char line[1 << 16];
  while (fgets(line, sizeof line, f)) {
    char *p = line, *q;
    double l = strtod(p, &q);
    if (q == p)
      continue;
    if (x->n + 1 >= cap) {
      cap *= 2;
      lab = realloc(lab, sizeof *lab * (size_t)cap);
      x->off = realloc(x->off, sizeof(int) * ((size_t)cap + 1));
    }
    lab[x->n] = l;
    x->off[x->n] = e;
    for (p = q;;) {
      long j = strtol(p, &q, 10);
      if (q == p || *q != ':')
        break;
      double v = strtod(q + 1, &p);
      if (e == ecap) {
        ecap *= 2;
        x->col = realloc(x->col, sizeof(int) * (size_t)ecap);
        x->val = realloc(x->val, sizeof(double) * (size_t)ecap);
      }
      x->col[e] = (int)j - 1;
      x->val[e++] = v;
      x->d = (int)j > x->d ? (int)j : x->d;
    }
    x->n++;
  }
  fclose(f);
  x->off[x->n] = e;
  for (int i = 0; i < x->n; i++)
    label_index(x, lab[i], 1);
  for (int a = 0; a < x->k; a++) /* ascending labels: class c = c-th smallest */
    for (int b = a + 1; b < x->k; b++)
      if (x->labels[b] < x->labels[a]) {
        double t = x->labels[a];
        x->labels[a] = x->labels[b];
        x->labels[b] = t;
      }
  x->y = malloc(sizeof(int) * (size_t)x->n);
  for (int i = 0; i < x->n; i++)
    x->y[i] = label_index(x, lab[i], 0);
  free(lab);
}

/* Objective, gradient (into g, may be NULL) and training accuracy at w:
 * w has (d + 1) * kw values, feature-major, the bias last. */
static double objective(const struct data *x, double l2, const double *w, double *g, double *acc) {
  int kw = x->k == 2 ? 1 : x->k, right = 0;
  double f = 0, z[64], p[64];
  if (g)
    memset(g, 0, sizeof(double) * (size_t)(x->d + 1) * (size_t)kw);
  for (int i = 0; i < x->n; i++) {
    for (int c = 0; c < kw; c++) {
      z[c] = w[x->d * kw + c];
      for (int e = x->off[i]; e < x->off[i + 1]; e++)
        z[c] += x->val[e] * w[x->col[e] * kw + c];
    }
    if (kw == 1) {
      double s = 1 / (1 + exp(-z[0]));
      f += x->y[i] ? log1p(exp(-z[0])) : log1p(exp(z[0]));
      p[0] = s - x->y[i];
      right += (z[0] > 0) == (x->y[i] == 1);
    } else {
      double m = z[0], sum = 0;
      int best = 0;
      for (int c = 1; c < kw; c++)
        if (z[c] > m) {
          m = z[c];
          best = c;
        }
      for (int c = 0; c < kw; c++)
        sum += exp(z[c] - m);
      f += m + log(sum) - z[x->y[i]];
      for (int c = 0; c < kw; c++)
        p[c] = exp(z[c] - m) / sum - (c == x->y[i]);
      right += best == x->y[i];
    }
    for (int c = 0; g && c < kw; c++) {
      for (int e = x->off[i]; e < x->off[i + 1]; e++)
        g[x->col[e] * kw + c] += x->val[e] * p[c];
      g[x->d * kw + c] += p[c];
    }
  }
  for (int j = 0; j < x->d * kw; j++) {
    f += 0.5 * l2 * w[j] * w[j];
    if (g)
      g[j] += l2 * w[j];
  }
  for (int j = 0; g && j < (x->d + 1) * kw; j++)
    g[j] /= x->n;
  *acc = (double)right / x->n;
  return f / x->n;
}

static double norm(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * v[i];
  return sqrt(s);
}

static void train(const struct data *x, double l2, int iters, double *w) {
  int kw = x->k == 2 ? 1 : x->k, n = (x->d + 1) * kw;
  double *g = malloc(sizeof *g * (size_t)n), *t = malloc(sizeof *t * (size_t)n), acc, step = 1;
  memset(w, 0, sizeof *w * (size_t)n);
  for (int it = 0; it < iters; it++) {
    double f = objective(x, l2, w, g, &acc), gg = norm(g, n) * norm(g, n);
    if (gg < 1e-24)
      break;
    for (step *= 2;; step /= 2) {
      for (int j = 0; j < n; j++)
        t[j] = w[j] - step * g[j];
      if (objective(x, l2, t, NULL, &acc) <= f - 0.5 * step * gg || step < 1e-20)
        break;
    }
    memcpy(w, t, sizeof *w * (size_t)n);
  }
  free(g);
  free(t);
}

static void read_model(const char *path, double *w, int n) {
  FILE *f = fopen(path, "r");
  char line[4096];
  int got = 0;
  if (!f)
    die("cannot open the model");
  while (got < n && fgets(line, sizeof line, f))
    if (line[0] != '#')
      w[got++] = strtod(line, NULL);
  fclose(f);
  if (got != n)
    die("model too short");
}

int main(int argc, char **argv) {
  if (argc < 3)
    die("usage: ref_logreg check DATA MODEL [--l2 L] | train DATA [--l2 L] [--iters N]");
  double l2 = 1.0;
  int iters = 20000;
  for (int i = 3; i + 1 < argc; i++) {
    if (strcmp(argv[i], "--l2") == 0)
      l2 = atof(argv[i + 1]);
    if (strcmp(argv[i], "--iters") == 0)
      iters = atoi(argv[i + 1]);
  }
  struct data x;
  read_data(argv[2], &x);
  int kw = x.k == 2 ? 1 : x.k, n = (x.d + 1) * kw;
  double *w = calloc((size_t)n, sizeof *w), *g = malloc(sizeof *g * (size_t)n), acc;
  if (strcmp(argv[1], "check") == 0 && argc >= 4)
    read_model(argv[3], w, n);
  else if (strcmp(argv[1], "train") == 0)
    train(&x, l2, iters, w);
  else
    die("unknown command");
  double f = objective(&x, l2, w, g, &acc);
  printf("f=%.17g gnorm=%.6e accuracy=%.6f\n", f, norm(g, n), acc);
  free(w);
  free(g);
  free(x.off);
  free(x.col);
  free(x.val);
  free(x.y);
  return 0;
}
