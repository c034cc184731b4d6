/*
 * server_pull.c - which chunks of a server's shard are final, and answering
 * pulls from them (see server.h for the versions).
 *
 * A pull is answered chunk by chunk in the order the chunks became final,
 * each chunk in pieces of at most max_keys_per_msg keys that never straddle
 * it. A pull for the iteration after the running one waits for chunks of
 * `next` to become final and gets each as soon as it is, so the transfer of
 * iteration t+1's input overlaps the end of iteration t elsewhere. Pieces
 * are queued with priority (iteration, chunk, worker): see reply_priority().
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/keymask.h"
#include "runtime/server.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/grow.h"
#include "util/log.h"

int spull_alloc(struct server *sv) {
  uint64_t k = sv->chunk_keys;
  sv->chunk0 = sv->lo / k;
  sv->n_chunks = sv->hi > sv->lo ? (sv->hi - 1) / k - sv->chunk0 + 1 : 0;
  size_t n = sv->n_chunks ? sv->n_chunks : 1;
  sv->chunk_left = calloc(n, sizeof *sv->chunk_left);
  sv->final[0] = malloc(n * sizeof *sv->final[0]);
  sv->final[1] = malloc(n * sizeof *sv->final[1]);
  sv->running_seen = calloc((size_t)sv->node.cfg.n_workers * DSANA_MAX_TABLES + 1, sizeof *sv->running_seen);
  if (!sv->chunk_left || !sv->final[0] || !sv->final[1] || !sv->running_seen)
    return DSANA_ENOMEM;
  for (uint64_t i = 0; i < sv->n_chunks; i++)
    sv->final[0][i] = sv->chunk0 + i; /* cur as resumed from a checkpoint */
  return 0;
}

void spull_free(struct server *sv) {
  free(sv->chunk_left);
  free(sv->final[0]);
  free(sv->final[1]);
  free(sv->running_seen);
  free(sv->reqs);
}

void spull_begin(struct server *sv) {
  sv->n_final = 0;
  memset(sv->chunk_left, 0, sizeof *sv->chunk_left * (sv->n_chunks ? sv->n_chunks : 1));
  for (uint32_t i = sv->task_lo; i < sv->task_hi; i++) {
    uint64_t lo, hi;
    if (server_task_part(sv, i, &lo, &hi))
      for (uint64_t c = lo / sv->chunk_keys; c <= (hi - 1) / sv->chunk_keys; c++)
        sv->chunk_left[c - sv->chunk0]++;
  }
}

void spull_part_final(struct server *sv, uint64_t lo, uint64_t hi) {
  if (lo >= hi)
    return;
  for (uint64_t c = lo / sv->chunk_keys; c <= (hi - 1) / sv->chunk_keys; c++)
    if (--sv->chunk_left[c - sv->chunk0] == 0)
      sv->final[1][sv->n_final++] = c;
}

void spull_all_final(struct server *sv) {
  for (uint64_t i = 0; i < sv->n_chunks; i++)
    sv->final[1][i] = sv->chunk0 + i;
  sv->n_final = sv->n_chunks;
}

void spull_commit(struct server *sv) {
  uint64_t *tmp = sv->final[0];
  sv->final[0] = sv->final[1];
  sv->final[1] = tmp; /* emptied by spull_begin() */
}

void spull_drop_all(struct server *sv) { sv->n_reqs = 0; }

int spull_on_pull(struct server *sv, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  if (h->table >= sv->node.job.n_tables || h->key_lo < sv->lo || h->key_hi > sv->hi || h->key_lo >= h->key_hi) {
    log_warn("dropped PULL from worker %u: table %u keys [%llu, %llu) not in this shard", h->sender, h->table,
             (unsigned long long)h->key_lo, (unsigned long long)h->key_hi);
    return 0;
  }
  /* version+3: fetched ahead, overtaking the scheduler's commit of version+1 */
  if ((int64_t)h->iter <= sv->version || (int64_t)h->iter > sv->version + 3) {
    log_warn("dropped PULL from worker %u for iteration %u: server is at version %lld", h->sender, h->iter,
             (long long)sv->version);
    return 0;
  }
  struct pull_req *reqs = grow_for_one(sv->reqs, &sv->cap_reqs, sv->n_reqs, sizeof *reqs, 16);
  if (!reqs)
    return DSANA_ENOMEM;
  sv->reqs = reqs;
  sv->reqs[sv->n_reqs++] = (struct pull_req){.peer = m->from, .hdr = *h};
  return 0;
}

