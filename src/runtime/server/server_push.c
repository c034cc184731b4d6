/*
 * server_push.c - a server's side of the tasks' pushes: checking and
 * applying them (ASSIGN: in place; SUM: added exactly, held until the
 * task's end marker when a task sends several messages), counting end
 * markers per segment, running finish() on every segment all of whose
 * writers ended, and reporting the shard once every segment is final.
 *
 * Exactly once: a task that is re-run (its first worker was lost) pushes
 * again; values the first worker sent without an end marker are dropped
 * when the re-run's arrive (a higher hand-out epoch, wire.h), and the lost
 * worker's pushes that come after are dropped. Dropped too: pushes of a
 * task that already ended here, of an iteration already complete, and
 * pushes received twice (a task's pushes of a table to a server come in
 * ascending key ranges: one that starts below the end of those received
 * is a copy). Every such drop is counted (stale_msgs, the summary's
 * stale_messages) and none is applied. ASSIGN values are the same whoever
 * computes them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/role/app_check.h"
#include "runtime/server/server_state.h"
#include "runtime/record/trace.h"
#include "util/memory/grow.h"
#include "util/text/log.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "partial sums travel in the host layout of __int128: add byte swapping for this host"
#endif

static void drop_staged(struct server *sv, uint32_t task) {
  for (struct staged *s = sv->staging[task], *n; s; s = n) {
    n = s->next;
    if (s->kept)
      net_msg_fini(&s->msg);
    else
      free((void *)s->payload);
    free(s);
  }
  sv->staging[task] = NULL;
}

/* Push h from worker `worker` is dropped, never applied: counted. */
static int drop_stale(struct server *sv, uint32_t worker, const struct wire_hdr *h, const char *why) {
  sv->stale_msgs++;
  log_warn("dropped PUSH from worker %u (iteration %u, task %u, table %u, keys [%llu, %llu)): %s", worker, h->iter,
           h->task, h->table, (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
  return 0;
}

void spush_free(struct server *sv) {
  for (uint32_t t = 0; sv->staging && t < sv->job.n_tasks; t++)
    drop_staged(sv, t);
  for (size_t i = 0; i < sv->n_deferred; i++)
    free(sv->deferred[i].payload);
  free(sv->deferred);
}

/* 1 when r is NaN or infinite: its exponent bits all ones (a bit test, not
 * r != r, keeps the loops that use it vectorized). */
static inline uint64_t not_finite_bit(double r) {
  uint64_t b;
  memcpy(&b, &r, sizeof b);
  return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
}

/* Whether v[0..n) are all finite: one branch-free pass (it vectorizes). */
static bool all_finite(const double *v, uint64_t n) {
  uint64_t bad = 0;
  for (uint64_t k = 0; k < n; k++)
    bad |= not_finite_bit(v[k]);
  return !bad;
}

/* The first value of v[lo..hi) that is not finite (hi when none), runs
 * of them checked at once. */
static uint64_t first_not_finite(const double *v, uint64_t lo, uint64_t hi) {
  const uint64_t run = 2048;
  for (; lo < hi; lo += run) {
    if (all_finite(v + lo, hi - lo < run ? hi - lo : run))
      continue;
    while (isfinite(v[lo]))
      lo++;
    return lo;
  }
  return hi;
}

/* Whether finish_piece() looks for values that are not finite in table t:
 * not in a STATE table (never pulled nor pushed: what it feeds leaves
 * through the tables finish() derives from it, which are looked at), nor
 * in an ISUM table whose pushes all added up exactly (its values are
 * their integer sums: only a failed addition, which apply_isum() notes,
 * makes one NaN). A key touches 5 values in the MLP's tables, 1 of them
 * looked at. */
static bool may_be_not_finite(const struct server *sv, uint32_t t) {
  const struct stable *st = &sv->t[t];
  return !st->state && (!st->isum || st->isum_failed);
}

/* Every value of segment [lo, hi) of key space s is finite, or the job
 * stops here with the first that is not: its table, key and iteration (a
 * SUM whose addend could not be summed exactly is NaN, dsana_xsum). */
static int check_finite(const struct server *sv, uint32_t s, uint64_t lo, uint64_t hi, uint32_t iter) {
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    const struct job_table *jt = &sv->job.tables[t];
    if (jt->space != s || !may_be_not_finite(sv, t))
      continue;
    const double *v = shard_by_key(sv, t, shard_next(sv, t));
    uint64_t k = first_not_finite(v, lo * jt->width, hi * jt->width);
    if (k < hi * jt->width) {
      char advice[160];
      log_error("diverged in iteration %u: table '%s' key %llu is %g (%s); %s", iter, jt->name,
                (unsigned long long)(k / jt->width), v[k],
                stable_sums(&sv->t[t]) ? "a sum with an addend that is NaN, infinite or out of range"
                                       : "the app's push or finish made it",
                app_diverge_advice(sv->app, advice, sizeof advice));
      return DSANA_ERANGE;
    }
  }
  return 0;
}

/* ISUM tables' next versions hold their sums so far in keys [ilo, ihi)
 * (apply_isum); the rest is zeroed before anything reads them: before the
 * first finish() of the iteration. */
static void isum_zero_rest(struct server *sv) {
  if (sv->isum_zeroed)
    return;
  sv->isum_zeroed = true;
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    struct stable *st = &sv->t[t];
    if (!st->isum)
      continue;
    double *next = shard_by_key(sv, t, shard_next(sv, t));
    size_t w = st->width;
    if (st->ilo == st->ihi)
      st->ilo = st->ihi = st->lo;
    memset(next + st->lo * w, 0, sizeof(double) * (st->ilo - st->lo) * w);
    memset(next + st->ihi * w, 0, sizeof(double) * (st->hi - st->ihi) * w);
    st->ilo = st->lo, st->ihi = st->hi;
  }
}

