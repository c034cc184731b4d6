/* mirror.c - see mirror.h. */
#include "runtime/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "runtime/job.h"
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
  return 0;
}

void mirror_use_shm(struct mirror *m, const char *dir) { m->shm_dir = dir && dir[0] ? dir : NULL; }

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
    free(m->t[t].chunk_got);
    free(m->t[t].have);
  }
  memset(m, 0, sizeof *m);
}

static uint64_t chunk_len(const struct mirror *m, uint64_t c) {
  uint64_t lo = c * m->chunk_keys, hi = lo + m->chunk_keys;
  return (hi > m->n_keys ? m->n_keys : hi) - lo;
}

int mirror_request(struct mirror *m, uint32_t t, uint32_t iter) {
  struct mirror_table *mt = &m->t[t];
  if (mt->iter == iter)
    return 0;
  if (!mt->values) {
    mt->values = calloc(m->n_keys, sizeof(double));
    mt->chunk_got = calloc(m->n_chunks, sizeof(uint64_t));
    mt->have = calloc(m->n_keys / 64 + 1, sizeof(uint64_t));
    if (!mt->values || !mt->chunk_got || !mt->have)
      return DSANA_ENOMEM;
  }
  memset(mt->chunk_got, 0, sizeof(uint64_t) * m->n_chunks);
  memset(mt->have, 0, sizeof(uint64_t) * (m->n_keys / 64 + 1));
  mt->iter = iter;
  mt->missing = m->n_keys;
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

/* Mark [lo, hi) of table mt received, chunk by chunk. */
static void mirror_count(struct mirror *m, struct mirror_table *mt, uint64_t lo, uint64_t hi) {
  for (uint64_t k = lo; k < hi;) {
    uint64_t c = k / m->chunk_keys, end = (c + 1) * m->chunk_keys < hi ? (c + 1) * m->chunk_keys : hi;
    mt->chunk_got[c] += end - k;
    k = end;
  }
  mt->missing -= hi - lo;
}

/* A local server's answer naming its shared buffer: copy from it. */
static const char *mirror_take_shm(struct mirror *m, uint32_t s, const struct wire_hdr *h, uint64_t slo,
                                   uint64_t shi) {
  struct mirror_table *mt = h->table < m->n_tables ? &m->t[h->table] : NULL;
  if (!m->shm_dir || s >= 1024 || !mt || !mt->values || h->iter != mt->iter || h->chunk > 1)
    return "shared buffer answer not expected";
  if (h->key_lo < slo || h->key_hi > shi || h->key_lo >= h->key_hi)
    return "keys outside the server's shard";
  const double **buf = &m->shm[s][h->table][h->chunk];
  if (!*buf) {
    char path[1200];
    shm_path(path, sizeof path, m->shm_dir, s, h->table, h->chunk);
    if (shm_open_ro(path, (shi - slo) * sizeof(double), buf) != 0)
      return "cannot map the server's shared buffer";
  }
  if (!mirror_mark(mt->have, h->key_lo, h->key_hi))
    return "keys received twice";
  memcpy(mt->values + h->key_lo, *buf + (h->key_lo - slo), (h->key_hi - h->key_lo) * sizeof(double));
  mirror_count(m, mt, h->key_lo, h->key_hi);
  return NULL;
}

/* Check and store one reply piece from server s. */
static void mirror_take(struct mirror *m, uint32_t s, const struct net_msg *msg) {
  const struct wire_hdr *h = &msg->hdr;
  if (h->type == WIRE_PULL_SHM) {
    uint64_t slo, shi;
    shard_range(m->n_keys, m->n_servers, s, &slo, &shi);
    const char *why = mirror_take_shm(m, s, h, slo, shi);
    if (why)
      log_warn("dropped PULL_SHM from server %u (table %u, iteration %u): %s", s, h->table, h->iter, why);
    return;
  }
  uint64_t slo, shi;
  shard_range(m->n_keys, m->n_servers, s, &slo, &shi);
  const char *why = NULL;
  struct mirror_table *mt = h->table < m->n_tables ? &m->t[h->table] : NULL;
  uint64_t c = h->key_lo / m->chunk_keys;
  if (h->type != WIRE_PULL_REPLY)
    why = "not a pull reply";
  else if (!mt || !mt->values || h->iter != mt->iter)
    why = "table or iteration not requested";
  else if (h->key_lo < slo || h->key_hi > shi || h->key_lo >= h->key_hi)
    why = "keys outside the server's shard";
  else if ((h->key_hi - 1) / m->chunk_keys != c)
    why = "piece straddles a chunk";
  else if (!mirror_mark(mt->have, h->key_lo, h->key_hi))
    why = "keys received twice";
  if (why) {
    log_warn("dropped %s from server %u (table %u, iteration %u, keys [%llu, %llu)): %s", wire_type_name(h->type),
             s, h->table, h->iter, (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
    return;
  }
  uint64_t t0 = clock_now_ns();
  memcpy(mt->values + h->key_lo, msg->payload, (h->key_hi - h->key_lo) * sizeof(double));
  trace_span("piece in", "transfer", t0, clock_now_ns(), h->iter, "chunk", (double)c);
  mt->chunk_got[c] += h->key_hi - h->key_lo;
  m->bytes_in += WIRE_HDR_BYTES + h->payload_bytes;
  mt->missing -= h->key_hi - h->key_lo;
}

int mirror_recv(struct mirror *m, int timeout_ms, int *got) {
  bool ready[1024];
  *got = 0;
  int rc = net_poll(m->servers, (int)m->n_servers, timeout_ms, ready);
  if (rc <= 0)
    return rc;
  for (uint32_t s = 0; s < m->n_servers; s++) {
    struct net_msg msg;
    while (ready[s] && net_recv(m->servers[s], &msg, 0) == 0) {
      mirror_take(m, s, &msg);
      net_msg_fini(&msg);
      (*got)++;
    }
  }
  return 0;
}

bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c) {
  const struct mirror_table *mt = &m->t[t];
  return mt->iter == iter && mt->values && (mt->missing == 0 || mt->chunk_got[c] == chunk_len(m, c));
}

bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  const struct mirror_table *mt = &m->t[t];
  if (mt->iter != iter || !mt->values)
    return false;
  if (mt->missing == 0 || lo >= hi)
    return true;
  for (uint64_t c = lo / m->chunk_keys; c <= (hi - 1) / m->chunk_keys; c++)
    if (mt->chunk_got[c] != chunk_len(m, c))
      return false;
  return true;
}

int mirror_wait(struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  int rc = mirror_request(m, t, iter);
  if (rc || mirror_ready(m, t, iter, lo, hi))
    return rc;
  uint64_t t0 = clock_now_ns(), last = t0;
  while (!mirror_ready(m, t, iter, lo, hi)) {
    int got, wait = net_outbox_wait_ms(m->outbox, 200);
    if ((rc = mirror_recv(m, wait < 0 ? 200 : wait, &got)) < 0 ||
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
