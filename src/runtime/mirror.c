/* mirror.c - see mirror.h. */
#include "runtime/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "runtime/job.h"
#include "runtime/keymask.h"
#include "runtime/shm.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/log.h"

int mirror_init(struct mirror *m, uint32_t n_tables, uint64_t n_keys, uint64_t chunk_keys,
                struct net_sock **servers, uint32_t n_servers, struct net_outbox *outbox, uint32_t self,
                double timeout_s) {
  memset(m, 0, sizeof *m);
  if (n_tables > 8 || n_keys == 0)
    return DSANA_EINVAL;
  m->n_tables = n_tables;
  m->n_keys = n_keys;
  m->chunk_keys = chunk_keys == 0 || chunk_keys > n_keys ? n_keys : chunk_keys;
  m->n_chunks = (n_keys + m->chunk_keys - 1) / m->chunk_keys;
  m->servers = servers;
  m->outbox = outbox;
  m->n_servers = n_servers;
  m->self = self;
  m->timeout_s = timeout_s;
  m->held = calloc(n_servers ? n_servers : 1, sizeof *m->held);
  m->has_held = calloc(n_servers ? n_servers : 1, sizeof *m->has_held);
  return m->held && m->has_held ? 0 : DSANA_ENOMEM;
}

void mirror_use_shm(struct mirror *m, const char *dir) { m->shm_dir = dir && dir[0] ? dir : NULL; }

void mirror_set_unread(struct mirror *m, uint32_t t, const uint64_t *unread) {
  if (t < m->n_tables)
    m->t[t].unread = unread;
}

void mirror_fini(struct mirror *m) {
  for (uint32_t s = 0; m->shm_dir && s < m->n_servers && s < 1024; s++) {
    uint64_t lo, hi;
    shard_range(m->n_keys, m->n_servers, s, &lo, &hi);
    for (uint32_t t = 0; t < m->n_tables; t++)
      for (int b = 0; b < 2; b++)
        shm_unmap(m->shm[s][t][b], (hi - lo) * sizeof(double));
  }
  for (uint32_t t = 0; t < m->n_tables; t++) {
    free(m->t[t].values);
    free(m->t[t].chunk_want);
    free(m->t[t].chunk_got);
    free(m->t[t].chunk_iter);
    free(m->t[t].have);
  }
  for (uint32_t s = 0; m->has_held && s < m->n_servers; s++)
    if (m->has_held[s])
      net_msg_fini(&m->held[s]);
  free(m->held);
  free(m->has_held);
  memset(m, 0, sizeof *m);
}

static uint64_t chunk_len(const struct mirror *m, uint64_t c) {
  uint64_t lo = c * m->chunk_keys, hi = lo + m->chunk_keys;
  return (hi > m->n_keys ? m->n_keys : hi) - lo;
}

/* Ask every server for table t of iteration iter, the new front. */
static int mirror_ask(struct mirror *m, uint32_t t, uint32_t iter) {
  struct mirror_table *mt = &m->t[t];
  mt->iter = iter;
  mt->missing = keymask_count(mt->unread, 0, m->n_keys);
  mt->ahead_want = 0;
  for (uint32_t s = 0; s < m->n_servers; s++) {
    struct wire_hdr h = wire_hdr_make(WIRE_PULL, m->self);
    h.table = t;
    h.iter = iter;
    h.chunk = m->shm_dir != NULL; /* "shared buffers welcome" */
    shard_range(m->n_keys, m->n_servers, s, &h.key_lo, &h.key_hi);
    if (h.key_lo == h.key_hi)
      continue;
    int rc = net_outbox_send(m->outbox, m->servers[s], NULL, &h, NULL, 0, 0);
    if (rc)
      return rc;
  }
  return 0;
}

