/*
 * runtime.h - the entry points of the runtime layer for the command line:
 * run one role, launch a whole cluster on this machine, or find the role
 * a parallel launcher (mpirun, srun) gave this process.
 *
 * Roles find each other through the scheduler's address only. A server or
 * worker started on its own (p->app == NULL) learns the app, its arguments
 * and the cluster map from the scheduler and creates the app from p->apps.
 *
 * Every function returns 0 on a completed job or a negative DSANA_E* code
 * after logging one line that says what went wrong (which peer, which file).
 */
#ifndef DSANA_RUNTIME_RUNTIME_H
#define DSANA_RUNTIME_RUNTIME_H

#include "runtime/driver/driver.h"
#include "runtime/msg/event.h"
#include "runtime/msg/msg.h"
#include "runtime/core/observer.h"
#include "runtime/role/role_params.h"

/* Run one role of a job until it is done, titled in ps ("dsana: worker 2
 * (job /tmp/dsana-Xy12ab)") and top. */
int runtime_run_role(enum rt_role role, const struct role_params *p);

/* Automatic recovery (launch_recover.c), for the local launcher and a
 * scheduler run alone: a run stopped by a lost server (or scheduler) sets
 * cfg to go on from its last complete checkpoint (else from where `start`
 * began) and returns true, or says why not (and where to resume by hand)
 * and returns false: at most cfg->max_restarts times, each from a later
 * iteration than the one before. */
struct runtime_recovery {
  uint32_t restarts; /* done so far */
  uint32_t from;     /* the iteration the last restart continued after */
};
bool runtime_rollback(struct run_config *cfg, const struct run_config *start, struct runtime_recovery *r);
/* After a fatal loss: log where the job can be resumed from (nothing
 * without checkpoints, dir ""). */
void runtime_report_checkpoint(const char *dir);

/* Fork the scheduler, cfg->n_servers servers and cfg->n_workers workers on
 * this machine (ipc:// in a private folder), wait for them and report a
 * child that died. SIGINT, SIGTERM or SIGHUP stop the roles and remove the
 * job's files, then it returns DSANA_EINTR (runtime_launch_signal() says
 * which signal: the caller should die of it). Nothing the launch made is
 * left behind, even when the launcher is killed with SIGKILL. */
int runtime_launch_local(const struct role_params *p);
/* The same job with every role a thread of this process (--isolate
 * threads), over the inproc:// transport: same results; a failed role
 * ends the job instead of being replaced. */
int runtime_launch_threads(const struct role_params *p);
int runtime_launch_signal(void);

/* A role run by hand (`dsana scheduler`): the stop signals not ignored at
 * start are caught instead of killing the process, and the scheduler ends
 * the job telling every role (runtime_launch_signal() says which came: the
 * caller should die of it once the job ended). */
void runtime_catch_stop_signals(void);

/* Under mpirun/srun: the rank and size from the launcher's variables.
 * Returns 0 when such variables exist, DSANA_EAGAIN when they do not. */
int runtime_launcher_rank(uint32_t *rank, uint32_t *size);
/* Ranks the launcher started on this machine (its local-size variables),
 * 1 when it does not say. */
uint32_t runtime_launcher_local_size(void);
/* The role of a rank: 0 the scheduler, 1..S servers, the rest workers. */
void runtime_rank_role(uint32_t rank, uint32_t n_servers, enum rt_role *role, uint32_t *index);

#endif
