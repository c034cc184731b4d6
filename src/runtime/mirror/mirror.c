/* mirror.c - a worker's copy of the tables it reads: setup and the dense
 * tables, fetched whole chunk by chunk (see mirror.h). Sparse tables are
 * in mirror_sparse.c, checking and storing answers in mirror_take.c. */
#include "runtime/mirror/mirror.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/core/keymask.h"
#include "runtime/mirror/mirror_shared.h"
#include "util/memory/bigmem.h"
#include "util/text/log.h"

/* The cover of every task's read range of table t (dense tables fetch it). */
static void read_cover(const struct dsana_job *job, uint32_t t, uint64_t *lo, uint64_t *hi) {
  *lo = UINT64_MAX;
  *hi = 0;
  struct job_range r;
  for (uint32_t i = 0; i < job->n_tasks; i++)
    if (job_task_reads(job, i, t, &r) && r.lo < r.hi) {
      *lo = r.lo < *lo ? r.lo : *lo;
      *hi = r.hi > *hi ? r.hi : *hi;
    }
  if (*lo > *hi)
    *lo = *hi = 0;
}

int mirror_init(struct mirror *m, const struct dsana_job *job, const uint64_t *chunk_keys, uint32_t sparse_tables,
                uint32_t n_servers, uint32_t self, const struct rt_env *env, bool share) {
  memset(m, 0, sizeof *m);
  m->n_tables = job->n_tables;
  m->n_servers = n_servers;
  m->self = self;
  m->env = env;
  m->share = share;
  for (uint32_t t = 0; t < job->n_tables; t++) {
    struct mirror_table *mt = &m->t[t];
    const struct job_table *jt = &job->tables[t];
    read_cover(job, t, &mt->cover_lo, &mt->cover_hi);
    mt->used = mt->cover_hi > mt->cover_lo;
    mt->sparse = sparse_tables >> t & 1;
    mt->width = jt->width;
    mt->n_keys = jt->n_keys;
    uint64_t k = chunk_keys[jt->space];
    mt->chunk_keys = k == 0 || k > jt->n_keys ? jt->n_keys : k;
    mt->n_chunks = (jt->n_keys + mt->chunk_keys - 1) / mt->chunk_keys;
    mt->unread = jt->unread;
  }
  if (share && !(m->shm = calloc((size_t)n_servers * DSANA_MAX_TABLES * 2, sizeof *m->shm)))
    return DSANA_ENOMEM;
  return 0;
}

void mirror_fini(struct mirror *m) {
  for (uint32_t s = 0; m->shm && s < m->n_servers; s++)
    for (uint32_t t = 0; t < m->n_tables; t++) {
      uint64_t lo, hi;
      shard_range(m->t[t].n_keys, m->n_servers, s, &lo, &hi);
      for (int b = 0; b < 2; b++) {
        const double *p = m->shm[mirror_shm_slot(s, t, (uint32_t)b)];
        if (p && !m->region[t][b] && m->env->buffer_release) /* a region's slices go with it */
          m->env->buffer_release(m->env->arg, p, (hi - lo) * m->t[t].width * sizeof(double));
      }
    }
  for (uint32_t t = 0; t < m->n_tables; t++)
    for (int b = 0; b < 2; b++)
      if (m->region[t][b] && m->env->buffer_release)
        m->env->buffer_release(m->env->arg, m->region[t][b], m->t[t].n_keys * m->t[t].width * sizeof(double));
  free(m->shm);
  mirror_zc_fini(m);
  for (uint32_t t = 0; t < m->n_tables; t++) {
    struct mirror_table *mt = &m->t[t];
    free(mt->values);
    free(mt->chunk_want);
    for (int p = 0; p < 2; p++) {
      free(mt->chunk_got[p]);
      free(mt->have[p]);
    }
    free(mt->key_iter);
    free(mt->key_req);
    mirror_sparse_free(mt);
  }
  memset(m, 0, sizeof *m);
}

/* Keys in chunk c (the last one may be short). */
static uint64_t mirror_chunk_len(const struct mirror_table *mt, uint64_t c) {
  uint64_t lo = c * mt->chunk_keys, hi = lo + mt->chunk_keys;
  return (hi > mt->n_keys ? mt->n_keys : hi) - lo;
}

/* Wanted keys of [lo, hi): read keys inside the cover. */
static uint64_t mirror_wanted_keys(const struct mirror_table *mt, uint64_t lo, uint64_t hi) {
  lo = lo > mt->cover_lo ? lo : mt->cover_lo;
  hi = hi < mt->cover_hi ? hi : mt->cover_hi;
  return lo < hi ? keymask_count(mt->unread, lo, hi) : 0;
}

/* Ask every server for table t of iteration iter (its buffer emptied). */
static int mirror_ask(struct mirror *m, uint32_t t, uint32_t iter, struct rt_outq *out) {
  struct mirror_table *mt = &m->t[t];
  uint32_t p = iter & 1u;
  memset(mt->chunk_got[p], 0, sizeof(uint64_t) * mt->n_chunks);
  memset(mt->have[p], 0, sizeof(uint64_t) * keymask_words(mt->n_keys));
  mt->asked[p] = iter;
  mt->view[p] = m->share ? mirror_region(m, t, p) : NULL; /* read in place from the start (mirror.h) */
  mt->missing[p] = mirror_wanted_keys(mt, 0, mt->n_keys);
  mt->iter = iter > mt->iter ? iter : mt->iter;
  if (mt->pending == iter)
    mt->pending = 0;
  for (uint32_t s = 0; s < m->n_servers; s++) {
    struct wire_hdr h = wire_hdr_make(WIRE_PULL, m->self);
    h.table = t;
    h.iter = iter;
    h.flags = m->share ? WIRE_F_SHARE_OK : 0;
    shard_range(mt->n_keys, m->n_servers, s, &h.key_lo, &h.key_hi);
    h.key_lo = h.key_lo > mt->cover_lo ? h.key_lo : mt->cover_lo;
    h.key_hi = h.key_hi < mt->cover_hi ? h.key_hi : mt->cover_hi;
    if (h.key_lo >= h.key_hi)
      continue;
    h.flags |= mirror_zc_ask_flags(m, mt, iter, h.key_lo, h.key_hi);
    for (uint32_t b = 0; m->share && b < 2; b++)
      mirror_shm_map(m, s, t, b); /* before any answer: see mirror_shm_map */
    int rc = rt_send(out, ROLE_SERVER, s, &h, NULL, 0);
    if (rc)
      return rc;
  }
  return 0;
}

