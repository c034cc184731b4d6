/* driver.c - running a role (driver.h): create its driver, step it until
 * it is done, finish and destroy it. */
#include "runtime/driver/driver.h"

#include <stdlib.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/record/trace.h"
#include "util/log.h"

int driver_create(enum rt_role role, const struct role_params *p, bool manual, struct drv **out) {
  struct drv *d = calloc(1, sizeof *d);
  if (!d)
    return DSANA_ENOMEM;
  d->role = role;
  d->params = *p;
  d->cfg = *p->cfg;
  d->params.cfg = &d->cfg;
  d->manual = manual;
  log_set_role(rt_role_name(role));
  int rc = role == ROLE_SCHEDULER ? drv_sched_open(d) : role == ROLE_SERVER ? drv_server_open(d) : drv_worker_open(d);
  if (rc) {
    driver_destroy(d);
    return rc;
  }
  *out = d;
  return 0;
}

int driver_step(struct drv *d, int timeout_ms) {
  if (d->done)
    return d->err;
  if (d->manual)
    timeout_ms = 0;
  return d->role == ROLE_SCHEDULER ? drv_sched_step(d, timeout_ms)
         : d->role == ROLE_SERVER  ? drv_server_step(d, timeout_ms)
                                   : drv_worker_step(d, timeout_ms);
}

bool driver_done(const struct drv *d) { return d->done; }
int driver_error(const struct drv *d) { return d->err; }
struct pool *driver_pool(struct drv *d) {
  return d->pool;
}

uint32_t driver_worker_index(const struct drv *d) {
  return d->role == ROLE_WORKER && d->w && worker_map(d->w) ? worker_index(d->w) : UINT32_MAX;
}

int driver_finish(struct drv *d) {
  if (d->role != ROLE_SCHEDULER)
    return 0;
  if (d->listen) {
    struct net_stats st;
    net_get_stats(d->listen, &st);
    scheduler_note_listener(d->s, st.refused, st.dropped);
  }
  int rc = d->err ? 0 : scheduler_finish(d->s);
  int crc = drv_sched_close(d);
  return rc ? rc : crc;
}

void driver_destroy(struct drv *d) {
  if (!d)
    return;
  if (d->role == ROLE_WORKER)
    drv_worker_close(d);
  if (d->role == ROLE_SCHEDULER)
    drv_sched_close(d);
  scheduler_destroy(d->s);
  server_destroy(d->sv);
  worker_destroy(d->w);
  trace_close(d->env.trace); /* after the compute threads stopped */
  drv_close_io(d);
  free(d);
}

int driver_run(enum rt_role role, const struct role_params *p) {
  struct drv *d;
  int rc = driver_create(role, p, false, &d);
  if (rc)
    return rc;
  while (!d->done && (rc = driver_step(d, -1)) == 0) {
  }
  if (!rc)
    rc = d->err;
  if (!rc)
    rc = driver_finish(d);
  else
    log_debug("stopping: %s", dsana_strerror(rc));
  driver_destroy(d);
  return rc;
}
