/*
 * server_zc.c - compressed answers to dense pulls (net/wire/zcodec.h), for
 * server_pull.c; server.c calls szc_commit() at every commit.
 *
 * A worker that asks with WIRE_F_ZSTD gets its values encoded; with
 * WIRE_F_DELTA too it holds iteration iter-1's values of the keys (what
 * the shard held as version iter-2), and they become the XOR base when
 * this server still has them: the running iteration's pulls (iter =
 * version+1) read cur and XOR `prev`, a copy of the version before cur
 * kept at each commit once a table has been pulled compressed; pulls
 * fetching ahead (iter = version+2) read next's final chunks and XOR cur
 * itself. Without the base the piece is encoded alone (no WIRE_F_DELTA);
 * when encoding does not make it smaller it goes as plain values.
 *
 * A piece's encoding depends only on (table, iteration, keys, base), all
 * final when it is sent, so encodings are kept, one slot per piece of the
 * shard and iteration parity (pieces of every worker's pull start at the
 * same keys: the covers are the job's), and other workers pulling the
 * same piece get a copy: a server encodes a chunk once however many
 * workers read it. STATE tables (written in place during an iteration)
 * are never compressed.
 */
#include <stdlib.h>
#include <string.h>

#include "net/wire/zcodec.h"
#include "runtime/core/fault.h"
#include "runtime/core/keymask.h"
#include "runtime/server/server_state.h"

/* One kept encoding. */
struct szc_entry {
  uint32_t table, iter, flags;
  uint64_t lo, hi;
  bool used;
  uint8_t *bytes; /* NULL (used): the encoding was not smaller, send plain values */
  size_t len;
};

struct szc {
  struct zcodec *zc;
  struct zcodec_piece piece; /* scratch: packed values and their base */
  struct szc_entry *kept;    /* per (table, iteration parity, piece of the shard) */
  uint64_t pieces;           /* slots per table and parity (count_pieces()) */
  uint32_t n_tables;         /* tables with slots */
};

void szc_free(struct server *sv) {
  struct szc *z = sv->zc;
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++)
    free(sv->t[t].prev);
  if (!z)
    return;
  zcodec_destroy(z->zc);
  zcodec_piece_fini(&z->piece);
  for (uint64_t i = 0; z->kept && i < 2 * (uint64_t)z->n_tables * z->pieces; i++)
    free(z->kept[i].bytes);
  free(z->kept);
  free(z);
  sv->zc = NULL;
}

void szc_commit(struct server *sv) {
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    struct stable *st = &sv->t[t];
    if (!st->prev)
      continue;
    memcpy(st->prev, st->buf[st->cur], (st->hi - st->lo) * st->width * sizeof(double));
    st->prev_version = sv->version;
  }
}

/* Keys of table t per piece: a chunk, or a message's worth if less. */
static uint64_t piece_keys(const struct server *sv, uint32_t t) {
  uint64_t per_msg = sv->values_per_msg / sv->t[t].width, chunk = sv->sp[sv->job.tables[t].space].chunk_keys;
  per_msg = per_msg ? per_msg : 1;
  return chunk < per_msg ? chunk : per_msg;
}

/* Pieces of table t per chunk. */
static uint64_t chunk_pieces(const struct server *sv, uint32_t t) {
  uint64_t k = piece_keys(sv, t);
  return (sv->sp[sv->job.tables[t].space].chunk_keys + k - 1) / k;
}

/* Slots per table and parity: the shard is cut at chunk edges, and inside
 * a chunk every piece_keys(); at most SZC_MAX_SLOTS (pieces beyond share
 * slots: the cache misses more, tiny chunks do not cost gigabytes). */
#define SZC_MAX_SLOTS 4096
static uint64_t count_pieces(const struct server *sv) {
  uint64_t most = 1;
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    uint64_t n = sv->sp[sv->job.tables[t].space].n_chunks * chunk_pieces(sv, t);
    most = n > most ? n : most;
  }
  return most < SZC_MAX_SLOTS ? most : SZC_MAX_SLOTS;
}

/* The codec, the slots, and room for n doubles of scratch. */
static int reserve(struct server *sv, uint64_t n) {
  struct szc *z = sv->zc;
  if (!z) {
    if (!(z = sv->zc = calloc(1, sizeof *z)))
      return DSANA_ENOMEM;
    z->pieces = count_pieces(sv);
    if (zcodec_create(&z->zc) != 0 || !(z->kept = calloc(2 * (size_t)sv->job.n_tables * z->pieces, sizeof *z->kept)))
      return DSANA_ENOMEM;
    z->n_tables = sv->job.n_tables;
  }
  return zcodec_piece_reserve(&z->piece, n);
}

/* Keep cur's copies from now on (the first commit fills it). The copy
 * made here only touches the pages (prev_version says it holds nothing):
 * the first pull comes while the job loads, and page faults then are
 * load time, not the first commit's (1.4 ms on a 31k-key shard). */
static int want_prev(struct stable *st) {
  if (st->prev)
    return 0;
  size_t bytes = (st->hi > st->lo ? st->hi - st->lo : 1) * st->width * sizeof(double);
  st->prev_version = INT64_MIN;
  st->prev = malloc(bytes);
  if (!st->prev)
    return DSANA_ENOMEM;
  memcpy(st->prev, st->buf[st->cur], st->hi > st->lo ? bytes : 0);
  return 0;
}

/* The base of a pull of iteration iter read from side `side` (0: cur,
 * 1: next), as a pointer indexed by key, or NULL. */
