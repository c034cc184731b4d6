/*
 * sim_net.c - the simulator's bottom layer: messages, the roles' CPUs (a
 * control thread each, optionally sharing the host's cores), the emulated
 * links of the runtime's outbox (outbox.h: ready at queue time + latency,
 * departures serialized at the bandwidth, lowest priority first among the
 * ready ones) and the transport's own delivery time.
 */
#include <stdlib.h>
#include <string.h>

#include "net/wire/wire.h"
#include "sim/sim_internal.h"
#include "util/memory/grow.h"

/* Drop core k's spans that ended before the event clock (no request starts earlier). */
static void core_prune(struct sim *sim, struct sim_core *core) {
  size_t k = 0;
  while (k < core->n && core->span[k].end <= sim->now)
    k++;
  if (k) {
    memmove(core->span, core->span + k, sizeof *core->span * (core->n - k));
    core->n -= k;
  }
}

/* When `cost` of work from `now` on ends on core, filling its free gaps
 * (work is preemptible: the kernel time-slices); *from = when it can start. */
static double core_fit(const struct sim_core *core, double now, double cost, double *from) {
  double t = now, left = cost;
  *from = -1;
  for (size_t k = 0; k < core->n; k++) {
    const struct sim_span *sp = &core->span[k];
    if (sp->end <= t)
      continue;
    if (sp->start > t) {
      if (*from < 0)
        *from = t;
      if (sp->start - t >= left)
        return t + left;
      left -= sp->start - t;
    }
    t = sp->end;
  }
  if (*from < 0)
    *from = t;
  return t + left;
}

/* Book [from, end) on core: every gap in it is filled, so its spans merge into one. */
static int core_book(struct sim_core *core, double from, double end) {
  size_t a = 0, b;
  while (a < core->n && core->span[a].end < from)
    a++;
  for (b = a; b < core->n && core->span[b].start <= end; b++) {
  }
  if (b > a) { /* spans a..b-1 touch [from, end): one span */
    double lo = core->span[a].start < from ? core->span[a].start : from;
    double hi = core->span[b - 1].end > end ? core->span[b - 1].end : end;
    core->span[a] = (struct sim_span){lo, hi};
    memmove(core->span + a + 1, core->span + b, sizeof *core->span * (core->n - b));
    core->n -= b - a - 1;
    return 0;
  }
  struct sim_span *v = grow_for_one(core->span, &core->cap, core->n, sizeof *v, 8);
  if (!v)
    return DSANA_ENOMEM;
  core->span = v;
  memmove(v + a + 1, v + a, sizeof *v * (core->n - a));
  v[a] = (struct sim_span){from, end};
  core->n++;
  return 0;
}

double simnet_host(struct sim *sim, double now, double cost) {
  if (!sim->c->host_cores || cost <= 0)
    return now + (cost > 0 ? cost : 0);
  uint32_t best = 0;
  double best_end = 0, best_from = 0;
  for (uint32_t i = 0; i < sim->c->host_cores; i++) {
    double from;
    core_prune(sim, &sim->cores[i]);
    double end = core_fit(&sim->cores[i], now, cost, &from);
    if (i == 0 || end < best_end) {
      best = i;
      best_end = end;
      best_from = from;
    }
  }
  if (core_book(&sim->cores[best], best_from, best_end) != 0)
    sim->failed = DSANA_ENOMEM;
  return best_end;
}

void simnet_cores_fini(struct sim *sim) {
  for (uint32_t i = 0; sim->cores && i < (sim->c->host_cores ? sim->c->host_cores : 1); i++)
    free(sim->cores[i].span);
  free(sim->cores);
  sim->cores = NULL;
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
  *m = (struct sim_msg){.type = type,
                        .from_role = from_role,
                        .from = from,
                        .to_role = to_role,
                        .to = to,
                        .iter = iter,
                        .bytes = WIRE_HDR_BYTES + payload_bytes};
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
