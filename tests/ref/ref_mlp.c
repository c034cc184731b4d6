/*
 * ref_mlp.c - an independent, deliberately plain multilayer perceptron for
 * the tests: it shares no code with dsana (its own libsvm and model
 * readers, its own forward and backward passes in long double) and
 * computes the loss `dsana mlp` defines: mean softmax cross-entropy over
 * the rows + (l2 / 2N) |W|^2, biases not penalised; hidden layers ReLU or
 * tanh (as the model file's header says).
 *
 *   ref_mlp step DATA MODEL0 MODEL1 LR L2   one full-batch gradient step
 *        from MODEL0 (w1 = w0 - LR grad) against dsana's MODEL1: prints
 *        "maxdiff=... step=..." (the largest |w1 - MODEL1| and |w1 - w0|)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXL 8

static void die(const char *m) {
  fprintf(stderr, "ref_mlp: %s\n", m);
  exit(2);
}

struct data {
  int n, d, k;
  int *off, *col, *y;
  double *val, labels[64];
};

static void read_data(const char *path, struct data *x) {
  FILE *f = fopen(path, "r");
  if (!f)
    die("cannot open data");
  int cap = 1 << 16, ncap = 1024, nnz = 0;
  double *lab = malloc(sizeof(double) * ncap);
  x->off = malloc(sizeof(int) * (ncap + 1));
  x->col = malloc(sizeof(int) * cap);
  x->val = malloc(sizeof(double) * cap);
  x->n = x->d = 0;
  x->off[0] = 0;
  char line[1 << 16];
  while (fgets(line, sizeof line, f)) {
    char *p = line, *e;
    double l = strtod(p, &e);
    if (e == p)
      continue;
    if (x->n == ncap) {
      ncap *= 2;
      lab = realloc(lab, sizeof(double) * ncap);
      x->off = realloc(x->off, sizeof(int) * (ncap + 1));
    }
    lab[x->n] = l;
    p = e;
    for (;;) {
      long j = strtol(p, &e, 10);
      if (e == p || *e != ':')
        break;
      double v = strtod(e + 1, &p);
      if (nnz == cap) {
        cap *= 2;
        x->col = realloc(x->col, sizeof(int) * cap);
        x->val = realloc(x->val, sizeof(double) * cap);
      }
      x->col[nnz] = (int)j - 1;
      x->val[nnz++] = v;
      if (j > x->d)
        x->d = (int)j;
    }
    x->off[++x->n] = nnz;
  }
  fclose(f);
  x->k = 0; /* classes: distinct labels ascending */
  for (int i = 0; i < x->n; i++) {
    int c = 0;
    while (c < x->k && x->labels[c] != lab[i])
      c++;
    if (c == x->k) {
      if (x->k == 64)
        die("too many classes");
      x->labels[x->k++] = lab[i];
    }
  }
  for (int a = 0; a < x->k; a++)
    for (int b = a + 1; b < x->k; b++)
      if (x->labels[b] < x->labels[a]) {
        double t = x->labels[a];
        x->labels[a] = x->labels[b];
        x->labels[b] = t;
      }
  x->y = malloc(sizeof(int) * x->n);
  for (int i = 0; i < x->n; i++)
    for (int c = 0; c < x->k; c++)
      if (x->labels[c] == lab[i])
        x->y[i] = c;
  free(lab);
}

struct net {
  int L, n[MAXL + 1], tanh_act;
  long np;
  double *p;
  long w[MAXL + 1], b[MAXL + 1];
};

static void read_model(const char *path, struct net *m) {
  FILE *f = fopen(path, "r");
  char act[16];
  if (!f || fscanf(f, "# dsana mlp model # layers %d widths", &m->L) != 1 || m->L < 1 || m->L > MAXL)
    die("bad model header");
  for (int l = 0; l <= m->L; l++)
    if (fscanf(f, "%d", &m->n[l]) != 1)
      die("bad widths");
  if (fscanf(f, " activation %15s # labels", act) != 1)
    die("bad activation");
  m->tanh_act = strcmp(act, "tanh") == 0;
  for (int c = 0; c < m->n[m->L]; c++) {
    double l;
    if (fscanf(f, "%lf", &l) != 1)
      die("bad labels");
  }
  m->np = 0;
  for (int l = 1; l <= m->L; l++) {
    m->w[l] = m->np;
    m->np += (long)m->n[l - 1] * m->n[l];
    m->b[l] = m->np;
    m->np += m->n[l];
  }
  m->p = malloc(sizeof(double) * m->np);
  for (long i = 0; i < m->np; i++)
    if (fscanf(f, "%lf", &m->p[i]) != 1)
      die("short model");
  fclose(f);
}

