/*
 * hold.h - emulated work items held on a worker's control thread until
 * their modelled end.
 *
 * On an emulated cluster a work item's real computation is often tiny next
 * to its modelled time (a cost model, or a node far slower than this
 * core). Such an item need not occupy a compute thread for the whole model:
 * the control thread runs its hook at once and the hold keeps it "running"
 * on one of the emulated node's threads (a virtual thread) until its start
 * plus its modelled time, then gives it back; what the item said final on
 * the way (dsana_push_ready) is released at its place on the same stretched
 * clock. A hand-off to a compute thread and back costs two cross-CPU
 * wake-ups and the sleep a third; a held item costs the control thread at
 * most one timed wake-up, often none (it wakes for the link anyway).
 *
 * The control thread wakes late now and then; what a release overshoots is
 * taken off the next item of the same virtual thread (up to 2 ms), as
 * emulate.h does for sleeps, so over a run the held time matches the model.
 *
 * One owner thread; nothing here sleeps or locks.
 */
#ifndef DSANA_RUNTIME_HOLD_H
#define DSANA_RUNTIME_HOLD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/worker/worker.h"

/* What an item said final while it ran: the n-th time it called, after
 * at[i] ns of its real run, the first n_said[i] ranges were final (and
 * *ready is where the control thread publishes that count). */
#define HOLD_MARKS 64
struct hold_marks {
  _Atomic uint64_t *ready;
  uint32_t n;
  uint64_t at[HOLD_MARKS], n_said[HOLD_MARKS];
};

struct hold;

/* A hold of n_threads virtual threads (>= 1). */
int hold_create(uint32_t n_threads, struct hold **out);
void hold_destroy(struct hold *h);
/* Items held now. */
uint32_t hold_count(const struct hold *h);
/* Whether a virtual thread is free. */
bool hold_has_room(const struct hold *h);
/* Hold `it`, whose hook ran from t0 for real_ns, until t0 + modelled_ns
 * (less its thread's credit); its marks are released at t0 + at[i] x
 * modelled / real. False (nothing held) when no virtual thread is free. */
bool hold_add(struct hold *h, const struct witem *it, uint64_t t0, uint64_t real_ns, uint64_t modelled_ns,
              const struct hold_marks *marks);
/* The clock_now_ns() time of the next mark or end, 0 when nothing is held. */
uint64_t hold_due_ns(const struct hold *h);
/* Marks due by now_ns: publish(arg, ready, n) for each, in order. */
void hold_marks_due(struct hold *h, uint64_t now_ns, void (*publish)(void *arg, _Atomic uint64_t *ready, uint64_t n),
                    void *arg);
/* An item whose end came by now_ns (its marks all released first): true,
 * *it and its start *t0, and its virtual thread is free again. */
bool hold_take(struct hold *h, uint64_t now_ns, struct witem *it, uint64_t *t0);

#endif
