/* node.c - registration and liveness shared by servers and workers. */
#include "runtime/node.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/log.h"

int node_open(struct node *n, const struct role_params *p, enum node_role role) {
  memset(n, 0, sizeof *n);
  n->role = role;
  n->cfg = *p->cfg;
  int rc = net_ctx_create(&n->ctx);
  if (rc)
    return rc;
  if (p->cfg->curve_secret[0] && (rc = net_ctx_set_curve(n->ctx, p->cfg->curve_secret)) != 0)
    return rc;
  net_ctx_set_max_payload(n->ctx, p->cfg->max_payload_bytes);
  /* The identity only has to be unique among the scheduler's peers. */
  uint64_t h = ((uint64_t)getpid() << 32) ^ clock_now_ns() ^ ((uint64_t)role << 60);
  h = (h ^ (h >> 31)) * 0x7fb5d329728ea185ull;
  rc = net_dial(n->ctx, p->cfg->scheduler_addr, (uint32_t)(h >> 32), &n->sched);
  if (rc)
    log_error("cannot connect to the scheduler at %s", p->cfg->scheduler_addr);
  return rc;
}

static int node_create_app(struct node *n) {
  char err[512] = "";
  n->app = dsana_app_find(n->map->app);
  if (!n->app) {
    log_error("scheduler runs unknown app '%s'", n->map->app);
    return DSANA_EPROTO;
  }
  int rc = n->app->create(&n->app_state);
  if (rc)
    return rc;
  n->own_app = true;
  for (uint32_t i = 0; i < n->map->args.n; i++) {
    const char *name = n->map->args.name[i][0] ? n->map->args.name[i] : NULL;
    rc = n->app->set_option(n->app_state, name, n->map->args.value[i], err, sizeof err);
    if (rc) {
      log_error("app option from scheduler: %s", err);
      return rc;
    }
  }
  return 0;
}

static int node_wait_map(struct node *n) {
  uint64_t deadline = clock_now_ns() + (uint64_t)(n->cfg.register_timeout_s * 1e9);
  for (;;) {
    uint64_t now = clock_now_ns();
    if (now >= deadline) {
      log_error("timed out after %.0f s waiting for the cluster map from the scheduler at %s (is it running, and "
                "is --token-file the job's?)", n->cfg.register_timeout_s, n->cfg.scheduler_addr);
      return DSANA_ETIMEDOUT;
    }
    struct net_msg m;
    int rc = net_recv(n->sched, &m, (int)((deadline - now) / 1000000u) + 1);
    if (rc == DSANA_EAGAIN)
      continue;
    if (rc)
      return rc;
    int type = m.hdr.type;
    if (type == WIRE_CLUSTER_MAP) {
      rc = msg_map_decode(m.payload, m.hdr.payload_bytes, n->map);
      n->index = n->map->your_index;
    } else if (type == WIRE_ABORT) {
      log_error("scheduler aborted the job: %.*s", (int)m.hdr.payload_bytes, (const char *)m.payload);
      rc = DSANA_EPEER;
    }
    net_msg_fini(&m);
    if (rc)
      return rc;
    if (type == WIRE_CLUSTER_MAP)
      return 0;
  }
}

int node_join(struct node *n, const struct role_params *p, const char *addr) {
  struct msg_register reg = {.role = n->role, .index = p->index};
  snprintf(reg.addr, sizeof reg.addr, "%s", addr);
  uint8_t buf[1024];
  size_t len;
  int rc = msg_register_encode(&reg, buf, sizeof buf, &len);
  struct wire_hdr h = wire_hdr_make(WIRE_REGISTER, p->index);
  h.payload_bytes = len;
  if (!rc)
    rc = node_send(n, &h, buf, len);
  n->map = calloc(1, sizeof *n->map);
  if (!n->map)
    return DSANA_ENOMEM;
  if (!rc)
    rc = node_wait_map(n);
  if (rc)
    return rc;
  n->last_heard_ns = clock_now_ns();
  char role[64];
  snprintf(role, sizeof role, "%s %u", node_role_name(n->role), n->index);
  log_set_role(role);
  n->cfg.mode = n->map->mode;
  n->cfg.sched = n->map->sched;
  n->cfg.n_servers = n->map->n_servers;
  n->cfg.n_workers = n->map->n_workers;
  n->cfg.tasks_per_worker = n->map->tasks_per_worker;
  n->cfg.peer_timeout_s = n->map->peer_timeout_s;
  n->cfg.heartbeat_s = n->map->heartbeat_s;
  if (p->app) {
    n->app = p->app;
    n->app_state = p->app_state;
  } else if ((rc = node_create_app(n)) != 0) {
    return rc;
  }
  char err[512] = "";
  job_init(&n->job, n->cfg.n_workers, n->cfg.n_servers, n->cfg.tasks_per_worker, node_role_name(n->role));
  n->job.max_keys = n->cfg.max_keys;
  rc = n->app->setup(n->app_state, &n->job, err, sizeof err);
  if (!rc)
    rc = job_validate(&n->job, err, sizeof err);
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  if (n->map->scenario_path[0])
    rc = scenario_load(n->map->scenario_path, &n->sc, err, sizeof err);
  else
    rc = scenario_default(n->cfg.n_workers, &n->sc);
  if (rc) {
    log_error("%s", err);
    return rc;
  }
  /* Workers have their own link in the scenario; servers the global one. */
  const struct scenario_link *link = n->role == ROLE_WORKER && n->index < n->sc.n_workers ? &n->sc.link[n->index]
                                                                                          : &n->sc.global_link;
  return net_outbox_create(link->bandwidth_bytes_per_s, link->latency_s, &n->outbox);
}

void node_close(struct node *n) {
  net_outbox_destroy(n->outbox);
  job_fini(&n->job);
  scenario_fini(&n->sc);
  if (n->own_app && n->app)
    n->app->destroy(n->app_state);
  free(n->map);
  if (n->sched)
    net_close(n->sched);
  if (n->ctx)
    net_ctx_destroy(n->ctx);
  memset(n, 0, sizeof *n);
}

int node_send(struct node *n, const struct wire_hdr *h, const void *payload, size_t len) {
  struct wire_hdr copy = *h;
  copy.sender = n->index;
  n->last_sent_ns = clock_now_ns();
  return net_send(n->sched, NULL, &copy, payload, len);
}

void node_tick(struct node *n) {
  uint64_t now = clock_now_ns();
  if (now - n->last_sent_ns >= (uint64_t)(n->cfg.heartbeat_s * 1e9)) {
    struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, n->index);
    node_send(n, &h, NULL, 0);
  }
}

int node_check_scheduler(struct node *n) {
  uint64_t silent = clock_now_ns() - n->last_heard_ns;
  if (silent > (uint64_t)(n->cfg.peer_timeout_s * 1e9)) {
    log_error("lost the scheduler at %s: silent for %.1f s", n->cfg.scheduler_addr, clock_ns_to_s(silent));
    return DSANA_ETIMEDOUT;
  }
  return 0;
}
