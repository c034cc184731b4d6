/*
 * test_cli_progress.c - the progress line's ETA on synthetic residual
 * sequences (geometric decay, iteration cap, stalls, restarts) and its
 * formatting; the terminal output through a redirected stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/output/progress.h"
#include "dsana/dsana.h"

/* cmocka before 1.1.6 has no assert_double_equal. */
#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* r_k = r0 * q^k reaches 1e-6 from r0 = 1, q = 1/2 first at k = 20. */
static void test_geometric_decay_eta(void **state) {
  (void)state;
  struct progress p;
  progress_init(&p, 0, 1e-6, 100);
  uint32_t left;
  double eta_s;
  assert_int_equal(progress_eta(&p, &left, &eta_s), DSANA_EAGAIN);
  progress_update(&p, 1, 0.5, 0.1, 0.1);
  assert_int_equal(progress_eta(&p, &left, &eta_s), DSANA_EAGAIN); /* one point */
  for (uint32_t k = 2; k <= 19; k++) {
    progress_update(&p, k, ldexp(1.0, -(int)k), 0.1, 0.1 * k);
    assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
    assert_int_equal(left, 20 - k);
    assert_near(eta_s, 0.1 * (20 - k), 1e-9);
  }
  progress_update(&p, 20, ldexp(1.0, -20), 0.1, 2.0);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0); /* converged */
  assert_int_equal(left, 0);
  assert_true(eta_s == 0);
}

/* Noise around a geometric trend: the fit over the window still finds it. */
static void test_noisy_decay_eta(void **state) {
  (void)state;
  struct progress p;
  progress_init(&p, 0, 1e-8, 1000);
  static const double jitter[] = {1.3, 0.8, 1.1, 0.9, 1.2, 0.85, 1.0, 1.15};
  for (uint32_t k = 1; k <= 8; k++)
    progress_update(&p, k, pow(0.1, k) * jitter[k - 1], 0.2, 0.2 * k);
  uint32_t left;
  double eta_s;
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_true(left == 0 || left == 1); /* 0.1^8 * 1.15 is just above 1e-8 */
  progress_update(&p, 9, 1e-9, 0.2, 1.8);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_int_equal(left, 0);
}

static void test_max_iter_caps_eta(void **state) {
  (void)state;
  struct progress p;
  uint32_t left;
  double eta_s;
  /* Slow decay (q = 0.9 needs ~131 iterations from 1 to 1e-6) under a cap of 10. */
  progress_init(&p, 0, 1e-6, 10);
  for (uint32_t k = 1; k <= 4; k++)
    progress_update(&p, k, pow(0.9, k), 0.5, 0.5 * k);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_int_equal(left, 6);
  assert_near(eta_s, 3.0, 1e-9);

  /* A stalled residual: only the cap bounds the run. */
  progress_init(&p, 0, 1e-6, 50);
  for (uint32_t k = 1; k <= 3; k++)
    progress_update(&p, k, 1e-3, 1.0, k);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_int_equal(left, 47);

  /* No cap and no decay: unknown. */
  progress_init(&p, 0, 1e-6, 0);
  for (uint32_t k = 1; k <= 3; k++)
    progress_update(&p, k, 1e-3 * k, 1.0, k);
  assert_int_equal(progress_eta(&p, &left, &eta_s), DSANA_EAGAIN);

  /* At the cap: nothing left even if not converged. */
  progress_init(&p, 0, 1e-6, 3);
  for (uint32_t k = 1; k <= 3; k++)
    progress_update(&p, k, pow(0.5, k), 1.0, k);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_int_equal(left, 0);
}

