/* outbox.c - see outbox.h. Messages wait out the link's latency in a queue
 * ordered by the time they are ready (queued + latency, so in the order
 * they came), then in a heap ordered by (priority, sequence); whenever the
 * link is free it carries the best of those ready by then, one at a time
 * at the token bucket's rate (the one on the wire is `flight`). A message
 * of high priority that is still in its latency does not hold up one that
 * is ready: latency is pipelined, the link never idles while a message is
 * ready. */
#include "net/link/outbox.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "net/link/token_bucket.h"
#include "util/thread/clock.h"
#include "util/memory/grow.h"

struct pending {
  uint64_t priority, seq;
  uint64_t ready_ns; /* queued + latency */
  struct net_sock *sock;
  struct net_peer to;
  int has_to;
  struct wire_hdr hdr;
  void *payload; /* owned copy */
  size_t len;
};

/* A binary heap of pending messages under one order. */
struct pheap {
  struct pending *v;
  size_t n, cap;
  int (*before)(const struct pending *a, const struct pending *b);
};

struct net_outbox {
  struct token_bucket tb; /* the link: bytes per second (0 = unlimited), no burst */
  uint64_t latency_ns;
  uint64_t seq;
  struct pheap waiting; /* in their latency, by ready time */
  struct pheap ready;   /* ready, by priority */
  struct pending flight;
  bool has_flight;
  uint64_t flight_end_ns; /* when flight's last byte has crossed */
};

static int by_priority(const struct pending *a, const struct pending *b) {
  return a->priority < b->priority || (a->priority == b->priority && a->seq < b->seq);
}

static int by_ready(const struct pending *a, const struct pending *b) {
  return a->ready_ns < b->ready_ns || (a->ready_ns == b->ready_ns && a->seq < b->seq);
}

static void heap_swap(struct pending *a, struct pending *b) {
  struct pending t = *a;
  *a = *b;
  *b = t;
}

