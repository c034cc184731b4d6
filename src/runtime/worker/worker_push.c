/*
 * worker_push.c - what a worker sends when a task instance finished: its
 * pushes, cut at the servers' shard boundaries and the message size, with
 * an end marker on the last message to every server whose shard its write
 * ranges touch (an empty PUSH when it sent that server nothing), and its
 * record for the TASK_DONE report. Tiny tasks' messages wait in the
 * worker's pending queue and leave together (worker_flush.c), the pushes
 * once they hold WPUSH_BATCH_BYTES (rules.h); reports wait until the
 * worker runs low on work.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/rules.h"
#include "runtime/record/trace.h"
#include "runtime/worker/worker_state.h"
#include "util/memory/grow.h"
#include "util/text/log.h"
#include "util/memory/refbuf.h"

static struct wire_hdr push_hdr(const struct worker *w, const struct wtask *wt, uint32_t table) {
  struct wire_hdr h = wire_hdr_make(WIRE_PUSH, w->index);
  h.table = table;
  h.iter = wt->iter;
  h.task = wt->task;
  h.chunk = w->epoch;
  return h;
}

/* An ASSIGN slice below this is copied as it leaves rather than lent:
 * cheaper than a new buffer for the next instance of the task (measured
 * on 2 KB slices with ZeroMQ). */
#define PUSH_LEND_MIN_BYTES 65536

/* One message of a dense push: keys [lo, hi) of table t to server s, with
 * `flags` added. The values are lent from the instance's own buffer
 * (each message holds it and carries its slice without a copy where the
 * transport can: in one process the server reads them where the task
 * wrote them; the next instance of the task gets a new buffer while a
 * message still holds this one), small ASSIGN slices excepted. */
static int push_piece(struct worker *w, const struct wtask *wt, uint32_t t, uint32_t s, uint64_t lo, uint64_t hi,
                      uint32_t flags, struct rt_outq *out) {
  const struct wpush *p = &wt->push[t];
  uint32_t words = p->xbuf ? DSANA_XSUM_WORDS : 1;
  const double *vals = p->xbuf ? (const double *)(const void *)p->xbuf : p->buf;
  uint64_t per = w->job.tables[t].width * words;
  struct wire_hdr h = push_hdr(w, wt, t);
  h.flags = flags | (words == DSANA_XSUM_WORDS ? WIRE_F_XSUM : 0);
  h.key_lo = lo;
  h.key_hi = hi;
  h.count = (uint32_t)(hi - lo);
  const double *slice = vals + lo * per;
  size_t bytes = (hi - lo) * per * sizeof(double);
  bool small = w->job.tables[t].rule == DSANA_RULE_ASSIGN && bytes < PUSH_LEND_MIN_BYTES;
  struct refbuf *lend = small ? NULL : p->mem;
  if (!lend)
    return rt_send_priority(out, ROLE_SERVER, s, &h, slice, bytes, RT_PRIORITY_PUSH);
  refbuf_hold(lend);
  return rt_send_lent(out, ROLE_SERVER, s, &h, slice, bytes, RT_PRIORITY_PUSH, (struct net_release){refbuf_drop, lend});
}

/* Keys of table t one message may carry. */
static uint64_t piece_keys(const struct worker *w, const struct wtask *wt, uint32_t t) {
  uint64_t per = w->job.tables[t].width * (wt->push[t].xbuf ? DSANA_XSUM_WORDS : 1);
  return w->values_per_msg / per ? w->values_per_msg / per : 1;
}

/* A dense push of keys [lo, hi) of table t, cut at the servers' shard
 * boundaries and the message size. */
