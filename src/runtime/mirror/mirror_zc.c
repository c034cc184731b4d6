/*
 * mirror_zc.c - compressed answers to a worker's dense pulls (see
 * mirror.h, net/wire/zcodec.h).
 *
 * A server may XOR the values of iteration t with those of iteration t-1
 * (WIRE_F_DELTA) only if the worker holds exactly those: a pull of t says
 * so when its other buffer holds all of t-1 (the ask for t waits for that,
 * mirror.h), and the piece decodes against it. A piece whose base is not
 * complete (the table was asked for afresh since), or that does not
 * decode, is not applied: its keys are asked for again without
 * compression (a corrupted payload costs a round trip, not the job).
 */
#include <stdlib.h>
#include <string.h>

#include "net/wire/zcodec.h"
#include "runtime/core/keymask.h"
#include "runtime/mirror/mirror.h"
#include "runtime/mirror/mirror_shared.h"
#include "util/memory/grow.h"
#include "util/text/log.h"

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
  free(m->refetch);
}

uint32_t mirror_zc_ask_flags(const struct mirror *m, const struct mirror_table *mt, uint32_t iter, uint64_t lo,
                             uint64_t hi) {
  (void)lo;
  (void)hi; /* a buffer is asked for whole: the other holds (or gets) all of iter-1 */
  if (!m->compress)
    return 0;
  uint32_t q = (iter - 1) & 1u;
  return iter > 1 && mt->asked[q] == iter - 1 && mt->missing[q] == 0 ? WIRE_F_ZSTD | WIRE_F_DELTA : WIRE_F_ZSTD;
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
  if (delta && (h->iter < 2 || !mirror_chunk_in(mt, h->iter - 1, c))) {
    refetch(m, s, h); /* its base is incomplete: a piece of iter-1 was dropped */
    return "XORed with values this worker does not hold";
  }
  if (zcodec_piece_reserve(&m->zpiece, words) != 0)
    return "out of memory for decoding";
  const double *base = NULL;
  if (delta && (h->flags & WIRE_F_PACKED)) {
    keymask_pack_wide(mt->unread, mirror_read_buf(mt, h->iter - 1), mt->width, h->key_lo, h->key_hi, m->zpiece.base);
    base = m->zpiece.base;
  } else if (delta) {
    base = mirror_read_buf(mt, h->iter - 1) + h->key_lo * mt->width;
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
