/*
 * usage.h - what an iteration costs the host, counted by the runtime: the
 * voluntary context switches (wake-ups) and the CPU time of every role's
 * process over the steady iterations (from the start of iteration 2 to the
 * end of the last), so that the summary can say "wake-ups and CPU per
 * iteration" for the whole job without a profiler. Counts, unlike times,
 * hardly depend on the machine: CTest asserts them.
 *
 * A role opens its window when iteration 2 starts (its driver supplies the
 * counters through rt_env.usage; none: nothing is counted) and sends what
 * it counted in its BYE; the scheduler adds the windows up. The BYE also
 * carries how many messages the role dropped as stale (late, duplicate or
 * from a replaced peer, never applied): the summary's stale_messages.
 */
#ifndef DSANA_RUNTIME_USAGE_H
#define DSANA_RUNTIME_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/msg/event.h"

/* The first iteration counted: iteration 1 includes setup and first pulls. */
#define USAGE_FIRST_ITER 2
#define USAGE_BYTES 32 /* BYE payload: wakeups, cpu_ns, iterations (0: not counted), stale messages (u64 each) */

struct usage_window {
  bool open, valid;
  struct rt_usage at; /* the counters when the window opened */
  uint32_t from_iter;
};

/* Iteration `iter` starts in this role: opens the window at USAGE_FIRST_ITER. */
void usage_iter_start(const struct rt_env *e, struct usage_window *w, uint32_t iter);
/* The counters since the window opened and the iterations it covers
 * (from_iter..last_iter); false when the window never opened or the driver
 * counts nothing. */
bool usage_since(const struct rt_env *e, const struct usage_window *w, uint32_t last_iter, struct rt_usage *u,
                 uint64_t *iters);
/* Send BYE from role `sender` to the scheduler, with the window's counters
 * when there are any and the messages it dropped as stale. */
int usage_send_bye(const struct rt_env *e, const struct usage_window *w, uint32_t sender, uint32_t last_iter,
                   uint64_t stale, struct rt_outq *out);
/* A BYE payload of len bytes: 0 (*iters 0: nothing counted), or
 * DSANA_EPROTO when it is not one. */
int usage_decode(const void *payload, size_t len, struct rt_usage *u, uint64_t *iters, uint64_t *stale);

#endif