/* Which version pull r reads: 0 = cur, 1 = next; -1 = stale (its
 * iteration is over), -2 = not yet (next is not its version yet). */
static int req_side(const struct server *sv, const struct pull_req *r) {
  int64_t i = r->hdr.iter;
  return i == sv->version + 1 ? 0 : i == sv->version + 2 ? 1 : i <= sv->version ? -1 : -2;
}

/* Final chunks of that version so far. */
static uint64_t side_final(const struct server *sv, int side) { return side == 0 ? sv->n_chunks : sv->n_final; }

/* Keys of r still to send in the chunk at its position: [*lo, *hi). */
static void req_span(const struct server *sv, const struct pull_req *r, int side, uint64_t *lo, uint64_t *hi) {
  uint64_t c = sv->final[side][r->pos], k = sv->chunk_keys;
  uint64_t a = c * k, b = a + k;
  a = a > r->hdr.key_lo ? a : r->hdr.key_lo;
  b = b < r->hdr.key_hi ? b : r->hdr.key_hi;
  *lo = r->at > a ? r->at : a;
  *hi = b;
}

/* The header of an answer to r carrying keys [lo, hi). */
static struct wire_hdr answer_hdr(const struct server *sv, const struct pull_req *r, enum wire_type type,
                                  uint64_t lo, uint64_t hi) {
  struct wire_hdr h = wire_hdr_make(type, sv->node.index);
  h.table = r->hdr.table;
  h.iter = r->hdr.iter;
  h.key_lo = lo;
  h.key_hi = hi;
  return h;
}

static int send_shm(struct server *sv, struct pull_req *r, int side, uint64_t lo, uint64_t hi) {
  struct wire_hdr h = answer_hdr(sv, r, WIRE_PULL_SHM, lo, hi);
  h.chunk = sv->cur_buf[r->hdr.table] ^ (uint32_t)side;
  uint64_t t0 = clock_now_ns();
  int rc = net_send(sv->listen, &r->peer, &h, NULL, 0);
  trace_span("shared buffer answer", "transfer", t0, clock_now_ns(), h.iter, "keys", (double)(hi - lo));
  return rc;
}

/* Lower leaves first: the running iteration before the next one, lower
 * chunks first (a task's blocks run in chunk order), and within a chunk
 * lower-numbered workers first: under static or sticky assignment they
 * write the lowest keys, whose chunks of the next iteration every worker
 * needs first, so they should finish first. */
static uint64_t reply_priority(uint32_t iter, uint64_t chunk, uint32_t worker) {
  uint64_t c = chunk < (1u << 24) ? chunk : (1u << 24) - 1;
  return ((uint64_t)(iter & 0xffffff) << 40) | c << 16 | (worker < 0xffff ? worker : 0xffff);
}

/* The values of keys [lo, hi) of a table with unread keys, packed to the
 * read ones (keymask.h): a PULL_PACKED answer, its payload owned by the
 * outbox. */
static int send_packed(struct server *sv, struct pull_req *r, const double *src, uint64_t lo, uint64_t hi,
                       uint64_t priority) {
  const uint64_t *unread = sv->node.job.unread[r->hdr.table];
  uint64_t n = keymask_count(unread, lo, hi);
  double *vals = malloc(n ? n * sizeof *vals : 1);
  if (!vals)
    return DSANA_ENOMEM;
  keymask_pack(unread, src - sv->lo, lo, hi, vals);
  struct wire_hdr h = answer_hdr(sv, r, WIRE_PULL_PACKED, lo, hi);
  h.payload_bytes = n * sizeof *vals;
  return net_outbox_send_owned(sv->node.outbox, sv->listen, &r->peer, &h, vals, (size_t)h.payload_bytes, priority);
}

