/*
 * server_shard.c - a server's storage: its shard of every table (two
 * versions, shared with local workers when the transport allows), SUM
 * accumulators, and per key space the segments finish() runs on (see
 * server_state.h).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/server/server_state.h"
#include "util/memory/bigmem.h"
#include "util/text/log.h"
#include "util/numeric/sorted.h"

double *shard_by_key(const struct server *sv, uint32_t t, uint32_t b) {
  return sv->t[t].buf[b] - sv->t[t].lo * sv->t[t].width;
}

/* Version buffer b of table t shared with local workers, as this shard's
 * slice of the table's region (every server's slice in one buffer, which a
 * worker reads in place: mirror.h), else (a transport without regions, an
 * empty shard) as a buffer of its own: 0, or 1 when not shared, or
 * DSANA_ENOMEM (a worker would look for the slice in the region). */
static int share_buffer(struct server *sv, uint32_t t, uint32_t b, size_t n) {
  struct stable *st = &sv->t[t];
  char name[RT_BUFFER_NAME];
  size_t key_bytes = st->width * sizeof(double);
  rt_buffer_name(name, RT_BUFFER_REGION, t, b);
  int rc = n && sv->env->buffer_join ? sv->env->buffer_join(sv->env->arg, name, sv->job.tables[t].n_keys * key_bytes,
                                                            st->lo * key_bytes, n * sizeof(double), &st->buf[b])
                                     : DSANA_ENOTSUP;
  if (rc != DSANA_ENOTSUP)
    return rc ? DSANA_ENOMEM : 0;
  rt_buffer_name(name, sv->index, t, b);
  return sv->env->buffer_create && sv->env->buffer_create(sv->env->arg, name, n * sizeof(double), &st->buf[b]) == 0 ? 0
                                                                                                                    : 1;
}

static int alloc_table(struct server *sv, uint32_t t) {
  struct stable *st = &sv->t[t];
  const struct job_table *jt = &sv->job.tables[t];
  shard_range(jt->n_keys, sv->map->n_servers, sv->index, &st->lo, &st->hi);
  st->width = jt->width;
  size_t n = (size_t)(st->hi - st->lo) * st->width;
  if (jt->rule == DSANA_RULE_STATE) { /* one copy: both versions are it */
    st->buf[0] = st->buf[1] = big_calloc(n ? n : 1, sizeof(double));
    st->state = true;
    return st->buf[0] ? 0 : DSANA_ENOMEM;
  }
  for (uint32_t b = 0; b < 2; b++) {
    int rc = share_buffer(sv, t, b, n);
    if (rc < 0)
      return rc;
    if (rc == 0) {
      st->shared = true;
      continue;
    }
    if (st->shared || !(st->buf[b] = big_calloc(n ? n : 1, sizeof(double))))
      return DSANA_ENOMEM; /* both shared or neither */
  }
  if (jt->rule == DSANA_RULE_SUM && !(st->acc = calloc(n ? n : 1, sizeof *st->acc)))
    return DSANA_ENOMEM;
  st->isum = jt->rule == DSANA_RULE_ISUM;
  return 0;
}

static int u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Task t's write ranges in key space s, clipped to the shard, merged. */
static uint32_t task_cover(const struct server *sv, uint32_t t, uint32_t s, uint64_t *lo, uint64_t *hi) {
  const struct sspace *sp = &sv->sp[s];
  *lo = UINT64_MAX;
  *hi = 0;
  for (uint32_t i = sv->job.wr_off[t]; i < sv->job.wr_off[t + 1]; i++) {
    const struct job_range *r = &sv->job.wr[i];
    uint64_t a = r->lo > sp->lo ? r->lo : sp->lo, b = r->hi < sp->hi ? r->hi : sp->hi;
    if (sv->job.tables[r->table].space != s || a >= b)
      continue;
    *lo = a < *lo ? a : *lo;
    *hi = b > *hi ? b : *hi;
  }
  return *lo < *hi;
}

/* Segment boundaries of key space s: shard edges, chunk edges, task write
 * range edges. */
static int space_bounds(struct server *sv, uint32_t s) {
  struct sspace *sp = &sv->sp[s];
  size_t cap = 2 + (size_t)sp->n_chunks + 2 * (size_t)sv->job.n_tasks, n = 0;
  uint64_t *v = malloc(cap * sizeof *v);
  if (!v)
    return DSANA_ENOMEM;
  v[n++] = sp->lo;
  v[n++] = sp->hi;
  for (uint64_t c = sp->chunk0 + 1; c < sp->chunk0 + sp->n_chunks; c++)
    v[n++] = c * sp->chunk_keys;
  uint64_t lo, hi;
  for (uint32_t t = 0; t < sv->job.n_tasks; t++)
    if (task_cover(sv, t, s, &lo, &hi)) {
      v[n++] = lo;
      v[n++] = hi;
    }
  qsort(v, n, sizeof *v, u64_cmp);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || v[i] != v[u - 1])
      v[u++] = v[i];
  sp->seg_lo = v;
  sp->n_segs = (uint32_t)(u - 1);
  return 0;
}

/* The segment starting at key k of space s (a boundary). */
static uint32_t seg_at(const struct sspace *sp, uint64_t k) {
  return (uint32_t)sorted_lower_bound_u64(sp->seg_lo, sp->n_segs, k);
}