static int mirror_alloc_dense(struct mirror_table *mt) {
  mt->values = big_calloc(2 * mt->n_keys * mt->width, sizeof(double));
  mt->chunk_want = calloc(mt->n_chunks, sizeof(uint64_t));
  for (int p = 0; p < 2; p++) {
    mt->chunk_got[p] = calloc(mt->n_chunks, sizeof(uint64_t));
    mt->have[p] = calloc(keymask_words(mt->n_keys), sizeof(uint64_t));
    if (!mt->chunk_got[p] || !mt->have[p])
      return DSANA_ENOMEM;
  }
  if (!mt->values || !mt->chunk_want)
    return DSANA_ENOMEM;
  for (uint64_t c = 0; c < mt->n_chunks; c++)
    mt->chunk_want[c] = mirror_wanted_keys(mt, c * mt->chunk_keys, c * mt->chunk_keys + mirror_chunk_len(mt, c));
  return 0;
}

/* Compressing, iter-1 is asked for and still arriving: its pieces may be
 * XORed with iter-2, which buffer iter & 1 holds until iter is asked for. */
static bool ask_waits(const struct mirror *m, const struct mirror_table *mt, uint32_t iter) {
  uint32_t q = (iter - 1) & 1u;
  return m->compress && iter > 1 && mt->asked[q] == iter - 1 && mt->missing[q] > 0;
}

int mirror_request(struct mirror *m, uint32_t t, uint32_t iter, struct rt_outq *out) {
  struct mirror_table *mt = &m->t[t];
  if (!mt->values && mirror_alloc_dense(mt) != 0)
    return DSANA_ENOMEM;
  if (mt->asked[iter & 1u] == iter || mt->pending == iter)
    return 0;
  if (mt->pending) { /* a later iteration is wanted: the waiting one goes now */
    int rc = mirror_ask(m, t, mt->pending, out);
    if (rc)
      return rc;
  }
  if (ask_waits(m, mt, iter)) {
    mt->pending = iter;
    return 0;
  }
  return mirror_ask(m, t, iter, out);
}

void mirror_iter_start(struct mirror *m, uint32_t iter) {
  m->iter_now = iter;
  m->ahead_in = m->ahead_raw = 0;
}

/* Request iteration iter of every dense table some task reads (all) or
 * that this worker has read before. */
static int prefetch(struct mirror *m, uint32_t iter, bool all, struct rt_outq *out) {
  for (uint32_t t = 0; t < m->n_tables; t++)
    if (m->t[t].used && !m->t[t].sparse && (all || m->t[t].values)) {
      int rc = mirror_request(m, t, iter, out);
      if (rc)
        return rc;
    }
  return 0;
}

int mirror_prefetch_all(struct mirror *m, uint32_t iter, struct rt_outq *out) { return prefetch(m, iter, true, out); }

bool mirror_all_ready(const struct mirror *m, uint32_t iter) {
  for (uint32_t t = 0; t < m->n_tables; t++) {
    const struct mirror_table *mt = &m->t[t];
    if (mt->used && !mt->sparse && !mirror_ready(m, t, iter, mt->cover_lo, mt->cover_hi))
      return false;
  }
  return true;
}

int mirror_prefetch(struct mirror *m, uint32_t iter, struct rt_outq *out) { return prefetch(m, iter, false, out); }

int mirror_kick(struct mirror *m, struct rt_outq *out) {
  for (uint32_t t = 0; t < m->n_tables; t++) {
    struct mirror_table *mt = &m->t[t];
    int rc = mt->pending && !ask_waits(m, mt, mt->pending) ? mirror_ask(m, t, mt->pending, out) : 0;
    if (rc)
      return rc;
  }
  return mirror_zc_kick(m, out);
}

uint64_t mirror_missing(const struct mirror *m, uint32_t t) {
  const struct mirror_table *mt = &m->t[t];
  return mt->iter ? mt->missing[mt->iter & 1u] : 0;
}

const double *mirror_values(const struct mirror *m, uint32_t t, uint32_t iter) {
  const struct mirror_table *mt = &m->t[t];
  return !mt->values || mt->sparse ? mt->values : mirror_read_buf(mt, iter);
}

bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c) {
  const struct mirror_table *mt = &m->t[t];
  return mt->values && c < mt->n_chunks && mirror_chunk_in(mt, iter, c);
}

bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  const struct mirror_table *mt = &m->t[t];
  if (!mt->values || mt->asked[iter & 1u] != iter)
    return false;
  for (uint64_t c = lo / mt->chunk_keys; lo < hi && c <= (hi - 1) / mt->chunk_keys; c++)
    if (!mirror_chunk_in(mt, iter, c))
      return false;
  return true;
}
