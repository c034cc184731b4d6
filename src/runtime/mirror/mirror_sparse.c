/* mirror_sparse.c - tables read by key lists (see mirror.h): a task's keys
 * are asked for once per iteration per worker, in one request per server
 * named by the task, and answers place values by the request's keys. */
#include <stdlib.h>
#include <string.h>

#include "runtime/mirror/mirror.h"
#include "runtime/mirror/mirror_shared.h"
#include "runtime/record/trace.h"
#include "util/text/log.h"
#include "util/numeric/sorted.h"

struct mirror_req {
  struct mirror_req *next;
  uint32_t seq, server, task, iter;
  uint64_t *keys, n, got;
  uint64_t *have; /* bitmap over keys[]: values received */
};

static void req_free(struct mirror_req *r) {
  free(r->keys);
  free(r->have);
  free(r);
}

void mirror_sparse_free(struct mirror_table *mt) {
  for (struct mirror_req *r = mt->reqs, *n; r; r = n) {
    n = r->next;
    req_free(r);
  }
  mt->reqs = NULL;
}

/* Every request up to req_done answered: the smallest open one, minus 1. */
static void update_done(struct mirror_table *mt) {
  uint32_t low = mt->req_next;
  for (const struct mirror_req *r = mt->reqs; r; r = r->next)
    low = r->seq < low ? r->seq : low;
  mt->req_done = low - 1;
}

static int sparse_alloc(struct mirror_table *mt) {
  if (mt->values)
    return 0;
  mt->values = calloc(mt->n_keys * mt->width, sizeof(double));
  mt->key_iter = calloc(mt->n_keys, sizeof(uint32_t));
  mt->key_req = calloc(mt->n_keys, sizeof(uint32_t));
  return mt->values && mt->key_iter && mt->key_req ? 0 : DSANA_ENOMEM;
}

/* A new iteration: earlier requests are of no use any more. */
static void sparse_new_iter(struct mirror_table *mt, uint32_t iter) {
  mirror_sparse_free(mt);
  mt->req_iter = iter;
  mt->req_next = 1;
  mt->req_done = 0;
  mt->req_open = 0;
}

/* One request of keys[0..n) (inside server s's shard) to server s. */
static int send_req(struct mirror *m, uint32_t t, uint32_t s, uint32_t task, uint64_t *keys, uint64_t n,
                    struct rt_outq *out) {
  struct mirror_table *mt = &m->t[t];
  struct mirror_req *r = calloc(1, sizeof *r);
  if (r)
    r->have = calloc(n / 64 + 1, sizeof(uint64_t));
  if (!r || !r->have) {
    free(r);
    free(keys);
    return DSANA_ENOMEM;
  }
  *r = (struct mirror_req){.next = mt->reqs,
                           .seq = mt->req_next,
                           .server = s,
                           .task = task,
                           .iter = mt->req_iter,
                           .keys = keys,
                           .n = n,
                           .have = r->have};
  mt->reqs = r;
  mt->req_open++;
  struct wire_hdr h = wire_hdr_make(WIRE_PULL, m->self);
  h.table = t;
  h.iter = mt->req_iter;
  h.task = task;
  h.flags = WIRE_F_KEYS;
  h.count = (uint32_t)n;
  h.key_lo = keys[0];
  h.key_hi = keys[n - 1] + 1;
  return rt_send(out, ROLE_SERVER, s, &h, keys, n * sizeof *keys);
}

/* Split the new keys by server (they are ascending) and send one request
 * each; every one gets sequence mt->req_next. */
static int send_split(struct mirror *m, uint32_t t, uint32_t task, const uint64_t *fresh, uint64_t n,
                      struct rt_outq *out) {
  struct mirror_table *mt = &m->t[t];
  for (uint64_t i = 0; i < n;) {
    uint32_t s = shard_of(mt->n_keys, m->n_servers, fresh[i]);
    uint64_t lo, hi, j = i;
    shard_range(mt->n_keys, m->n_servers, s, &lo, &hi);
    while (j < n && fresh[j] < hi)
      j++;
    uint64_t *part = malloc((j - i) * sizeof *part);
    if (!part)
      return DSANA_ENOMEM;
    memcpy(part, fresh + i, (j - i) * sizeof *part);
    int rc = send_req(m, t, s, task, part, j - i, out);
    if (rc)
      return rc;
    i = j;
  }
  return 0;
}