/* Run finish() on keys [lo, hi) of key space s; its sums join the shard's. */
static int finish_piece(struct server *sv, uint32_t s, uint64_t lo, uint64_t hi, uint32_t iter) {
  const struct sspace *sp = &sv->sp[s];
  dsana_xsum sums[DSANA_MAX_SUMS] = {{0}};
  struct dsana_shard_ctx ctx = {.iter = iter, .n_keys = sp->n_keys, .lo = lo, .hi = hi, .sums = sums};
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    if (sv->job.tables[t].space != s)
      continue;
    struct stable *st = &sv->t[t];
    double *next = shard_by_key(sv, t, shard_next(sv, t));
    ctx.old_values[t] = shard_by_key(sv, t, st->cur);
    ctx.new_values[t] = next;
    if (st->acc) { /* SUM: the exact totals become the values */
      dsana_xsum *acc = st->acc - st->lo * st->width;
      for (uint64_t k = lo * st->width; k < hi * st->width; k++) {
        next[k] = dsana_xsum_value(&acc[k]);
        acc[k] = (dsana_xsum){0};
      }
    }
  }
  int rc = sv->app->finish ? sv->app->finish(sv->app_state, &ctx) : 0;
  if (rc) {
    log_error("the app's finish hook failed in iteration %u: %s", iter, dsana_strerror(rc));
    return rc;
  }
  if ((rc = check_finite(sv, s, lo, hi, iter)) != 0)
    return rc;
  for (uint32_t k = 0; k < sv->job.n_sums; k++)
    dsana_xsum_merge(&sv->sums[k], &sums[k]);
  return 0;
}

/* finish() over segment g of key space s, piece by piece (the ranges of an
 * iteration partition the shard in any order: the app cannot tell). */
static int finish_segment(struct server *sv, uint32_t s, uint32_t g, uint32_t iter) {
  const struct sspace *sp = &sv->sp[s];
  isum_zero_rest(sv);
  uint64_t lo = sp->seg_lo[g], hi = sp->seg_lo[g + 1];
  uint64_t t0 = rt_now(sv->env);
  uint64_t piece = sv->cfg.hook_piece_keys ? sv->cfg.hook_piece_keys : UINT64_MAX;
  for (uint64_t a = lo; a<hi; a = hi - a> piece ? a + piece : hi) {
    int rc = finish_piece(sv, s, a, hi - a > piece ? a + piece : hi, iter);
    if (rc)
      return rc;
    server_keepalive(sv);
  }
  trace_span(sv->env->trace, "finish", "compute", t0, rt_now(sv->env), iter, "keys", (double)(hi - lo));
  return 0;
}

