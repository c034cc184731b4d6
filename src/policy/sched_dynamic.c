/*
 * sched_dynamic.c - speed-proportional assignment plus stealing.
 *
 * Assignment (sched_begin_iter): longest processing time first. Tasks are
 * taken largest first (ties: lower id) and each goes to the live worker
 * whose predicted finish time after taking it, (assigned cost + cost) /
 * speed, is smallest (ties: lower index). A worker of several compute
 * threads (sched_set_threads) runs a task on one of them: its predicted
 * finish is the list schedule of its tasks on its threads, each at its
 * speed over the threads (struct sched_clock), not the sum over the
 * speed. Speeds come from sched_speed_predict_all(): before any
 * observation every worker counts as equal. Stickiness: a task stays with the worker that ran it last if that
 * worker's predicted finish after taking it is within (1 + SCHED_STICKY_EPS)
 * of the best choice, so blocks a worker has cached do not move for a gain
 * smaller than the noise in the speed estimates.
 *
 * Queue order: each worker runs its tasks largest first (the LPT order they
 * were assigned in). What is still queued late in an iteration is then the
 * small tasks, and a steal from the tail takes the smallest unstarted task:
 * the finest-grained way to even out the end of the iteration.
 *
 * Probes: every live worker gets at least one task per iteration (when
 * there are enough), so that the estimate of a worker once slow is
 * measured again and recovers (see sched.c).
 *
 * Stealing (sched_next with w's queue and the pool empty): the victim is the
 * live worker predicted to finish last, predicted remaining time = queued
 * cost / speed (ties: lower index). w takes the victim's tail task only if
 * that helps: the task's time on one of w's threads, cost / (speed[w] /
 * threads[w]), is below the victim's remaining time (a worker's speed is
 * its threads' together; a task runs on one). Otherwise w gets
 * DSANA_EAGAIN (it may ask again later; estimates and queues move).
 *
 * Equal speeds: when the live workers' predicted speeds are within
 * (1 + SCHED_STICKY_EPS) of each other (nobody straggles, as far as the
 * estimates can tell) and the contiguous plan below is as balanced as
 * LPT's within the same factor, the plan is the contiguous one: the static
 * plan's layout by cost, so that a worker's tasks are neighbours (their
 * pushes merge, their reads stay local) instead of LPT's scattered ones,
 * and dynamic scheduling does not lose to static where there is nothing
 * to balance; stealing stays on. Tasks of very unequal cost keep LPT.
 *
 * Contiguous variant (sched_set_contiguous): the live workers, in worker
 * order, get consecutive ranges of tasks whose costs are proportional to
 * their predicted speeds (a task goes to the range its cost midpoint falls
 * in), each run in task order; a thief takes the victim's last task. With
 * workers of several threads, the ranges that fit the least predicted
 * time (their list schedules, found by bisection) when that beats the
 * proportional split. The last iteration's ranges stay if their predicted
 * iteration time is within (1 + SCHED_STICKY_EPS) of the new split's.
 *
 * Cost: assignment is O(T log T + T*W) per iteration (contiguous: O(T + W);
 * with threads, about 10 bisection steps of O(T log threads)), a steal O(W).
 */
#include "policy/sched_internal.h"

#include <math.h>
#include <string.h>

#include "dsana/error.h"

#define SCHED_STICKY_EPS 0.05
/* How close to the least time a split of workers of several threads gets
 * (ranges_split_threads): a bisection step a factor 2, so about 10 steps. */
#define SCHED_SPLIT_PRECISION 0.002

/* Worker w's clock (struct sched_clock) reset, at its predicted speed. */
static struct sched_clock *clock_start(const struct sched *s, uint32_t w) {
  struct sched_clock *k = &s->clock[w];
  k->n = 0;
  k->end = 0;
  k->per_thread = s->pspeed[w] / k->cap;
  return k;
}

/* When a task of cost c would end on the clock (without taking it). */
static double clock_peek(const struct sched_clock *k, double c) {
  return (k->n < k->cap ? 0 : k->free_at[0]) + c / k->per_thread;
}

static void clock_take(struct sched_clock *k, double c) {
  double f = clock_peek(k, c);
  uint32_t i = 0;
  if (k->n < k->cap) { /* an idle thread: a new leaf, sifted up */
    for (i = k->n++; i > 0 && k->free_at[(i - 1) / 2] > f; i = (i - 1) / 2)
      k->free_at[i] = k->free_at[(i - 1) / 2];
  } else { /* the thread free first takes it: the root, sifted down */
    for (uint32_t ch; (ch = 2 * i + 1) < k->n; i = ch) {
      if (ch + 1 < k->n && k->free_at[ch + 1] < k->free_at[ch])
        ch++;
      if (k->free_at[ch] >= f)
        break;
      k->free_at[i] = k->free_at[ch];
    }
  }
  k->free_at[i] = f;
  k->end = f > k->end ? f : k->end;
}

/* Predicted time of worker w for tasks [lo, hi): their cost over its
 * speed; by_threads, the list schedule on its threads when it has several. */