static int push_dense(struct worker *w, const struct wtask *wt, uint32_t t, uint64_t lo, uint64_t hi,
                      struct rt_outq *out) {
  uint64_t n_keys = w->job.tables[t].n_keys, max_keys = piece_keys(w, wt, t);
  for (uint64_t at = lo; at < hi;) {
    uint32_t s = shard_of(n_keys, w->map->n_servers, at);
    uint64_t slo, shi;
    shard_range(n_keys, w->map->n_servers, s, &slo, &shi);
    uint64_t end = hi < shi ? hi : shi;
    end = end - at > max_keys ? at + max_keys : end;
    int rc = push_piece(w, wt, t, s, at, end, 0, out);
    if (rc)
      return rc;
    at = end;
  }
  return 0;
}

uint64_t wpush_chunk(const struct worker *w, const struct wtask *wt, bool waits) {
  const struct dsana_job *job = &w->job;
  uint32_t a = job->wr_off[wt->task], b = job->wr_off[wt->task + 1];
  if (a == b)
    return 0;
  const struct job_range *r0 = &job->wr[a];
  uint32_t space = job->tables[r0->table].space;
  for (uint32_t i = a; i < b; i++) {
    const struct job_range *r = &job->wr[i];
    const struct wpush *p = &wt->push[r->table];
    if (!p->used || p->keys || job->tables[r->table].space != space || r->lo != r0->lo || r->hi != r0->hi ||
        (waits && job->tables[r->table].rule == DSANA_RULE_ASSIGN))
      return 0;
  }
  uint64_t c = w->map->chunk_keys[space];
  return c && c < job->tables[r0->table].n_keys ? c : 0;
}

/* The end of the keys of server s's shard that the instance writes (its
 * first range's: wpush_chunk() makes them all alike); wt->sent[s] is moved
 * up to their start, so [wt->sent[s], end) is what is left to send. */
static uint64_t shard_end(const struct worker *w, struct wtask *wt, uint32_t s) {
  const struct job_range *r0 = &w->job.wr[w->job.wr_off[wt->task]];
  uint64_t slo, shi;
  shard_range(w->job.tables[r0->table].n_keys, w->map->n_servers, s, &slo, &shi);
  uint64_t lo = r0->lo > slo ? r0->lo : slo;
  if (wt->sent[s] < lo)
    wt->sent[s] = lo;
  return r0->hi < shi ? r0->hi : shi;
}

/* The task's pushes chunk by chunk (wpush_chunk), of keys [wt->sent[s],
 * to[s]) to each server s: every table's piece of a chunk, the last marked
 * WIRE_F_THROUGH (the server may finish those keys before the task's last
 * message), the servers' pieces taking turns so that all shards become
 * final together as the link carries them. */
static int push_rounds(struct worker *w, struct wtask *wt, uint64_t chunk, const uint64_t *to, struct rt_outq *out) {
  const struct dsana_job *job = &w->job;
  uint32_t a = job->wr_off[wt->task], b = job->wr_off[wt->task + 1], n_srv = w->map->n_servers;
  uint64_t max_keys = UINT64_MAX;
  for (uint32_t i = a; i < b; i++) {
    uint64_t m = piece_keys(w, wt, job->wr[i].table);
    max_keys = m < max_keys ? m : max_keys;
  }
  int rc = 0;
  for (bool more = true; more && !rc;) {
    more = false;
    for (uint32_t s = 0; s < n_srv && !rc; s++) {
      uint64_t at = wt->sent[s];
      if (at >= to[s])
        continue;
      uint64_t end = (at / chunk + 1) * chunk;
      end = end < to[s] ? end : to[s];
      end = end - at > max_keys ? at + max_keys : end;
      for (uint32_t i = a; i < b && !rc; i++)
        rc = push_piece(w, wt, job->wr[i].table, s, at, end, i + 1 == b ? WIRE_F_THROUGH : 0, out);
      wt->sent[s] = end;
      more = true;
    }
  }
  return rc;
}

/* The bytes of out's messages from `first` on: this worker's traffic. */
static void count_out(struct worker *w, const struct rt_outq *out, size_t first) {
  for (size_t i = first; i < out->n; i++)
    w->bytes_out += WIRE_HDR_BYTES + out->v[i].hdr.payload_bytes;
}

