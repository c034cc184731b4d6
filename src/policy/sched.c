/*
 * sched.c - the part of the task scheduler every policy shares: creation,
 * the per-iteration queue state, handing out tasks (own queue, then the
 * pool of orphaned tasks, then the policy's steal hook), speed estimation
 * from reported task times, and dropping a worker mid-iteration.
 *
 * Speed estimate of worker w (cost units per second): within an iteration
 * the reported tasks are aggregated as (sum of cost) / (sum of seconds);
 * the estimate an iteration's plan is made from is the median of the last
 * SCHED_HIST iterations' aggregates, so that one iteration slowed by a
 * transient straggler does not move the plan (moving costs the tasks that
 * move their layout and their run-ahead), while a worker slow in two
 * iterations of three is slow for it; in the middle of an iteration,
 * predictions blend it with the iteration's own samples by an EWMA of
 * weight SCHED_EWMA_ALPHA (sched_queue.c). Once w has an estimate, a single task's rate is clamped
 * to [est / SCHED_SAMPLE_CLAMP, est * SCHED_SAMPLE_CLAMP] before it enters
 * the aggregate, so one noisy task cannot swing the estimate by more than
 * that factor; but when every task of an iteration ran faster than the
 * clamp allows, the worker is fast again (it was frozen or a transient
 * straggler) and its estimate restarts from that iteration's unclamped
 * rate, so it recovers in one iteration instead of many. Reports with seconds <= 0 or not finite carry no timing
 * information and only mark the task done.
 *
 * The policies (sched_static.c, sched_dynamic.c) only build the queues and
 * decide steals; see sched_internal.h for the queue layout.
 */
#include "policy/sched_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "policy/ewma.h"

#define SCHED_SAMPLE_CLAMP 2.0

static const struct sched_ops *sched_ops_for(enum sched_kind kind) {
  switch (kind) {
  case SCHED_STATIC:
    return &sched_static_ops;
  case SCHED_DYNAMIC:
    return &sched_dynamic_ops;
  }
  return NULL;
}

int sched_create(enum sched_kind kind, uint32_t n_workers, const double *cost, uint32_t n_tasks, struct sched **out) {
  if (out == NULL)
    return DSANA_EINVAL;
  *out = NULL;
  const struct sched_ops *ops = sched_ops_for(kind);
  if (ops == NULL || n_workers < 1 || n_tasks < 1 || cost == NULL)
    return DSANA_EINVAL;
  for (uint32_t t = 0; t < n_tasks; t++)
    if (!isfinite(cost[t]) || !(cost[t] > 0))
      return DSANA_EINVAL;

  struct sched *s = calloc(1, sizeof(*s));
  if (s == NULL)
    return DSANA_ENOMEM;
  s->ops = ops;
  s->n_workers = n_workers;
  s->n_tasks = n_tasks;
  size_t W = n_workers, T = n_tasks;
  s->cost = malloc(T * sizeof(double));
  s->alive = calloc(W, sizeof(bool));
  s->qbuf = malloc(T * sizeof(uint32_t));
  s->head = calloc(W, sizeof(uint32_t));
  s->tail = calloc(W, sizeof(uint32_t));
  s->qcost = calloc(W, sizeof(double));
  s->pool = malloc(T * sizeof(uint32_t));
  s->runner = malloc(T * sizeof(uint32_t));
  s->done = calloc(T, sizeof(bool));
  s->stolen = calloc(W, sizeof(uint32_t));
  s->last = malloc(T * sizeof(uint32_t));
  s->speed = calloc(W, sizeof(double));
  s->hist = calloc(W * SCHED_HIST, sizeof(double));
  s->hist_n = calloc(W, sizeof(uint32_t));
  s->it_cost = calloc(W, sizeof(double));
  s->it_secs = calloc(W, sizeof(double));
  s->it_raw_secs = calloc(W, sizeof(double));
  s->it_samples = calloc(W, sizeof(uint32_t));
  s->it_fast = calloc(W, sizeof(uint32_t));
  s->pspeed = calloc(W, sizeof(double));
  s->order = malloc(T * sizeof(uint32_t));
  s->clock = calloc(W, sizeof *s->clock);
  s->owner = malloc(T * sizeof(uint32_t));
  s->range_lo = calloc(W + 1, sizeof(uint32_t));
  s->range_new = calloc(W + 1, sizeof(uint32_t));
  s->range_fit = calloc(W + 1, sizeof(uint32_t));
  s->range_alive = calloc(W, sizeof(bool));
  if (!s->cost || !s->alive || !s->qbuf || !s->head || !s->tail || !s->qcost || !s->pool || !s->runner || !s->done ||
      !s->stolen || !s->last || !s->speed || !s->hist || !s->hist_n || !s->it_cost || !s->it_secs || !s->it_raw_secs ||
      !s->it_samples || !s->it_fast || !s->pspeed || !s->clock || !s->order || !s->owner || !s->range_lo ||
      !s->range_new || !s->range_fit || !s->range_alive) {
    sched_destroy(s);
    return DSANA_ENOMEM;
  }
  memcpy(s->cost, cost, T * sizeof(double));
  for (size_t w = 0; w < W; w++)
    if (sched_set_threads(s, (uint32_t)w, 1) != 0) {
      sched_destroy(s);
      return DSANA_ENOMEM;
    }
  for (size_t t = 0; t < T; t++) {
    s->runner[t] = SCHED_NONE;
    s->last[t] = SCHED_NONE;
  }
  *out = s;
  return 0;
}