/* Every segment of iteration iter is final: report the shard's sums. */
static int report(struct server *sv, uint32_t iter, struct rt_outq *out) {
  size_t len = MSG_XSUM_BYTES * (size_t)sv->job.n_sums;
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf)
    return DSANA_ENOMEM;
  msg_sums_encode(sv->sums, sv->job.n_sums, buf);
  struct wire_hdr h = wire_hdr_make(WIRE_SHARD_REPORT, sv->index);
  h.iter = iter;
  sv->completed = true;
  sv->last_sent_ns = rt_now(sv->env);
  return rt_send_owned(out, ROLE_SCHEDULER, 0, &h, buf, len, 0);
}

/* Segment g of space s is final: finish it, maybe its chunk, maybe all. */
static int segment_final(struct server *sv, uint32_t s, uint32_t g, uint32_t iter, struct rt_outq *out) {
  struct sspace *sp = &sv->sp[s];
  int rc = finish_segment(sv, s, g, iter);
  if (rc)
    return rc;
  uint64_t c = sp->seg_lo[g] / sp->chunk_keys;
  if (--sp->chunk_left[c - sp->chunk0] == 0)
    spull_chunk_final(sv, s, c);
  return --sv->segs_left == 0 ? report(sv, iter, out) : 0;
}

int spush_begin(struct server *sv, struct rt_outq *out) {
  sv->completed = false;
  memset(sv->sums, 0, sizeof sv->sums);
  memset(sv->ended, 0, sv->job.n_tasks);
  memset(sv->sender, 0xff, sizeof *sv->sender * sv->job.n_tasks);
  memset(sv->through, 0, sizeof *sv->through * sv->job.n_tasks);
  memset(sv->released, 0, sizeof *sv->released * sv->job.n_tasks);
  memset(sv->epoch, 0, sizeof *sv->epoch * sv->job.n_tasks);
  memset(sv->pushed_hi, 0, sizeof *sv->pushed_hi * sv->job.wr_off[sv->job.n_tasks]);
  for (uint32_t t = 0; t < sv->job.n_tasks; t++)
    drop_staged(sv, t);
  sv->tasks_left = 0;
  for (uint32_t t = 0; t < sv->job.n_tasks; t++)
    sv->tasks_left += sv->tseg_off[t] < sv->tseg_off[t + 1];
  sv->segs_left = 0;
  /* ISUM sums build up in the next version itself: the first push to a key
   * stores, the rest is zeroed before it is read (isum_zero_rest) */
  sv->isum_zeroed = false;
  for (uint32_t t = 0; t < sv->job.n_tables; t++)
    if (sv->t[t].isum) {
      sv->t[t].ilo = sv->t[t].ihi = sv->t[t].lo;
      sv->t[t].isum_failed = false;
    }
  spull_begin(sv);
  for (uint32_t s = 0; s < sv->job.n_spaces; s++) {
    struct sspace *sp = &sv->sp[s];
    memcpy(sp->seg_left, sp->seg_writers, sizeof *sp->seg_left * sp->n_segs);
    memcpy(sp->chunk_left, sp->chunk_segs, sizeof *sp->chunk_left * sp->n_chunks);
    sv->segs_left += sp->n_segs;
  }
  /* segments no task writes are final at once (derived from cur alone) */
  uint32_t iter = (uint32_t)(sv->version + 1);
  for (uint32_t s = 0; s < sv->job.n_spaces; s++)
    for (uint32_t g = 0; g < sv->sp[s].n_segs; g++)
      if (sv->sp[s].seg_writers[g] == 0 && sv->version >= 0) {
        int rc = segment_final(sv, s, g, iter, out);
        if (rc)
          return rc;
      }
  /* a shard with no keys at all (more servers than keys) */
  return sv->segs_left == 0 && !sv->completed && sv->version >= 0 ? report(sv, iter, out) : 0;
}

int spush_all_final(struct server *sv, struct rt_outq *out) {
  for (uint32_t s = 0; s < sv->job.n_spaces; s++)
    for (uint32_t g = 0; g < sv->sp[s].n_segs; g++) {
      int rc = segment_final(sv, s, g, (uint32_t)(sv->version + 1), out);
      if (rc)
        return rc;
    }
  return sv->completed ? 0 : report(sv, (uint32_t)(sv->version + 1), out);
}

/* Task `task` ended here: its segments lose a writer (those it has not
 * sent whole before: see through_final). */
