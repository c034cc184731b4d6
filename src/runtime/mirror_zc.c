/*
 * mirror_zc.c - compressed answers to a worker's dense pulls (see
 * mirror.h, net/zcodec.h).
 *
 * A server may XOR the values of iteration t with those of iteration t-1
 * (WIRE_F_DELTA) only if the worker holds exactly those: a pull says so
 * when every chunk it covers holds iteration t-1's complete values. A
 * chunk keeps them as its base when it switches to t (chunk_base), and the
 * keys of a piece not received yet for t still hold them, so a DELTA piece
 * decodes against the mirror's values in place; one whose chunk has no
 * such base (the table started afresh since the pull) is dropped, as is
 * any piece that does not decode: nothing of it is applied. The keys of
 * one that does not decode are asked for again without compression (a
 * corrupted payload costs a round trip, not the job); the others are
 * answered by the pulls that started the table afresh.
 */
#include <stdlib.h>
#include <string.h>

#include "net/zcodec.h"
#include "runtime/keymask.h"
#include "runtime/mirror_internal.h"
#include "util/grow.h"
#include "util/log.h"

/* A piece to ask server s for again. */
struct mirror_refetch {
  uint32_t s, table, iter;
  uint64_t lo, hi;
};

int mirror_set_compress(struct mirror *m, uint64_t max_raw_bytes) {
  if (!m->zc && zcodec_create(&m->zc) != 0)
    return DSANA_ENOMEM;
  m->compress = true;
  m->max_raw_bytes = max_raw_bytes;
  return 0;
}

void mirror_zc_fini(struct mirror *m) {
  zcodec_destroy(m->zc);
  zcodec_piece_fini(&m->zpiece);
  for (uint32_t t = 0; t < m->n_tables; t++)
    free(m->t[t].chunk_base);
  free(m->refetch);
}

/* Chunk c holds iteration iter's complete values. */
static bool complete(const struct mirror_table *mt, uint32_t iter, uint64_t c) {
  return iter && mt->chunk_iter[c] == iter && mt->chunk_got[c] == mt->chunk_want[c];
}

uint32_t mirror_zc_ask_flags(const struct mirror *m, const struct mirror_table *mt, uint32_t iter, uint64_t lo,
                             uint64_t hi) {
  if (!m->compress)
    return 0;
  for (uint64_t c = lo / mt->chunk_keys; lo < hi && c <= (hi - 1) / mt->chunk_keys; c++)
    if (!complete(mt, iter - 1, c))
      return WIRE_F_ZSTD;
  return WIRE_F_ZSTD | WIRE_F_DELTA;
}

int mirror_zc_fresh(const struct mirror *m, struct mirror_table *mt) {
  if (!m->compress)
    return 0;
  if (!mt->chunk_base && !(mt->chunk_base = malloc(mt->n_chunks * sizeof *mt->chunk_base)))
    return DSANA_ENOMEM;
  memset(mt->chunk_base, 0, mt->n_chunks * sizeof *mt->chunk_base);
  return 0;
}

void mirror_zc_switch(struct mirror_table *mt, uint64_t c) {
  if (mt->chunk_base)
    mt->chunk_base[c] = complete(mt, mt->chunk_iter[c], c) ? mt->chunk_iter[c] : 0;
}

/* Ask server s for piece h again, plainly (nothing if out of memory: the
 * piece is lost as any dropped one is). */
static void refetch(struct mirror *m, uint32_t s, const struct wire_hdr *h) {
  struct mirror_refetch *r = grow_for_one(m->refetch, &m->cap_refetch, m->n_refetch, sizeof *r, 4);
  if (!r)
    return;
  m->refetch = r;
  r[m->n_refetch++] =
      (struct mirror_refetch){.s = s, .table = h->table, .iter = h->iter, .lo = h->key_lo, .hi = h->key_hi};
}

int mirror_zc_kick(struct mirror *m, struct rt_outq *out) {
  for (size_t i = 0; i < m->n_refetch; i++) {
    const struct mirror_refetch *r = &m->refetch[i];
    struct wire_hdr h = wire_hdr_make(WIRE_PULL, m->self);
    h.table = r->table;
    h.iter = r->iter;
    h.key_lo = r->lo;
    h.key_hi = r->hi;
    log_warn("asked server %u again for keys [%llu, %llu) of table %u, iteration %u, uncompressed", r->s,
             (unsigned long long)r->lo, (unsigned long long)r->hi, r->table, r->iter);
    int rc = rt_send(out, ROLE_SERVER, r->s, &h, NULL, 0);
    if (rc)
      return rc;
  }
  m->n_refetch = 0;
  return 0;
}

const char *mirror_zc_decode(struct mirror *m, uint32_t s, const struct mirror_table *mt, const struct net_msg *msg,
                             const double **src) {
  const struct wire_hdr *h = &msg->hdr;
  uint64_t c = h->key_lo / mt->chunk_keys, words = (uint64_t)h->count * mt->width;
  bool delta = h->flags & WIRE_F_DELTA;
  if (!m->compress)
    return "compressed answer not asked for";
  if (words > m->max_raw_bytes / sizeof(double))
    return "compressed piece larger than a message";
  if (delta && (h->iter < 2 || !mt->chunk_base || mt->chunk_base[c] != h->iter - 1))
    return "XORed with values this worker does not hold";
  if (zcodec_piece_reserve(&m->zpiece, words) != 0)
    return "out of memory for decoding";
  const double *base = NULL;
  if (delta && (h->flags & WIRE_F_PACKED)) {
    keymask_pack_wide(mt->unread, mt->values, mt->width, h->key_lo, h->key_hi, m->zpiece.base);
    base = m->zpiece.base;
  } else if (delta) {
    base = mt->values + h->key_lo * mt->width;
  }
  const char *why = NULL;
  int rc = zcodec_decode(m->zc, msg->payload, (size_t)h->payload_bytes, base, m->zpiece.vals, words, &why);
  if (rc == DSANA_ENOMEM)
    return "out of memory for decoding";
  if (rc) {
    refetch(m, s, h);
    return why;
  }
  *src = m->zpiece.vals;
  return NULL;
}
