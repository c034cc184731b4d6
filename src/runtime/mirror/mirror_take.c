/* mirror_take.c - checking and storing the servers' answers to a worker's
 * pulls (see mirror.h): dense pieces here, sparse ones in mirror_sparse.c. */
#include <stdio.h>
#include <string.h>

#include "runtime/core/keymask.h"
#include "runtime/mirror/mirror.h"
#include "runtime/mirror/mirror_shared.h"
#include "runtime/record/trace.h"
#include "util/text/log.h"

/* Bits [lo, hi) of one word, as a mask (lo < hi, same word). */
static uint64_t bit_mask(uint64_t lo, uint64_t hi) {
  uint64_t n = hi - lo;
  return (n == 64 ? ~0ull : ((1ull << n) - 1)) << (lo % 64);
}

/* Mark keys [lo, hi) received, a word at a time; false (nothing marked)
 * if any of them already was. */
static bool mark_keys(uint64_t *have, uint64_t lo, uint64_t hi) {
  for (int pass = 0; pass < 2; pass++)
    for (uint64_t k = lo; k < hi;) {
      uint64_t end = (k / 64 + 1) * 64 < hi ? (k / 64 + 1) * 64 : hi;
      uint64_t mask = bit_mask(k, end);
      if (pass == 0 && (have[k / 64] & mask))
        return false;
      if (pass == 1)
        have[k / 64] |= mask;
      k = end;
    }
  return true;
}

/* Values of a shared-buffer answer: where h's keys are in server s's
 * mapped buffer, or NULL with *why. */
static const double *shm_source(struct mirror *m, uint32_t s, const struct wire_hdr *h, uint64_t slo,
                                const char **why) {
  const struct mirror_table *mt = &m->t[h->table];
  if (!m->shm || h->buffer > 1) {
    *why = "shared buffer answer not expected";
    return NULL;
  }
  const double *buf = mirror_shm_map(m, s, h->table, h->buffer);
  if (!buf) {
    *why = "cannot map the server's shared buffer";
    return NULL;
  }
  return buf + (h->key_lo - slo) * mt->width;
}

/* What is wrong with dense piece h from server s (NULL: nothing), given
 * the shard [slo, shi); sets *src for shared answers. */
static const char *dense_check(struct mirror *m, uint32_t s, const struct net_msg *msg, uint64_t slo, uint64_t shi,
                               const double **src) {
  const struct wire_hdr *h = &msg->hdr;
  const struct mirror_table *mt = &m->t[h->table];
  uint64_t c = h->key_lo / mt->chunk_keys;
  if (h->key_lo < slo || h->key_hi > shi || h->key_lo >= h->key_hi)
    return "keys outside the server's shard";
  if ((h->key_hi - 1) / mt->chunk_keys != c)
    return "piece straddles a chunk";
  if (h->key_lo < mt->cover_lo || h->key_hi > mt->cover_hi)
    return "keys not asked for";
  uint64_t n = h->flags & WIRE_F_PACKED ? keymask_count(mt->unread, h->key_lo, h->key_hi) : h->key_hi - h->key_lo;
  if (h->flags & WIRE_F_SHARED) {
    const char *why = NULL;
    /* the buffer is the shard itself, never packed */
    if (h->payload_bytes || (h->flags & WIRE_F_PACKED) || !(*src = shm_source(m, s, h, slo, &why)))
      return why ? why : "shared answer with a payload or packed";
    return NULL;
  }
  if (h->count != n || (!(h->flags & WIRE_F_ZSTD) && h->payload_bytes != n * mt->width * sizeof(double)))
    return "value count does not match the key range";
  *src = msg->payload; /* compressed: decoded once admitted (mirror_zc.c) */
  return NULL;
}

/* The values of every key received for buffer p (have[p]) from the
 * region they were read in into the buffer itself, read there from now. */
static void own_buffer(struct mirror_table *mt, uint32_t p) {
  double *dst = mirror_buf(mt, p);
  for (uint64_t k = 0; mt->view[p] && k < mt->n_keys; k++)
    if (mt->have[p][k / 64] >> (k % 64) & 1)
      memcpy(dst + k * mt->width, mt->view[p] + k * mt->width, mt->width * sizeof(double));
  mt->view[p] = NULL;
}

/* Whether checked piece h is read where it is: a shared answer from the
 * region buffer p is read in (mirror.h); else buffer p is the worker's
 * own from now on (own_buffer). */