static int task_ended(struct server *sv, uint32_t task, uint32_t iter, struct rt_outq *out) {
  sv->ended[task] = 1;
  sv->end_iter[task] = iter;
  drop_staged(sv, task);
  sv->tasks_left--;
  for (uint32_t i = sv->tseg_off[task]; i < sv->tseg_off[task + 1]; i++) {
    const struct tseg *g = &sv->tseg[i];
    for (uint32_t k = g->s0 + (i == sv->tseg_off[task] ? sv->released[task] : 0); k < g->s1; k++)
      if (--sv->sp[g->space].seg_left[k] == 0) {
        int rc = segment_final(sv, g->space, k, iter, out);
        if (rc)
          return rc;
      }
  }
  return 0;
}

/* Task `task` (one key space here: check_push) sent every value it writes
 * below key hi: the segments it wrote whole lose it as a writer. */
static int through_final(struct server *sv, uint32_t task, uint64_t hi, uint32_t iter, struct rt_outq *out) {
  const struct tseg *g = &sv->tseg[sv->tseg_off[task]];
  struct sspace *sp = &sv->sp[g->space];
  if (hi > sv->through[task])
    sv->through[task] = hi;
  for (uint32_t k = g->s0 + sv->released[task]; k < g->s1 && sp->seg_lo[k + 1] <= sv->through[task]; k++) {
    sv->released[task]++;
    if (--sp->seg_left[k] == 0) {
      int rc = segment_final(sv, g->space, k, iter, out);
      if (rc)
        return rc;
    }
  }
  return 0;
}

/* acc + x for an ISUM table: exact while x is an integer below 2^52 and
 * the sum stays below 2^53 (ulp 1); else NaN, which stays NaN. For t in
 * [0, 2^52), t + 2^52 is rounded to an integer: t again only when t is one. */
static inline double isum_add(double acc, double x) {
  double t = __builtin_fabs(x), s = acc + x;
  /* & not &&: no branch, so the loops below vectorize (a select per lane) */
  bool ok = (t < 0x1p52) & ((t + 0x1p52) - 0x1p52 == t) & (__builtin_fabs(s) < 0x1p53);
  return ok ? s : __builtin_nan("");
}

/* vals[0..n) added into a[0..n) (isum_add); 1 when a result is NaN. A
 * dense push of a large model is most of a server's work (the MLP: 4
 * values a parameter a step): copies for AVX-512 and AVX2 where the CPU has
 * them, the same operations lane by lane, so the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ISUM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ISUM_CLONES /* elsewhere the build's own vectors */
#endif
ISUM_CLONES static uint64_t add_isum_run(double *restrict a, const double *restrict vals, uint64_t n) {
  uint64_t failed = 0;
  for (uint64_t i = 0; i < n; i++) {
    double r = isum_add(a[i], vals[i]);
    failed |= not_finite_bit(r);
    a[i] = r;
  }
  return failed;
}

/* vals[0..n) into a[0..n) as if added into zeros (isum_add(0, x): x
 * itself, or NaN): a key's first push stores, without zeroing first; 1
 * when a result is NaN. */
ISUM_CLONES static uint64_t store_isum_run(double *restrict a, const double *restrict vals, uint64_t n) {
  uint64_t failed = 0;
  for (uint64_t i = 0; i < n; i++) {
    double r = isum_add(0.0, vals[i]);
    failed |= not_finite_bit(r);
    a[i] = r;
  }
  return failed;
}

/* Dense ISUM values for keys [lo, hi) into next (acc, by key): added where
 * an earlier push of the iteration reached (st->ilo, st->ihi), stored
 * elsewhere; keys between the two zeroed, so that [ilo, ihi) stays one
 * range. An MLP server zeroed 1.6 MB a step and added its first push into
 * the zeros. */
static uint64_t apply_isum_dense(struct stable *st, double *acc, uint64_t lo, uint64_t hi, const double *vals) {
  uint64_t w = st->width, failed = 0;
  if (st->ilo == st->ihi)
    st->ilo = st->ihi = lo;
  if (lo > st->ihi)
    memset(acc + st->ihi * w, 0, sizeof(double) * (lo - st->ihi) * w), st->ihi = lo;
  if (hi < st->ilo)
    memset(acc + hi * w, 0, sizeof(double) * (st->ilo - hi) * w), st->ilo = hi;
  uint64_t a = lo > st->ilo ? lo : st->ilo, b = hi < st->ihi ? hi : st->ihi; /* [a, b): added */
  if (lo < a)
    failed |= store_isum_run(acc + lo * w, vals, (a - lo) * w);
  if (a < b)
    failed |= add_isum_run(acc + a * w, vals + (a - lo) * w, (b - a) * w);
  if (b < hi) /* b >= lo: the two ranges touch */
    failed |= store_isum_run(acc + b * w, vals + (b - lo) * w, (hi - b) * w);
  st->ilo = lo < st->ilo ? lo : st->ilo;
  st->ihi = hi > st->ihi ? hi : st->ihi;
  return failed;
}

