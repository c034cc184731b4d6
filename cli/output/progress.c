/*
 * progress.c - live progress line with a geometric-decay ETA (see
 * progress.h). Formatting and the estimate are pure functions of the
 * struct; only progress_update/progress_done touch stderr.
 */
#include "cli/output/progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dsana/dsana.h"

void progress_init(struct progress *p, int enabled, double tol, uint32_t max_iter) {
  memset(p, 0, sizeof *p);
  p->enabled = enabled;
  p->tol = tol;
  p->max_iter = max_iter;
  p->residual = NAN;
}

static void progress_record(struct progress *p, uint32_t iter, double residual, double iter_s) {
  if (p->n > 0 && iter <= p->hist_iter[(p->head + PROGRESS_WINDOW - 1) % PROGRESS_WINDOW])
    p->n = p->head = 0;
  /* log() needs a positive finite residual; others do not join the fit. */
  if (!(residual > 0) || !isfinite(residual))
    return;
  p->hist_iter[p->head] = iter;
  p->hist_log_res[p->head] = log(residual);
  p->hist_iter_s[p->head] = iter_s > 0 && isfinite(iter_s) ? iter_s : 0;
  p->head = (p->head + 1) % PROGRESS_WINDOW;
  if (p->n < PROGRESS_WINDOW)
    p->n++;
}

void progress_update(struct progress *p, uint32_t iter, double residual, double iter_s, double elapsed_s) {
  progress_record(p, iter, residual, iter_s);
  p->iter = iter;
  p->residual = residual;
  p->elapsed_s = elapsed_s;
  if (!p->enabled)
    return;
  char line[160];
  progress_format(p, line, sizeof line);
  fprintf(stderr, "\r\033[K%s", line);
  fflush(stderr);
  p->drawn = 1;
}

void progress_done(struct progress *p) {
  if (!p->enabled || !p->drawn)
    return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->drawn = 0;
}

/* Least-squares slope of log(residual) against iteration over the window. */
static double progress_slope(const struct progress *p) {
  double mx = 0, my = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    mx += p->hist_iter[i];
    my += p->hist_log_res[i];
  }
  mx /= p->n;
  my /= p->n;
  double sxy = 0, sxx = 0;
  for (uint32_t i = 0; i < p->n; i++) {
    double dx = p->hist_iter[i] - mx;
    sxy += dx * (p->hist_log_res[i] - my);
    sxx += dx * dx;
  }
  return sxx > 0 ? sxy / sxx : 0;
}

static double progress_mean_iter_s(const struct progress *p) {
  double sum = 0;
  for (uint32_t i = 0; i < p->n; i++)
    sum += p->hist_iter_s[i];
  return p->n ? sum / p->n : 0;
}

int progress_eta(const struct progress *p, uint32_t *iters_left, double *eta_s) {
  *iters_left = 0;
  *eta_s = 0;
  if (p->residual <= p->tol)
    return 0;
  if (p->n < 2)
    return DSANA_EAGAIN;
  uint32_t cap = p->max_iter > p->iter ? p->max_iter - p->iter : 0;
  double slope = progress_slope(p), left;
  if (slope < 0) {
    double last = p->hist_log_res[(p->head + PROGRESS_WINDOW - 1) % PROGRESS_WINDOW];
    /* small slack so an exact power of the rate does not round up a step */
    left = ceil((log(p->tol) - last) / slope - 1e-9);
    if (left < 0)
      left = 0;
  } else {
    left = INFINITY;
  }
  if (p->max_iter > 0 && left > cap)
    left = cap;
  if (!isfinite(left) || left > UINT32_MAX)
    return DSANA_EAGAIN;
  *iters_left = (uint32_t)left;
  *eta_s = left * progress_mean_iter_s(p);
  return 0;
}

static int progress_format_eta(double s, char *buf, size_t len) {
  if (s < 60)
    return snprintf(buf, len, "%.1f s", s);
  unsigned long t = (unsigned long)(s + 0.5);
  if (t < 3600)
    return snprintf(buf, len, "%lum%02lus", t / 60, t % 60);
  return snprintf(buf, len, "%luh%02lum", t / 3600, t / 60 % 60);
}

void progress_set_figures(struct progress *p, const char *const *names, const double *values, uint32_t n) {
  size_t at = 0;
  p->figures[0] = '\0';
  for (uint32_t i = 0; i < n && i < 3 && at < sizeof p->figures; i++) {
    int k = snprintf(p->figures + at, sizeof p->figures - at, "%s%s %.4g", i ? "  " : "", names[i], values[i]);
    if (k < 0 || (size_t)k >= sizeof p->figures - at) {
      p->figures[at] = '\0'; /* what does not fit is left out whole */
      break;
    }
    at += (size_t)k;
  }
}

int progress_format(const struct progress *p, char *buf, size_t len) {
  char iter[32], eta[32];
  if (p->max_iter > 0)
    snprintf(iter, sizeof iter, "%u/%u", p->iter, p->max_iter);
  else
    snprintf(iter, sizeof iter, "%u", p->iter);
  uint32_t left;
  double eta_s;
  if (progress_eta(p, &left, &eta_s) == 0)
    progress_format_eta(eta_s, eta, sizeof eta);
  else
    snprintf(eta, sizeof eta, "?");
  char what[sizeof p->figures + 32];
  if (p->figures[0])
    snprintf(what, sizeof what, "%s", p->figures);
  else
    snprintf(what, sizeof what, "residual %.1e", p->residual);
  return snprintf(buf, len, "iter %s  %s  %.3f s/iter  ETA %s", iter, what, progress_mean_iter_s(p), eta);
}
