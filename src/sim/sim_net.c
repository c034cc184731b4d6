/*
 * sim_net.c - the simulator's bottom layer: messages, the roles' CPUs (a
 * control thread each, optionally sharing the host's cores), the emulated
 * links of the runtime's outbox (outbox.h: ready at queue time + latency,
 * departures serialized at the bandwidth, lowest priority first among the
 * ready ones) and the transport's own delivery time.
 */
#include <stdlib.h>

#include "net/wire.h"
#include "sim/sim_internal.h"

double simnet_host(struct sim *sim, double now, double cost) {
  if (!sim->c->host_cores || cost <= 0)
    return now + (cost > 0 ? cost : 0);
  uint32_t k = 0;
  for (uint32_t i = 1; i < sim->c->host_cores; i++)
    if (sim->host_free[i] < sim->host_free[k])
      k = i;
  double start = now > sim->host_free[k] ? now : sim->host_free[k];
  sim->host_free[k] = start + cost;
  return start + cost;
}

double simnet_cpu(struct sim *sim, struct sim_cpu *cpu, double now, double cost) {
  double start = now > cpu->free_at ? now : cpu->free_at;
  double end = simnet_host(sim, start, cost);
  cpu->free_at = end;
  cpu->busy_s += cost > 0 ? cost : 0;
  return end;
}

int simnet_link_init(struct sim_link *l, double bw, double lat) {
  *l = (struct sim_link){.bw = bw, .lat = lat};
  return 0;
}

void simnet_link_fini(struct sim_link *l) {
  struct sim_hitem it;
  while (sim_heap_pop(&l->waiting, &it) == 0)
    simnet_msg_free(it.p);
  while (sim_heap_pop(&l->ready, &it) == 0)
    simnet_msg_free(it.p);
  sim_heap_fini(&l->waiting);
  sim_heap_fini(&l->ready);
}

struct sim_msg *simnet_msg(struct sim *sim, enum sim_msg_type type, enum sim_role from_role, uint32_t from,
                           enum sim_role to_role, uint32_t to, uint32_t iter, uint64_t payload_bytes) {
  struct sim_msg *m = calloc(1, sizeof *m);
  if (!m) {
    sim->failed = DSANA_ENOMEM;
    return NULL;
  }
  *m = (struct sim_msg){.type = type, .from_role = from_role, .from = from, .to_role = to_role, .to = to,
                        .iter = iter, .bytes = WIRE_HDR_BYTES + payload_bytes};
  return m;
}

void simnet_msg_free(struct sim_msg *m) {
  if (!m)
    return;
  free(m->ids);
  free(m->recs);
  free(m);
}

void simnet_event(struct sim *sim, enum sim_ev_kind k, double t, uint32_t a, void *p) {
  /* equal times: in the order scheduled (seq) */
  struct sim_hitem it = {.key = t, .seq = sim->seq++, .a = a, .b = (uint32_t)k, .p = p};
  if (sim_heap_push(&sim->events, &it) != 0) {
    sim->failed = DSANA_ENOMEM;
    if (k == EV_DELIVER)
      simnet_msg_free(p);
  }
}

static void deliver(struct sim *sim, struct sim_msg *m, double t) {
  simnet_event(sim, EV_DELIVER, t + sim->c->net_msg_s, 0, m);
}

/* Arm the link's next event, if it has anything to do. */
static void link_arm(struct sim *sim, struct sim_link *l) {
  if (l->armed)
    return;
  double t;
  if (l->ready.n)
    t = l->free_at;
  else if (l->waiting.n)
    t = sim_heap_top(&l->waiting)->key > l->free_at ? sim_heap_top(&l->waiting)->key : l->free_at;
  else
    return;
  l->armed = true;
  simnet_event(sim, EV_LINK, t, 0, l);
}

void simnet_link_event(struct sim *sim, struct sim_link *l, double t) {
  l->armed = false;
  struct sim_hitem it;
  while (l->waiting.n && sim_heap_top(&l->waiting)->key <= t && sim_heap_pop(&l->waiting, &it) == 0) {
    const struct sim_msg *m = it.p;
    it.key = 0;
    it.key2 = m->priority;
    if (sim_heap_push(&l->ready, &it) != 0) {
      sim->failed = DSANA_ENOMEM;
      simnet_msg_free(it.p);
    }
  }
  if (l->free_at <= t && sim_heap_pop(&l->ready, &it) == 0) {
    struct sim_msg *m = it.p;
    double dur = l->bw > 0 ? (double)m->bytes / l->bw : 0;
    l->free_at = t + dur;
    l->busy_s += dur;
    deliver(sim, m, l->free_at);
  }
  link_arm(sim, l);
}

void simnet_send(struct sim *sim, struct sim_link *l, struct sim_msg *m, double t) {
  if (!m)
    return;
  if (!l || (l->bw <= 0 && l->lat <= 0)) {
    double bps = sim->c->net_bytes_per_s;
    deliver(sim, m, t + (bps > 0 ? (double)m->bytes / bps : 0));
    return;
  }
  struct sim_hitem it = {.key = t + l->lat, .seq = sim->seq++, .p = m};
  if (sim_heap_push(&l->waiting, &it) != 0) {
    sim->failed = DSANA_ENOMEM;
    simnet_msg_free(m);
    return;
  }
  link_arm(sim, l);
}
