/* app_check.c - the app contract, checked once (app_check.h). */
#include "runtime/role/app_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "runtime/core/job.h"
#include "runtime/msg/msg.h"

static int fail(char *err, size_t errlen, const struct dsana_app *app, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "app 'NAME': " and the reason; DSANA_EINVAL. */
static int fail(char *err, size_t errlen, const struct dsana_app *app, const char *fmt, ...) {
  int n = snprintf(err, errlen, "app '%s': ", app && app->name ? app->name : "?");
  if (n >= 0 && (size_t)n < errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return DSANA_EINVAL;
}

/* What the command line and the cluster map carry of the app. */
static int check_strings(const struct dsana_app *app, char *err, size_t errlen) {
  if (!app->name || !app->name[0])
    return fail(err, errlen, app, "no name: the command line and the cluster map find an app by its name");
  if (strlen(app->name) >= MSG_NAME_MAX || strchr(app->name, ' '))
    return fail(err, errlen, app, "the name must be one word shorter than %d characters (the cluster map carries it)",
                MSG_NAME_MAX);
  if (!app->summary)
    return fail(err, errlen, app, "no summary: dsana --help lists every app with its one line");
  if (!app->args)
    return fail(err, errlen, app, "no args: dsana %s --help shows its positional arguments (\"\" for none)", app->name);
  return 0;
}

static int check_required(const struct dsana_app *app, char *err, size_t errlen) {
  if (!app->create)
    return fail(err, errlen, app, "no create hook: every process that runs the app makes its state with it");
  if (!app->destroy)
    return fail(err, errlen, app, "no destroy hook: every process frees the state create() made with it");
  if (!app->set_option)
    return fail(err, errlen, app, "no set_option hook: options and positional arguments reach the app through it");
  if (!app->setup)
    return fail(err, errlen, app, "no setup hook: every role declares the job's tables and tasks through it");
  if (!app->reduce)
    return fail(err, errlen, app,
                "no reduce hook: the scheduler calls it after every iteration (globals, convergence)");
  if (!app->run_task && !app->task_block)
    return fail(err, errlen, app, "neither run_task nor task_block: a worker would have no hook to run a task with");
  return 0;
}

/* Hooks that only mean something with another one. */
static int check_pairs(const struct dsana_app *app, char *err, size_t errlen) {
  if ((app->task_begin || app->task_end) && !app->task_block)
    return fail(err, errlen, app,
                "%s without task_block: a task runs as task_begin, task_block per chunk, task_end, so without "
                "task_block it is never called",
                app->task_begin ? "task_begin" : "task_end");
  if (app->task_keys_done && !app->task_keys)
    return fail(err, errlen, app,
                "task_keys_done without task_keys: it gives back the key lists task_keys lends, and there are none");
  return 0;
}

static size_t count_words(const char *arg) {
  size_t n = 1;
  for (const char *c = arg; *c; c++)
    n += *c == '|';
  return n;
}

/* A row the runtime parses: its field fits its type, its range is one. */
static const char *check_typed(const struct dsana_app_option *o) {
  bool whole = o->min >= 0 && o->max < 0x1p64 && o->min == floor(o->min) && o->max == floor(o->max);
  switch (o->type) {
  case DSANA_VALUE_APP:
    return NULL;
  case DSANA_VALUE_UINT:
    return o->size != 4 && o->size != 8          ? "a UINT field is a uint32_t or a uint64_t"
           : !whole || o->min > o->max           ? "a UINT range is min <= max, whole numbers from 0 below 2^64"
           : o->size == 4 && o->max > UINT32_MAX ? "a uint32_t field with a max above 2^32 - 1"
                                                 : NULL;
  case DSANA_VALUE_DOUBLE:
    return o->size != sizeof(double) ? "a DOUBLE field is a double"
           : !(o->min <= o->max)     ? "a DOUBLE range is min <= max"
                                     : NULL;
  case DSANA_VALUE_CHOICE:
    return !o->arg || !o->arg[0]                                ? "a CHOICE lists its words in arg, 'a|b'"
           : o->size != sizeof(int) && o->size != sizeof(bool)  ? "a CHOICE field is an int (an enum) or a bool"
           : o->size == sizeof(bool) && count_words(o->arg) > 2 ? "a CHOICE of more than two words into a bool"
                                                                : NULL;
  case DSANA_VALUE_PATH:
    return o->size < 2 ? "a PATH field is a char array" : NULL;
  case DSANA_VALUE_FLAG:
    return o->arg || o->size != sizeof(bool) ? "a FLAG has no arg and a bool field" : NULL;
  default:
    return "its type is none of DSANA_VALUE_*";
  }
}

static int check_options(const struct dsana_app *app, char *err, size_t errlen) {
  for (size_t i = 0; app->options && app->options[i].name; i++) {
    const struct dsana_app_option *o = &app->options[i];
    if (!o->name[0] || strlen(o->name) >= MSG_NAME_MAX || strchr(o->name, ' ') || strchr(o->name, '='))
      return fail(err, errlen, app,
                  "option %zu: '%s' is not a long option name (one word without '=', shorter than %d characters)", i,
                  o->name, MSG_NAME_MAX);
    if (o->kind < DSANA_OPT_PARAM || o->kind > DSANA_OPT_REPORT)
      return fail(err, errlen, app, "option --%s: kind %d is none of DSANA_OPT_PARAM, INPUT, OUTPUT, REPORT", o->name,
                  (int)o->kind);
    if (!o->arg && o->default_value)
      return fail(err, errlen, app, "option --%s: a flag (no arg) with a default value: a flag is off unless given",
                  o->name);
    const char *bad = check_typed(o);
    if (bad)
      return fail(err, errlen, app, "option --%s: %s", o->name, bad);
    if (o->type != DSANA_VALUE_APP && o->type != DSANA_VALUE_FLAG && !o->arg)
      return fail(err, errlen, app, "option --%s: a flag (no arg) of a type that takes a value", o->name);
    for (size_t j = 0; j < i; j++)
      if (strcmp(app->options[j].name, o->name) == 0)
        return fail(err, errlen, app, "option --%s is listed twice", o->name);
  }
  return 0;
}

int app_check(const struct dsana_app *app, char *err, size_t errlen) {
  if (!app)
    return fail(err, errlen, app, "no app");
  int rc = check_strings(app, err, errlen);
  if (!rc)
    rc = check_required(app, err, errlen);
  if (!rc)
    rc = check_pairs(app, err, errlen);
  return rc ? rc : check_options(app, err, errlen);
}

int app_check_job(const struct dsana_app *app, const struct dsana_job *job, char *err, size_t errlen) {
  if (!app->run_task && job->block_table == JOB_NONE)
    return fail(err, errlen, app,
                "no run_task hook and no block table declared in setup(): task_block runs a task over the block "
                "table's chunks, so nothing would run the tasks");
  return 0;
}

const char *app_diverge_advice(const struct dsana_app *app, char *buf, size_t len) {
  bool has_lr = false;
  for (size_t i = 0; app && app->options && app->options[i].name; i++)
    has_lr = has_lr || strcmp(app->options[i].name, "lr") == 0;
  const char *name = app && app->name ? app->name : "the app";
  if (has_lr)
    snprintf(buf, len, "a smaller step or scaled inputs may help (%s: lower --lr)", name);
  else
    snprintf(buf, len, "scaled inputs or other starting values may help (%s)", name);
  return buf;
}
