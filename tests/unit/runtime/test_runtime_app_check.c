/*
 * test_runtime_app_check.c - the app contract (src/runtime/role/app_check.c):
 * every app the command knows passes it; a complete app passes; and each
 * check refuses what it is for with one line naming the app, the hook or
 * option at fault and why. Also the option table as the source of the
 * defaults (dsana_app_set_defaults, src/runtime/role/app_options.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/core/cli_apps.h"
#include "runtime/role/app_check.h"
#include "runtime/core/job.h"
#include "runtime/role/role_params.h"
#include "runtime/scheduler/scheduler.h"
#include "cli/run/sim_tasks.h"

static int t_create(void **app) {
  *app = NULL;
  return 0;
}
static void t_destroy(void *app) { (void)app; }
static int t_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  (void)app, (void)name, (void)value, (void)err, (void)errlen;
  return 0;
}
static int setups; /* t_setup calls */
static int t_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  (void)app, (void)job, (void)err, (void)errlen;
  setups++;
  return 0;
}
static int t_run(void *app, struct dsana_task_ctx *ctx) {
  (void)app, (void)ctx;
  return 0;
}
static int t_block(void *app, struct dsana_task_ctx *ctx, uint64_t chunk) {
  (void)app, (void)ctx, (void)chunk;
  return 0;
}
static int t_keys(void *app, uint32_t task, uint32_t table, const uint64_t **keys, uint64_t *n) {
  (void)app, (void)task, (void)table, (void)keys, (void)n;
  return DSANA_EAGAIN;
}
static void t_keys_done(void *app, uint32_t task, uint32_t table) { (void)app, (void)task, (void)table; }
static int t_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  (void)app, (void)ctx;
  return 0;
}

