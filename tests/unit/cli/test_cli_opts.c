/* test_cli_opts.c - the command-line parser: common + app options, bad
 * values and unknown options rejected with exit-code-2 semantics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/core/cli_apps.h"
#include "cli/core/opts.h"

static int parse(struct cli_run *r, int argc, const char **argv) {
  const struct dsana_app *app = cli_find_app("pagerank");
  assert_non_null(app);
  char *copy[32];
  for (int i = 0; i < argc; i++)
    copy[i] = (char *)argv[i];
  copy[argc] = NULL;
  /* the parser reports errors on stderr; keep test output quiet */
  FILE *saved = stderr;
  stderr = fopen("/dev/null", "w");
  int rc = cli_parse_run(app, argc, copy, r);
  fclose(stderr);
  stderr = saved;
  return rc;
}

static void done(struct cli_run *r) { r->app->destroy(r->app_state); }

static void test_defaults_and_values(void **state) {
  (void)state;
  struct cli_run r;
  const char *argv[] = {"pagerank", "g.txt", "--workers", "3", "--servers", "2", "--tol", "1e-9", "--mode", "dsana"};
  assert_int_equal(parse(&r, 10, argv), 0);
  assert_int_equal(r.cfg.n_workers, 3);
  assert_int_equal(r.cfg.n_servers, 2);
  assert_int_equal(r.cfg.mode, MODE_DSANA);
  assert_int_equal(r.cfg.sched, SCHED_DYNAMIC);
  assert_int_equal(r.cfg.tasks_per_worker, 16);
  /* forwarded app arguments: named in order, then positionals */
  assert_int_equal(r.args.n, 2);
  assert_string_equal(r.args.name[0], "tol");
  assert_string_equal(r.args.value[0], "1e-9");
  assert_string_equal(r.args.name[1], "");
  assert_string_equal(r.args.value[1], "g.txt");
  done(&r);
}

/* The tasks a worker gets: 16 (or 4 a thread when more) until the job
 * would hold more than 256 a server, then fewer, never below 4 nor one a
 * thread; --tasks-per-worker exactly. */
static void test_tasks_per_worker_default_scales(void **state) {
  (void)state;
  static const struct {
    const char *workers, *servers, *tpw;
    uint32_t want;
  } cases[] = {{"4", "1", NULL, 16},   {"16", "1", NULL, 16}, {"32", "1", NULL, 8},  {"64", "2", NULL, 8},
               {"64", "1", NULL, 4},   {"512", "2", NULL, 4}, {"64", "2", "16", 16}, {"64", "2", "2", 2},
               {"1000", "3", NULL, 4}, {"48", "2", NULL, 10}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct cli_run r;
    const char *argv[] = {"pagerank",  "g.txt",          "--workers",          cases[i].workers,
                          "--servers", cases[i].servers, "--tasks-per-worker", cases[i].tpw};
    assert_int_equal(parse(&r, cases[i].tpw ? 8 : 6, argv), 0);
    assert_int_equal(config_tasks_per_worker(&r.cfg), cases[i].want);
    done(&r);
  }
  /* with --threads T: 4 a thread when more than 16, capped as above but
   * never below one a thread */
  static const struct {
    const char *workers, *servers, *threads;
    uint32_t want;
  } threaded[] = {{"4", "1", "2", 16},     {"4", "1", "4", 16},   {"4", "1", "8", 32},
                  {"16", "16", "64", 256}, {"64", "2", "16", 16}, {"64", "16", "16", 64}};
  for (size_t i = 0; i < sizeof threaded / sizeof threaded[0]; i++) {
    struct cli_run r;
    const char *argv[] = {"pagerank",          "g.txt",     "--workers",        threaded[i].workers, "--servers",
                          threaded[i].servers, "--threads", threaded[i].threads};
    assert_int_equal(parse(&r, 8, argv), 0);
    assert_int_equal(config_tasks_per_worker(&r.cfg), threaded[i].want);
    done(&r);
  }
}

static void test_sched_overrides_mode(void **state) {
  (void)state;
  struct cli_run r;
  const char *argv[] = {"pagerank", "--sched", "static", "--mode", "dsana", "g"};
  assert_int_equal(parse(&r, 6, argv), 0);
  assert_int_equal(r.cfg.mode, MODE_DSANA);
  assert_int_equal(r.cfg.sched, SCHED_STATIC);
  done(&r);
}

static void test_bad_values_rejected(void **state) {
  (void)state;
  static const char *bad[][3] = {
      {"--workers", "0", NULL},      {"--workers", "abc", NULL},
      {"--workers", "-2", NULL},     {"--servers", "", NULL},
      {"--mode", "fast", NULL},      {"--sched", "random", NULL},
      {"--damping", "1.5", NULL},    {"--damping", "abc", NULL},
      {"--tol", "-1", NULL},         {"--max-iter", "0", NULL},
      {"--top", "x", NULL},          {"--bogus", NULL, NULL},
      {"--peer-timeout", "0", NULL}, {"--tasks-per-worker", "0", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct cli_run r;
    const char *argv[4] = {"pagerank", bad[i][0], bad[i][1], NULL};
    int argc = bad[i][1] ? 3 : 2;
    assert_int_equal(parse(&r, argc, argv), DSANA_EUSAGE);
    done(&r);
  }
}

static void test_missing_value_and_two_graphs(void **state) {
  (void)state;
  struct cli_run r;
  const char *a1[] = {"pagerank", "g", "--workers"};
  assert_int_equal(parse(&r, 3, a1), DSANA_EUSAGE);
  done(&r);
  const char *a2[] = {"pagerank", "g", "h"};
  assert_int_equal(parse(&r, 3, a2), DSANA_EUSAGE);
  done(&r);
}

static void test_number_parsers(void **state) {
  (void)state;
  uint32_t v;
  double d;
  assert_int_equal(cli_parse_u32("17", 1, 100, &v), 0);
  assert_int_equal(v, 17);
  assert_int_equal(cli_parse_u32("101", 1, 100, &v), DSANA_EINVAL);
  assert_int_equal(cli_parse_u32("1x", 1, 100, &v), DSANA_EINVAL);
  assert_int_equal(cli_parse_u32("99999999999999999999", 1, UINT32_MAX, &v), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("2.5", &d), 0);
  assert_int_equal(cli_parse_seconds("nan", &d), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("-1", &d), DSANA_EINVAL);
  /* within what the timeouts' ns and ms counts hold */
  assert_int_equal(cli_parse_seconds("1e6", &d), 0);
  assert_int_equal(cli_parse_seconds("0.001", &d), 0);
  assert_int_equal(cli_parse_seconds("1e12", &d), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("1e300", &d), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("1e11", &d), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("1e-320", &d), DSANA_EINVAL);
  assert_int_equal(cli_parse_seconds("0", &d), DSANA_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_and_values),          cmocka_unit_test(test_tasks_per_worker_default_scales),
      cmocka_unit_test(test_sched_overrides_mode),         cmocka_unit_test(test_bad_values_rejected),
      cmocka_unit_test(test_missing_value_and_two_graphs), cmocka_unit_test(test_number_parsers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