int mirror_sparse_request(struct mirror *m, uint32_t t, uint32_t iter, uint32_t task, const uint64_t *keys, uint64_t n,
                          uint32_t *ticket, struct rt_outq *out) {
  struct mirror_table *mt = &m->t[t];
  if (sparse_alloc(mt) != 0)
    return DSANA_ENOMEM;
  if (mt->req_iter != iter)
    sparse_new_iter(mt, iter);
  uint64_t *fresh = malloc((n ? n : 1) * sizeof *fresh), nf = 0;
  if (!fresh)
    return DSANA_ENOMEM;
  uint32_t seq = mt->req_next, last = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = keys[i];
    if (k >= mt->n_keys || (i && k <= keys[i - 1])) {
      free(fresh);
      log_error("task %u: the keys it reads of table %u are not ascending inside the table", task, t);
      return DSANA_EINVAL;
    }
    if (mt->key_iter[k] == iter) {
      last = mt->key_req[k] > last ? mt->key_req[k] : last;
      continue;
    }
    mt->key_iter[k] = iter;
    mt->key_req[k] = seq;
    fresh[nf++] = k;
  }
  int rc = nf ? send_split(m, t, task, fresh, nf, out) : 0;
  free(fresh);
  if (nf) {
    mt->req_next++;
    last = seq;
  }
  *ticket = last;
  return rc;
}

bool mirror_sparse_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint32_t ticket) {
  const struct mirror_table *mt = &m->t[t];
  return ticket == 0 || (mt->req_iter == iter && ticket <= mt->req_done);
}

static struct mirror_req **find_req(struct mirror_table *mt, uint32_t s, uint32_t task, uint32_t iter) {
  for (struct mirror_req **pp = &mt->reqs; *pp; pp = &(*pp)->next)
    if ((*pp)->server == s && (*pp)->task == task && (*pp)->iter == iter)
      return pp;
  return NULL;
}

/* Mark indices [i0, i1) of r received; false if one already was. */
static bool mark_idx(struct mirror_req *r, uint64_t i0, uint64_t i1) {
  for (uint64_t i = i0; i < i1; i++)
    if (r->have[i / 64] >> (i % 64) & 1)
      return false;
  for (uint64_t i = i0; i < i1; i++)
    r->have[i / 64] |= 1ull << (i % 64);
  return true;
}

void mirror_sparse_take(struct mirror *m, uint32_t s, const struct net_msg *msg) {
  const struct wire_hdr *h = &msg->hdr;
  struct mirror_table *mt = &m->t[h->table];
  struct mirror_req **pp = mt->values ? find_req(mt, s, h->task, h->iter) : NULL;
  struct mirror_req *r = pp ? *pp : NULL;
  const char *why = NULL;
  uint64_t i0 = 0, i1 = 0;
  if (!r) {
    m->stale++; /* answered whole already, or of another iteration */
    log_debug("dropped PULL_REPLY from server %u (table %u, task %u, iteration %u): no such request", s, h->table,
              h->task, h->iter);
    return;
  }
  i0 = sorted_lower_bound_u64(r->keys, r->n, h->key_lo);
  i1 = sorted_lower_bound_u64(r->keys, r->n, h->key_hi);
  if (h->flags & WIRE_F_ZSTD)
    why = "compressed answer not asked for"; /* key lists ask for plain values */
  else if (!(h->flags & WIRE_F_PACKED) || h->key_lo >= h->key_hi || h->count != i1 - i0 ||
           h->payload_bytes != (i1 - i0) * mt->width * sizeof(double))
    why = "values do not match the keys asked for in the range";
  else if (!mark_idx(r, i0, i1)) {
    why = "keys received twice";
    m->stale++;
  }
  if (why) {
    log_warn("dropped PULL_REPLY from server %u (table %u, task %u, keys [%llu, %llu)): %s", s, h->table, h->task,
             (unsigned long long)h->key_lo, (unsigned long long)h->key_hi, why);
    return;
  }
  const double *src = msg->payload;
  for (uint64_t i = i0; i < i1; i++)
    memcpy(mt->values + r->keys[i] * mt->width, src + (i - i0) * mt->width, mt->width * sizeof(double));
  mirror_count_in(m, h->iter, WIRE_HDR_BYTES + h->payload_bytes,
                  WIRE_HDR_BYTES + h->payload_bytes); /* never compressed */
  r->got += i1 - i0;
  if (r->got == r->n) {
    *pp = r->next;
    req_free(r);
    mt->req_open--;
    update_done(mt);
  }
}
