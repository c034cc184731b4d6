/* emulate.c - modelled compute durations (see emulate.h). */
#include "runtime/emulate/emulate.h"

#include <stdlib.h>
#include <sys/prctl.h>

#include "dsana/dsana.h"
#include "util/thread/clock.h"

#define EMULATE_MAX_SLOTS (1u << 21) /* 16 MiB of history at most */

int emulate_init(struct emulate *e, uint64_t n_slots, double ns_per_cost) {
  *e = (struct emulate){.ns_per_cost = ns_per_cost > 0 ? ns_per_cost : 0};
  prctl(PR_SET_TIMERSLACK, 1UL); /* this process's sleeps end on time, not 50 us late */
  if (e->ns_per_cost > 0 || n_slots == 0 || n_slots > EMULATE_MAX_SLOTS)
    return 0;
  e->best = calloc(n_slots, sizeof *e->best);
  if (!e->best)
    return DSANA_ENOMEM;
  e->n_slots = n_slots;
  return 0;
}

void emulate_set_sleep(struct emulate *e, emulate_sleep_fn fn, void *arg) {
  e->sleep = fn;
  e->sleep_arg = arg;
}

void emulate_fini(struct emulate *e) {
  free(e->best);
  *e = (struct emulate){0};
}

/* The modelled duration of the piece at speed 1, before slowdown. */
static double emulate_base_ns(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost) {
  if (e->ns_per_cost > 0)
    return cost > 0 ? cost * e->ns_per_cost : 0;
  uint64_t base = real_ns;
  if (e->best && slot < e->n_slots) {
    uint64_t *b = &e->best[slot];
    if (*b == 0 || real_ns < *b)
      *b = real_ns ? real_ns : 1;
    base = *b;
  }
  return (double)base;
}

/* Sleep until until_ns (clock_now_ns() time), if it is still ahead. */
static void sleep_until(struct emulate *e, uint64_t until_ns) {
  uint64_t now = clock_now_ns();
  if (until_ns <= now)
    return;
  if (e->sleep)
    e->sleep(e->sleep_arg, until_ns);
  else
    clock_sleep_ns(until_ns - now);
}

/* Marks [from, n) whose modelled time is before until_ns, in order. */
static uint32_t fire_marks(struct emulate *e, const struct emulate_marks *mk, uint32_t from, double scale,
                           uint64_t until_ns) {
  for (; mk && from < mk->n; from++) {
    uint64_t at = mk->start_ns + (uint64_t)((double)mk->real_at[from] * scale);
    if (at > until_ns)
      break;
    sleep_until(e, at);
    mk->at(mk->arg, from);
  }
  return from;
}

uint64_t emulate_model(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown) {
  if (!emulate_stretches(e, slowdown))
    return real_ns;
  double m = emulate_base_ns(e, slot, real_ns, cost) * slowdown;
  uint64_t model = m < 1e18 ? (uint64_t)m : (uint64_t)1e18;
  if (real_ns >= model) {
    e->overrun_ns += real_ns - model;
    return real_ns;
  }
  return model;
}

uint64_t emulate_work_marked(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown,
                             const struct emulate_marks *mk) {
  uint64_t model = emulate_model(e, slot, real_ns, cost, slowdown);
  if (model <= real_ns) { /* not stretched, or overrun */
    fire_marks(e, mk, 0, 0, UINT64_MAX);
    return real_ns;
  }
  double scale = real_ns ? (double)model / (double)real_ns : 1;
  e->debt_ns += (int64_t)(model - real_ns);
  uint32_t fired = 0;
  if (e->debt_ns > 0) {
    uint64_t t0 = clock_now_ns(), end = t0 + (uint64_t)e->debt_ns;
    fired = fire_marks(e, mk, 0, scale, end);
    sleep_until(e, end);
    e->debt_ns -= (int64_t)(clock_now_ns() - t0);
    if (e->debt_ns < -EMULATE_MAX_CREDIT_NS)
      e->debt_ns = -EMULATE_MAX_CREDIT_NS;
  }
  fire_marks(e, mk, fired, 0, UINT64_MAX); /* those the credit of an oversleep cut short */
  return model;
}

uint64_t emulate_work(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown) {
  return emulate_work_marked(e, slot, real_ns, cost, slowdown, NULL);
}