/* ISUM values added into the next version (acc, by key); a NaN among the
 * results marks the table (isum_failed). Key lists add into a whole next
 * (zeroed past [ilo, ihi) first). */
static void apply_isum(struct server *sv, struct stable *st, double *acc, const struct wire_hdr *h,
                       const uint64_t *keys, const double *vals) {
  uint64_t w = st->width, failed = 0;
  if (!keys) {
    failed = apply_isum_dense(st, acc, h->key_lo, h->key_lo + h->count, vals);
  } else {
    isum_zero_rest(sv);
    for (uint64_t i = 0; i < h->count; i++)
      for (uint64_t j = 0; j < w; j++) {
        double r = isum_add(acc[keys[i] * w + j], vals[i * w + j]);
        failed |= not_finite_bit(r);
        acc[keys[i] * w + j] = r;
      }
  }
  st->isum_failed |= failed != 0;
}

/* Apply checked values: ASSIGN into next, SUM into the accumulators
 * (values added exactly, or partial sums merged), ISUM added into next itself. */
static void apply(struct server *sv, const struct wire_hdr *h, const void *payload) {
  struct stable *st = &sv->t[h->table];
  uint64_t w = st->width;
  const uint64_t *keys = h->flags & WIRE_F_KEYS ? payload : NULL;
  const double *vals = keys ? (const double *)(keys + h->count) : payload;
  if (st->isum) {
    apply_isum(sv, st, shard_by_key(sv, h->table, shard_next(sv, h->table)), h, keys, vals);
    return;
  }
  if (!st->acc) {
    memcpy(shard_by_key(sv, h->table, shard_next(sv, h->table)) + h->key_lo * w, vals,
           (h->key_hi - h->key_lo) * w * sizeof(double));
    return;
  }
  dsana_xsum *acc = st->acc - st->lo * w;
  bool exact = h->flags & WIRE_F_XSUM;
  for (uint64_t i = 0; i < h->count; i++) {
    uint64_t k = keys ? keys[i] : h->key_lo + i;
    for (uint64_t j = 0; j < w; j++) {
      if (!exact) {
        dsana_xsum_add(&acc[k * w + j], vals[i * w + j]);
        continue;
      }
      dsana_xsum part; /* DSANA_XSUM_WORDS little-endian words: the host's layout */
      memcpy(&part, vals + DSANA_XSUM_WORDS * (i * w + j), sizeof part);
      dsana_xsum_merge(&acc[k * w + j], &part);
    }
  }
}

/* Hold a SUM push until the task's end marker: payload (inside m's, when
 * m is given) taken over with m where m holds it, else copied. An MLP
 * step's gradient halves wait so, 1.6 MB a server: copying them was 2 %
 * of the step's CPU. */
static int stage(struct server *sv, const struct wire_hdr *h, const void *payload, struct net_msg *m) {
  struct staged *s = calloc(1, sizeof *s);
  if (!s)
    return DSANA_ENOMEM;
  if (m && h->payload_bytes && net_msg_owns_payload(m)) {
    size_t at = (size_t)((const char *)payload - (const char *)m->payload);
    net_msg_move(&s->msg, m);
    s->kept = true;
    s->payload = (const char *)s->msg.payload + at;
  } else if (h->payload_bytes) {
    void *copy = malloc(h->payload_bytes);
    if (!copy) {
      free(s);
      return DSANA_ENOMEM;
    }
    memcpy(copy, payload, h->payload_bytes);
    s->payload = copy;
  }
  s->hdr = *h;
  struct staged **pp = &sv->staging[h->task];
  while (*pp)
    pp = &(*pp)->next;
  *pp = s;
  return 0;
}

/* Range *r cut to shard table st's keys; false when nothing is left. */
static bool clip_to_shard(const struct stable *st, struct job_range *r) {
  r->lo = r->lo > st->lo ? r->lo : st->lo;
  r->hi = r->hi < st->hi ? r->hi : st->hi;
  return r->lo < r->hi;
}

/* Task t's write range of table `table` in this shard: [r->lo, r->hi);
 * false when it writes none of it here. */
