/* driver_sched.c - the scheduler's driver: its listener, messages and
 * timers into the state machine, its messages out (driver_internal.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/core/observer.h"
#include "runtime/driver/stop_flag.h"
#include "runtime/record/trace.h"
#include "util/clock.h"
#include "util/log.h"

int drv_sched_open(struct drv *d) {
  int rc = drv_open_ctx(d);
  if (!rc && (rc = net_listen(d->ctx, d->cfg.scheduler_addr, &d->listen)) != 0)
    log_error("cannot listen on %s", d->cfg.scheduler_addr);
  if (!rc)
    rc = drv_open_outbox(d, &(struct scenario){0}, 0);
  if (!rc)
    rc = trace_open_role(d->cfg.trace_path, "scheduler", 1, 0, &d->env.trace);
  const struct rt_observer *o = d->params.observer;
  if (!rc && o && o->open && (rc = o->open(o->arg)) == 0)
    d->observing = true;
  if (!rc)
    rc = scheduler_create(&d->params, &d->env, &d->s);
  return rc;
}

int drv_sched_close(struct drv *d) {
  const struct rt_observer *o = d->params.observer;
  int rc = d->observing && o->close ? o->close(o->arg) : 0;
  d->observing = false;
  return rc;
}

/* Fail: tell the roles (the state machine queued why), then stop. */
static int fail(struct drv *d, int rc) {
  drv_flush(d, true);
  d->done = true;
  d->err = rc;
  return rc;
}

/* The launcher's news of dead workers (role_params.deaths_fd), if any. */
static int take_deaths(struct drv *d) {
  uint32_t news; /* one datagram each */
  while (read(d->params.deaths_fd, &news, sizeof news) == (ssize_t)sizeof news) {
    int rc = scheduler_on_worker_death(d->s, news & ~LAUNCH_DEATH_RESTARTED, news & LAUNCH_DEATH_RESTARTED, &d->out);
    if (rc)
      return rc;
  }
  return 0;
}

int drv_sched_step(struct drv *d, int timeout_ms) {
  int tick_ms = (int)(d->cfg.heartbeat_s * 1000 / 2) + 1;
  bool ready, fd_ready = false;
  struct net_sock *socks[1] = {d->listen};
  int fd = d->params.deaths_fd;
  int rc = net_poll(socks, 1, &fd, fd > 2, timeout_ms < 0 || timeout_ms > tick_ms ? tick_ms : timeout_ms, 0, &ready,
                    &fd_ready);
  if (rc < 0)
    return fail(d, rc);
  if (stop_flag_caught()) {
    char why[96];
    snprintf(why, sizeof why, "the scheduler was stopped (%s): the job ends here, every role with it",
             strsignal(stop_flag_caught()));
    return fail(d, scheduler_end(d->s, why, &d->out));
  }
  if (fd_ready && (rc = take_deaths(d)) != 0)
    return fail(d, rc);
  for (int n = 0; ready && n < 64 && !d->done; n++) {
    struct net_msg m;
    if ((rc = net_recv(d->listen, &m, 0)) == DSANA_EAGAIN)
      break;
    if (rc)
      return fail(d, rc);
    struct rt_from from = {.role = ROLE_SCHEDULER, .index = UINT32_MAX, .peer = m.from, .via_listener = true};
    rc = scheduler_on_msg(d->s, &from, &m, &d->out);
    net_msg_fini(&m);
    if (rc)
      return fail(d, rc);
    if ((rc = drv_flush(d, false)) != 0)
      return fail(d, rc);
  }
  if ((rc = scheduler_on_tick(d->s, clock_now_ns(), &d->out)) != 0)
    return fail(d, rc);
  if ((rc = drv_flush(d, false)) != 0)
    return fail(d, rc);
  d->done = scheduler_finished(d->s);
  return 0;
}
