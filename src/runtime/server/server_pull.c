/*
 * server_pull.c - which chunks of a server's shard are final, and
 * answering pulls from them (see server_state.h for the versions).
 *
 * A pull (a key range, or a list of keys) is answered chunk by chunk in
 * the order the chunks became final, each chunk in pieces of at most
 * values_per_msg values that never straddle it. A pull for the iteration
 * after the running one waits for chunks of `next` to become final and gets
 * each as soon as it is, so the transfer of iteration t+1's input overlaps
 * the end of iteration t elsewhere (unless the app has an update() hook,
 * which rewrites values at the commit). Pieces are queued with priority
 * (iteration, chunk, worker): see rt_reply_priority() (rules.h).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/keymask.h"
#include "runtime/core/rules.h"
#include "runtime/server/server_state.h"
#include "runtime/record/trace.h"
#include "util/memory/grow.h"
#include "util/text/log.h"
#include "util/numeric/sorted.h"

void spull_begin(struct server *sv) {
  for (uint32_t s = 0; s < sv->job.n_spaces; s++)
    sv->sp[s].n_final = 0;
}

void spull_chunk_final(struct server *sv, uint32_t s, uint64_t chunk) {
  struct sspace *sp = &sv->sp[s];
  sp->final[1][sp->n_final++] = chunk;
}

void spull_commit(struct server *sv) {
  for (uint32_t s = 0; s < sv->job.n_spaces; s++) {
    uint64_t *tmp = sv->sp[s].final[0];
    sv->sp[s].final[0] = sv->sp[s].final[1];
    sv->sp[s].final[1] = tmp; /* emptied by spull_begin() */
  }
}

static void req_free(struct pull_req *r) { free(r->keys); }

void spull_drop_all(struct server *sv) {
  for (size_t i = 0; i < sv->n_reqs; i++)
    req_free(&sv->reqs[i]);
  sv->n_reqs = 0;
}

void spull_free(struct server *sv) {
  spull_drop_all(sv);
  free(sv->reqs);
}

/* What is wrong with pull h (NULL: nothing). */
static const char *check_pull(const struct server *sv, const struct wire_hdr *h, const void *payload) {
  if (h->table >= sv->job.n_tables)
    return "no such table";
  const struct stable *st = &sv->t[h->table];
  if (h->key_lo < st->lo || h->key_hi > st->hi || h->key_lo >= h->key_hi)
    return "keys not in this shard";
  if ((int64_t)h->iter <= sv->version || (int64_t)h->iter > sv->version + 3)
    return "iteration out of reach";
  if (!(h->flags & WIRE_F_KEYS))
    return h->payload_bytes == 0 ? NULL : "a range pull with a payload";
  if (h->count == 0 || h->payload_bytes != (uint64_t)h->count * 8)
    return "key count does not match the payload";
  const uint64_t *k = payload;
  for (uint32_t i = 0; i < h->count; i++)
    if (k[i] < h->key_lo || k[i] >= h->key_hi || (i && k[i] <= k[i - 1]))
      return "keys not ascending inside the range";
  return NULL;
}

