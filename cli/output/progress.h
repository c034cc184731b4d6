/*
 * progress.h - a live one-line progress display for a terminal:
 *   iter 12/100  residual 3.2e-05  0.031 s/iter  ETA 1.2 s
 * redrawn in place on stderr ("\r\033[K") after every iteration.
 *
 * The ETA assumes the residual decays geometrically towards the tolerance
 * (what PageRank and most iterative-convergent methods do): a least-squares
 * line through log(residual) over the last PROGRESS_WINDOW iterations gives
 * the decay rate, hence the iterations left, capped by the iteration limit,
 * times the mean iteration time over the same window.
 *
 * The struct is embedded by the caller and owned by the thread that calls
 * progress_update (the scheduler's); nothing is allocated.
 */
#ifndef DSANA_CLI_PROGRESS_H
#define DSANA_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_WINDOW 5

struct progress {
  int enabled;       /* draw at all (callers pass e.g. isatty(STDERR_FILENO)) */
  int drawn;         /* a line is on screen and needs clearing */
  double tol;        /* convergence threshold on the residual */
  uint32_t max_iter; /* iteration cap; 0 = none */
  uint32_t iter;     /* last reported iteration (completed count) */
  double residual, elapsed_s;
  /* ring of the last PROGRESS_WINDOW points with a usable residual */
  uint32_t n, head;
  uint32_t hist_iter[PROGRESS_WINDOW];
  double hist_log_res[PROGRESS_WINDOW];
  double hist_iter_s[PROGRESS_WINDOW];
  char figures[96]; /* the app's own figures ("train_loss 0.41  ..."), shown instead of the residual */
};

/* Resets p. enabled = 0 makes update/done no-ops (formatting still works). */
void progress_init(struct progress *p, int enabled, double tol, uint32_t max_iter);
/* Records iteration `iter` (1-based count of completed iterations) with its
 * residual, its own duration and the run's elapsed time, then redraws the
 * line on stderr if enabled. An iter not after the last one restarts the
 * estimate (e.g. after a recovery rolled the run back). */
void progress_update(struct progress *p, uint32_t iter, double residual, double iter_s, double elapsed_s);
/* The app's figures of the iteration just reported: up to the first
 * three (name, value) pairs replace "residual X" on the line (logreg's
 * residual is a gradient norm; its user looks for the loss and accuracy).
 * n = 0 goes back to the residual. */
void progress_set_figures(struct progress *p, const char *const *names, const double *values, uint32_t n);
/* Clears the line if one was drawn, leaving the cursor at column 0. */
void progress_done(struct progress *p);

/* Iterations and seconds left. 0 on success; DSANA_EAGAIN while unknown
 * (fewer than 2 points, or no decay and no iteration cap). Converged
 * (residual below tol) gives 0 and 0.0. */
int progress_eta(const struct progress *p, uint32_t *iters_left, double *eta_s);
/* Formats the line (no escape codes) into buf; returns the length that
 * snprintf would (truncated if >= len). Pure; for the display and tests. */
int progress_format(const struct progress *p, char *buf, size_t len);

#endif