static double range_time(const struct sched *s, uint32_t w, uint32_t lo, uint32_t hi, bool by_threads) {
  double c = 0;
  if (sched_threads(s, w) <= 1 || !by_threads) {
    for (uint32_t t = lo; t < hi; t++)
      c += s->cost[t];
    return c / s->pspeed[w];
  }
  struct sched_clock *k = clock_start(s, w);
  for (uint32_t t = lo; t < hi; t++)
    clock_take(k, s->cost[t]);
  return k->end;
}

/* Predicted iteration time of the ranges lo[] at the predicted speeds
 * (by_threads: range_time's). */
static double ranges_makespan(const struct sched *s, const uint32_t *lo, bool by_threads) {
  double worst = 0;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    double x = s->alive[w] ? range_time(s, w, lo[w], lo[w + 1], by_threads) : 0;
    worst = x > worst ? x : worst;
  }
  return worst;
}

/* Ranges of cost proportional to the live workers' speeds into lo[];
 * dead workers get empty ones. */
static void ranges_split(const struct sched *s, uint32_t *lo) {
  double total = 0, speed = 0, target = 0, acc = 0;
  uint32_t last_alive = 0;
  for (uint32_t t = 0; t < s->n_tasks; t++)
    total += s->cost[t];
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w]) {
      speed += s->pspeed[w];
      last_alive = w;
    }
  uint32_t t = 0, later = 0; /* later: live workers after w, each owed a task */
  for (uint32_t w = 0; w < s->n_workers; w++)
    later += s->alive[w];
  for (uint32_t w = 0; w < s->n_workers; w++) {
    lo[w] = t;
    if (!s->alive[w])
      continue;
    later--;
    target += total * s->pspeed[w] / speed;
    /* at least one task (a probe: a worker never given work is never
     * measured again), and one left for each live worker after it */
    for (; t < s->n_tasks &&
           (w == last_alive || (t + later < s->n_tasks && (t == lo[w] || acc + s->cost[t] / 2 <= target)));
         t++)
      acc += s->cost[t];
  }
  lo[s->n_workers] = s->n_tasks;
}

/* Ranges in worker order, each as long as its predicted time stays
 * within m (a live worker at least one task, one left for each live
 * worker after it; the last takes the rest) into lo[]; returns their
 * predicted iteration time. */
static double ranges_fill(const struct sched *s, double m, uint32_t *lo) {
  double worst = 0;
  uint32_t t = 0, later = 0, last_alive = 0;
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w]) {
      later++;
      last_alive = w;
    }
  for (uint32_t w = 0; w < s->n_workers; w++) {
    lo[w] = t;
    if (!s->alive[w])
      continue;
    later--;
    struct sched_clock *k = clock_start(s, w);
    for (; t < s->n_tasks &&
           (w == last_alive || (t + later < s->n_tasks && (t == lo[w] || clock_peek(k, s->cost[t]) <= m)));
         t++)
      clock_take(k, s->cost[t]);
    worst = k->end > worst ? k->end : worst;
  }
  lo[s->n_workers] = s->n_tasks;
  return worst;
}

/* No split of the tasks over the live workers ends sooner: all the work
 * at their speeds together, or the largest task on the fastest thread. */
static double least_time(const struct sched *s) {
  double total = 0, big = 0, speed = 0, thread = 0;
  for (uint32_t t = 0; t < s->n_tasks; t++) {
    total += s->cost[t];
    big = s->cost[t] > big ? s->cost[t] : big;
  }
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w]) {
      double per_thread = s->pspeed[w] / sched_threads(s, w);
      speed += s->pspeed[w];
      thread = per_thread > thread ? per_thread : thread;
    }
  return total / speed > big / thread ? total / speed : big / thread;
}

/* Workers of several threads: a task runs on one, so a worker's time is
 * its tasks' list schedule, not their cost over its speed (a slow
 * machine's 9 tasks on 4 threads take three rounds, its 8 two). The
 * proportional split of ranges_split when it is within (1 +
 * SCHED_STICKY_EPS) of least_time(), else the ranges that fit the least
 * time m found by bisection (ranges_fill) if they are predicted shorter. */
static void ranges_split_threads(struct sched *s, uint32_t *lo) {
  ranges_split(s, lo);
  double best = ranges_makespan(s, lo, true), hi = best, low = least_time(s);
  uint32_t *fit = s->range_fit;
  if (best <= (1.0 + SCHED_STICKY_EPS) * low)
    return; /* as good as any split is worth changing for */
  while (hi - low > SCHED_SPLIT_PRECISION * hi) {
    double m = (low + hi) / 2, x = ranges_fill(s, m, fit);
    if (x <= m)
      hi = x; /* what this split takes: at most m */
    else
      low = m;
    if (x < best) {
      best = x;
      memcpy(lo, fit, sizeof *lo * (s->n_workers + 1));
    }
  }
}

static bool many_threads(const struct sched *s) {
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w] && sched_threads(s, w) > 1)
      return true;
  return false;
}

static bool same_alive(const struct sched *s) {
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w] != s->range_alive[w])
      return false;
  return true;
}

/* The queues as contiguous ranges: the last iteration's, when they are
 * still as good within (1 + SCHED_STICKY_EPS), else the split range_new. */