static void heap_up(struct pheap *h, size_t i) {
  while (i > 0 && h->before(&h->v[i], &h->v[(i - 1) / 2])) {
    heap_swap(&h->v[i], &h->v[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
}

static void heap_down(struct pheap *h, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && h->before(&h->v[l], &h->v[m]))
      m = l;
    if (r < h->n && h->before(&h->v[r], &h->v[m]))
      m = r;
    if (m == i)
      return;
    heap_swap(&h->v[i], &h->v[m]);
    i = m;
  }
}

static int heap_push(struct pheap *h, const struct pending *p) {
  struct pending *v = grow_for_one(h->v, &h->cap, h->n, sizeof *h->v, 64);
  if (!v)
    return DSANA_ENOMEM;
  h->v = v;
  h->v[h->n++] = *p;
  heap_up(h, h->n - 1);
  return 0;
}

static struct pending heap_pop(struct pheap *h) {
  struct pending top = h->v[0];
  h->v[0] = h->v[--h->n];
  heap_down(h, 0);
  return top;
}

static void heap_free(struct pheap *h) {
  for (size_t i = 0; i < h->n; i++)
    free(h->v[i].payload);
  free(h->v);
  h->v = NULL;
  h->n = h->cap = 0;
}

int net_outbox_create(double bandwidth_bytes_per_s, double latency_s, struct net_outbox **out) {
  if (!(bandwidth_bytes_per_s >= 0) || !(latency_s >= 0))
    return DSANA_EINVAL;
  struct net_outbox *o = calloc(1, sizeof *o);
  if (!o)
    return DSANA_ENOMEM;
  token_bucket_init(&o->tb, bandwidth_bytes_per_s, 0, clock_now_ns());
  o->latency_ns = (uint64_t)(latency_s * 1e9);
  o->waiting.before = by_ready;
  o->ready.before = by_priority;
  *out = o;
  return 0;
}

void net_outbox_destroy(struct net_outbox *o) {
  if (!o)
    return;
  net_outbox_discard(o);
  free(o->waiting.v);
  free(o->ready.v);
  free(o);
}

int net_outbox_emulating(const struct net_outbox *o) { return o && (o->tb.rate_bytes_per_s > 0 || o->latency_ns > 0); }
size_t net_outbox_pending(const struct net_outbox *o) {
  return o ? o->waiting.n + o->ready.n + (o->has_flight ? 1 : 0) : 0;
}

/* Queue a message whose payload the outbox owns from now on. */
static int outbox_queue(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                        void *payload, size_t len, uint64_t priority) {
  struct pending p = {.priority = priority,
                      .seq = o->seq++,
                      .ready_ns = clock_now_ns() + o->latency_ns,
                      .sock = s,
                      .hdr = *h,
                      .payload = payload,
                      .len = len};
  if (to) {
    p.to = *to;
    p.has_to = 1;
  }
  int rc = heap_push(&o->waiting, &p);
  if (rc)
    free(payload);
  return rc;
}

int net_outbox_send(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                    const void *payload, size_t len, uint64_t priority) {
  if (!net_outbox_emulating(o))
    return net_send(s, to, h, payload, len);
  void *copy = NULL;
  if (len && !(copy = malloc(len)))
    return DSANA_ENOMEM;
  if (len)
    memcpy(copy, payload, len);
  return outbox_queue(o, s, to, h, copy, len, priority);
}

int net_outbox_send_lent(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                         const void *payload, size_t len, uint64_t priority, struct net_release rel) {
  if (!net_outbox_emulating(o))
    return net_send_lent(s, to, h, payload, len, rel);
  int rc = net_outbox_send(o, s, to, h, payload, len, priority);
  rel.fn(rel.arg);
  return rc;
}

int net_outbox_send_owned(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                          void *payload, size_t len, uint64_t priority) {
  if (!net_outbox_emulating(o))
    return net_send_owned(s, to, h, payload, len);
  if (len == 0) {
    free(payload);
    payload = NULL;
  }
  return outbox_queue(o, s, to, h, payload, len, priority);
}

/* Hand message p to the transport (the copy made when it was queued goes
 * to ZeroMQ as it is). */
static int outbox_deliver(struct pending *p) {
  return net_send_owned(p->sock, p->has_to ? &p->to : NULL, &p->hdr, p->payload, p->len);
}

/* When the link can start its next message: free, and one ready (0: none
 * pending). */
static uint64_t next_start_ns(const struct net_outbox *o) {
  if (o->ready.n == 0 && o->waiting.n == 0)
    return 0;
  uint64_t free_ns = o->tb.rate_bytes_per_s > 0 ? o->tb.tat_ns : 0;
  uint64_t ready_ns = o->ready.n ? 0 : o->waiting.v[0].ready_ns;
  uint64_t start = free_ns > ready_ns ? free_ns : ready_ns;
  return start ? start : 1;
}

int net_outbox_pump(struct net_outbox *o, uint64_t now_ns, uint64_t *next_ns) {
  if (next_ns)
    *next_ns = 0;
  int first_err = 0;
  while (o) {
    if (o->has_flight) {
      if (o->flight_end_ns > now_ns) {
        if (next_ns)
          *next_ns = o->flight_end_ns;
        return first_err;
      }
      o->has_flight = false;
      /* a message that cannot be sent is dropped; the others still leave */
      int rc = outbox_deliver(&o->flight);
      if (rc && !first_err)
        first_err = rc;
    }
    /* a choice for `start` can be made once every message that could be
     * ready by then was queued: from start - latency on */
    uint64_t start = next_start_ns(o), decide = start > o->latency_ns ? start - o->latency_ns : 0;
    if (start == 0 || decide > now_ns) {
      if (next_ns)
        *next_ns = decide;
      return first_err;
    }
    /* the link is free at `start`: the best message ready by then */
    while (o->waiting.n && o->waiting.v[0].ready_ns <= start) {
      struct pending p = heap_pop(&o->waiting);
      if (heap_push(&o->ready, &p) != 0) {
        free(p.payload);
        if (!first_err)
          first_err = DSANA_ENOMEM;
      }
    }
    if (o->ready.n == 0)
      continue;
    o->flight = heap_pop(&o->ready);
    o->has_flight = true;
    token_bucket_take(&o->tb, WIRE_HDR_BYTES + o->flight.len, start);
    o->flight_end_ns = o->tb.rate_bytes_per_s > 0 ? o->tb.tat_ns : start;
  }
  return first_err;
}

uint64_t net_outbox_due_ns(const struct net_outbox *o) {
  if (!o)
    return 0;
  uint64_t start = next_start_ns(o);
  return o->has_flight ? o->flight_end_ns : start > o->latency_ns ? start - o->latency_ns : start ? 1 : 0;
}

/* Deliver everything in h now, in its order. */
static int flush_heap(struct pheap *h) {
  while (h->n > 0) {
    struct pending p = heap_pop(h);
    int rc = outbox_deliver(&p);
    if (rc)
      return rc;
  }
  return 0;
}

int net_outbox_flush(struct net_outbox *o) {
  if (!o)
    return 0;
  if (o->has_flight) {
    o->has_flight = false;
    int rc = outbox_deliver(&o->flight);
    if (rc)
      return rc;
  }
  int rc = flush_heap(&o->ready);
  return rc ? rc : flush_heap(&o->waiting);
}

size_t net_outbox_discard(struct net_outbox *o) {
  if (!o)
    return 0;
  size_t n = net_outbox_pending(o);
  if (o->has_flight)
    free(o->flight.payload);
  o->has_flight = false;
  heap_free(&o->ready);
  heap_free(&o->waiting);
  return n;
}
