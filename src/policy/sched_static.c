/*
 * sched_static.c - the plain BSP baseline: an equal split by task count.
 *
 * The k-th live worker (k = 0 .. W'-1 in worker order) gets the contiguous
 * block [k*T/W', (k+1)*T/W') of tasks in task order and runs it in that
 * order. Speeds are ignored and nothing is ever stolen; only tasks orphaned
 * by a dropped worker move (sched.c hands those out from its pool).
 */
#include "policy/sched_internal.h"

#include "dsana/error.h"

static int static_assign(struct sched *s) {
  uint64_t n_alive = 0, T = s->n_tasks;
  for (uint32_t w = 0; w < s->n_workers; w++)
    n_alive += s->alive[w];
  for (uint32_t t = 0; t < s->n_tasks; t++)
    s->qbuf[t] = t;
  uint64_t k = 0;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    if (!s->alive[w])
      continue;
    s->head[w] = (uint32_t)(k * T / n_alive);
    s->tail[w] = (uint32_t)((k + 1) * T / n_alive);
    for (uint32_t i = s->head[w]; i < s->tail[w]; i++)
      s->qcost[w] += s->cost[i];
    k++;
  }
  return 0;
}

static int static_steal(struct sched *s, uint32_t w, uint32_t *task) { return DSANA_EAGAIN; }

const struct sched_ops sched_static_ops = {
    .kind = SCHED_STATIC,
    .name = "static",
    .assign = static_assign,
    .steal = static_steal,
};