static bool read_in_place(struct mirror *m, struct mirror_table *mt, const struct wire_hdr *h) {
  uint32_t p = h->iter & 1u;
  const double *r = h->flags & WIRE_F_SHARED ? m->region[h->table][h->buffer] : NULL;
  if (r && r == mt->view[p])
    return true;
  if (r && mt->view[p])
    log_warn("server buffer %u holds iteration %u of table %u, not %u: a task may have read the other", h->buffer,
             h->iter, h->table, p);
  own_buffer(mt, p);
  return false;
}

/* A checked dense piece's values from src into its iteration's buffer. */
static void copy_piece(struct mirror_table *mt, const struct wire_hdr *h, const double *src) {
  uint64_t w = mt->width;
  double *dst = mirror_buf(mt, h->iter);
  if (h->flags & WIRE_F_PACKED && w == 1)
    keymask_unpack(mt->unread, src, h->key_lo, h->key_hi, dst);
  else if (h->flags & WIRE_F_PACKED) {
    for (uint64_t k = h->key_lo; k < h->key_hi; k++)
      if (keymask_read(mt->unread, k)) {
        memcpy(dst + k * w, src, w * sizeof(double));
        src += w;
      }
  } else
    memcpy(dst + h->key_lo * w, src, (h->key_hi - h->key_lo) * w * sizeof(double));
}

/* Store a checked dense piece in its iteration's buffer, or read it in
 * place (read_in_place). */
static void dense_store(struct mirror *m, struct mirror_table *mt, const struct wire_hdr *h, const double *src) {
  uint64_t c = h->key_lo / mt->chunk_keys, w = mt->width;
  uint64_t t0 = m->env->trace ? rt_now(m->env) : 0;
  if (!read_in_place(m, mt, h))
    copy_piece(mt, h, src);
  if (t0)
    trace_span(m->env->trace, "piece in", "transfer", t0, rt_now(m->env), h->iter, "chunk", (double)c);
  uint64_t keys = keymask_count(mt->unread, h->key_lo, h->key_hi);
  mt->chunk_got[h->iter & 1u][c] += keys;
  mt->missing[h->iter & 1u] -= keys;
  if (!(h->flags & WIRE_F_SHARED)) /* shared buffers cross no link */
    mirror_count_in(m, h->iter, WIRE_HDR_BYTES + h->payload_bytes,
                    WIRE_HDR_BYTES + (uint64_t)h->count * w * sizeof(double));
}

/* Why dense piece msg from server s of mt must be dropped (NULL: it may be
 * stored, from *src); *stale when it is not, or no longer, wanted. */
static const char *dense_why(struct mirror *m, uint32_t s, const struct net_msg *msg, const double **src, bool *stale) {
  const struct wire_hdr *h = &msg->hdr;
  struct mirror_table *mt = &m->t[h->table];
  uint64_t slo, shi;
  shard_range(mt->n_keys, m->n_servers, s, &slo, &shi);
  const char *why = NULL;
  *stale = true;
  if (h->iter == 0 || h->iter != mt->asked[h->iter & 1u])
    return "iteration not asked for";
  *stale = false;
  if ((why = dense_check(m, s, msg, slo, shi, src)) != NULL)
    return why;
  if ((h->flags & WIRE_F_ZSTD) && (why = mirror_zc_decode(m, s, mt, msg, src)) != NULL)
    return why;
  *stale = !mark_keys(mt->have[h->iter & 1u], h->key_lo, h->key_hi);
  return *stale ? "keys received twice" : NULL;
}

static void dense_take(struct mirror *m, uint32_t s, const struct net_msg *msg) {
  const struct wire_hdr *h = &msg->hdr;
  struct mirror_table *mt = &m->t[h->table];
  /* a piece of an iteration whose buffer was asked for a later one since
   * (the worker moved on) is no one's */
  if (!mt->values || h->iter < mt->asked[h->iter & 1u]) {
    m->stale++;
    log_debug("dropped PULL_REPLY from server %u for iteration %u: superseded", s, h->iter);
    return;
  }
  const double *src = NULL;
  bool stale;
  const char *why = dense_why(m, s, msg, &src, &stale);
  if (why) {
    m->stale += stale;
    log_warn("dropped PULL_REPLY from server %u (table %u, iteration %u, keys [%llu, %llu)): %s", s, h->table, h->iter,
             (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
    return;
  }
  dense_store(m, mt, h, src);
}

void mirror_take(struct mirror *m, uint32_t s, const struct net_msg *msg) {
  const struct wire_hdr *h = &msg->hdr;
  if (h->type != WIRE_PULL_REPLY || h->table >= m->n_tables || !m->t[h->table].used || s >= m->n_servers) {
    log_warn("dropped %s from server %u: table %u not read here", wire_type_name(h->type), s, h->table);
    return;
  }
  if (m->t[h->table].sparse)
    mirror_sparse_take(m, s, msg);
  else
    dense_take(m, s, msg);
}