/* The end of the run of ranges[0, n) that covers key x onwards (x when
 * none covers it). */
static uint64_t covered_from(const struct wready *r, uint64_t n, uint64_t x) {
  for (bool grew = true; grew;) {
    grew = false;
    for (uint64_t i = 0; i < n; i++)
      if (r[i].lo <= x && x < r[i].hi) {
        x = r[i].hi;
        grew = true;
      }
  }
  return x;
}

/* What running instance wt said is final (its published ranges): to each
 * server, its keys from the shard's start up to the first one not said, in
 * whole chunks (or to the shard's end). */
static int push_ready_part(struct worker *w, struct wtask *wt, struct rt_outq *out) {
  uint64_t n = atomic_load_explicit(&wt->ready_pub, memory_order_acquire); /* its push buffers are set up */
  uint64_t chunk = n ? wpush_chunk(w, wt, false) : 0, *to = w->push_to;
  if (!chunk)
    return 0;
  bool any = false;
  for (uint32_t s = 0; s < w->map->n_servers; s++) {
    uint64_t hi = shard_end(w, wt, s), x = covered_from(wt->ready, n, wt->sent[s]);
    to[s] = x >= hi ? hi : x / chunk * chunk;
    to[s] = to[s] > wt->sent[s] ? to[s] : wt->sent[s];
    any |= to[s] > wt->sent[s];
  }
  if (!any)
    return 0;
  size_t first = out->n;
  int rc = push_rounds(w, wt, chunk, to, out);
  count_out(w, out, first);
  return rc;
}

int wpush_progress(struct worker *w, struct rt_outq *out) {
  int rc = 0;
  for (uint32_t i = 0; !rc && i < w->n_held; i++) {
    struct wtask *wt = &w->slots[w->order[i]];
    if (wt->running && !wt->provisional)
      rc = push_ready_part(w, wt, out);
  }
  return rc;
}

/* A sparse push: keys[0..n) with values vals (n * width values of `words`
 * doubles), as messages of [count keys][their values]. */
static int push_sparse(struct worker *w, const struct wtask *wt, uint32_t t, const uint64_t *keys, const double *vals,
                       uint32_t words, uint64_t n, struct rt_outq *out) {
  const struct job_table *jt = &w->job.tables[t];
  uint64_t per = jt->width * words, max_keys = w->values_per_msg / (per + 1) ? w->values_per_msg / (per + 1) : 1;
  for (uint64_t i = 0; i < n;) {
    uint32_t s = shard_of(jt->n_keys, w->map->n_servers, keys[i]);
    uint64_t slo, shi, j = i;
    shard_range(jt->n_keys, w->map->n_servers, s, &slo, &shi);
    while (j < n && keys[j] < shi && j - i < max_keys)
      j++;
    uint64_t cnt = j - i, bytes = cnt * (1 + per) * sizeof(double);
    uint64_t *buf = malloc(bytes);
    if (!buf)
      return DSANA_ENOMEM;
    memcpy(buf, keys + i, cnt * sizeof *buf);
    memcpy(buf + cnt, vals + i * per, cnt * per * sizeof(double));
    struct wire_hdr h = push_hdr(w, wt, t);
    h.flags = WIRE_F_KEYS | (words == DSANA_XSUM_WORDS ? WIRE_F_XSUM : 0);
    h.key_lo = keys[i];
    h.key_hi = keys[j - 1] + 1;
    h.count = (uint32_t)cnt;
    int rc = rt_send_owned(out, ROLE_SERVER, s, &h, buf, bytes, RT_PRIORITY_PUSH);
    if (rc)
      return rc;
    i = j;
  }
  return 0;
}