void sched_destroy(struct sched *s) {
  if (s == NULL)
    return;
  free(s->cost);
  free(s->alive);
  free(s->qbuf);
  free(s->head);
  free(s->tail);
  free(s->qcost);
  free(s->pool);
  free(s->runner);
  free(s->done);
  free(s->stolen);
  free(s->last);
  free(s->speed);
  free(s->hist);
  free(s->hist_n);
  free(s->it_cost);
  free(s->it_secs);
  free(s->it_raw_secs);
  free(s->it_samples);
  free(s->it_fast);
  free(s->pspeed);
  free(s->order);
  for (size_t w = 0; s->clock && w < s->n_workers; w++)
    free(s->clock[w].free_at);
  free(s->clock);
  free(s->owner);
  free(s->range_lo);
  free(s->range_new);
  free(s->range_fit);
  free(s->range_alive);
  free(s);
}

void sched_set_contiguous(struct sched *s, bool contiguous) {
  if (s)
    s->contiguous = contiguous;
}

int sched_set_threads(struct sched *s, uint32_t w, uint32_t threads) {
  if (!s || w >= s->n_workers)
    return DSANA_EINVAL;
  threads = threads ? threads : 1;
  struct sched_clock *k = &s->clock[w];
  if (threads != k->cap) {
    double *f = realloc(k->free_at, threads * sizeof(double));
    if (!f)
      return DSANA_ENOMEM; /* the worker keeps its threads as they were */
    k->free_at = f;
    k->cap = threads;
  }
  return 0;
}

static void pool_push(struct sched *s, uint32_t t) {
  s->pool[(s->pool_head + s->pool_len) % s->n_tasks] = t;
  s->pool_len++;
}

static uint32_t pool_pop(struct sched *s) {
  uint32_t t = s->pool[s->pool_head];
  s->pool_head = (s->pool_head + 1) % s->n_tasks;
  s->pool_len--;
  return t;
}

int sched_begin_iter(struct sched *s, const bool *alive) {
  if (s == NULL)
    return DSANA_EINVAL;
  uint32_t n_alive = 0;
  for (uint32_t w = 0; w < s->n_workers; w++)
    n_alive += alive == NULL || alive[w];
  if (n_alive == 0)
    return DSANA_EINVAL;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    sched_speed_commit(s, w); /* last iteration's samples */
    s->it_cost[w] = 0;
    s->it_secs[w] = 0;
    s->it_raw_secs[w] = 0;
    s->it_samples[w] = s->it_fast[w] = 0;
    s->alive[w] = alive == NULL || alive[w];
    s->head[w] = s->tail[w] = 0;
    s->qcost[w] = 0;
    s->stolen[w] = 0;
  }
  for (uint32_t t = 0; t < s->n_tasks; t++) {
    s->runner[t] = SCHED_NONE;
    s->done[t] = false;
  }
  s->pool_head = s->pool_len = 0;
  s->unstarted = s->n_tasks;
  s->in_iter = false;
  int rc = s->ops->assign(s);
  if (rc != 0)
    return rc;
  s->in_iter = true;
  return 0;
}

