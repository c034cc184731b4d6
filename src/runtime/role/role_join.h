/*
 * role_join.h - what a server and a worker do alike to join a job
 * (server.c, worker.c): register with the scheduler, and when its cluster
 * map comes, decode it, take the app (the one configured in this process,
 * or the one the map names, created and given the map's arguments) and
 * declare the job through its setup(), exactly as the scheduler did.
 */
#ifndef DSANA_RUNTIME_ROLE_JOIN_H
#define DSANA_RUNTIME_ROLE_JOIN_H

#include <stdbool.h>

#include "net/transport/transport.h"
#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/msg/msg.h"
#include "runtime/role/role_params.h"

/* REGISTER to the scheduler: reg (its role, index, pid, ... filled in; the
 * host name is added here), queued into out. */
int role_register(struct msg_register *reg, struct rt_outq *out);

/* The cluster map in m, decoded into a new *map (the caller frees it);
 * DSANA_EPROTO (logged) when it does not decode, or DSANA_ENOMEM. */
int role_take_map(const struct net_msg *m, struct msg_cluster_map **map);

/* Join the job of map as `role` ("server" or "worker", index
 * map->your_index): name this process's log lines after it, take the app
 * into *app and *app_state (*own_app: created here, for the caller to
 * destroy, even when joining fails later), then initialise *job and declare
 * it through the app's setup() and job_finalize(). Failures are logged. */
int role_join(const struct role_params *p, const struct msg_cluster_map *map, const char *role,
              const struct dsana_app **app, void **app_state, bool *own_app, struct dsana_job *job);

#endif