/* Mark the servers whose shard range r of its table touches. */
static void touch(const struct worker *w, const struct job_range *r, uint8_t *touched) {
  if (r->lo >= r->hi)
    return;
  uint64_t n = w->job.tables[r->table].n_keys;
  uint32_t a = shard_of(n, w->map->n_servers, r->lo), b = shard_of(n, w->map->n_servers, r->hi - 1);
  for (uint32_t s = a; s <= b; s++)
    touched[s] = 1;
}

/* The end markers: END on the last message to each touched server, or an
 * empty PUSH to one that got nothing. */
static int mark_ends(struct worker *w, const struct wtask *wt, const uint8_t *touched, size_t first,
                     struct rt_outq *out) {
  uint32_t table = w->job.wr[w->job.wr_off[wt->task]].table;
  for (uint32_t s = 0; s < w->map->n_servers; s++) {
    if (!touched[s])
      continue;
    size_t last = out->n;
    for (size_t i = first; i < out->n; i++)
      if (out->v[i].role == ROLE_SERVER && out->v[i].index == s && out->v[i].hdr.type == WIRE_PUSH)
        last = i;
    if (last < out->n) {
      out->v[last].hdr.flags |= WIRE_F_END;
      continue;
    }
    struct wire_hdr h = push_hdr(w, wt, table);
    h.flags = WIRE_F_END;
    int rc = rt_send_priority(out, ROLE_SERVER, s, &h, NULL, 0, RT_PRIORITY_PUSH); /* behind what it ends */
    if (rc)
      return rc;
  }
  return 0;
}

/* The keys of a finished instance not sent while it ran, chunk by chunk. */
static int push_rest(struct worker *w, struct wtask *wt, uint64_t chunk, struct rt_outq *out) {
  for (uint32_t s = 0; s < w->map->n_servers; s++)
    w->push_to[s] = shard_end(w, wt, s);
  return push_rounds(w, wt, chunk, w->push_to, out);
}

/* The pushes of a finished instance, into q. */
static int build_pushes(struct worker *w, struct wtask *wt, bool waits, struct rt_outq *out) {
  const struct dsana_job *job = &w->job;
  size_t first = out->n;
  uint64_t t0 = rt_now(w->env), chunk = wpush_chunk(w, wt, waits);
  uint8_t *touched = calloc(w->map->n_servers, 1);
  if (!touched)
    return DSANA_ENOMEM;
  int rc = 0;
  for (uint32_t i = job->wr_off[wt->task]; !rc && i < job->wr_off[wt->task + 1]; i++) {
    const struct job_range *r = &job->wr[i];
    const struct wpush *p = &wt->push[r->table];
    touch(w, r, touched);
    if (!p->used && job->tables[r->table].rule == DSANA_RULE_ASSIGN && r->lo < r->hi) {
      log_error("task %u did not push its keys [%llu, %llu) of ASSIGN table '%s'", wt->task, (unsigned long long)r->lo,
                (unsigned long long)r->hi, job->tables[r->table].name);
      rc = DSANA_EINVAL;
    } else if (p->used && !chunk) {
      const double *vals = p->xbuf ? (const double *)(const void *)p->xbuf : p->buf;
      rc = p->keys ? push_sparse(w, wt, r->table, p->keys, vals, p->xbuf ? DSANA_XSUM_WORDS : 1, p->n, out)
                   : push_dense(w, wt, r->table, r->lo, r->hi, out);
    }
  }
  if (!rc && chunk)
    rc = push_rest(w, wt, chunk, out);
  if (!rc && job->wr_off[wt->task] < job->wr_off[wt->task + 1])
    rc = mark_ends(w, wt, touched, first, out);
  free(touched);
  count_out(w, out, first);
  trace_span(w->env->trace, "push", "transfer", t0, rt_now(w->env), wt->iter, "task", wt->task);
  return rc;
}

/* Entries [first, q->n) keep their payloads past this event: copy any
 * borrowed one (pushes lend theirs; this keeps the queue safe for any
 * other payload a caller borrowed). */
