/*
 * emulate.h - the modelled duration of a worker's computation under a
 * scenario's slowdown.
 *
 * An emulated node s times slower than a core of this machine takes s times
 * the *uncontended* time of a piece of work, whatever else this machine is
 * doing meanwhile (on a real cluster the servers' sending does not slow the
 * workers' cores). The same piece of work (a task, or a block of a task)
 * recurs every iteration, so its uncontended time is estimated as the
 * fastest it has run so far; the worker sleeps until s times that. When the
 * real computation overruns the modelled time (the host is too busy to keep
 * it inside), nothing is slept and the overrun is counted, so benchmarks can
 * report it. Sleeps are many and short (a block is a fraction of a
 * millisecond), so what the kernel oversleeps on one piece is taken off the
 * next: over a run the slept time matches the modelled time.
 *
 * Cost model (scenario ns_per_cost): a piece of work of cost c is modelled
 * as c x ns_per_cost x slowdown, whatever it took here: the emulated node's
 * time no longer depends on this machine at all (nor on which worker ran the
 * piece before), as long as the real computation fits inside it.
 */
#ifndef DSANA_RUNTIME_EMULATE_H
#define DSANA_RUNTIME_EMULATE_H

#include <stdint.h>

/* Sleeps until the absolute clock_now_ns() time `until_ns`; may do other
 * work meanwhile (a worker keeps its link busy: its NIC sends while its
 * emulated CPU computes). */
typedef void (*emulate_sleep_fn)(void *arg, uint64_t until_ns);

/* Oversleep carried to later pieces, at most (the sleeps here, the held
 * items' late releases, hold.h). */
#define EMULATE_MAX_CREDIT_NS 2000000

struct emulate {
  double ns_per_cost;     /* > 0: cost model; 0: measured model (history) */
  emulate_sleep_fn sleep; /* NULL: a plain sleep */
  void *sleep_arg;
  uint64_t *best; /* fastest real ns per slot, 0 = not seen; NULL = no history */
  uint64_t n_slots;
  uint64_t overrun_ns; /* cumulative: real time beyond the modelled time */
  int64_t debt_ns;     /* sleep still owed (< 0: overslept, credited to the next piece) */
};

/* Slots number the recurring pieces of work. With more than a few million
 * slots there is no history: each piece is modelled from its own time.
 * ns_per_cost > 0 selects the cost model (no history is kept). */
int emulate_init(struct emulate *e, uint64_t n_slots, double ns_per_cost);
void emulate_fini(struct emulate *e);
/* Sleep with fn(arg, until) instead of a plain sleep. */
void emulate_set_sleep(struct emulate *e, emulate_sleep_fn fn, void *arg);

/* Work in `slot` of cost `cost` (the app's units) just took real_ns;
 * returns the modelled duration, slowdown x (cost x ns_per_cost, or the
 * fastest real time of the slot without a cost model), and sleeps the part
 * of it not already spent. Without a cost model, slowdown <= 1 means no
 * emulation: returns real_ns. Real time beyond the model is returned as is
 * and added to overrun_ns. */
uint64_t emulate_work(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown);

/* The modelled duration emulate_work() would stretch the work to, without
 * sleeping (the caller holds the work until then itself, hold.h); real
 * time beyond it is returned as is and added to overrun_ns. */
uint64_t emulate_model(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown);

/* Points inside a piece of work that must happen on the modelled clock
 * (what the work made ready by then): point i, reached real_at[i] ns into
 * the real run (ascending), happens start_ns + real_at[i] x modelled /
 * real, when at(arg, i) is called; without a stretch, at once. */
struct emulate_marks {
  uint64_t start_ns; /* clock_now_ns() when the work began */
  const uint64_t *real_at;
  uint32_t n;
  void (*at)(void *arg, uint32_t i);
  void *arg;
};
/* emulate_work(), calling each mark's at() on the way (marks may be NULL). */
uint64_t emulate_work_marked(struct emulate *e, uint64_t slot, uint64_t real_ns, double cost, double slowdown,
                             const struct emulate_marks *marks);
/* Whether work at this slowdown is stretched at all. */
static inline int emulate_stretches(const struct emulate *e, double slowdown) {
  return e->ns_per_cost > 0 || slowdown > 1.0;
}

#endif
