/*
 * role_title.c - a role's title in ps and top (role_title.h): launch_role.c
 * sets it when a role starts, the server's and worker's drivers again when
 * a role started on its own learns its index from the cluster map.
 */
#include "runtime/role_title.h"

#include <stdbool.h>
#include <stdio.h>

#include "util/proctitle.h"

/* The title says which role and which job: its folder (local), else the
 * scheduler's address. The kernel's name is short: "dsana wrk 2". */
void role_title_set(enum rt_role role, const struct run_config *cfg, uint32_t index) {
  char who[64], name[32]; /* proctitle_set cuts the name to the kernel's 15 bytes */
  bool indexed = role != ROLE_SCHEDULER && index != UINT32_MAX;
  if (indexed) {
    snprintf(who, sizeof who, "%s %u", rt_role_name(role), index);
    snprintf(name, sizeof name, "dsana %s %u", role == ROLE_SERVER ? "srv" : "wrk", index);
  } else {
    snprintf(who, sizeof who, "%s", rt_role_name(role));
    snprintf(name, sizeof name, "dsana %s", role == ROLE_SCHEDULER ? "sched" : rt_role_name(role));
  }
  if (cfg->local_dir[0])
    proctitle_set(name, "dsana: %s (job %s)", who, cfg->local_dir);
  else
    proctitle_set(name, "dsana: %s (%s %s)", who, role == ROLE_SCHEDULER ? "listening on" : "scheduler",
                  cfg->scheduler_addr);
}