static int own_payloads(struct rt_outq *q, size_t first) {
  for (size_t i = first; i < q->n; i++) {
    struct rt_out *o = &q->v[i];
    if (o->owned || o->lent.fn || !o->hdr.payload_bytes)
      continue; /* a lent payload is held until the message is done */
    if (!(o->owned = malloc(o->hdr.payload_bytes)))
      return DSANA_ENOMEM;
    memcpy(o->owned, o->payload, o->hdr.payload_bytes);
    o->payload = o->owned;
  }
  return 0;
}

/* The TASK_DONE record of a finished instance, into the pending report. */
static int add_record(struct worker *w, struct wtask *wt) {
  uint64_t now = rt_now(w->env);
  struct msg_task_done d = {
      .task = wt->task,
      .compute_ns = wt->compute_ns,
      .setup_ns = wt->setup_ns,
      .idle_ns = w->last_task_end_ns && wt->start_ns > w->last_task_end_ns ? wt->start_ns - w->last_task_end_ns : 0,
      .bytes_in = w->mirror.bytes_in - w->mirror.ahead_in - w->bytes_in_mark,
      .bytes_in_raw = w->mirror.bytes_in_raw - w->mirror.ahead_raw - w->bytes_in_raw_mark,
      .bytes_out = w->bytes_out - w->bytes_out_mark,
      .overlap_ns = wt->overlap_ns,
      .overrun_ns = wt->overrun_ns};
  memcpy(d.sums, wt->sums, w->job.n_sums * sizeof *d.sums);
  w->bytes_in_mark = w->mirror.bytes_in - w->mirror.ahead_in; /* the next iteration's count when it starts */
  w->bytes_in_raw_mark = w->mirror.bytes_in_raw - w->mirror.ahead_raw;
  w->bytes_out_mark = w->bytes_out;
  w->last_task_end_ns = now;
  size_t len = msg_task_done_bytes(w->job.n_sums);
  uint8_t *rec = grow_for_one(w->done_buf, &w->done_cap, w->done_len + len, 1, 4096);
  if (!rec)
    return DSANA_ENOMEM;
  w->done_buf = rec;
  msg_task_done_encode(&d, w->job.n_sums, w->done_buf + w->done_len);
  w->done_len += len;
  w->done_count++;
  w->done_iter = wt->iter;
  return 0;
}

/* The values (bytes) of the pushes that wait in q. */
static uint64_t pend_bytes(const struct rt_outq *q) {
  uint64_t b = 0;
  for (size_t i = 0; i < q->n; i++)
    b += q->v[i].hdr.payload_bytes;
  return b;
}

int wpush_finished(struct worker *w, struct wtask *wt, bool more_ahead, struct rt_outq *out) {
  /* a run of tiny tasks waits and leaves together (one iteration at a time) */
  if (w->done_count && w->done_iter != wt->iter) {
    int rc = wflush(w, out);
    if (rc)
      return rc;
  }
  bool defer = wt->compute_ns < WPUSH_BATCH_NS && w->done_count + 1 < WPUSH_BATCH_TASKS;
  struct rt_outq *q = defer ? &w->pend : out;
  size_t first = q->n;
  int rc = build_pushes(w, wt, defer, q);
  if (!rc && defer)
    rc = own_payloads(q, first);
  if (!rc)
    rc = add_record(w, wt);
  if (!rc && defer && pend_bytes(&w->pend) >= WPUSH_BATCH_BYTES)
    return wflush_pushes(w, out);
  if (rc || defer)
    return rc;
  /* The scheduler needs reports to hand out more work, not to count each
   * task: a longer task's pushes leave at once, its report waits with the
   * others until the worker runs its last held task (the scheduler then
   * hands out more while that one runs) or idles (wtasks_next). */
  bool report = !more_ahead || w->done_count >= WPUSH_BATCH_TASKS;
  return report ? wflush(w, out) : wflush_pushes(w, out);
}