static const double *base_of(const struct server *sv, uint32_t t, uint32_t iter, int side) {
  const struct stable *st = &sv->t[t];
  if (side == 1)
    return shard_by_key(sv, t, st->cur); /* version == iter-2 */
  if (st->prev && st->prev_version == (int64_t)iter - 2 && iter >= 2)
    return st->prev - st->lo * st->width;
  return NULL;
}

/* The slot of piece h (a piece elsewhere may share it: then it misses). */
static struct szc_entry *slot_of(const struct server *sv, const struct wire_hdr *h) {
  const struct szc *z = sv->zc;
  const struct sspace *sp = &sv->sp[sv->job.tables[h->table].space];
  uint64_t c = h->key_lo / sp->chunk_keys;
  uint64_t piece =
      (c - sp->chunk0) * chunk_pieces(sv, h->table) + (h->key_lo - c * sp->chunk_keys) / piece_keys(sv, h->table);
  uint64_t at = piece < z->pieces ? piece : piece % z->pieces;
  return &z->kept[((uint64_t)h->table * 2 + (h->iter & 1)) * z->pieces + at];
}

static const struct szc_entry *find_kept(const struct server *sv, const struct wire_hdr *h) {
  const struct szc_entry *e = slot_of(sv, h);
  bool same = e->used && e->table == h->table && e->iter == h->iter && e->flags == h->flags && e->lo == h->key_lo &&
              e->hi == h->key_hi;
  return same ? e : NULL;
}

/* Keep a copy of an encoding, or (bytes NULL) that it did not pay;
 * nothing if out of memory: it is only a cache. */
static void keep(struct server *sv, const struct wire_hdr *h, const uint8_t *bytes, size_t len) {
  struct szc_entry *e = slot_of(sv, h);
  uint8_t *copy = NULL;
  if (bytes && !(copy = realloc(e->bytes, len))) {
    free(e->bytes);
    *e = (struct szc_entry){0};
    return;
  }
  if (!bytes)
    free(e->bytes);
  *e = (struct szc_entry){.table = h->table,
                          .iter = h->iter,
                          .flags = h->flags,
                          .lo = h->key_lo,
                          .hi = h->key_hi,
                          .used = true,
                          .bytes = copy,
                          .len = len};
  if (copy)
    memcpy(copy, bytes, len);
}

/* Values (and base) of [lo, hi) of table t as runs of n * width doubles. */
static void gather(struct server *sv, uint32_t t, const double *src, const double *base, uint64_t lo, uint64_t hi,
                   const double **vals, const double **bvals) {
  const uint64_t *unread = sv->job.tables[t].unread;
  uint32_t w = sv->t[t].width;
  struct szc *z = sv->zc;
  if (!unread) {
    *vals = src + lo * w;
    *bvals = base ? base + lo * w : NULL;
    return;
  }
  keymask_pack_wide(unread, src, w, lo, hi, z->piece.vals);
  *vals = z->piece.vals;
  *bvals = NULL;
  if (base) {
    keymask_pack_wide(unread, base, w, lo, hi, z->piece.base);
    *bvals = z->piece.base;
  }
}

int szc_send(struct server *sv, const struct pull_req *r, int side, uint64_t lo, uint64_t hi, uint64_t priority,
             struct rt_outq *out, bool *sent) {
  uint32_t t = r->hdr.table;
  struct stable *st = &sv->t[t];
  const uint64_t *unread = sv->job.tables[t].unread;
  *sent = false;
  if (st->state)
    return 0;
  uint64_t n = unread ? keymask_count(unread, lo, hi) : hi - lo, words = n * st->width;
  int rc = want_prev(st);
  if (!rc)
    rc = reserve(sv, unread ? words : 0);
  if (rc || n == 0)
    return rc;
  const double *src = shard_by_key(sv, t, side == 0 ? st->cur : st->cur ^ 1u);
  const double *base = r->hdr.flags & WIRE_F_DELTA ? base_of(sv, t, r->hdr.iter, side) : NULL;
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, sv->index);
  h.table = t;
  h.iter = r->hdr.iter;
  h.task = r->hdr.task;
  h.key_lo = lo;
  h.key_hi = hi;
  h.count = (uint32_t)n;
  h.flags = WIRE_F_ZSTD | (base ? WIRE_F_DELTA : 0) | (unread ? WIRE_F_PACKED : 0);
  const struct szc_entry *e = find_kept(sv, &h);
  if (e && !e->bytes)
    return 0; /* not smaller: plain values */
  size_t len = e ? e->len : 0;
  uint8_t *buf = malloc(e ? len : words * sizeof(double));
  if (!buf)
    return DSANA_ENOMEM;
  if (e) {
    memcpy(buf, e->bytes, len);
  } else {
    const double *vals, *bvals;
    gather(sv, t, src, base, lo, hi, &vals, &bvals);
    rc = zcodec_encode(sv->zc->zc, vals, bvals, words, buf, words * sizeof(double), &len);
    if (rc) {
      free(buf);
      if (rc == DSANA_ERANGE)
        keep(sv, &h, NULL, 0);
      return rc == DSANA_ERANGE ? 0 : rc; /* not smaller: plain values */
    }
    keep(sv, &h, buf, len);
    uint8_t *fit = realloc(buf, len); /* it may wait long for a slow link */
    buf = fit ? fit : buf;
  }
  fault_corrupt(&sv->fault, h.iter, buf, len);
  *sent = true;
  return rt_reply_owned(out, &r->peer, &h, buf, len, priority);
}