static int alloc_space(struct server *sv, uint32_t s) {
  struct sspace *sp = &sv->sp[s];
  sp->n_keys = sv->job.space_keys[s];
  shard_range(sp->n_keys, sv->map->n_servers, sv->index, &sp->lo, &sp->hi);
  uint64_t k = sv->map->chunk_keys[s];
  sp->chunk_keys = k == 0 || k > sp->n_keys ? sp->n_keys : k;
  sp->chunk0 = sp->lo / sp->chunk_keys;
  sp->n_chunks = sp->hi > sp->lo ? (sp->hi - 1) / sp->chunk_keys - sp->chunk0 + 1 : 0;
  int rc = space_bounds(sv, s);
  if (rc)
    return rc;
  size_t nc = sp->n_chunks ? sp->n_chunks : 1, ns = sp->n_segs ? sp->n_segs : 1;
  sp->seg_writers = calloc(ns, sizeof *sp->seg_writers);
  sp->seg_left = calloc(ns, sizeof *sp->seg_left);
  sp->chunk_segs = calloc(nc, sizeof *sp->chunk_segs);
  sp->chunk_left = calloc(nc, sizeof *sp->chunk_left);
  sp->final[0] = malloc(nc * sizeof *sp->final[0]);
  sp->final[1] = malloc(nc * sizeof *sp->final[1]);
  if (!sp->seg_writers || !sp->seg_left || !sp->chunk_segs || !sp->chunk_left || !sp->final[0] || !sp->final[1])
    return DSANA_ENOMEM;
  for (uint32_t g = 0; g < sp->n_segs; g++)
    sp->chunk_segs[sp->seg_lo[g] / sp->chunk_keys - sp->chunk0]++;
  for (uint64_t c = 0; c < sp->n_chunks; c++)
    sp->final[0][c] = sp->chunk0 + c; /* cur as resumed from a checkpoint */
  return 0;
}

/* Per task, its segments in every key space, and the writers per segment. */
static int index_tasks(struct server *sv) {
  uint32_t n = sv->job.n_tasks;
  sv->tseg_off = calloc((size_t)n + 1, sizeof *sv->tseg_off);
  sv->tseg = malloc(((size_t)n * sv->job.n_spaces + 1) * sizeof *sv->tseg);
  if (!sv->tseg_off || !sv->tseg)
    return DSANA_ENOMEM;
  uint32_t at = 0;
  for (uint32_t t = 0; t < n; t++) {
    sv->tseg_off[t] = at;
    for (uint32_t s = 0; s < sv->job.n_spaces; s++) {
      uint64_t lo, hi;
      if (!task_cover(sv, t, s, &lo, &hi))
        continue;
      struct tseg g = {.space = s, .s0 = seg_at(&sv->sp[s], lo), .s1 = seg_at(&sv->sp[s], hi)};
      for (uint32_t k = g.s0; k < g.s1; k++)
        sv->sp[s].seg_writers[k]++;
      sv->tseg[at++] = g;
    }
  }
  sv->tseg_off[n] = at;
  return 0;
}

int shard_alloc(struct server *sv) {
  int rc = 0;
  for (uint32_t t = 0; !rc && t < sv->job.n_tables; t++)
    rc = alloc_table(sv, t);
  for (uint32_t s = 0; !rc && s < sv->job.n_spaces; s++)
    rc = alloc_space(sv, s);
  if (!rc)
    rc = index_tasks(sv);
  uint32_t n = sv->job.n_tasks;
  sv->ended = calloc(n, 1);
  sv->sender = calloc(n, sizeof *sv->sender);
  sv->staging = calloc(n, sizeof *sv->staging);
  sv->through = calloc(n, sizeof *sv->through);
  sv->released = calloc(n, sizeof *sv->released);
  sv->epoch = calloc(n, sizeof *sv->epoch);
  sv->end_iter = calloc(n, sizeof *sv->end_iter);
  sv->pushed_hi = calloc(sv->job.wr_off[n] + 1, sizeof *sv->pushed_hi);
  sv->running_seen = calloc((size_t)sv->map->n_workers * DSANA_MAX_TABLES + 1, sizeof *sv->running_seen);
  if (!rc && (!sv->ended || !sv->sender || !sv->staging || !sv->through || !sv->released || !sv->running_seen ||
              !sv->epoch || !sv->end_iter || !sv->pushed_hi))
    rc = DSANA_ENOMEM;
  if (rc)
    log_error("cannot allocate the shard: %s", dsana_strerror(rc));
  return rc;
}

void shard_free(struct server *sv) {
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++) {
    struct stable *st = &sv->t[t];
    for (uint32_t b = 0; b < (st->state ? 1u : 2u); b++) {
      if (st->shared && sv->env->buffer_release)
        sv->env->buffer_release(sv->env->arg, st->buf[b], (st->hi - st->lo) * st->width * sizeof(double));
      else
        free(st->buf[b]);
    }
    free(st->acc);
    struct sspace *sp = &sv->sp[t];
    free(sp->seg_lo);
    free(sp->seg_writers);
    free(sp->seg_left);
    free(sp->chunk_segs);
    free(sp->chunk_left);
    free(sp->final[0]);
    free(sp->final[1]);
  }
  free(sv->tseg_off);
  free(sv->tseg);
  free(sv->ended);
  free(sv->sender);
  free(sv->staging);
  free(sv->through);
  free(sv->released);
  free(sv->epoch);
  free(sv->end_iter);
  free(sv->pushed_hi);
  free(sv->running_seen);
}
