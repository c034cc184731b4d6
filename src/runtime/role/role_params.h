/*
 * role_params.h - what starts a role: the run's configuration, the apps
 * the command knows (handed down from cli/, so that a role started alone
 * can create the app the scheduler names), and, in the process that parsed
 * the command line, the app already configured.
 */
#ifndef DSANA_RUNTIME_ROLE_PARAMS_H
#define DSANA_RUNTIME_ROLE_PARAMS_H

#include <stdint.h>

#include "dsana/dsana.h"
#include "runtime/core/config.h"

struct app_args;
struct rt_observer;

struct role_params {
  const struct run_config *cfg;
  const struct dsana_app *const *apps; /* NULL-terminated registry */
  const struct dsana_app *app;         /* NULL: take it from the scheduler */
  void *app_state;                     /* with app: created and configured */
  const struct app_args *args;         /* with app: forwarded to roles started alone */
  uint32_t index;                      /* requested index, UINT32_MAX = any */
  const struct rt_observer *observer;  /* scheduler: iteration reports (NULL: none) */
  bool shared_process;                 /* one of the roles of a job in one process (--isolate threads):
                                          only the scheduler reports the process's CPU and wake-ups */
  bool local_stderr;                   /* a process the local launcher forked: every role of the job writes to
                                          this stderr, so a reason one said is not said again (as for threads) */
  int deaths_fd;                       /* scheduler under the local launcher: a datagram socket of u32 indices
                                          of workers whose process died (> 2; 0: none), with
                                          LAUNCH_DEATH_RESTARTED when a new process takes its place */
};
#define LAUNCH_DEATH_RESTARTED 0x80000000u

/* The app called `name` in a NULL-terminated registry, or NULL. */
const struct dsana_app *role_find_app(const struct dsana_app *const *apps, const char *name);

#endif
