/*
 * app_check.h - the app contract of include/dsana/dsana.h, checked once
 * where an app enters a process (the command line taking it by name, the
 * scheduler, a server or worker taking it from the cluster map) instead of
 * trusting each hook at its call: a required hook missing, or hooks that
 * make no sense together, is one line naming the hook and why, never a
 * NULL call later.
 */
#ifndef DSANA_RUNTIME_APP_CHECK_H
#define DSANA_RUNTIME_APP_CHECK_H

#include <stddef.h>

#include "dsana/dsana.h"

/* 0, or DSANA_EINVAL with one line in err ("app 'NAME': ..."): the first
 * field of app that breaks the contract (its strings, required hooks, hooks
 * that go together, its option table). app may be NULL (an error). */
int app_check(const struct dsana_app *app, char *err, size_t errlen);

/* After the app's setup() declared job (finalized): 0, or DSANA_EINVAL with
 * one line in err when the job and the hooks do not fit (an app without
 * run_task declared no block table for task_block to run on). */
int app_check_job(const struct dsana_app *app, const struct dsana_job *job, char *err, size_t errlen);

/* What may help an app whose values diverged, in its own options' words:
 * "a smaller step or scaled inputs may help (logreg: lower --lr)" for an
 * app with an --lr option, else the inputs' scale and its starting values.
 * Writes into buf (len > 0) and returns it. */
const char *app_diverge_advice(const struct dsana_app *app, char *buf, size_t len);

#endif
