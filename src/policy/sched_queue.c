/*
 * sched_queue.c - what the scheduling policies share with the hand-out
 * (sched_internal.h): the speed estimates (the median of the last
 * SCHED_HIST iterations' rates) and predictions (blended with the
 * iteration's own samples by an EWMA of weight SCHED_EWMA_ALPHA), the
 * largest-first order of the
 * tasks, and taking a task off a queue's tail.
 *
 * It sits below both sched.c (which picks a policy's ops) and the
 * policies (sched_static.c, sched_dynamic.c), which call it: so the
 * scheduler and its policies call one way.
 */
#include "policy/sched_internal.h"

#include <string.h>

#include "policy/ewma.h"

#define SCHED_EWMA_ALPHA 0.5

/* The iteration's rate of w (0: no sample), and whether every task of it
 * ran faster than the clamp allows (the worker is fast again). */
static double it_rate(const struct sched *s, uint32_t w, bool *fast_again) {
  *fast_again = s->it_fast[w] > 0 && s->it_fast[w] == s->it_samples[w] && s->it_raw_secs[w] > 0;
  if (!(s->it_secs[w] > 0))
    return 0;
  return *fast_again ? s->it_cost[w] / s->it_raw_secs[w] : s->it_cost[w] / s->it_secs[w];
}

static double median_of(const double *v, uint32_t n) {
  double a[SCHED_HIST];
  memcpy(a, v, n * sizeof *a);
  for (uint32_t i = 1; i < n; i++) /* insertion sort: n <= SCHED_HIST */
    for (uint32_t j = i; j > 0 && a[j] < a[j - 1]; j--) {
      double t = a[j];
      a[j] = a[j - 1];
      a[j - 1] = t;
    }
  return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
}

void sched_speed_commit(struct sched *s, uint32_t w) {
  bool fast_again;
  double r = it_rate(s, w, &fast_again);
  if (!(r > 0))
    return;
  double *h = s->hist + (size_t)w * SCHED_HIST;
  if (fast_again) /* what it did while slow no longer counts */
    s->hist_n[w] = 0;
  if (s->hist_n[w] == SCHED_HIST)
    memmove(h, h + 1, (SCHED_HIST - 1) * sizeof *h);
  else
    s->hist_n[w]++;
  h[s->hist_n[w] - 1] = r;
  s->speed[w] = median_of(h, s->hist_n[w]);
}

double sched_speed_now(const struct sched *s, uint32_t w) {
  bool fast_again;
  double r = it_rate(s, w, &fast_again);
  if (!(r > 0))
    return s->speed[w];
  /* every task of the iteration ran faster than the clamp allows: not
   * noise but a worker that is fast again (it was frozen or a transient
   * straggler): its estimate starts over from what it did now */
  return fast_again ? r : ewma_update(s->speed[w], r, SCHED_EWMA_ALPHA);
}

void sched_speed_predict_all(struct sched *s) {
  double sum = 0;
  uint32_t n = 0;
  for (uint32_t w = 0; w < s->n_workers; w++) {
    s->pspeed[w] = sched_speed_now(s, w);
    if (s->pspeed[w] > 0) {
      sum += s->pspeed[w];
      n++;
    }
  }
  double fallback = n > 0 ? sum / n : 1.0;
  for (uint32_t w = 0; w < s->n_workers; w++)
    if (!(s->pspeed[w] > 0))
      s->pspeed[w] = fallback;
}

/* Does task x come before task y in largest-first order (ties: lower id)? */
static bool cost_before(const double *cost, uint32_t x, uint32_t y) {
  return cost[x] != cost[y] ? cost[x] > cost[y] : x < y;
}

/* Bottom-up merge sort (qsort has no context argument in C11, and the
 * order must be total and deterministic). s->owner is the merge scratch. */
void sched_sort_by_cost_desc(struct sched *s) {
  uint64_t n = s->n_tasks;
  uint32_t *a = s->order, *tmp = s->owner;
  for (uint64_t t = 0; t < n; t++)
    a[t] = (uint32_t)t;
  for (uint64_t width = 1; width < n; width *= 2) {
    for (uint64_t lo = 0; lo < n; lo += 2 * width) {
      uint64_t mid = lo + width < n ? lo + width : n;
      uint64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      uint64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = cost_before(s->cost, a[j], a[i]) ? a[j++] : a[i++];
      while (i < mid)
        tmp[k++] = a[i++];
      while (j < hi)
        tmp[k++] = a[j++];
    }
    memcpy(a, tmp, n * sizeof(uint32_t));
  }
}

uint32_t sched_queue_take_tail(struct sched *s, uint32_t w) {
  uint32_t t = s->qbuf[--s->tail[w]];
  s->qcost[w] = s->head[w] == s->tail[w] ? 0 : s->qcost[w] - s->cost[t];
  return t;
}