static bool task_range_here(const struct server *sv, uint32_t t, uint32_t table, struct job_range *r) {
  return t < sv->job.n_tasks && job_task_writes(&sv->job, t, table, r) && clip_to_shard(&sv->t[table], r);
}

/* A push ending several tasks (WIRE_F_TASKS, ASSIGN ranges only): every
 * listed task writes the table here, its values are its whole range here,
 * in the order listed, and the ranges lie in the message's. */
static const char *check_tasks(const struct server *sv, const struct wire_hdr *h, const uint64_t *p) {
  const struct stable *st = &sv->t[h->table];
  if (h->payload_bytes < 16 || (h->flags & (WIRE_F_KEYS | WIRE_F_XSUM)) || !(h->flags & WIRE_F_END) || stable_sums(st))
    return "a task list on something other than ASSIGN values that end their tasks";
  uint64_t n = p[0], keys = 0;
  if (n == 0 || n > sv->job.n_tasks || n > (h->payload_bytes - 8) / 8 ||
      h->payload_bytes != 8 * (1 + n) + (uint64_t)h->count * st->width * 8 || h->key_lo < st->lo || h->key_hi > st->hi)
    return "task list and values do not match";
  for (uint64_t i = 0; i < n; i++) {
    struct job_range r;
    if (p[1 + i] >= sv->job.n_tasks || !task_range_here(sv, (uint32_t)p[1 + i], h->table, &r))
      return "a listed task does not write this table here";
    if (r.lo < h->key_lo || r.hi > h->key_hi)
      return "a listed task's range leaves the message's";
    keys += r.hi - r.lo;
  }
  return keys == h->count ? NULL : "the listed tasks' ranges do not add up to the values";
}

/* What is wrong with push h from worker w (NULL: nothing). */
static const char *check_push(const struct server *sv, const struct wire_hdr *h, const void *payload) {
  struct job_range r;
  if (h->task >= sv->job.n_tasks || sv->tseg_off[h->task] == sv->tseg_off[h->task + 1])
    return "the task writes nothing in this shard";
  if (h->table >= sv->job.n_tables || !job_task_writes(&sv->job, h->task, h->table, &r))
    return "the task does not write this table";
  if (h->flags & WIRE_F_TASKS)
    return h->flags & WIRE_F_THROUGH ? "a task list marked through a key" : check_tasks(sv, h, payload);
  const struct stable *st = &sv->t[h->table];
  if ((h->flags & WIRE_F_THROUGH) &&
      ((h->flags & WIRE_F_KEYS) || h->count == 0 || sv->tseg_off[h->task + 1] - sv->tseg_off[h->task] != 1 ||
       sv->tseg[sv->tseg_off[h->task]].space != sv->job.tables[h->table].space))
    return "marked through a key: not dense values of the one key space the task writes here";
  if (h->payload_bytes == 0 && h->count == 0)
    return h->flags & WIRE_F_KEYS ? "an empty key list" : NULL; /* an end marker alone */
  if (!clip_to_shard(st, &r) || h->key_lo < r.lo || h->key_hi > r.hi || h->key_lo >= h->key_hi)
    return "keys outside the task's write range in this shard";
  uint64_t words = h->flags & WIRE_F_XSUM ? DSANA_XSUM_WORDS : 1;
  if ((h->flags & WIRE_F_XSUM) && !st->acc)
    return "partial sums pushed into a table that is not SUM";
  if (!(h->flags & WIRE_F_KEYS))
    return h->count == h->key_hi - h->key_lo && h->payload_bytes == (uint64_t)h->count * st->width * 8 * words
               ? NULL
               : "value count does not match the key range";
  if (!stable_sums(st))
    return "a key list pushed into an ASSIGN table";
  if (h->payload_bytes != (uint64_t)h->count * (st->width * words + 1) * 8 || h->count == 0)
    return "payload does not match the key count";
  const uint64_t *keys = payload;
  for (uint32_t i = 0; i < h->count; i++)
    if (keys[i] < h->key_lo || keys[i] >= h->key_hi || (i && keys[i] <= keys[i - 1]))
      return "keys not ascending inside the range";
  return NULL;
}

/* A push of the iteration after the one this shard just completed can
 * overtake the scheduler's commit (its worker fetched ahead): keep a copy
 * and apply it after the commit. */