static const struct dsana_app_option good_options[] = {
    {"tol", "TOL", "tolerance", DSANA_OPT_PARAM, "1e-6", .type = DSANA_VALUE_APP},
    {"fast", NULL, "a flag", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
    {NULL}};

/* Every hook the contract requires, nothing that needs another hook. */
static struct dsana_app good(void) {
  return (struct dsana_app){.name = "good",
                            .summary = "a test app",
                            .args = "",
                            .options = good_options,
                            .create = t_create,
                            .destroy = t_destroy,
                            .set_option = t_set_option,
                            .setup = t_setup,
                            .run_task = t_run,
                            .reduce = t_reduce};
}

/* app_check refuses a: its line names the app and contains `says`. */
static void refused(const struct dsana_app *a, const char *says) {
  char err[512] = "";
  assert_int_equal(app_check(a, err, sizeof err), DSANA_EINVAL);
  if (!strstr(err, says))
    fail_msg("expected '%s' in: %s", says, err);
  if (a && a->name && a->name[0] && !strstr(err, a->name))
    fail_msg("the app is not named in: %s", err);
}

static void test_known_apps_pass(void **unused) {
  (void)unused;
  char err[512] = "";
  for (const struct dsana_app *const *a = cli_apps(); *a; a++)
    if (app_check(*a, err, sizeof err) != 0)
      fail_msg("%s", err);
  if (app_check(&sim_tasks_app, err, sizeof err) != 0) /* dsana sim --tasks */
    fail_msg("%s", err);
}

static void test_complete_app_passes(void **unused) {
  (void)unused;
  char err[512] = "";
  struct dsana_app a = good();
  assert_int_equal(app_check(&a, err, sizeof err), 0);
  a.run_task = NULL; /* block by block only */
  a.task_block = t_block;
  assert_int_equal(app_check(&a, err, sizeof err), 0);
  a.options = NULL; /* no options at all */
  assert_int_equal(app_check(&a, err, sizeof err), 0);
}

/* The complete app with one field set to value is refused, saying `says`. */
#define REFUSED_WITH(field, value, says) \
  do {                                   \
    struct dsana_app a_ = good();        \
    a_.field = value;                    \
    refused(&a_, says);                  \
  } while (0)

static void test_strings(void **unused) {
  (void)unused;
  refused(NULL, "no app");
  REFUSED_WITH(name, NULL, "no name");
  REFUSED_WITH(name, "", "no name");
  REFUSED_WITH(name, "two words", "one word");
  REFUSED_WITH(name, "a-name-longer-than-the-cluster-map-carries-in-its-fixed-size-field", "shorter than");
  REFUSED_WITH(summary, NULL, "no summary");
  REFUSED_WITH(args, NULL, "no args");
}

static void test_required_hooks(void **unused) {
  (void)unused;
  REFUSED_WITH(create, NULL, "no create hook");
  REFUSED_WITH(destroy, NULL, "no destroy hook");
  REFUSED_WITH(set_option, NULL, "no set_option hook");
  REFUSED_WITH(setup, NULL, "no setup hook");
  REFUSED_WITH(reduce, NULL, "no reduce hook");
  REFUSED_WITH(run_task, NULL, "neither run_task nor task_block");
}

static void test_hooks_that_go_together(void **unused) {
  (void)unused;
  REFUSED_WITH(task_begin, t_run, "task_begin without task_block");
  REFUSED_WITH(task_end, t_run, "task_end without task_block");
  REFUSED_WITH(task_keys_done, t_keys_done, "task_keys_done without task_keys");
  struct dsana_app a = good();
  a.task_keys_done = t_keys_done;
  a.task_keys = t_keys;
  char err[512];
  assert_int_equal(app_check(&a, err, sizeof err), 0);
}

static const struct dsana_app_option empty_name[] = {{"", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
                                                     {NULL}};
static const struct dsana_app_option with_eq[] = {{"a=b", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
                                                  {NULL}};
static const struct dsana_app_option bad_kind[] = {
    {"k", "N", "h", (enum dsana_option_kind)9, NULL, .type = DSANA_VALUE_APP}, {NULL}};
static const struct dsana_app_option flag_default[] = {{"f", NULL, "h", DSANA_OPT_PARAM, "1", .type = DSANA_VALUE_APP},
                                                       {NULL}};
static const struct dsana_app_option twice[] = {{"x", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
                                                {"y", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
                                                {"x", NULL, "h", DSANA_OPT_REPORT, NULL, .type = DSANA_VALUE_APP},
                                                {NULL}};

static void test_options(void **unused) {
  (void)unused;
  REFUSED_WITH(options, empty_name, "not a long option name");
  REFUSED_WITH(options, with_eq, "not a long option name");
  REFUSED_WITH(options, bad_kind, "option --k: kind 9");
  REFUSED_WITH(options, flag_default, "option --f: a flag");
  REFUSED_WITH(options, twice, "option --x is listed twice");
}

/* Without run_task the tasks run block by block: the job needs a block table. */
static void test_job_without_block_table(void **unused) {
  (void)unused;
  char err[512] = "";
  struct dsana_app a = good();
  struct dsana_job job;
  job_init(&job, 1, 1, 1, "launcher");
  assert_int_equal(app_check_job(&a, &job, err, sizeof err), 0);
  a.run_task = NULL;
  a.task_block = t_block;
  assert_int_equal(app_check_job(&a, &job, err, sizeof err), DSANA_EINVAL);
  assert_non_null(strstr(err, "no run_task hook and no block table"));
  job.block_table = 0;
  assert_int_equal(app_check_job(&a, &job, err, sizeof err), 0);
  job.block_table = JOB_NONE;
  job_fini(&job);
}

/* The runtime checks the app it is given before it calls any hook. */
static void test_scheduler_refuses_before_setup(void **unused) {
  (void)unused;
  struct run_config cfg;
  config_defaults(&cfg);
  struct dsana_app a = good();
  a.reduce = NULL;
  struct role_params p = {.cfg = &cfg, .app = &a, .index = UINT32_MAX};
  struct scheduler *s = NULL;
  setups = 0;
  assert_int_equal(scheduler_create(&p, NULL, &s), DSANA_EINVAL);
  assert_null(s);
  assert_int_equal(setups, 0);
}

/* What set_option saw: "name=value;" each. */
static char seen[256];
static int record_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  (void)app, (void)err, (void)errlen;
  size_t n = strlen(seen);
  snprintf(seen + n, sizeof seen - n, "%s=%s;", name, value);
  return strcmp(value, "bad") == 0 ? DSANA_EINVAL : 0;
}

/* Rows the runtime parses: a bad field or range is refused by app_check,
 * naming the option. */
struct typed {
  uint64_t u64;
  uint32_t u32;
  double d;
  int choice;
  bool b, flag;
  char path[8];
};
#define TYPED(f) DSANA_FIELD(struct typed, f)
static const struct dsana_app_option typed_rows[] = {
    {"u64", "N", "h", DSANA_OPT_PARAM, "5", .type = DSANA_VALUE_UINT, TYPED(u64), .min = 1, .max = 0x1p53},
    {"u32", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT, TYPED(u32), .max = 1000000},
    {"d", "X", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_DOUBLE, TYPED(d), .max = 1, .open = DSANA_OPEN_MAX},
    {"pos", "X", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_DOUBLE, TYPED(d), .max = INFINITY,
     .open = DSANA_OPEN_MIN},
    {"choice", "a|bb|c", "h", DSANA_OPT_PARAM, "bb", .type = DSANA_VALUE_CHOICE, TYPED(choice)},
    {"b", "on|off", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_CHOICE, TYPED(b)},
    {"flag", NULL, "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_FLAG, TYPED(flag)},
    {"path", "FILE", "h", DSANA_OPT_OUTPUT, NULL, .type = DSANA_VALUE_PATH, TYPED(path)},
    {"app", "X", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
    {NULL}};
static int typed_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  return dsana_app_parse_option(typed_rows, app, name, value, err, errlen);
}

static const struct dsana_app_option u32_too_big[] = {
    {"n", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT, TYPED(u32), .max = 0x1p32}, {NULL}};
static const struct dsana_app_option uint_in_bool[] = {
    {"n", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT, TYPED(b), .max = 10}, {NULL}};
static const struct dsana_app_option uint_fraction[] = {
    {"n", "N", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT, TYPED(u64), .min = 0.5, .max = 10}, {NULL}};
static const struct dsana_app_option double_reversed[] = {
    {"x", "X", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_DOUBLE, TYPED(d), .min = 2, .max = 1}, {NULL}};
static const struct dsana_app_option choice_bool3[] = {
    {"c", "a|b|c", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_CHOICE, TYPED(b)}, {NULL}};
static const struct dsana_app_option flag_with_arg[] = {
    {"f", "X", "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_FLAG, TYPED(flag)}, {NULL}};
static const struct dsana_app_option uint_no_arg[] = {
    {"n", NULL, "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_UINT, TYPED(u64), .max = 10}, {NULL}};
static const struct dsana_app_option bad_type[] = {
    {"n", "N", "h", DSANA_OPT_PARAM, NULL, .type = (enum dsana_value_type)9, TYPED(u64)}, {NULL}};

static void test_typed_rows_checked(void **unused) {
  (void)unused;
  struct dsana_app a = good();
  a.options = typed_rows;
  char err[512];
  assert_int_equal(app_check(&a, err, sizeof err), 0);
  REFUSED_WITH(options, u32_too_big, "--n: a uint32_t field with a max above");
  REFUSED_WITH(options, uint_in_bool, "--n: a UINT field is a uint32_t or a uint64_t");
  REFUSED_WITH(options, uint_fraction, "--n: a UINT range");
  REFUSED_WITH(options, double_reversed, "--x: a DOUBLE range is min <= max");
  REFUSED_WITH(options, choice_bool3, "--c: a CHOICE of more than two words into a bool");
  REFUSED_WITH(options, flag_with_arg, "--f: a FLAG has no arg");
  REFUSED_WITH(options, uint_no_arg, "--n: a flag (no arg) of a type that takes a value");
  REFUSED_WITH(options, bad_type, "--n: its type is none of");
}

/* A typed row's value lands in its field; a bad one is refused with the
 * rule its range makes; the app's own rows are left to it. */
static void test_typed_rows_parsed(void **unused) {
  (void)unused;
  struct typed t = {0};
  char err[256] = "";
  static const struct {
    const char *name, *value, *why; /* why: NULL = accepted */
  } cases[] = {{"u64", "9007199254740992", NULL},
               {"u64", "9007199254740993", "--u64 9007199254740993: invalid value (an integer in 1..2^53)"},
               {"u64", "0", "--u64 0: invalid value (an integer in 1..2^53)"},
               {"u64", "+5", "--u64 +5: invalid value"},
               {"u64", "1e3", "--u64 1e3: invalid value"},
               {"u32", "1000000", NULL},
               {"u32", "1000001", "--u32 1000001: invalid value (an integer in 0..1000000)"},
               {"d", "0.5", NULL},
               {"d", "1", "--d 1: invalid value (a number in [0, 1))"},
               {"d", "nan", "--d nan: invalid value"},
               {"pos", "0", "--pos 0: invalid value (a finite number > 0)"},
               {"pos", "inf", "--pos inf: invalid value (a finite number > 0)"},
               {"choice", "c", NULL},
               {"choice", "b", "--choice b: invalid value (a, bb or c)"},
               {"b", "off", NULL},
               {"flag", "", NULL},
               {"path", "1234567", NULL},
               {"path", "12345678", "--path 12345678: invalid value (a file name)"},
               {"path", "", "--path : invalid value (a file name)"},
               {"nope", "1", "unknown option --nope"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    err[0] = 0;
    int rc = dsana_app_parse_option(typed_rows, &t, cases[i].name, cases[i].value, err, sizeof err);
    assert_int_equal(rc, cases[i].why ? DSANA_EINVAL : 0);
    if (cases[i].why && !strstr(err, cases[i].why))
      fail_msg("%s %s: '%s' lacks '%s'", cases[i].name, cases[i].value, err, cases[i].why);
  }
  assert_true(t.u64 == 9007199254740992ull && t.u32 == 1000000 && t.d == 0.5 && t.choice == 2 && t.b && t.flag);
  assert_string_equal(t.path, "1234567");
  err[0] = 0;
  assert_int_equal(dsana_app_parse_option(typed_rows, &t, "app", "x", err, sizeof err), DSANA_ENOTSUP);
  assert_string_equal(err, "");
  char rule[64];
  dsana_app_option_rule(&typed_rows[6], rule, sizeof rule); /* a flag: nothing to say */
  assert_string_equal(rule, "");
  /* the default of a typed row goes through the app's set_option, like any */
  struct dsana_app a = good();
  a.options = typed_rows;
  a.set_option = typed_set_option;
  memset(&t, 0, sizeof t);
  assert_int_equal(dsana_app_set_defaults(&a, &t), 0);
  assert_true(t.u64 == 5 && t.choice == 1);
}

/* Every option with an argument and a default, in table order; flags and
 * options without a default are left alone; a refused default is the error. */
static void test_set_defaults(void **unused) {
  (void)unused;
  static const struct dsana_app_option opts[] = {
      {"tol", "TOL", "h", DSANA_OPT_PARAM, "1e-6", .type = DSANA_VALUE_APP},
      {"fast", NULL, "h", DSANA_OPT_PARAM, NULL, .type = DSANA_VALUE_APP},
      {"out", "FILE", "h", DSANA_OPT_OUTPUT, NULL, .type = DSANA_VALUE_APP},
      {"max-iter", "N", "h", DSANA_OPT_REPORT, "100", .type = DSANA_VALUE_APP},
      {NULL}};
  struct dsana_app a = good();
  a.options = opts;
  a.set_option = record_option;
  seen[0] = '\0';
  assert_int_equal(dsana_app_set_defaults(&a, NULL), 0);
  assert_string_equal(seen, "tol=1e-6;max-iter=100;");
  static const struct dsana_app_option bad[] = {{"x", "N", "h", DSANA_OPT_PARAM, "bad", .type = DSANA_VALUE_APP},
                                                {NULL}};
  a.options = bad;
  assert_int_equal(dsana_app_set_defaults(&a, NULL), DSANA_EINVAL);
  a.options = NULL;
  assert_int_equal(dsana_app_set_defaults(&a, NULL), 0);
}

/* The apps' create() takes their own defaults (a refused one fails it). */
static void test_known_apps_create(void **unused) {
  (void)unused;
  for (const struct dsana_app *const *a = cli_apps(); *a; a++) {
    void *state = NULL;
    assert_int_equal((*a)->create(&state), 0);
    (*a)->destroy(state);
  }
}

/* Divergence advice names the app's own option: --lr where it has one. */
static void test_diverge_advice_is_the_apps(void **unused) {
  char buf[160];
  const struct dsana_app *lr = cli_find_app("logreg"), *km = cli_find_app("kmeans");
  assert_non_null(lr);
  assert_non_null(km);
  assert_string_equal(app_diverge_advice(lr, buf, sizeof buf),
                      "a smaller step or scaled inputs may help (logreg: lower --lr)");
  assert_string_equal(app_diverge_advice(km, buf, sizeof buf),
                      "scaled inputs or other starting values may help (kmeans)");
  assert_null(strstr(buf, "--lr"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_apps_pass),
      cmocka_unit_test(test_complete_app_passes),
      cmocka_unit_test(test_strings),
      cmocka_unit_test(test_required_hooks),
      cmocka_unit_test(test_hooks_that_go_together),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_job_without_block_table),
      cmocka_unit_test(test_scheduler_refuses_before_setup),
      cmocka_unit_test(test_set_defaults),
      cmocka_unit_test(test_typed_rows_checked),
      cmocka_unit_test(test_typed_rows_parsed),
      cmocka_unit_test(test_known_apps_create),
      cmocka_unit_test(test_diverge_advice_is_the_apps),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
