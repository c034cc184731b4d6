/* driver_sched.c - the scheduler's driver: its listener, messages and
 * timers into the state machine, its messages out; its ops table
 * (driver_internal.h) and its state, private to this file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/core/observer.h"
#include "runtime/driver/stop_flag.h"
#include "runtime/record/trace.h"
#include "runtime/scheduler/scheduler.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

/* The scheduler's own, beside the driver's I/O (struct drv). */
struct drv_sched {
  struct scheduler *s;
  bool observing; /* the observer is open */
};

static int drv_sched_open(struct drv *d) {
  struct drv_sched *ds = calloc(1, sizeof *ds);
  if (!ds)
    return DSANA_ENOMEM;
  d->state = ds;
  int rc = drv_open_ctx(d);
  if (!rc && (rc = net_listen(d->ctx, d->cfg.scheduler_addr, &d->listen)) != 0)
    log_error("cannot listen on %s", d->cfg.scheduler_addr);
  if (!rc)
    rc = drv_open_outbox(d, &(struct scenario_link){0});
  if (!rc)
    rc = trace_open_role(d->cfg.trace_path, "scheduler", 1, 0, &d->env.trace);
  const struct rt_observer *o = d->params.observer;
  if (!rc && o && o->open && (rc = o->open(o->arg)) == 0)
    ds->observing = true;
  if (!rc)
    rc = scheduler_create(&d->params, &d->env, &ds->s);
  return rc;
}

/* The observer's files closed: DSANA_EIO when a report could not be written. */
static int close_observer(struct drv_sched *ds, const struct rt_observer *o) {
  int rc = ds->observing && o->close ? o->close(o->arg) : 0;
  ds->observing = false;
  return rc;
}

/* The end of a run: the summary and the output, then the observer closed. */
static int drv_sched_finish(struct drv *d) {
  struct drv_sched *ds = d->state;
  if (d->listen) {
    struct net_stats st;
    net_get_stats(d->listen, &st);
    scheduler_note_listener(ds->s, st.refused, st.dropped);
  }
  int rc = d->err ? 0 : scheduler_finish(ds->s);
  int crc = close_observer(ds, d->params.observer);
  return rc ? rc : crc;
}

static void drv_sched_close(struct drv *d) {
  struct drv_sched *ds = d->state;
  if (!ds)
    return;
  close_observer(ds, d->params.observer);
  scheduler_destroy(ds->s);
  free(ds);
  d->state = NULL;
}

/* Fail: tell the roles (the state machine queued why), then stop. */
static int fail(struct drv *d, int rc) {
  drv_flush(d, true);
  d->done = true;
  d->err = rc;
  return rc;
}

/* The launcher's news of dead workers (role_params.deaths_fd), if any. */
static int take_deaths(struct drv *d, struct scheduler *s) {
  uint32_t news; /* one datagram each */
  while (read(d->params.deaths_fd, &news, sizeof news) == (ssize_t)sizeof news) {
    int rc = scheduler_on_worker_death(s, news & ~LAUNCH_DEATH_RESTARTED, news & LAUNCH_DEATH_RESTARTED, &d->out);
    if (rc)
      return rc;
  }
  return 0;
}

static int drv_sched_step(struct drv *d, int timeout_ms) {
  struct drv_sched *ds = d->state;
  uint64_t cpu0 = clock_thread_cpu_ns(), n_msgs = 0;
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
    return fail(d, scheduler_end(ds->s, why, &d->out));
  }
  if (fd_ready && (rc = take_deaths(d, ds->s)) != 0)
    return fail(d, rc);
  for (int n = 0; ready && n < 64 && !d->done; n++) {
    struct net_msg m;
    if ((rc = net_recv(d->listen, &m, 0)) == DSANA_EAGAIN)
      break;
    if (rc)
      return fail(d, rc);
    struct rt_from from = {.role = ROLE_SCHEDULER, .index = UINT32_MAX, .peer = m.from, .via_listener = true};
    rc = scheduler_on_msg(ds->s, &from, &m, &d->out);
    n_msgs++;
    net_msg_fini(&m);
    if (rc)
      return fail(d, rc);
    if ((rc = drv_flush(d, false)) != 0)
      return fail(d, rc);
  }
  if ((rc = scheduler_on_tick(ds->s, clock_now_ns(), &d->out)) != 0)
    return fail(d, rc);
  if ((rc = drv_flush(d, false)) != 0)
    return fail(d, rc);
  if (n_msgs) /* the step's CPU, its wake-up's included, over what woke it */
    scheduler_note_msg_cost(ds->s, clock_thread_cpu_ns() - cpu0, n_msgs);
  d->done = scheduler_finished(ds->s);
  return 0;
}

const struct drv_role_ops drv_sched_ops = {
    .open = drv_sched_open,
    .step = drv_sched_step,
    .finish = drv_sched_finish,
    .close = drv_sched_close,
};