static int defer(struct server *sv, const struct rt_from *from, const struct wire_hdr *h, const void *payload) {
  uint64_t bytes = h->payload_bytes, cap = 4096;
  for (uint32_t t = 0; t < sv->job.n_tables; t++)
    cap += 2 * (sv->t[t].hi - sv->t[t].lo) * sv->t[t].width * (sv->t[t].width + 1) * 8;
  if (sv->deferred_bytes + bytes > cap) {
    return drop_stale(sv, h->sender, h, "too many pushes ahead of the commit");
  }
  struct deferred_push *d = grow_for_one(sv->deferred, &sv->cap_deferred, sv->n_deferred, sizeof *d, 16);
  void *copy = malloc(bytes ? bytes : 1);
  if (!d || !copy) {
    free(copy);
    return DSANA_ENOMEM;
  }
  sv->deferred = d;
  if (bytes) /* an end marker alone has no payload (NULL) */
    memcpy(copy, payload, bytes);
  sv->deferred[sv->n_deferred++] = (struct deferred_push){.peer = from->peer, .hdr = *h, .payload = copy};
  sv->deferred_bytes += bytes;
  return 0;
}

/* ASSIGN values ending several tasks: each written over its task's range,
 * then every task ends (a task ended already, re-run elsewhere, pushed the
 * same values). */
static int take_tasks(struct server *sv, uint32_t worker, const struct wire_hdr *h, const uint64_t *p,
                      struct rt_outq *out) {
  bool open = false;
  for (uint64_t i = 0; i < p[0]; i++)
    open |= !sv->ended[p[1 + i]];
  if (!open)
    return drop_stale(sv, worker, h, "every task it ends ended here already");
  const double *vals = (const double *)(p + 1 + p[0]);
  for (uint64_t i = 0; i < p[0]; i++) { /* each task's values over its range here (check_tasks) */
    struct job_range r;
    task_range_here(sv, (uint32_t)p[1 + i], h->table, &r);
    struct wire_hdr v = *h;
    v.flags = WIRE_F_END;
    v.key_lo = r.lo;
    v.key_hi = r.hi;
    v.count = (uint32_t)(r.hi - r.lo);
    apply(sv, &v, vals);
    vals += v.count * sv->t[h->table].width;
  }
  for (uint64_t i = 0; i < p[0]; i++) {
    uint32_t t = (uint32_t)p[1 + i];
    if (sv->ended[t])
      continue;
    drop_staged(sv, t);
    int rc = task_ended(sv, t, h->iter, out);
    if (rc)
      return rc;
  }
  return 0;
}

/* The part of push *h below the key its task had sent whole (a task re-run
 * after its first worker was lost sends those again): left out of *h and
 * *payload. A key list across that key cannot come from the same task
 * (its pushes there were dense): the job stops rather than guess. */
static int skip_through(const struct server *sv, struct wire_hdr *h, const void **payload) {
  uint64_t through = sv->through[h->task];
  if (h->count == 0 || h->key_lo >= through)
    return 0;
  if (h->key_hi <= through) {
    h->count = 0;
    h->payload_bytes = 0;
    return 0;
  }
  if (h->flags & WIRE_F_KEYS) {
    log_error("task %u pushed a key list across key %llu, up to which it had pushed dense values", h->task,
              (unsigned long long)through);
    return DSANA_EPROTO;
  }
  uint64_t skip = through - h->key_lo, per = sv->t[h->table].width * (h->flags & WIRE_F_XSUM ? DSANA_XSUM_WORDS : 1);
  *payload = (const double *)*payload + skip * per;
  h->key_lo = through;
  h->count -= (uint32_t)skip;
  h->payload_bytes -= skip * per * sizeof(double);
  return 0;
}

/* Whether push h of its task is taken from `worker`: yes from the worker
 * its pushes come from; from another one, only with a higher hand-out
 * epoch (the task's re-run after its worker was lost: what that one sent
 * without an end marker is dropped, and the task starts over); else it
 * comes from a worker that was replaced. */
static bool take_sender(struct server *sv, uint32_t worker, const struct wire_hdr *h) {
  uint32_t t = h->task;
  if (sv->sender[t] == worker) {
    sv->epoch[t] = h->chunk > sv->epoch[t] ? h->chunk : sv->epoch[t];
    return true;
  }
  if (sv->sender[t] != UINT32_MAX && h->chunk <= sv->epoch[t])
    return false;
  drop_staged(sv, t);
  for (uint32_t i = sv->job.wr_off[t]; i < sv->job.wr_off[t + 1]; i++)
    sv->pushed_hi[i] = 0;
  sv->sender[t] = worker;
  sv->epoch[t] = h->chunk;
  return true;
}

