/*
 * runtime.h - the entry points of the runtime layer: run one role, or
 * launch a whole cluster on this machine.
 *
 * Roles find each other through the scheduler's address only. A server or
 * worker started on its own (app == NULL) learns the app, its arguments and
 * the cluster map from the scheduler; one forked by the local launcher
 * inherits the already-prepared app state.
 *
 * Every function returns 0 on a completed job or a negative DSANA_E* code
 * after logging one line that says what went wrong (which peer, which file).
 */
#ifndef DSANA_RUNTIME_RUNTIME_H
#define DSANA_RUNTIME_RUNTIME_H

#include "dsana/dsana.h"
#include "runtime/config.h"
#include "runtime/msg.h"

struct role_params {
  const struct run_config *cfg;
  const struct dsana_app *app; /* NULL for a standalone server/worker */
  void *app_state;             /* with app: created and configured */
  const struct app_args *args; /* with app: forwarded to standalone roles */
  uint32_t index;              /* requested index, UINT32_MAX = any */
};

int runtime_run_scheduler(const struct role_params *p);
int runtime_run_server(const struct role_params *p);
int runtime_run_worker(const struct role_params *p);

/* Fork the scheduler, cfg->n_servers servers and cfg->n_workers workers on
 * this machine, wait for them and report a child that died. */
int runtime_launch_local(const struct role_params *p);

/* Under mpirun/srun: the role from the launcher's rank variables (rank 0
 * scheduler, 1..S servers, the rest workers). Returns 0 and sets *rank and
 * *size when such variables exist, DSANA_EAGAIN when they do not. */
int runtime_launcher_rank(uint32_t *rank, uint32_t *size);

#endif
