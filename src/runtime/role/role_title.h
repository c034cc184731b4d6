/*
 * role_title.h - a role's title in ps and top ("dsana: worker 2 (job
 * /tmp/dsana-Xy12ab)", as PostgreSQL and Redis name their processes) and
 * the kernel names of its threads ("dsana-wrk-2", its compute threads
 * "dsana-wrk-2.t0" ...), the same whether the role is a process or a
 * thread of the launcher (--isolate threads): ps -L, top -H and
 * /proc/PID/task/TID/comm tell every thread's role. Set when the role
 * starts, and again by a server or worker started on its own once the
 * scheduler has given it its index.
 */
#ifndef DSANA_RUNTIME_ROLE_TITLE_H
#define DSANA_RUNTIME_ROLE_TITLE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/config.h"
#include "runtime/msg/event.h"

/* Title this process as `role` number `index` (UINT32_MAX: not known yet;
 * the scheduler has none) of the job cfg describes: its folder for a local
 * job, else the scheduler's address; the calling thread gets the role's
 * kernel name. Process-wide; call from the role's main thread. */
void role_title_set(enum rt_role role, const struct run_config *cfg, uint32_t index);

/* Name the calling thread after its role (a role run as a thread of the
 * launcher); the process title is left alone. */
void role_thread_title(enum rt_role role, uint32_t index);

/* Name the calling thread, a helper of role `role` number `index`: the
 * role's name and `suffix` ("dsana-wrk-3" ".t2": "dsana-wrk-3.t2"), or,
 * when that passes the kernel's 15 bytes, a short form of the role's
 * ("dsana-w12.t10", "dsana-s3.hb"), cut to fit. */
void role_helper_title(enum rt_role role, uint32_t index, const char *suffix);

#endif