static int lay_out_ranges(struct sched *s) {
  bool keep =
      s->have_ranges && same_alive(s) &&
      ranges_makespan(s, s->range_lo, true) <= (1.0 + SCHED_STICKY_EPS) * ranges_makespan(s, s->range_new, true);
  if (!keep)
    memcpy(s->range_lo, s->range_new, sizeof *s->range_lo * (s->n_workers + 1));
  for (uint32_t t = 0; t < s->n_tasks; t++)
    s->qbuf[t] = t;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    s->head[w] = s->range_lo[w];
    s->tail[w] = s->range_lo[w + 1];
    for (uint32_t t = s->head[w]; t < s->tail[w]; t++)
      s->qcost[w] += s->cost[t];
    s->range_alive[w] = s->alive[w];
  }
  s->have_ranges = true;
  return 0;
}

static int dynamic_assign_ranges(struct sched *s) {
  if (many_threads(s))
    ranges_split_threads(s, s->range_new);
  else
    ranges_split(s, s->range_new);
  return lay_out_ranges(s);
}

/* A live worker the assignment left without a task would never be
 * measured again: once slow (frozen, a transient straggler), it could not
 * show that it is fast again. It gets the smallest task another worker
 * holds with others as a probe. Before the queues are laid out: s->owner
 * maps task -> worker and s->tail counts each worker's tasks. */
static void give_probes(struct sched *s) {
  uint32_t next = s->n_tasks; /* s->order from its end: the smallest tasks first */
  for (uint32_t w = 0; w < s->n_workers; w++) {
    if (!s->alive[w] || s->tail[w] > 0)
      continue;
    while (next > 0) {
      uint32_t t = s->order[--next], o = s->owner[t];
      if (s->tail[o] < 2)
        continue;
      s->owner[t] = w;
      s->tail[o]--;
      s->tail[w]++;
      s->qcost[o] -= s->cost[t];
      s->qcost[w] += s->cost[t];
      break;
    }
  }
}

/* The live workers' predicted speeds within (1 + SCHED_STICKY_EPS) of
 * each other: as equal as the estimates can tell. */
static bool speeds_equal(const struct sched *s) {
  double lo = INFINITY, hi = 0;
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w]) {
      lo = s->pspeed[w] < lo ? s->pspeed[w] : lo;
      hi = s->pspeed[w] > hi ? s->pspeed[w] : hi;
    }
  return hi <= (1.0 + SCHED_STICKY_EPS) * lo;
}

/* The contiguous layout instead of LPT's owners (s->qcost: their costs)
 * when the speeds are equal and it is as balanced within
 * (1 + SCHED_STICKY_EPS): tasks of very unequal cost (a hub's) may need
 * LPT's freedom. Leaves the split in range_new. */
static bool contiguous_as_good(struct sched *s) {
  if (!speeds_equal(s))
    return false;
  double lpt = 0;
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (s->alive[w] && s->qcost[w] / s->pspeed[w] > lpt)
      lpt = s->qcost[w] / s->pspeed[w];
  ranges_split(s, s->range_new);
  return ranges_makespan(s, s->range_new, false) <= (1.0 + SCHED_STICKY_EPS) * lpt; /* as LPT's is measured */
}

/* When w would finish after taking a task of cost c on top of LPT's
 * earlier choices: its queued cost over its speed, or on several threads
 * its clock (started for this assignment). */
static double lpt_finish(const struct sched *s, uint32_t w, double c) {
  return sched_threads(s, w) > 1 ? clock_peek(&s->clock[w], c) : (s->qcost[w] + c) / s->pspeed[w];
}

/* Live worker with the smallest predicted finish after taking cost c. */
static uint32_t pick_best(const struct sched *s, double c, double *finish) {
  uint32_t best = SCHED_NONE;
  double best_f = INFINITY;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    if (!s->alive[w])
      continue;
    double f = lpt_finish(s, w, c);
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
  if (s->contiguous)
    return dynamic_assign_ranges(s);
  sched_sort_by_cost_desc(s);
  for (uint32_t w = 0; w < s->n_workers; w++)
    clock_start(s, w);
  /* s->owner was the sort's scratch; from here it maps task -> worker. */
  for (uint32_t i = 0; i < s->n_tasks; i++) {
    uint32_t t = s->order[i];
    double c = s->cost[t], best_f;
    uint32_t w = pick_best(s, c, &best_f);
    uint32_t prev = s->last[t];
    if (prev != SCHED_NONE && prev != w && s->alive[prev] &&
        lpt_finish(s, prev, c) <= (1.0 + SCHED_STICKY_EPS) * best_f)
      w = prev;
    s->owner[t] = w;
    s->qcost[w] += c;
    s->tail[w]++; /* count for now */
    clock_take(&s->clock[w], c);
  }
  give_probes(s);
  if (contiguous_as_good(s)) {
    memset(s->qcost, 0, sizeof *s->qcost * s->n_workers);
    return lay_out_ranges(s); /* the split contiguous_as_good() made */
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
  if (!(s->cost[t] * sched_threads(s, w) / s->pspeed[w] < victim_rem)) /* on one of w's threads */
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
