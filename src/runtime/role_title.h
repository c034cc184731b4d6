/*
 * role_title.h - a role's title in ps and top ("dsana: worker 2 (job
 * /tmp/dsana-Xy12ab)", as PostgreSQL and Redis name their processes) and
 * its kernel name ("dsana wrk 2"). Set when the role starts, and again by
 * a server or worker started on its own once the scheduler has given it
 * its index.
 */
#ifndef DSANA_RUNTIME_ROLE_TITLE_H
#define DSANA_RUNTIME_ROLE_TITLE_H

#include <stdint.h>

#include "runtime/config.h"
#include "runtime/event.h"

/* Title this process as `role` number `index` (UINT32_MAX: not known yet;
 * the scheduler has none) of the job cfg describes: its folder for a local
 * job, else the scheduler's address. Process-wide; call from the role's
 * main thread. */
void role_title_set(enum rt_role role, const struct run_config *cfg, uint32_t index);

#endif
