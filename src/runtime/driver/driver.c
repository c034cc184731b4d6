/* driver.c - running a role (driver.h): create its driver, step it until
 * it is done, finish and destroy it, calling the role through its ops
 * table (driver_internal.h). */
#include "runtime/driver/driver.h"

#include <stdlib.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/record/trace.h"
#include "util/text/log.h"

static const struct drv_role_ops *const role_ops[] = {
    [ROLE_SCHEDULER] = &drv_sched_ops,
    [ROLE_SERVER] = &drv_server_ops,
    [ROLE_WORKER] = &drv_worker_ops,
};

int driver_create(enum rt_role role, const struct role_params *p, bool manual, struct drv **out) {
  struct drv *d = calloc(1, sizeof *d);
  if (!d)
    return DSANA_ENOMEM;
  d->role = role;
  d->ops = role_ops[role];
  d->params = *p;
  d->cfg = *p->cfg;
  d->params.cfg = &d->cfg;
  d->manual = manual;
  log_set_role(rt_role_name(role));
  int rc = d->ops->open(d);
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
  return d->ops->step(d, d->manual ? 0 : timeout_ms);
}

bool driver_done(const struct drv *d) { return d->done; }
int driver_error(const struct drv *d) { return d->err; }
struct pool *driver_pool(struct drv *d) {
  return d->ops->pool ? d->ops->pool(d) : NULL;
}

uint32_t driver_worker_index(const struct drv *d) {
  return d->ops->worker_index ? d->ops->worker_index(d) : UINT32_MAX;
}

int driver_finish(struct drv *d) { return d->ops->finish ? d->ops->finish(d) : 0; }

void driver_destroy(struct drv *d) {
  if (!d)
    return;
  d->ops->close(d);
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
