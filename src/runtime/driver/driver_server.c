/* driver_server.c - a server's driver: a listener for workers, a dialer to
 * the scheduler, its emulated link (the scenario's global link) and
 * pumping pulls; its ops table (driver_internal.h) and its state, private
 * to this file. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/msg/msg.h"
#include "runtime/record/trace.h"
#include "runtime/server/server.h"
#include "util/thread/affinity.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

/* The server's own, beside the driver's I/O (struct drv). */
struct drv_server {
  struct server *sv;
  size_t serving; /* pulls with more to send now */
};

static int drv_server_open(struct drv *d) {
  struct drv_server *ds = calloc(1, sizeof *ds);
  if (!ds)
    return DSANA_ENOMEM;
  d->state = ds;
  char addr[CONFIG_ADDR_MAX];
  int rc = drv_open_ctx(d);
  if (!rc && (rc = net_listen(d->ctx, NULL, &d->listen)) != 0)
    log_error("cannot listen for workers");
  if (!rc && (rc = net_bound_addr(d->listen, addr, sizeof addr)) != 0)
    log_error("cannot tell the address the server listens on");
  if (!rc)
    rc = drv_dial_scheduler(d);
  if (!rc)
    rc = server_create(&d->params, &d->env, addr, &ds->sv);
  if (!rc)
    rc = server_start(ds->sv, &d->out);
  return rc ? rc : drv_flush(d, false);
}

static void drv_server_close(struct drv *d) {
  struct drv_server *ds = d->state;
  if (!ds)
    return;
  server_destroy(ds->sv);
  free(ds);
  d->state = NULL;
}

/* Before the server sees the cluster map: its link and the trace. */
static int on_map(struct drv *d, const struct net_msg *m) {
  struct msg_cluster_map *map = calloc(1, sizeof *map);
  struct scenario sc = {0};
  char err[512] = "";
  int rc = map ? 0 : DSANA_ENOMEM;
  if (!rc && msg_map_decode(m->payload, m->hdr.payload_bytes, map) != 0)
    rc = DSANA_EPROTO; /* the state machine says so */
  else if (!rc && map->scenario_path[0] && (rc = scenario_load(map->scenario_path, &sc, err, sizeof err)) != 0)
    log_error("%s", err);
  if (!rc)
    drv_name_role(d, map->your_index);
  /* every role in this process (--isolate threads): server i keeps to the
   * i-th core, so servers finishing at once run on different cores */
  if (!rc && d->params.shared_process && affinity_bind_nth(map->your_index) != 0)
    log_debug("cannot bind server %u to a CPU", map->your_index);
  if (!rc && map->scenario_path[0])
    rc = drv_open_outbox(d, &sc.global_link); /* the servers' link is the global one */
  if (!rc && !d->outbox)
    rc = drv_open_outbox(d, &(struct scenario_link){0});
  if (!rc) {
    drv_share(d);
    rc = trace_open_role(map->trace_path, "server", 2, map->your_index, &d->env.trace);
  }
  if (!rc) /* the app's setup may take long: heartbeats go on meanwhile */
    rc = drv_keepalive_start(d, map->your_index, map->heartbeat_s);
  scenario_fini(&sc);
  free(map);
  return rc == DSANA_EPROTO ? 0 : rc;
}

static int fail(struct drv *d, int rc) {
  drv_report_failure(d, rc);
  d->done = true;
  d->err = rc;
  return rc;
}

/* One message from the scheduler (sock 0) or a worker. */
static int deliver(struct drv *d, int sock, struct net_msg *m) {
  struct drv_server *ds = d->state;
  struct rt_from from = {.role = ROLE_SCHEDULER, .index = 0, .peer = m->from, .via_listener = sock == 1};
  int rc = sock == 0 && m->hdr.type == WIRE_CLUSTER_MAP && !d->outbox ? on_map(d, m) : 0;
  if (!rc)
    rc = server_on_msg(ds->sv, &from, m, &d->out);
  drv_keepalive_stop(d); /* joined (or failed): this thread sends again */
  if (rc)
    return rc;
  if (!server_stopped(ds->sv))
    return drv_flush(d, false);
  /* what is still queued answers pulls of an iteration that will not run
   * (workers fetching ahead), and those workers may be gone already */
  net_outbox_discard(d->outbox);
  d->done = true;
  return drv_flush(d, true);
}

static int drv_server_step(struct drv *d, int timeout_ms) {
  struct drv_server *ds = d->state;
  struct net_sock *socks[2] = {d->sched, d->listen};
  bool ready[2];
  int idle_ms = (int)(d->cfg.heartbeat_s * 1000);
  int wait = ds->serving ? 0 : timeout_ms < 0 || timeout_ms > idle_ms ? idle_ms : timeout_ms;
  int rc = net_poll(socks, 2, NULL, 0, wait, net_outbox_due_ns(d->outbox), ready, NULL);
  if (rc < 0)
    return fail(d, rc);
  for (int i = 0; i < 2 && !d->done; i++)
    /* a bounded batch, so that chunks made final by these pushes are sent
     * without waiting for the rest of a burst of pushes */
    for (int n = 0; n < DRV_BATCH && ready[i] && !d->done; n++) {
      struct net_msg m;
      if ((rc = net_recv(socks[i], &m, 0)) == DSANA_EAGAIN)
        break;
      if (rc)
        return fail(d, rc);
      rc = deliver(d, i, &m);
      net_msg_fini(&m);
      if (rc)
        return fail(d, rc);
    }
  if (d->done)
    return 0;
  if ((rc = server_pump(ds->sv, d->emulating, &d->out, &ds->serving)) != 0 || (rc = drv_flush(d, false)) != 0)
    return fail(d, rc);
  /* the outbox holds only replies to workers: one that cannot be delivered
   * (a worker gone) is dropped, not fatal for the server */
  if ((rc = net_outbox_pump(d->outbox, clock_now_ns(), NULL)) != 0 && rc != DSANA_ENET)
    return fail(d, rc);
  if ((rc = server_on_tick(ds->sv, clock_now_ns(), &d->out)) != 0 || (rc = drv_flush(d, false)) != 0)
    return fail(d, rc);
  return 0;
}

const struct drv_role_ops drv_server_ops = {
    .open = drv_server_open,
    .step = drv_server_step,
    .close = drv_server_close,
};