int spull_on_pull(struct server *sv, const struct rt_from *from, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  const char *why = check_pull(sv, h, m->payload);
  if (why) {
    log_warn("dropped PULL from worker %u (table %u, iteration %u, keys [%llu, %llu)): %s", from->index, h->table,
             h->iter, (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
    return 0;
  }
  struct pull_req *reqs = grow_for_one(sv->reqs, &sv->cap_reqs, sv->n_reqs, sizeof *reqs, 16);
  if (!reqs)
    return DSANA_ENOMEM;
  sv->reqs = reqs;
  struct pull_req r = {.peer = from->peer, .hdr = *h};
  r.hdr.sender = from->index;
  if (h->flags & WIRE_F_KEYS) {
    if (!(r.keys = malloc(h->payload_bytes)))
      return DSANA_ENOMEM;
    memcpy(r.keys, m->payload, h->payload_bytes);
  }
  sv->reqs[sv->n_reqs++] = r;
  return 0;
}

/* Which version pull r reads: 0 = cur, 1 = next; -1 = stale (its
 * iteration is over), -2 = not yet. */
static int req_side(const struct server *sv, const struct pull_req *r) {
  int64_t i = r->hdr.iter;
  if (i == sv->version + 1)
    return 0;
  if (i == sv->version + 2)
    return sv->fetch_ahead ? 1 : -2;
  return i <= sv->version ? -1 : -2;
}

static const struct sspace *req_space(const struct server *sv, const struct pull_req *r) {
  return &sv->sp[sv->job.tables[r->hdr.table].space];
}

/* Final chunks of that version so far. */
static uint64_t side_final(const struct server *sv, const struct pull_req *r, int side) {
  const struct sspace *sp = req_space(sv, r);
  return side == 0 ? sp->n_chunks : sp->n_final;
}

/* Keys of r still to send in the chunk at its position: [*lo, *hi). */
static void req_span(const struct server *sv, const struct pull_req *r, int side, uint64_t *lo, uint64_t *hi) {
  const struct sspace *sp = req_space(sv, r);
  uint64_t c = sp->final[side][r->pos], k = sp->chunk_keys;
  uint64_t a = c * k, b = a + k;
  a = a > r->hdr.key_lo ? a : r->hdr.key_lo;
  b = b < r->hdr.key_hi ? b : r->hdr.key_hi;
  *lo = r->at > a ? r->at : a;
  *hi = b;
}

static struct wire_hdr answer_hdr(const struct server *sv, const struct pull_req *r, uint64_t lo, uint64_t hi) {
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, sv->index);
  h.table = r->hdr.table;
  h.iter = r->hdr.iter;
  h.task = r->hdr.task;
  h.key_lo = lo;
  h.key_hi = hi;
  return h;
}

/* The values of the keys of [lo, hi) r wants that are read (sparse: its
 * keys; dense: every read key), packed in key order; owned by the queue. */
static int send_packed(struct server *sv, const struct pull_req *r, const double *src, uint64_t lo, uint64_t hi,
                       uint64_t priority, struct rt_outq *out) {
  uint32_t t = r->hdr.table, w = sv->t[t].width;
  const uint64_t *unread = sv->job.tables[t].unread;
  uint64_t i0 = 0, n = 0;
  if (r->keys) {
    i0 = sorted_lower_bound_u64(r->keys, r->hdr.count, lo);
    n = sorted_lower_bound_u64(r->keys, r->hdr.count, hi) - i0;
  } else {
    n = keymask_count(unread, lo, hi);
  }
  double *vals = malloc(n ? n * w * sizeof *vals : 1), *at = vals;
  if (!vals)
    return DSANA_ENOMEM;
  if (r->keys) {
    for (uint64_t i = i0; i < i0 + n; i++, at += w)
      memcpy(at, src + r->keys[i] * w, w * sizeof *at);
  } else if (w == 1) {
    keymask_pack(unread, src, lo, hi, vals);
  } else {
    for (uint64_t k = lo; k < hi; k++)
      if (keymask_read(unread, k)) {
        memcpy(at, src + k * w, w * sizeof *at);
        at += w;
      }
  }
  struct wire_hdr h = answer_hdr(sv, r, lo, hi);
  h.flags = WIRE_F_PACKED;
  h.count = (uint32_t)n;
  return rt_reply_owned(out, &r->peer, &h, vals, n * w * sizeof *vals, priority);
}

static int send_values(struct server *sv, const struct pull_req *r, int side, uint64_t lo, uint64_t hi,
                       struct rt_outq *out) {
  uint32_t t = r->hdr.table;
  const struct stable *st = &sv->t[t];
  uint32_t b = side == 0 ? st->cur : st->cur ^ 1u;
  const double *src = shard_by_key(sv, t, b);
  uint64_t prio = rt_reply_priority(r->hdr.iter, lo / req_space(sv, r)->chunk_keys, r->hdr.sender);
  uint64_t t0 = rt_now(sv->env);
  int rc = 0;
  bool shared = st->shared && (r->hdr.flags & WIRE_F_SHARE_OK) && !r->keys, zsent = false;
  if (!shared && !r->keys && (r->hdr.flags & WIRE_F_ZSTD))
    rc = szc_send(sv, r, side, lo, hi, prio, out, &zsent);
  if (rc || zsent) {
    ;
  } else if (shared) {
    struct wire_hdr h = answer_hdr(sv, r, lo, hi);
    h.flags = WIRE_F_SHARED;
    h.buffer = b;
    rc = rt_reply(out, &r->peer, &h, NULL, 0, prio);
  } else if (r->keys || sv->job.tables[t].unread) {
    rc = send_packed(sv, r, src, lo, hi, prio, out);
  } else {
    struct wire_hdr h = answer_hdr(sv, r, lo, hi);
    h.count = (uint32_t)(hi - lo);
    rc = rt_reply(out, &r->peer, &h, src + lo * st->width, (hi - lo) * st->width * sizeof(double), prio);
  }
  trace_span(sv->env->trace,
             shared  ? "shared buffer answer"
             : zsent ? "chunk send (compressed)"
                     : "chunk send",
             "transfer", t0, rt_now(sv->env), r->hdr.iter, "chunk", (double)(lo / req_space(sv, r)->chunk_keys));
  return rc;
}

/* Send the next piece of r (its position has a final chunk). */
static int send_piece(struct server *sv, struct pull_req *r, int side, struct rt_outq *out) {
  uint64_t lo, hi;
  req_span(sv, r, side, &lo, &hi);
  int rc = 0;
  if (lo < hi && r->keys &&
      sorted_lower_bound_u64(r->keys, r->hdr.count, lo) == sorted_lower_bound_u64(r->keys, r->hdr.count, hi)) {
    r->at = hi; /* none of its keys in this chunk */
  } else if (lo < hi) {
    uint64_t max = sv->values_per_msg / sv->t[r->hdr.table].width;
    bool shared = sv->t[r->hdr.table].shared && (r->hdr.flags & WIRE_F_SHARE_OK) && !r->keys;
    if (!shared && hi - lo > (max ? max : 1))
      hi = lo + (max ? max : 1);
    rc = send_values(sv, r, side, lo, hi, out);
    r->at = hi;
  }
  uint64_t end_lo, end_hi;
  req_span(sv, r, side, &end_lo, &end_hi);
  if (end_lo >= end_hi) {
    r->pos++;
    r->at = 0;
  }
  return rc;
}

/* A worker gets the running iteration's values before any of the next
 * one's: its mirror may hold a next-iteration piece back until the worker
 * has moved past that chunk, which needs the running iteration's pieces
 * behind it. The slot of r's worker and table in running_seen. */
static uint32_t *running_slot(const struct server *sv, const struct pull_req *r) {
  if (r->hdr.sender >= sv->map->n_workers || r->hdr.table >= DSANA_MAX_TABLES)
    return &sv->running_seen[(size_t)sv->map->n_workers * DSANA_MAX_TABLES]; /* one spare for bad senders */
  return &sv->running_seen[(size_t)r->hdr.sender * DSANA_MAX_TABLES + r->hdr.table];
}

int server_pump(struct server *sv, bool all, struct rt_outq *out, size_t *active) {
  size_t keep = 0;
  *active = 0;
  uint32_t round = ++sv->pump_round ? sv->pump_round : ++sv->pump_round; /* never 0 */
  for (size_t i = 0; i < sv->n_reqs; i++) {
    struct pull_req *r = &sv->reqs[i];
    int side = req_side(sv, r);
    if (side == -1) { /* its iteration is over: nobody can be waiting for it */
      req_free(r);
      continue;
    }
    /* behind an unfinished pull of the running iteration that came first */
    if (side == -2 || (side == 1 && *running_slot(sv, r) == round)) {
      sv->reqs[keep++] = *r;
      continue;
    }
    while (r->pos < side_final(sv, r, side)) {
      int rc = send_piece(sv, r, side, out);
      if (rc)
        return rc;
      if (!all)
        break;
    }
    if (r->pos < req_space(sv, r)->n_chunks) {
      *active += r->pos < side_final(sv, r, side);
      if (side == 0)
        *running_slot(sv, r) = round;
      sv->reqs[keep++] = *r;
    } else {
      req_free(r);
    }
  }
  sv->n_reqs = keep;
  return 0;
}
