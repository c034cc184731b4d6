/*
 * sched_cost.c - the scheduler's CPU a task, which the simulator charges
 * as sched_handout_s (a task handed out) and sched_record_s (a task's
 * record taken): the policy's calls and the bookkeeping around them
 * (scheduler_iter.c's hand_out_one and take_done), timed in a loop over
 * whole iterations, without the messages (sched_msg_s has those).
 *
 *   sched_cost [WORKERS TASKS SUMS THREADS]   (default 64 4096 2 1)
 *
 * Prints one line per figure, "name seconds", for bench/sim_calibrate.sh;
 * with THREADS > 1 (every worker's compute threads) also
 * sched_plan_task_s, an iteration's plan over its tasks (the list
 * schedules of sched_dynamic.c).
 * The dynamic policy with contiguous ranges (PageRank's), speeds 1, 1,
 * 0.5, 0.25 repeated; each worker is handed its own queue first (as at
 * an iteration's start), then what stealing gives.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dsana/xsum.h"
#include "policy/sched.h"
#include "runtime/msg/msg.h"

#define ITERS 40

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t arg(int argc, char **argv, int i, uint32_t dflt) {
  if (argc <= i)
    return dflt;
  char *end;
  unsigned long v = strtoul(argv[i], &end, 10);
  if (*end || end == argv[i] || v > 1u << 24 || (v == 0 && i != 3)) {
    fprintf(stderr, "sched_cost: argument %d: '%s' is not an integer in %d..2^24\n", i, argv[i], i != 3);
    exit(2);
  }
  return (uint32_t)v;
}

struct run {
  uint32_t n_workers, n_tasks, n_sums, threads;
  double *cost;
  uint32_t *task, *owner, *outstanding; /* what was handed out, to whom; held a worker */
  uint8_t *recs;                        /* each task's TASK_DONE record, encoded */
  size_t rec_bytes;
  struct msg_task_done *rec; /* decoded into */
  dsana_xsum *acc;           /* the iteration's sums */
};

/* Hand out every task, round robin: each worker's own queue, then steals. */
static uint32_t hand_out_all(struct sched *s, struct run *r) {
  uint32_t n = 0, got;
  bool stolen;
  for (int steal = 0; steal < 2; steal++)
    for (bool more = true; more;) {
      more = false;
      for (uint32_t w = 0; w < r->n_workers; w++)
        if ((steal ? sched_next : sched_next_own)(s, w, &got, &stolen) == 0) {
          r->task[n++] = got;
          r->owner[got] = w;
          r->outstanding[w]++;
          more = true;
        }
    }
  return n;
}

/* Take n records: decoded, their sums merged, the policy told, counted. */
static void take_records(struct sched *s, struct run *r, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    uint32_t t = r->task[k], w = r->owner[t];
    msg_task_done_decode(r->recs + (size_t)t * r->rec_bytes, r->n_sums, r->rec);
    for (uint32_t j = 0; j < r->n_sums; j++)
      dsana_xsum_merge(&r->acc[j], &r->rec->sums[j]);
    double slow = (w % 4 == 3) ? 4 : (w % 4 == 2) ? 2 : 1; /* seconds over the threads, as the runtime's */
    sched_report(s, w, r->rec->task, (double)r->rec->compute_ns * 1e-9 * slow / r->threads);
    if (r->outstanding[w] > 0)
      r->outstanding[w]--;
  }
}

/* Every task's record as a worker would send it. */
static void encode_records(struct run *r) {
  for (uint32_t t = 0; t < r->n_tasks; t++) {
    *r->rec = (struct msg_task_done){.task = t, .compute_ns = (uint64_t)r->cost[t], .bytes_in = 4096};
    for (uint32_t j = 0; j < r->n_sums; j++)
      dsana_xsum_add(&r->rec->sums[j], 1e-3 * r->cost[t] + j);
    msg_task_done_encode(r->rec, r->n_sums, r->recs + (size_t)t * r->rec_bytes);
  }
}

int main(int argc, char **argv) {
  struct run r = {.n_workers = arg(argc, argv, 1, 64), .n_tasks = arg(argc, argv, 2, 4096)};
  r.n_sums = arg(argc, argv, 3, 2);
  r.threads = arg(argc, argv, 4, 1);
  if (r.n_sums > DSANA_MAX_SUMS)
    return fprintf(stderr, "sched_cost: at most %d sums\n", DSANA_MAX_SUMS), 2;
  r.rec_bytes = msg_task_done_bytes(r.n_sums);
  r.cost = malloc(sizeof *r.cost * r.n_tasks);
  r.task = malloc(sizeof *r.task * r.n_tasks);
  r.owner = malloc(sizeof *r.owner * r.n_tasks);
  r.outstanding = calloc(r.n_workers, sizeof *r.outstanding);
  r.recs = malloc(r.rec_bytes * r.n_tasks);
  r.rec = malloc(sizeof *r.rec);
  r.acc = calloc(r.n_sums ? r.n_sums : 1, sizeof *r.acc);
  struct sched *s = NULL;
  if (!r.cost || !r.task || !r.owner || !r.outstanding || !r.recs || !r.rec || !r.acc)
    return fprintf(stderr, "sched_cost: out of memory\n"), 1;
  for (uint32_t t = 0; t < r.n_tasks; t++)
    r.cost[t] = 1e5 + (double)(t * 7919u % 1000u) * 100;
  encode_records(&r);
  if (sched_create(SCHED_DYNAMIC, r.n_workers, r.cost, r.n_tasks, &s) != 0)
    return fprintf(stderr, "sched_cost: sched_create failed\n"), 1;
  sched_set_contiguous(s, true);
  for (uint32_t w = 0; w < r.n_workers; w++)
    if (sched_set_threads(s, w, r.threads) != 0)
      return fprintf(stderr, "sched_cost: out of memory for the threads\n"), 1;
  double handout = 0, record = 0, begin = 0;
  for (int it = 0; it < ITERS; it++) {
    double a = now_s();
    if (sched_begin_iter(s, NULL) != 0)
      return fprintf(stderr, "sched_cost: sched_begin_iter failed\n"), 1;
    double b = now_s();
    uint32_t n = hand_out_all(s, &r);
    double c = now_s();
    take_records(s, &r, n);
    double d = now_s();
    if (n != r.n_tasks)
      return fprintf(stderr, "sched_cost: %u of %u tasks handed out\n", n, r.n_tasks), 1;
    begin += b - a;
    handout += c - b;
    record += d - c;
  }
  printf("sched_handout_s %.3e\nsched_record_s %.3e\nsched_begin_s %.3e\n", handout / ITERS / r.n_tasks,
         record / ITERS / r.n_tasks, begin / ITERS);
  if (r.threads > 1)
    printf("sched_plan_task_s %.3e\n", begin / ITERS / r.n_tasks);
  sched_destroy(s);
  free(r.cost);
  free(r.task);
  free(r.owner);
  free(r.outstanding);
  free(r.recs);
  free(r.rec);
  free(r.acc);
  return 0;
}