/* sched_next(), or (may_steal false) sched_next_own(). */
static int next_task(struct sched *s, uint32_t w, bool may_steal, uint32_t *task, bool *stolen) {
  if (s == NULL || task == NULL || stolen == NULL || w >= s->n_workers)
    return DSANA_EINVAL;
  if (!s->in_iter || !s->alive[w] || s->unstarted == 0)
    return DSANA_EAGAIN;
  uint32_t t;
  if (sched_queue_len(s, w) > 0) {
    t = s->qbuf[s->head[w]++];
    s->qcost[w] = s->head[w] == s->tail[w] ? 0 : s->qcost[w] - s->cost[t];
    *stolen = false;
  } else if (may_steal && s->pool_len > 0) {
    t = pool_pop(s); /* orphaned by a dropped worker: not w's own, taken as a steal is */
    *stolen = true;
  } else {
    int rc = may_steal ? s->ops->steal(s, w, &t) : DSANA_EAGAIN;
    if (rc != 0)
      return rc;
    *stolen = true;
  }
  if (*stolen)
    s->stolen[w]++;
  s->runner[t] = w;
  s->unstarted--;
  *task = t;
  return 0;
}

int sched_next(struct sched *s, uint32_t w, uint32_t *task, bool *stolen) {
  return next_task(s, w, true, task, stolen);
}

int sched_next_own(struct sched *s, uint32_t w, uint32_t *task, bool *stolen) {
  return next_task(s, w, false, task, stolen);
}

void sched_report(struct sched *s, uint32_t w, uint32_t task, double seconds) {
  if (s == NULL || w >= s->n_workers || task >= s->n_tasks)
    return;
  /* Only the worker that holds the task may complete it, once: a stale or
   * duplicate report must neither skew the estimate nor mark a re-issued
   * task done. */
  if (!s->in_iter || s->runner[task] != w || s->done[task])
    return;
  s->done[task] = true;
  s->last[task] = w;
  if (!isfinite(seconds) || !(seconds > 0))
    return;
  double c = s->cost[task];
  double rate = c / seconds, prev = s->speed[w];
  s->it_samples[w]++;
  s->it_raw_secs[w] += seconds;
  if (prev > 0) {
    if (rate > prev * SCHED_SAMPLE_CLAMP) {
      rate = prev * SCHED_SAMPLE_CLAMP;
      s->it_fast[w]++;
    }
    if (rate < prev / SCHED_SAMPLE_CLAMP)
      rate = prev / SCHED_SAMPLE_CLAMP;
  }
  s->it_cost[w] += c;
  s->it_secs[w] += c / rate;
}

void sched_drop_worker(struct sched *s, uint32_t w, uint32_t task_lost) {
  if (s == NULL || w >= s->n_workers || !s->in_iter)
    return;
  if (s->alive[w]) {
    s->alive[w] = false;
    for (uint32_t i = s->head[w]; i < s->tail[w]; i++)
      pool_push(s, s->qbuf[i]);
    s->head[w] = s->tail[w];
    s->qcost[w] = 0;
  }
  if (task_lost < s->n_tasks && s->runner[task_lost] == w && !s->done[task_lost]) {
    s->runner[task_lost] = SCHED_NONE;
    s->unstarted++;
    pool_push(s, task_lost);
  }
}

double sched_speed_est(const struct sched *s, uint32_t w) {
  if (s == NULL || w >= s->n_workers)
    return 0;
  return sched_speed_now(s, w);
}

uint32_t sched_stolen(const struct sched *s, uint32_t w) {
  if (s == NULL || w >= s->n_workers)
    return 0;
  return s->stolen[w];
}

uint32_t sched_remaining(const struct sched *s) {
  if (s == NULL || !s->in_iter)
    return 0;
  return s->unstarted;
}

uint32_t sched_queued_tasks(const struct sched *s, uint32_t w, const uint32_t **tasks) {
  *tasks = s->qbuf + s->head[w];
  return s->tail[w] - s->head[w];
}

double sched_queued_cost(const struct sched *s, uint32_t w) {
  if (s == NULL || w >= s->n_workers || !s->in_iter)
    return 0;
  return s->qcost[w];
}

const char *sched_kind_name(enum sched_kind kind) {
  const struct sched_ops *ops = sched_ops_for(kind);
  return ops != NULL ? ops->name : "unknown";
}

int sched_kind_parse(const char *name, enum sched_kind *kind) {
  if (name == NULL || kind == NULL)
    return DSANA_EINVAL;
  if (strcmp(name, sched_static_ops.name) == 0)
    *kind = SCHED_STATIC;
  else if (strcmp(name, sched_dynamic_ops.name) == 0)
    *kind = SCHED_DYNAMIC;
  else
    return DSANA_EINVAL;
  return 0;
}