/* Start table t afresh for iter: nothing received, every chunk iter's. */
static int mirror_fresh(struct mirror *m, uint32_t t, uint32_t iter) {
  struct mirror_table *mt = &m->t[t];
  if (!mt->values) {
    mt->values = calloc(m->n_keys, sizeof(double));
    mt->chunk_want = calloc(m->n_chunks, sizeof(uint64_t));
    mt->chunk_got = calloc(m->n_chunks, sizeof(uint64_t));
    mt->chunk_iter = calloc(m->n_chunks, sizeof(uint32_t));
    mt->have = calloc(m->n_keys / 64 + 1, sizeof(uint64_t));
    if (!mt->values || !mt->chunk_want || !mt->chunk_got || !mt->chunk_iter || !mt->have)
      return DSANA_ENOMEM;
    for (uint64_t c = 0; c < m->n_chunks; c++)
      mt->chunk_want[c] = keymask_count(mt->unread, c * m->chunk_keys, c * m->chunk_keys + chunk_len(m, c));
  }
  memset(mt->chunk_got, 0, sizeof(uint64_t) * m->n_chunks);
  memset(mt->have, 0, sizeof(uint64_t) * (m->n_keys / 64 + 1));
  for (uint64_t c = 0; c < m->n_chunks; c++)
    mt->chunk_iter[c] = iter;
  mt->switched_hi = m->n_chunks;
  mt->behind = 0;
  return mirror_ask(m, t, iter);
}

int mirror_request(struct mirror *m, uint32_t t, uint32_t iter) {
  struct mirror_table *mt = &m->t[t];
  if (!mt->values || (iter != mt->iter && iter != mt->iter + 1))
    return mirror_fresh(m, t, iter);
  if (iter == mt->iter)
    return 0;
  if (mt->behind > 0) {
    mt->ahead_want = iter; /* asked for once every chunk holds the front */
    return 0;
  }
  mt->switched_hi = 0; /* ahead: chunks keep their values until they switch */
  mt->busy_from = 0;
  mt->behind = m->n_chunks;
  return mirror_ask(m, t, iter);
}

int mirror_need(struct mirror *m, uint32_t t, uint32_t iter, uint64_t from_chunk) {
  struct mirror_table *mt = &m->t[t];
  if (mt->values && mt->iter == iter + 1 && from_chunk >= mt->switched_hi) {
    mt->busy_from = from_chunk;
    return 0;
  }
  if (mt->values && mt->iter == iter) {
    mt->busy_from = UINT64_MAX; /* nobody reads an older iteration */
    return 0;
  }
  /* a chunk it needs has switched already, or nobody reads the front's
   * values any more */
  return mirror_fresh(m, t, iter);
}

int mirror_prefetch(struct mirror *m, uint32_t iter) {
  for (uint32_t t = 0; t < m->n_tables; t++)
    if (m->t[t].values) {
      int rc = mirror_request(m, t, iter);
      if (rc)
        return rc;
    }
  return 0;
}

/* Bits [lo, hi) of word w's range, as a mask (lo < hi, same word). */
static uint64_t bit_mask(uint64_t lo, uint64_t hi) {
  uint64_t n = hi - lo;
  return (n == 64 ? ~0ull : ((1ull << n) - 1)) << (lo % 64);
}

/* Mark keys [lo, hi) received, a word at a time; false (nothing marked)
 * if any of them already was. */
