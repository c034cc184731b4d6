/*
 * sched_dynamic.c - speed-proportional assignment plus stealing.
 *
 * Assignment (sched_begin_iter): longest processing time first. Tasks are
 * taken largest first (ties: lower id) and each goes to the live worker
 * whose predicted finish time after taking it, (assigned cost + cost) /
 * speed, is smallest (ties: lower index). Speeds come from
 * sched_speed_predict_all(): before any observation every worker counts as
 * equal. Stickiness: a task stays with the worker that ran it last if that
 * worker's predicted finish after taking it is within (1 + SCHED_STICKY_EPS)
 * of the best choice, so blocks a worker has cached do not move for a gain
 * smaller than the noise in the speed estimates.
 *
 * Queue order: each worker runs its tasks largest first (the LPT order they
 * were assigned in). What is still queued late in an iteration is then the
 * small tasks, and a steal from the tail takes the smallest unstarted task:
 * the finest-grained way to even out the end of the iteration.
 *
 * Stealing (sched_next with w's queue and the pool empty): the victim is the
 * live worker predicted to finish last, predicted remaining time = queued
 * cost / speed (ties: lower index). w takes the victim's tail task only if
 * that helps: cost / speed[w] < victim's remaining time. Otherwise w gets
 * DSANA_EAGAIN (it may ask again later; estimates and queues move).
 *
 * Cost: assignment is O(T log T + T*W) per iteration, a steal O(W).
 */
#include "policy/sched_internal.h"

#include <math.h>

#include "dsana/dsana.h"

#define SCHED_STICKY_EPS 0.05

/* Live worker with the smallest predicted finish after taking cost c. */
static uint32_t pick_best(const struct sched *s, double c, double *finish) {
  uint32_t best = SCHED_NONE;
  double best_f = INFINITY;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    if (!s->alive[w])
      continue;
    double f = (s->qcost[w] + c) / s->pspeed[w];
    if (f < best_f) {
      best_f = f;
      best = w;
    }
  }
  *finish = best_f;
  return best;
}

static int dynamic_assign(struct sched *s) {
  sched_speed_predict_all(s);
  sched_sort_by_cost_desc(s);
  /* s->owner was the sort's scratch; from here it maps task -> worker. */
  for (uint32_t i = 0; i < s->n_tasks; i++) {
    uint32_t t = s->order[i];
    double c = s->cost[t], best_f;
    uint32_t w = pick_best(s, c, &best_f);
    uint32_t prev = s->last[t];
    if (prev != SCHED_NONE && prev != w && s->alive[prev] &&
        (s->qcost[prev] + c) / s->pspeed[prev] <= (1.0 + SCHED_STICKY_EPS) * best_f)
      w = prev;
    s->owner[t] = w;
    s->qcost[w] += c;
    s->tail[w]++; /* count for now */
  }
  uint32_t start = 0;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    uint32_t n = s->tail[w];
    s->head[w] = s->tail[w] = start;
    start += n;
  }
  for (uint32_t i = 0; i < s->n_tasks; i++) {
    uint32_t t = s->order[i];
    s->qbuf[s->tail[s->owner[t]]++] = t;
  }
  return 0;
}

static int dynamic_steal(struct sched *s, uint32_t w, uint32_t *task) {
  sched_speed_predict_all(s);
  uint32_t victim = SCHED_NONE;
  double victim_rem = 0;
  for (uint32_t v = 0; v < s->n_workers; v++) {
    if (v == w || !s->alive[v] || sched_queue_len(s, v) == 0)
      continue;
    double rem = s->qcost[v] / s->pspeed[v];
    if (victim == SCHED_NONE || rem > victim_rem) {
      victim = v;
      victim_rem = rem;
    }
  }
  if (victim == SCHED_NONE)
    return DSANA_EAGAIN;
  uint32_t t = s->qbuf[s->tail[victim] - 1];
  if (!(s->cost[t] / s->pspeed[w] < victim_rem))
    return DSANA_EAGAIN;
  *task = sched_queue_take_tail(s, victim);
  return 0;
}

const struct sched_ops sched_dynamic_ops = {
    .kind = SCHED_DYNAMIC,
    .name = "dynamic",
    .assign = dynamic_assign,
    .steal = dynamic_steal,
};