/* The summed loss gradient over every row into g (long double). */
static void gradient(const struct data *x, const struct net *m, long double *g) {
  long double *h[MAXL + 1], *d[MAXL + 1];
  for (int l = 0; l <= m->L; l++) {
    h[l] = calloc(m->n[l], sizeof(long double));
    d[l] = calloc(m->n[l], sizeof(long double));
  }
  for (int i = 0; i < x->n; i++) {
    memset(h[0], 0, sizeof(long double) * m->n[0]);
    for (int e = x->off[i]; e < x->off[i + 1]; e++)
      if (x->col[e] < m->n[0])
        h[0][x->col[e]] = x->val[e];
    for (int l = 1; l <= m->L; l++)
      for (int c = 0; c < m->n[l]; c++) {
        long double z = m->p[m->b[l] + c];
        for (int j = 0; j < m->n[l - 1]; j++)
          z += h[l - 1][j] * m->p[m->w[l] + (long)j * m->n[l] + c];
        h[l][c] = l == m->L ? z : m->tanh_act ? tanhl(z) : (z > 0 ? z : 0);
      }
    int K = m->n[m->L];
    long double mx = h[m->L][0], s = 0;
    for (int c = 1; c < K; c++)
      mx = h[m->L][c] > mx ? h[m->L][c] : mx;
    for (int c = 0; c < K; c++)
      s += expl(h[m->L][c] - mx);
    for (int c = 0; c < K; c++)
      d[m->L][c] = expl(h[m->L][c] - mx) / s - (c == x->y[i]);
    for (int l = m->L; l >= 1; l--) {
      for (int j = 0; j < m->n[l - 1]; j++)
        for (int c = 0; c < m->n[l]; c++)
          g[m->w[l] + (long)j * m->n[l] + c] += h[l - 1][j] * d[l][c];
      for (int c = 0; c < m->n[l]; c++)
        g[m->b[l] + c] += d[l][c];
      if (l == 1)
        break;
      for (int j = 0; j < m->n[l - 1]; j++) {
        long double t = 0;
        for (int c = 0; c < m->n[l]; c++)
          t += d[l][c] * m->p[m->w[l] + (long)j * m->n[l] + c];
        long double a = h[l - 1][j];
        d[l - 1][j] = m->tanh_act ? t * (1 - a * a) : (a > 0 ? t : 0);
      }
    }
  }
  for (int l = 0; l <= m->L; l++)
    free(h[l]), free(d[l]);
}

int main(int argc, char **argv) {
  if (argc != 7 || strcmp(argv[1], "step") != 0)
    die("usage: ref_mlp step DATA MODEL0 MODEL1 LR L2");
  struct data x;
  struct net m0, m1;
  read_data(argv[2], &x);
  read_model(argv[3], &m0);
  read_model(argv[4], &m1);
  double lr = atof(argv[5]), l2 = atof(argv[6]);
  if (m0.np != m1.np || m0.n[m0.L] != x.k)
    die("models and data do not match");
  long double *g = calloc(m0.np, sizeof(long double));
  gradient(&x, &m0, g);
  double maxdiff = 0, step = 0;
  for (int l = 1; l <= m0.L; l++)
    for (long k = m0.w[l]; k < m0.b[l] + m0.n[l]; k++) {
      long double gk = (g[k] + (k < m0.b[l] ? l2 * m0.p[k] : 0)) / x.n;
      double w1 = (double)(m0.p[k] - lr * gk);
      maxdiff = fmax(maxdiff, fabs(w1 - m1.p[k]));
      step = fmax(step, fabs(w1 - m0.p[k]));
    }
  printf("maxdiff=%.6g step=%.6g\n", maxdiff, step);
  free(g), free(m0.p), free(m1.p);
  free(x.off), free(x.col), free(x.val), free(x.y);
  return 0;
}