static bool mirror_mark(uint64_t *have, uint64_t lo, uint64_t hi) {
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

/* Clear bits [lo, hi) of a bitmap. */
static void bits_clear(uint64_t *have, uint64_t lo, uint64_t hi) {
  for (uint64_t k = lo; k < hi;) {
    uint64_t end = (k / 64 + 1) * 64 < hi ? (k / 64 + 1) * 64 : hi;
    have[k / 64] &= ~bit_mask(k, end);
    k = end;
  }
}

enum admit { ADMIT_TAKE, ADMIT_HOLD, ADMIT_DROP };

/* May a piece of chunk c for iteration iter be stored now? A chunk still
 * holding an older iteration switches to iter once nobody reads it. */
static enum admit mirror_admit(struct mirror *m, struct mirror_table *mt, uint32_t iter, uint64_t c) {
  if (mt->chunk_iter[c] == iter)
    return ADMIT_TAKE; /* the front's, or the previous iteration's still arriving */
  if (iter != mt->iter)
    return ADMIT_DROP;
  if (mt->chunk_iter[c] + 1 == iter && c >= mt->busy_from)
    return ADMIT_HOLD; /* still read for the previous iteration */
  uint64_t lo = c * m->chunk_keys;
  bits_clear(mt->have, lo, lo + chunk_len(m, c));
  mt->chunk_got[c] = 0;
  mt->chunk_iter[c] = iter;
  mt->behind--;
  if (c + 1 > mt->switched_hi)
    mt->switched_hi = c + 1;
  return ADMIT_TAKE;
}

/* Pieces of the front, and of the iteration before it while fetching ahead. */
static bool mirror_wanted(const struct mirror_table *mt, uint32_t iter) {
  return mt->values && (iter == mt->iter || iter + 1 == mt->iter);
}

/* keys of chunk c of iteration iter arrived */
static void mirror_count(struct mirror_table *mt, uint32_t iter, uint64_t c, uint64_t keys) {
  mt->chunk_got[c] += keys;
  if (iter == mt->iter)
    mt->missing -= keys;
}

/* A local server's answer names its shared buffer: where h's keys are in
 * server s's mapped buffer, or NULL with *why. */
static const double *mirror_shm_source(struct mirror *m, uint32_t s, const struct wire_hdr *h, uint64_t slo,
                                       uint64_t shi, const char **why) {
  if (!m->shm_dir || s >= 1024 || h->chunk > 1) {
    *why = "shared buffer answer not expected";
    return NULL;
  }
  const double **buf = &m->shm[s][h->table][h->chunk];
  if (!*buf) {
    char path[1200];
    shm_path(path, sizeof path, m->shm_dir, s, h->table, h->chunk);
    if (shm_open_ro(path, (shi - slo) * sizeof(double), buf) != 0) {
      *why = "cannot map the server's shared buffer";
      return NULL;
    }
  }
  return *buf + (h->key_lo - slo);
}

/* Check and store one reply piece from server s (its values in the
 * message, or in the server's shared buffer); false when it must be held
 * back (its chunk is still read for the previous iteration). */
static bool mirror_take(struct mirror *m, uint32_t s, const struct net_msg *msg) {
  const struct wire_hdr *h = &msg->hdr;
  uint64_t slo, shi;
  shard_range(m->n_keys, m->n_servers, s, &slo, &shi);
  const char *why = NULL;
  struct mirror_table *mt = h->table < m->n_tables ? &m->t[h->table] : NULL;
  const double *src = msg->payload;
  uint64_t c = h->key_lo / m->chunk_keys;
  enum admit a = ADMIT_DROP;
  bool packed = h->type == WIRE_PULL_PACKED;
  if (h->type != WIRE_PULL_REPLY && h->type != WIRE_PULL_SHM && !packed)
    why = "not a pull reply";
  else if (mt && mt->values && h->iter + 1 < mt->iter) {
    /* asked for before the table was fetched afresh for a later iteration */
    log_debug("dropped %s from server %u for iteration %u: superseded", wire_type_name(h->type), s, h->iter);
    return true;
  } else if (!mt || !mirror_wanted(mt, h->iter))
    why = "table or iteration not requested";
  else if (h->key_lo < slo || h->key_hi > shi || h->key_lo >= h->key_hi)
    why = "keys outside the server's shard";
  else if ((h->key_hi - 1) / m->chunk_keys != c)
    why = "piece straddles a chunk";
  else if (packed && h->payload_bytes / sizeof(double) != keymask_count(mt->unread, h->key_lo, h->key_hi))
    why = "packed values do not match the range's read keys";
  else if (h->type == WIRE_PULL_SHM && !(src = mirror_shm_source(m, s, h, slo, shi, &why)))
    ; /* why says it */
  else if ((a = mirror_admit(m, mt, h->iter, c)) == ADMIT_HOLD)
    return false;
  else if (a == ADMIT_DROP) {
    /* the previous iteration's, for a chunk already switched to the front */
    log_debug("dropped %s from server %u for iteration %u: superseded", wire_type_name(h->type), s, h->iter);
    return true;
  } else if (!mirror_mark(mt->have, h->key_lo, h->key_hi))
    why = "keys received twice";
  if (why) {
    log_warn("dropped %s from server %u (table %u, iteration %u, keys [%llu, %llu)): %s", wire_type_name(h->type),
             s, h->table, h->iter, (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
    return true;
  }
  uint64_t t0 = clock_now_ns();
  if (packed)
    keymask_unpack(mt->unread, src, h->key_lo, h->key_hi, mt->values);
  else
    memcpy(mt->values + h->key_lo, src, (h->key_hi - h->key_lo) * sizeof(double));
  trace_span("piece in", "transfer", t0, clock_now_ns(), h->iter, "chunk", (double)c);
  mirror_count(mt, h->iter, c, keymask_count(mt->unread, h->key_lo, h->key_hi));
  if (h->type != WIRE_PULL_SHM)
    m->bytes_in += WIRE_HDR_BYTES + h->payload_bytes; /* shared buffers cross no link */
  return true;
}

int mirror_recv(struct mirror *m, int timeout_ms, int *got) {
  bool ready[1024];
  *got = 0;
  bool any_open = false; /* a server whose stream is not held back */
  for (uint32_t s = 0; s < m->n_servers; s++) {
    if (m->has_held[s] && mirror_take(m, s, &m->held[s])) {
      net_msg_fini(&m->held[s]);
      m->has_held[s] = false;
      (*got)++;
    }
    any_open |= !m->has_held[s];
  }
  for (uint32_t t = 0; t < m->n_tables; t++) {
    struct mirror_table *mt = &m->t[t];
    int rc = mt->ahead_want && mt->behind == 0 ? mirror_request(m, t, mt->ahead_want) : 0;
    if (rc)
      return rc;
  }
  if (!any_open)
    return 0; /* the worker has to move past the held chunks first */
  /* wake for the outbox's next departure too: the caller pumps it */
  int rc = net_poll_until(m->servers, (int)m->n_servers, timeout_ms, net_outbox_due_ns(m->outbox), ready);
  if (rc <= 0)
    return rc;
  for (uint32_t s = 0; s < m->n_servers; s++)
    while (ready[s] && !m->has_held[s] && net_recv(m->servers[s], &m->held[s], 0) == 0) {
      if (!mirror_take(m, s, &m->held[s])) {
        m->has_held[s] = true;
        break;
      }
      net_msg_fini(&m->held[s]);
      (*got)++;
    }
  return 0;
}

static bool chunk_in(const struct mirror *m, const struct mirror_table *mt, uint32_t iter, uint64_t c) {
  return mt->chunk_iter[c] == iter && mt->chunk_got[c] == mt->chunk_want[c];
}

bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c) {
  const struct mirror_table *mt = &m->t[t];
  return mt->values && c < m->n_chunks && chunk_in(m, mt, iter, c);
}

bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  const struct mirror_table *mt = &m->t[t];
  if (!mt->values || (mt->iter != iter && mt->iter != iter + 1))
    return false;
  for (uint64_t c = lo / m->chunk_keys; lo < hi && c <= (hi - 1) / m->chunk_keys; c++)
    if (!chunk_in(m, mt, iter, c))
      return false;
  return true;
}

void mirror_release(struct mirror *m) {
  for (uint32_t t = 0; t < m->n_tables; t++)
    m->t[t].busy_from = UINT64_MAX;
}

int mirror_wait(struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  int rc = mirror_need(m, t, iter, lo / m->chunk_keys);
  if (rc || mirror_ready(m, t, iter, lo, hi))
    return rc;
  uint64_t t0 = clock_now_ns(), last = t0;
  while (!mirror_ready(m, t, iter, lo, hi)) {
    int got;
    if ((rc = mirror_recv(m, 200, &got)) < 0 ||
        (rc = net_outbox_pump(m->outbox, clock_now_ns(), NULL)) < 0)
      return rc;
    uint64_t now = clock_now_ns();
    if (got)
      last = now;
    else if (now - last > (uint64_t)(m->timeout_s * 1e9)) {
      log_error("no reply from the servers for table %u in iteration %u after %.0f s", t, iter, m->timeout_s);
      return DSANA_ETIMEDOUT;
    }
  }
  uint64_t t1 = clock_now_ns();
  m->wait_ns += t1 - t0;
  trace_span("wait", "wait", t0, t1, iter, "table", t);
  return 0;
}
