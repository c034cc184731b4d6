/*
 * worker_flush.c - sending what tiny tasks left waiting (worker_push.c):
 * their pushes, with runs of ASSIGN ranges of one table to one server
 * merged into one message that ends every task of the run (WIRE_F_TASKS:
 * the payload starts with the count and the ids of the tasks, then each
 * task's values over its range, in that order: the ranges need not touch,
 * as a dynamic plan's tasks of one worker do not), and one TASK_DONE
 * report with every record. Order per server is kept: only consecutive
 * messages to the same server merge.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/rules.h"
#include "runtime/worker/worker_state.h"

/* A single-task dense ASSIGN push that ends its task and carries all it
 * writes on its server (a merged message's values are each task's whole
 * range there): may merge. */
static bool mergeable(const struct worker *w, const struct rt_out *o) {
  const struct wire_hdr *h = &o->hdr;
  struct job_range r;
  if (h->type != WIRE_PUSH || h->flags != WIRE_F_END || h->count == 0 || h->table >= w->job.n_tables ||
      w->job.tables[h->table].rule != DSANA_RULE_ASSIGN || !job_task_writes(&w->job, h->task, h->table, &r))
    return false;
  uint64_t slo, shi;
  shard_range(w->job.tables[h->table].n_keys, w->map->n_servers, o->index, &slo, &shi);
  return h->key_lo == (r.lo > slo ? r.lo : slo) && h->key_hi == (r.hi < shi ? r.hi : shi);
}

/* Entry b of the pending queue may join the run that a begins (b comes
 * next on their link): the same table and iteration. */
static bool joins(const struct rt_out *a, const struct rt_out *b) {
  return b->index == a->index && b->hdr.table == a->hdr.table && b->hdr.iter == a->hdr.iter;
}

/* One message for pending entries v[idx[0..n)] (a run on one link). */
static int merge_run(struct worker *w, struct rt_out *const *run, size_t n, struct rt_outq *out) {
  uint64_t keys = 0, width = w->job.tables[run[0]->hdr.table].width, lo = UINT64_MAX, hi = 0;
  for (size_t i = 0; i < n; i++) {
    keys += run[i]->hdr.count;
    lo = run[i]->hdr.key_lo < lo ? run[i]->hdr.key_lo : lo;
    hi = run[i]->hdr.key_hi > hi ? run[i]->hdr.key_hi : hi;
  }
  size_t bytes = 8 * (1 + n) + keys * width * sizeof(double);
  uint64_t *buf = malloc(bytes);
  if (!buf)
    return DSANA_ENOMEM;
  buf[0] = n;
  double *vals = (double *)(buf + 1 + n);
  for (size_t i = 0; i < n; i++) {
    buf[1 + i] = run[i]->hdr.task;
    if (run[i]->hdr.payload_bytes)
      memcpy(vals, run[i]->payload, run[i]->hdr.payload_bytes);
    vals += run[i]->hdr.count * width;
  }
  struct wire_hdr h = run[0]->hdr;
  h.flags = WIRE_F_END | WIRE_F_TASKS;
  h.key_lo = lo;
  h.key_hi = hi;
  h.count = (uint32_t)keys;
  return rt_send_owned(out, ROLE_SERVER, run[0]->index, &h, buf, bytes, RT_PRIORITY_PUSH);
}

/* Move entry o to out (taking its payload). */
static int move_one(struct rt_out *o, struct rt_outq *out) {
  struct net_release lent = o->lent;
  o->lent.fn = NULL;
  if (lent.fn)
    return rt_send_lent(out, o->role, o->index, &o->hdr, o->payload, o->hdr.payload_bytes, o->priority, lent);
  int rc = o->owned ? rt_send_owned(out, o->role, o->index, &o->hdr, o->owned, o->hdr.payload_bytes, o->priority)
                    : rt_send_priority(out, o->role, o->index, &o->hdr, NULL, 0, o->priority);
  o->owned = NULL;
  return rc;
}

/* The pending pushes, server by server, runs merged. */
int wflush_pushes(struct worker *w, struct rt_outq *out) {
  struct rt_outq *p = &w->pend;
  struct rt_out **run = malloc(sizeof *run * (p->n ? p->n : 1));
  bool *done = calloc(p->n ? p->n : 1, sizeof *done);
  int rc = run && done ? 0 : DSANA_ENOMEM;
  for (size_t i = 0; !rc && i < p->n; i++) {
    if (done[i])
      continue;
    size_t n = 0;
    run[n++] = &p->v[i];
    done[i] = true;
    uint64_t bytes = 16 + p->v[i].hdr.payload_bytes; /* merged: count, ids, values */
    for (size_t j = i + 1; mergeable(w, run[0]) && j < p->n; j++) {
      if (done[j] || p->v[j].index != run[0]->index)
        continue; /* another link */
      bytes += 8 + p->v[j].hdr.payload_bytes;
      if (!mergeable(w, &p->v[j]) || !joins(run[0], &p->v[j]) || bytes > w->map->max_payload)
        break;
      run[n++] = &p->v[j];
      done[j] = true;
    }
    rc = n > 1 ? merge_run(w, run, n, out) : move_one(run[0], out);
  }
  free(run);
  free(done);
  rt_outq_clear(p);
  return rc;
}

int wflush(struct worker *w, struct rt_outq *out) {
  int rc = wflush_pushes(w, out);
  if (rc || !w->done_count)
    return rc;
  uint8_t *buf = malloc(w->done_len);
  if (!buf)
    return DSANA_ENOMEM;
  memcpy(buf, w->done_buf, w->done_len);
  struct wire_hdr h = wire_hdr_make(WIRE_TASK_DONE, w->index);
  h.iter = w->done_iter;
  h.count = w->done_count;
  size_t len = w->done_len;
  w->done_len = 0;
  w->done_count = 0;
  w->last_sent_ns = rt_now(w->env);
  return rt_send_owned(out, ROLE_SCHEDULER, 0, &h, buf, len, RT_PRIORITY_PUSH);
}

void wflush_fini(struct worker *w) {
  rt_outq_fini(&w->pend);
  free(w->done_buf);
  w->done_buf = NULL;
}
