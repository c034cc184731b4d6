/* event.c - the outgoing-message queue of the role state machines, the
 * scheduler's ABORT as servers and workers take it, and the names of the
 * buffers they share (event.h). */
#include "runtime/msg/event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "util/memory/grow.h"
#include "runtime/msg/msg.h"
#include "util/text/log.h"

void rt_buffer_name(char *name, uint32_t s, uint32_t t, uint32_t b) {
  if (s == RT_BUFFER_REGION)
    snprintf(name, RT_BUFFER_NAME, "t%u-b%u", t, b);
  else
    snprintf(name, RT_BUFFER_NAME, "s%u-t%u-b%u", s, t, b);
}

const char *rt_role_name(enum rt_role r) {
  switch (r) {
  case ROLE_SCHEDULER:
    return "scheduler";
  case ROLE_SERVER:
    return "server";
  case ROLE_WORKER:
    return "worker";
  }
  return "unknown";
}

static struct rt_out *rt_push(struct rt_outq *q) {
  struct rt_out *v = grow_for_one(q->v, &q->cap, q->n, sizeof *q->v, 16);
  if (!v)
    return NULL;
  q->v = v;
  struct rt_out *o = &q->v[q->n++];
  memset(o, 0, sizeof *o);
  return o;
}

static int rt_add(struct rt_outq *q, enum rt_role role, uint32_t index, const struct net_peer *to,
                  const struct wire_hdr *h, const void *payload, void *owned, size_t len, uint64_t priority) {
  struct rt_out *o = rt_push(q);
  if (!o) {
    free(owned);
    return DSANA_ENOMEM;
  }
  o->role = role;
  o->index = index;
  if (to)
    o->peer = *to;
  o->hdr = *h;
  o->hdr.payload_bytes = len;
  o->payload = owned ? owned : payload;
  o->owned = owned;
  o->priority = priority;
  return 0;
}

int rt_send(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, const void *payload,
            size_t len) {
  return rt_add(q, role, index, NULL, h, payload, NULL, len, 0);
}

int rt_send_priority(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h,
                     const void *payload, size_t len, uint64_t priority) {
  return rt_add(q, role, index, NULL, h, payload, NULL, len, priority);
}

int rt_send_owned(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, void *payload,
                  size_t len, uint64_t priority) {
  return rt_add(q, role, index, NULL, h, NULL, payload, len, priority);
}

int rt_send_lent(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, const void *payload,
                 size_t len, uint64_t priority, struct net_release rel) {
  int rc = rt_add(q, role, index, NULL, h, payload, NULL, len, priority);
  if (rc)
    rel.fn(rel.arg);
  else
    q->v[q->n - 1].lent = rel;
  return rc;
}

int rt_reply(struct rt_outq *q, const struct net_peer *to, const struct wire_hdr *h, const void *payload, size_t len,
             uint64_t priority) {
  return rt_add(q, ROLE_WORKER, UINT32_MAX, to, h, payload, NULL, len, priority);
}

int rt_reply_owned(struct rt_outq *q, const struct net_peer *to, const struct wire_hdr *h, void *payload, size_t len,
                   uint64_t priority) {
  return rt_add(q, ROLE_WORKER, UINT32_MAX, to, h, NULL, payload, len, priority);
}

void rt_outq_clear(struct rt_outq *q) {
  for (size_t i = 0; i < q->n; i++) {
    free(q->v[i].owned);
    if (q->v[i].lent.fn)
      q->v[i].lent.fn(q->v[i].lent.arg);
  }
  q->n = 0;
}

void rt_outq_fini(struct rt_outq *q) {
  rt_outq_clear(q);
  free(q->v);
  memset(q, 0, sizeof *q);
}

int rt_scheduler_abort(const struct wire_hdr *h, const void *payload, bool said_here) {
  if (h->flags & WIRE_F_ROLLBACK) {
    log_warn("the scheduler says to register again: %.*s", (int)h->payload_bytes, (const char *)payload);
    return DSANA_ERESTART;
  }
  if (h->flags & WIRE_F_ENDED) {
    log_warn("the scheduler ended the job: %.*s", (int)h->payload_bytes, (const char *)payload);
    return DSANA_EENDED;
  }
  if (said_here) /* the scheduler's own line is on the same stderr */
    log_debug("the scheduler stopped the job: %.*s", (int)h->payload_bytes, (const char *)payload);
  else
    log_error("the scheduler stopped the job: %.*s", (int)h->payload_bytes, (const char *)payload);
  return DSANA_EPEER;
}

int rt_watch_scheduler(struct rt_watch *w, const char *addr, const struct msg_cluster_map *map,
                       double register_timeout_s, uint64_t now_ns) {
  if (!w->started_ns)
    w->started_ns = now_ns;
  if (!map && !w->heard && !w->said && now_ns - w->started_ns >= RT_NO_ANSWER_NS) {
    w->said = true;
    log_warn("no answer yet from the scheduler at %s: is it running there, and is --token-file the job's? (a wrong "
             "token is refused without a word); waiting up to %.0f s",
             addr, register_timeout_s);
  }
  double limit = map ? map->peer_timeout_s : register_timeout_s;
  if (now_ns - w->last_heard_ns <= (uint64_t)(limit * 1e9))
    return 0;
  if (map)
    log_error("lost the scheduler at %s: silent for %.1f s", addr, (double)(now_ns - w->last_heard_ns) * 1e-9);
  else if (w->heard)
    log_error("timed out after %.0f s waiting for the cluster map from the scheduler at %s (registered: some other "
              "role never came)",
              limit, addr);
  else
    log_error("timed out after %.0f s waiting for the cluster map from the scheduler at %s (is it running, and is "
              "--token-file the job's?)",
              limit, addr);
  return DSANA_ETIMEDOUT;
}
