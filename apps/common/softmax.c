/* softmax.c - a softmax output's loss, gradient and prediction (softmax.h). */
#include "softmax.h"

#include <math.h>

static uint32_t top(const double *z, uint32_t K) {
  uint32_t best = 0;
  for (uint32_t c = 1; c < K; c++)
    best = z[c] > z[best] ? c : best;
  return best;
}

double softmax_xent(const double *z, uint32_t K, uint32_t y, double *gz, bool *right) {
  uint32_t best = top(z, K);
  double m = z[best], s = 0, e[SOFTMAX_MAX_CLASSES];
  for (uint32_t c = 0; c < K; c++)
    s += e[c] = exp(z[c] - m);
  double lse = m + log(s);
  for (uint32_t c = 0; gz && c < K; c++) { /* p_c = e^(z_c - m) / s */
    double g = e[c] / s - (c == y);
    gz[c] = fabs(g) < SOFTMAX_GRAD_FLOOR ? 0 : g;
  }
  *right = best == y;
  return lse - z[y];
}

uint32_t softmax_top(const double *z, uint32_t K, double *prob) {
  uint32_t best = top(z, K);
  double s = 0;
  for (uint32_t c = 0; c < K; c++)
    s += exp(z[c] - z[best]);
  *prob = 1 / s;
  return best;
}