static void test_restart_and_bad_residuals(void **state) {
  (void)state;
  struct progress p;
  uint32_t left;
  double eta_s;
  progress_init(&p, 0, 1e-6, 100);
  for (uint32_t k = 1; k <= 5; k++)
    progress_update(&p, k, pow(0.5, k), 0.1, 0.1 * k);
  /* Rolled back to iteration 3: the old points no longer count. */
  progress_update(&p, 3, 0.125, 0.1, 0.6);
  assert_int_equal(progress_eta(&p, &left, &eta_s), DSANA_EAGAIN);
  progress_update(&p, 4, 0.0625, 0.1, 0.7);
  assert_int_equal(progress_eta(&p, &left, &eta_s), 0);
  assert_int_equal(left, 16);
  /* A NaN residual joins no fit and gives no ETA-breaking log. */
  progress_update(&p, 5, NAN, 0.1, 0.8);
  char buf[128];
  progress_format(&p, buf, sizeof buf);
  assert_non_null(strstr(buf, "iter 5/100"));
}

static void test_format_line(void **state) {
  (void)state;
  struct progress p;
  char buf[128];
  progress_init(&p, 0, 1e-6, 100);
  progress_update(&p, 1, 0.5, 0.031, 0.031);
  progress_format(&p, buf, sizeof buf);
  assert_string_equal(buf, "iter 1/100  residual 5.0e-01  0.031 s/iter  ETA ?");
  progress_update(&p, 2, 0.25, 0.031, 0.062);
  progress_format(&p, buf, sizeof buf);
  assert_string_equal(buf, "iter 2/100  residual 2.5e-01  0.031 s/iter  ETA 0.6 s");

  progress_init(&p, 0, 1e-6, 0);
  progress_update(&p, 1, 0.5, 10, 10);
  progress_update(&p, 2, 0.25, 10, 20);
  progress_format(&p, buf, sizeof buf);
  assert_string_equal(buf, "iter 2  residual 2.5e-01  10.000 s/iter  ETA 3m00s");

  /* An app's figures (logreg: loss, accuracy, gradient norm) replace the
   * residual; the first three, whole or not at all. */
  const char *names[] = {"train_loss", "train_accuracy", "grad_norm", "step"};
  const double vals[] = {0.41234567, 0.853, 3.2e-05, 7};
  progress_set_figures(&p, names, vals, 4);
  progress_format(&p, buf, sizeof buf);
  assert_string_equal(buf,
                      "iter 2  train_loss 0.4123  train_accuracy 0.853  grad_norm 3.2e-05  10.000 s/iter  ETA 3m00s");
  progress_set_figures(&p, names, vals, 0);
  progress_format(&p, buf, sizeof buf);
  assert_string_equal(buf, "iter 2  residual 2.5e-01  10.000 s/iter  ETA 3m00s");

  /* Truncation is snprintf's. */
  char tiny[8];
  int n = progress_format(&p, tiny, sizeof tiny);
  assert_true(n > (int)sizeof tiny);
  assert_string_equal(tiny, "iter 2 ");
}

/* Enabled output: redraw in place, then clear. */
static void test_terminal_output(void **state) {
  (void)state;
  char path[] = "/tmp/dsana_progress_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  dup2(fd, STDERR_FILENO);

  struct progress p;
  progress_init(&p, 1, 1e-6, 10);
  progress_done(&p); /* nothing drawn yet: nothing written */
  progress_update(&p, 1, 0.5, 0.5, 0.5);
  progress_done(&p);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);

  char out[256] = {0};
  assert_true(lseek(fd, 0, SEEK_SET) == 0);
  ssize_t n = read(fd, out, sizeof out - 1);
  close(fd);
  unlink(path);
  assert_true(n > 0);
  assert_string_equal(out, "\r\033[Kiter 1/10  residual 5.0e-01  0.500 s/iter  ETA ?\r\033[K");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_geometric_decay_eta), cmocka_unit_test(test_noisy_decay_eta),
      cmocka_unit_test(test_max_iter_caps_eta),   cmocka_unit_test(test_restart_and_bad_residuals),
      cmocka_unit_test(test_format_line),         cmocka_unit_test(test_terminal_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