static int send_reply(struct server *sv, struct pull_req *r, int side, uint64_t lo, uint64_t hi) {
  const double *src = (side == 0 ? sv->cur : sv->next)[r->hdr.table];
  struct wire_hdr h = answer_hdr(sv, r, WIRE_PULL_REPLY, lo, hi);
  h.payload_bytes = (hi - lo) * sizeof(double);
  uint64_t t0 = clock_now_ns(), priority = reply_priority(h.iter, lo / sv->chunk_keys, r->hdr.sender);
  int rc = sv->node.job.unread[r->hdr.table]
               ? send_packed(sv, r, src, lo, hi, priority)
               : net_outbox_send(sv->node.outbox, sv->listen, &r->peer, &h, src + (lo - sv->lo),
                                 (size_t)h.payload_bytes, priority);
  trace_span("chunk send", "transfer", t0, clock_now_ns(), h.iter, "chunk", (double)(lo / sv->chunk_keys));
  return rc;
}

/* Send the next piece of r (its position has a final chunk). A local
 * worker that reads shared buffers gets a chunk in one message naming the
 * buffer. */
static int send_piece(struct server *sv, struct pull_req *r, int side) {
  uint64_t lo, hi;
  req_span(sv, r, side, &lo, &hi);
  int rc = 0;
  if (lo < hi) {
    bool shm = sv->shm && r->hdr.chunk == 1;
    if (!shm && hi - lo > sv->max_keys_per_msg)
      hi = lo + sv->max_keys_per_msg;
    rc = shm ? send_shm(sv, r, side, lo, hi) : send_reply(sv, r, side, lo, hi);
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

/* A worker gets the running iteration's values before it gets any of the
 * next one's: its mirror may hold a next-iteration piece back until the
 * worker has moved past that chunk, which needs the running iteration's
 * pieces behind it. The slot of r's worker and table in running_seen. */
static uint32_t *running_slot(const struct server *sv, const struct pull_req *r) {
  if (r->hdr.sender >= sv->node.cfg.n_workers || r->hdr.table >= DSANA_MAX_TABLES)
    return &sv->running_seen[(size_t)sv->node.cfg.n_workers * DSANA_MAX_TABLES]; /* one spare for bad senders */
  return &sv->running_seen[(size_t)r->hdr.sender * DSANA_MAX_TABLES + r->hdr.table];
}

int spull_pump(struct server *sv, size_t *active) {
  size_t keep = 0;
  *active = 0;
  /* with an emulated link the outbox orders and paces: queue all that can go */
  bool all = net_outbox_emulating(sv->node.outbox);
  uint32_t round = ++sv->pump_round ? sv->pump_round : ++sv->pump_round; /* never 0 */
  for (size_t i = 0; i < sv->n_reqs; i++) {
    struct pull_req *r = &sv->reqs[i];
    int side = req_side(sv, r);
    if (side == -1)
      continue; /* its iteration is over: nobody can be waiting for it */
    /* behind an unfinished pull of the running iteration that came first */
    if (side == -2 || (side == 1 && *running_slot(sv, r) == round)) {
      sv->reqs[keep++] = *r;
      continue;
    }
    while (r->pos < side_final(sv, side)) {
      int rc = send_piece(sv, r, side);
      if (rc == DSANA_ENET) {
        /* the worker is gone: drop its pull; whether it is lost is the
         * scheduler's call, and the server carries on for the others */
        log_warn("dropped a pull of worker %u: it cannot be reached", r->hdr.sender);
        r->pos = sv->n_chunks;
      } else if (rc) {
        return rc;
      }
      if (!all)
        break;
    }
    if (r->pos < sv->n_chunks) {
      *active += r->pos < side_final(sv, side);
      if (side == 0)
        *running_slot(sv, r) = round;
      sv->reqs[keep++] = *r;
    }
  }
  sv->n_reqs = keep;
  return 0;
}
