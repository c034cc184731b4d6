/*
 * driver_io.c - the bottom of a role's driver: the transport context, the
 * dialer to the scheduler, the emulated link, the environment given to the
 * state machine, and sending what the state machine queued (with the
 * role's hooks around each message: the worker's fault points).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime/driver/driver_internal.h"
#include "util/thread/clock.h"
#include "runtime/role/role_title.h"
#include "util/text/log.h"

static uint64_t env_now(void *arg) {
  (void)arg;
  return clock_now_ns();
}

static int env_usage(void *arg, struct rt_usage *u) {
  const struct drv *d = arg;
  if (d->params.shared_process && d->role != ROLE_SCHEDULER) { /* the scheduler counts the process once */
    *u = (struct rt_usage){0};
    return 0;
  }
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return DSANA_EIO;
  u->wakeups = (uint64_t)ru.ru_nvcsw;
  u->cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
              (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
  return 0;
}

static int env_buffer_create(void *arg, const char *name, size_t bytes, double **out) {
  return net_buffer_create(((struct drv *)arg)->ctx, name, bytes, out);
}

static int env_buffer_map(void *arg, const char *name, size_t bytes, const double **out) {
  return net_buffer_map(((struct drv *)arg)->ctx, name, bytes, out);
}

static int env_buffer_join(void *arg, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                           double **out) {
  return net_buffer_join(((struct drv *)arg)->ctx, name, region_bytes, offset, bytes, out);
}

static void env_buffer_release(void *arg, const void *p, size_t bytes) {
  net_buffer_release(((struct drv *)arg)->ctx, p, bytes);
}

static int env_send_scheduler_now(void *arg, const struct wire_hdr *h) {
  struct drv *d = arg;
  return d->sched ? drv_keepalive_send(d, h) : 0;
}

int drv_open_ctx(struct drv *d) {
  struct net_opts o = {.max_payload = d->cfg.max_payload_bytes,
                       .curve_secret = d->cfg.curve_secret,
                       .local_dir = d->cfg.local_dir,
                       .bind_host = d->cfg.bind_host};
  int rc = net_ctx_create(d->cfg.scheduler_addr, &o, &d->ctx);
  if (rc)
    return rc;
  /* a manual driver shares its process with the cluster's other roles */
  d->env = (struct rt_env){.arg = d,
                           .now_ns = env_now,
                           .usage = d->manual ? NULL : env_usage,
                           .send_scheduler_now = env_send_scheduler_now,
                           .trace = d->env.trace};
  return 0;
}

void drv_name_role(struct drv *d, uint32_t index) {
  char name[64];
  snprintf(name, sizeof name, "%s %u", rt_role_name(d->role), index);
  log_set_role(name);
  if (d->params.index == UINT32_MAX)
    role_title_set(d->role, &d->cfg, index);
}

void drv_share(struct drv *d) {
  /* shared buffers only between roles of this machine whose link is not
   * emulated (an emulated link must carry the values) */
  if (net_can_share(d->ctx) && !d->emulating) {
    d->env.buffer_create = env_buffer_create;
    d->env.buffer_map = env_buffer_map;
    d->env.buffer_release = env_buffer_release;
    d->env.buffer_join = env_buffer_join;
  }
}

int drv_open_outbox(struct drv *d, const struct scenario_link *link) {
  int rc = net_outbox_create(link->bandwidth_bytes_per_s, link->latency_s, &d->outbox);
  d->emulating = rc == 0 && net_outbox_emulating(d->outbox);
  return rc;
}

int drv_dial_scheduler(struct drv *d) {
  /* the identity only has to be unique among the scheduler's peers */
  uint64_t h = ((uint64_t)getpid() << 32) ^ clock_now_ns() ^ ((uint64_t)d->role << 60) ^ (uintptr_t)d;
  h = (h ^ (h >> 31)) * 0x7fb5d329728ea185ull;
  int rc = net_dial(d->ctx, d->cfg.scheduler_addr, (uint32_t)(h >> 32) | 0x80000000u, &d->sched);
  if (rc)
    log_error("cannot connect to the scheduler at %s", d->cfg.scheduler_addr);
  return rc;
}

void drv_report_failure(struct drv *d, int rc) {
  if (!d->sched || rc == DSANA_EPEER || rc == DSANA_ERESTART || rc == DSANA_EENDED) /* the scheduler stopped us */
    return;
  const char *why = log_last_error()[0] ? log_last_error() : dsana_strerror(rc);
  size_t len = strlen(why) < 500 ? strlen(why) : 500;
  struct wire_hdr h = wire_hdr_make(WIRE_ABORT, 0);
  h.payload_bytes = len;
  net_send(d->sched, NULL, &h, why, len); /* delivered while the socket lingers */
}

void drv_close_io(struct drv *d) {
  drv_keepalive_stop(d); /* before the dialer it sends on closes */
  net_outbox_destroy(d->outbox);
  d->outbox = NULL;
  net_close(d->sched);
  net_close(d->listen);
  d->sched = d->listen = NULL;
  rt_outq_fini(&d->out);
  net_ctx_destroy(d->ctx);
  d->ctx = NULL;
}

/* The socket an entry goes out on. */
static struct net_sock *sock_for(struct drv *d, const struct rt_out *o) {
  if (o->peer.len)
    return d->listen;
  if (o->role == ROLE_SCHEDULER)
    return d->sched;
  return d->ops->server_sock ? d->ops->server_sock(d, o->index) : NULL;
}

static int send_one(struct drv *d, struct rt_out *o, bool direct) {
  struct net_sock *s = sock_for(d, o);
  const struct net_peer *to = o->peer.len ? &o->peer : NULL;
  size_t len = (size_t)o->hdr.payload_bytes;
  void *owned = o->owned;
  struct net_release lent = o->lent;
  o->owned = NULL;
  o->lent.fn = NULL;
  if (!s) {
    free(owned);
    if (lent.fn)
      lent.fn(lent.arg);
    log_error("no connection to %s %u", rt_role_name(o->role), o->index);
    return DSANA_ESTATE;
  }
  if (lent.fn)
    return direct ? net_send_lent(s, to, &o->hdr, o->payload, len, lent)
                  : net_outbox_send_lent(d->outbox, s, to, &o->hdr, o->payload, len, o->priority, lent);
  if (direct)
    return owned ? net_send_owned(s, to, &o->hdr, owned, len) : net_send(s, to, &o->hdr, o->payload, len);
  return owned ? net_outbox_send_owned(d->outbox, s, to, &o->hdr, owned, len, o->priority)
               : net_outbox_send(d->outbox, s, to, &o->hdr, o->payload, len, o->priority);
}

int drv_flush(struct drv *d, bool direct) {
  int rc = 0;
  for (size_t i = 0; i < d->out.n && !rc; i++) {
    if (d->ops->before_send)
      d->ops->before_send(d, i);
    int src = send_one(d, &d->out.v[i], direct);
    /* a listener's peer that cannot be reached is gone: whether it is lost
     * is the scheduler's call, and the role carries on for the others */
    if (src == DSANA_ENET && d->out.v[i].peer.len)
      src = 0;
    rc = src;
    if (d->ops->after_send)
      d->ops->after_send(d, i);
  }
  rt_outq_clear(&d->out);
  return rc;
}