/* Whether push h carries keys of its (task, table) received before: its
 * pushes come in ascending key ranges. Else they are noted. */
static bool pushed_before(struct server *sv, const struct wire_hdr *h) {
  for (uint32_t i = sv->job.wr_off[h->task]; h->count && i < sv->job.wr_off[h->task + 1]; i++) {
    if (sv->job.wr[i].table != h->table)
      continue;
    if (h->key_lo < sv->pushed_hi[i])
      return true;
    sv->pushed_hi[i] = h->key_hi;
  }
  return false;
}

/* m: the message payload came in, which a staged push may take over
 * (NULL: copy it). */
static int take_push(struct server *sv, uint32_t worker, const struct wire_hdr *h, const void *payload,
                     struct net_msg *m, struct rt_outq *out) {
  const char *why = check_push(sv, h, payload);
  if (why) {
    log_warn("dropped PUSH from worker %u (iteration %u, task %u, table %u): %s", worker, h->iter, h->task, h->table,
             why);
    return 0;
  }
  if (h->flags & WIRE_F_TASKS)
    return take_tasks(sv, worker, h, payload, out);
  if (sv->ended[h->task])
    return drop_stale(sv, worker, h, "its task ended here already");
  if (!take_sender(sv, worker, h))
    return drop_stale(sv, worker, h, "its worker was replaced: another one runs the task now");
  if (pushed_before(sv, h))
    return drop_stale(sv, worker, h, "received twice");
  struct wire_hdr v = *h;
  int rc = skip_through(sv, &v, &payload);
  if (rc)
    return rc;
  bool sum = stable_sums(&sv->t[h->table]), ends = h->flags & (WIRE_F_END | WIRE_F_THROUGH);
  if (sum && !ends) {
    if (v.count && (rc = stage(sv, &v, payload, m)) != 0)
      return rc;
  } else {
    for (const struct staged *s = sv->staging[h->task]; s; s = s->next)
      apply(sv, &s->hdr, s->payload);
    drop_staged(sv, h->task);
    if (v.count)
      apply(sv, &v, payload);
  }
  if (h->flags & WIRE_F_END)
    return task_ended(sv, h->task, h->iter, out);
  return h->flags & WIRE_F_THROUGH ? through_final(sv, h->task, h->key_hi, h->iter, out) : 0;
}

int spush_on_push(struct server *sv, const struct rt_from *from, struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  if ((int64_t)h->iter == sv->version + 2 && sv->completed)
    return defer(sv, from, h, m->payload);
  bool done = (int64_t)h->iter < sv->version + 1 || ((int64_t)h->iter == sv->version + 1 && sv->completed);
  if (done && h->count == 0 && (h->flags & WIRE_F_END) && h->task < sv->job.n_tasks &&
      sv->end_iter[h->task] != h->iter) {
    sv->end_iter[h->task] = h->iter;
    return 0; /* the end marker of a task that sent every chunk through before (its iteration may even be
                 committed: the marker and the commit come by different ways) */
  }
  if ((int64_t)h->iter != sv->version + 1 || sv->completed)
    return drop_stale(sv, from->index, h, sv->completed ? "its iteration is complete here" : "not this iteration");
  uint64_t t0 = rt_now(sv->env);
  int rc = take_push(sv, from->index, h, m->payload, m, out);
  trace_span(sv->env->trace, "push in", "transfer", t0, rt_now(sv->env), h->iter, "task", h->task);
  return rc;
}

int spush_apply_deferred(struct server *sv, struct rt_outq *out) {
  int rc = 0;
  size_t n = sv->n_deferred;
  sv->n_deferred = 0;
  sv->deferred_bytes = 0;
  for (size_t i = 0; i < n; i++) {
    struct deferred_push *d = &sv->deferred[i];
    uint32_t id = 0, worker = UINT32_MAX;
    if (net_peer_id(&d->peer, &id) == 0 && id >> 24 == ROLE_WORKER)
      worker = rt_dial_index(id);
    if (!rc && (int64_t)d->hdr.iter == sv->version + 1 && !sv->completed)
      rc = take_push(sv, worker, &d->hdr, d->payload, NULL, out);
    free(d->payload);
  }
  return rc;
}
