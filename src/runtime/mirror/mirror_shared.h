/*
 * mirror_shared.h - what the files of the mirror share beyond its state
 * (mirror_state.h): inline helpers on it, and the functions of
 * mirror_zc.c (compressed pieces) and mirror_sparse.c (key-list
 * requests) that mirror.c (setup and dense tables) and mirror_take.c
 * (answers) call. Private to them.
 */
#ifndef DSANA_RUNTIME_MIRROR_SHARED_H
#define DSANA_RUNTIME_MIRROR_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/mirror/mirror_state.h"

/* Index of server s's buffer b of table t in mirror.shm. */
static inline size_t mirror_shm_slot(uint32_t s, uint32_t t, uint32_t b) {
  return ((size_t)s * DSANA_MAX_TABLES + t) * 2 + b;
}

/* The servers' region of buffer b of table t (every server's slice of
 * it, net_buffer_join), mapped once it can be; NULL: none (yet: a server
 * may not have made its buffers when a worker first asks; never, once a
 * server's buffer of its own was mapped). */
static inline const double *mirror_region(struct mirror *m, uint32_t t, uint32_t b) {
  if (!m->region[t][b] && !m->own_buffers[t][b] && m->env->buffer_map) {
    char name[RT_BUFFER_NAME];
    rt_buffer_name(name, RT_BUFFER_REGION, t, b);
    size_t bytes = m->t[t].n_keys * m->t[t].width * sizeof(double);
    if (m->env->buffer_map(m->env->arg, name, bytes, &m->region[t][b]))
      m->region[t][b] = NULL;
  }
  return m->region[t][b];
}

/* Server s's buffer b of table t, mapped now if it was not (NULL if it
 * cannot be). A worker maps a server's buffers when it first asks that
 * server for the table, while the server is surely there: a server that
 * finished releases its buffers, and an answer to a pull sent just before
 * (a worker fetching ahead of the job's end) would otherwise find nothing
 * to map. */
static inline const double *mirror_shm_map(struct mirror *m, uint32_t s, uint32_t t, uint32_t b) {
  const double **buf = &m->shm[mirror_shm_slot(s, t, b)];
  if (*buf)
    return *buf;
  char name[RT_BUFFER_NAME];
  uint64_t lo, hi;
  shard_range(m->t[t].n_keys, m->n_servers, s, &lo, &hi);
  if (mirror_region(m, t, b))
    return *buf = m->region[t][b] + lo * m->t[t].width; /* the servers' slices of one region */
  rt_buffer_name(name, s, t, b);
  if (!m->env->buffer_map || m->env->buffer_map(m->env->arg, name, (hi - lo) * m->t[t].width * sizeof(double), buf))
    *buf = NULL;
  m->own_buffers[t][b] |= *buf != NULL; /* the servers' buffers are not slices of a region */
  return *buf;
}

/* A piece of iteration iter was taken: `bytes` as it came, `raw` before
 * compression. */
static inline void mirror_count_in(struct mirror *m, uint32_t iter, uint64_t bytes, uint64_t raw) {
  m->bytes_in += bytes;
  m->bytes_in_raw += raw;
  if (iter > m->iter_now) {
    m->ahead_in += bytes;
    m->ahead_raw += raw;
  }
}

/* Chunk c holds iteration iter's complete values (in buffer iter & 1). */
static inline bool mirror_chunk_in(const struct mirror_table *mt, uint32_t iter, uint64_t c) {
  return iter && mt->asked[iter & 1u] == iter && mt->chunk_got[iter & 1u][c] == mt->chunk_want[c];
}
/* Buffer p of dense table mt, indexed by key. */
static inline double *mirror_buf(const struct mirror_table *mt, uint32_t p) {
  return mt->values + (p & 1u) * mt->n_keys * mt->width;
}

/* Where iteration p's values of dense table mt are read: in place in the
 * servers' region, or buffer p. */
static inline const double *mirror_read_buf(const struct mirror_table *mt, uint32_t p) {
  return mt->view[p & 1u] ? mt->view[p & 1u] : mirror_buf(mt, p);
}

/* mirror_zc.c: compressed pieces */
/* The compression flags of a pull of [lo, hi) of mt for iter. */
uint32_t mirror_zc_ask_flags(const struct mirror *m, const struct mirror_table *mt, uint32_t iter, uint64_t lo,
                             uint64_t hi);
/* Decode compressed piece msg from server s (checked but for its
 * payload) of mt: the values in *src (the mirror's scratch), or why not
 * (nothing changed); a piece that does not decode is asked for again,
 * plainly, by the next mirror_zc_kick(). */
const char *mirror_zc_decode(struct mirror *m, uint32_t s, const struct mirror_table *mt, const struct net_msg *msg,
                             const double **src);
/* Send the plain asks for pieces that did not decode. */
int mirror_zc_kick(struct mirror *m, struct rt_outq *out);
void mirror_zc_fini(struct mirror *m);

/* mirror_sparse.c */
void mirror_sparse_free(struct mirror_table *mt);
/* An answer to a sparse request of table t from server s (see mirror_take). */
void mirror_sparse_take(struct mirror *m, uint32_t s, const struct net_msg *msg);

#endif
