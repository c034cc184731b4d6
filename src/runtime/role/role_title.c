/*
 * role_title.c - a role's title in ps and top, and its threads' kernel
 * names (role_title.h): launch_role.c sets the title when a role process
 * starts, launch_threads.c names a role's thread, the server's and
 * worker's drivers rename a role started on its own once it learns its
 * index, and pool.c names a worker's compute threads.
 */
#include "runtime/role/role_title.h"

#include <stdbool.h>
#include <stdio.h>

#include "util/text/proctitle.h"

/* The kernel name of role `role` number `index` (len >= 16): "dsana-sched",
 * "dsana-srv-0", "dsana-wrk-2"; "dsana-srv", "dsana-wrk" while the index
 * is not known (UINT32_MAX). */
static void role_thread_name(enum rt_role role, uint32_t index, char *name, size_t len) {
  const char *abbr = role == ROLE_SCHEDULER ? "sched" : role == ROLE_SERVER ? "srv" : "wrk";
  if (role != ROLE_SCHEDULER && index != UINT32_MAX)
    snprintf(name, len, "dsana-%s-%u", abbr, index);
  else
    snprintf(name, len, "dsana-%s", abbr);
}

void role_thread_title(enum rt_role role, uint32_t index) {
  char name[32];
  role_thread_name(role, index, name, sizeof name);
  proctitle_thread_set(name);
}

void role_helper_title(enum rt_role role, uint32_t index, const char *suffix) {
  char name[32], full[64];
  role_thread_name(role, index, name, sizeof name);
  int n = snprintf(full, sizeof full, "%s%s", name, suffix);
  char letter = role == ROLE_SCHEDULER ? 'c' : role == ROLE_SERVER ? 's' : 'w';
  if ((n < 0 || n > 15) && (role == ROLE_SCHEDULER || index == UINT32_MAX))
    snprintf(full, sizeof full, "dsana-%c%s", letter, suffix);
  else if (n < 0 || n > 15) /* "dsana-w12.t10": the role's letter, its index, the suffix */
    snprintf(full, sizeof full, "dsana-%c%u%s", letter, index, suffix);
  proctitle_thread_set(full);
}

/* The title says which role and which job: its folder (local), else the
 * scheduler's address. */
void role_title_set(enum rt_role role, const struct run_config *cfg, uint32_t index) {
  char who[64], name[32]; /* proctitle_set cuts the name to the kernel's 15 bytes */
  bool indexed = role != ROLE_SCHEDULER && index != UINT32_MAX;
  if (indexed)
    snprintf(who, sizeof who, "%s %u", rt_role_name(role), index);
  else
    snprintf(who, sizeof who, "%s", rt_role_name(role));
  role_thread_name(role, index, name, sizeof name);
  if (cfg->local_dir[0])
    proctitle_set(name, "dsana: %s (job %s)", who, cfg->local_dir);
  else
    proctitle_set(name, "dsana: %s (%s %s)", who, role == ROLE_SCHEDULER ? "listening on" : "scheduler",
                  cfg->scheduler_addr);
}
