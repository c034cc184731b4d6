/* outbox.c - see outbox.h. A binary heap of pending messages ordered by
 * (priority, sequence), released by a token bucket. */
#include "net/outbox.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "net/token_bucket.h"
#include "util/clock.h"
#include "util/grow.h"

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

struct net_outbox {
  struct token_bucket tb; /* the link: bytes per second (0 = unlimited), no burst */
  uint64_t latency_ns;
  uint64_t seq;
  struct pending *heap;
  size_t n, cap;
};

int net_outbox_create(double bandwidth_bytes_per_s, double latency_s, struct net_outbox **out) {
  if (!(bandwidth_bytes_per_s >= 0) || !(latency_s >= 0))
    return DSANA_EINVAL;
  struct net_outbox *o = calloc(1, sizeof *o);
  if (!o)
    return DSANA_ENOMEM;
  token_bucket_init(&o->tb, bandwidth_bytes_per_s, 0, clock_now_ns());
  o->latency_ns = (uint64_t)(latency_s * 1e9);
  *out = o;
  return 0;
}

void net_outbox_destroy(struct net_outbox *o) {
  if (!o)
    return;
  for (size_t i = 0; i < o->n; i++)
    free(o->heap[i].payload);
  free(o->heap);
  free(o);
}

int net_outbox_emulating(const struct net_outbox *o) { return o && (o->tb.rate_bytes_per_s > 0 || o->latency_ns > 0); }
size_t net_outbox_pending(const struct net_outbox *o) { return o ? o->n : 0; }

static int before(const struct pending *a, const struct pending *b) {
  return a->priority < b->priority || (a->priority == b->priority && a->seq < b->seq);
}

static void heap_swap(struct pending *a, struct pending *b) {
  struct pending t = *a;
  *a = *b;
  *b = t;
}

static void heap_up(struct net_outbox *o, size_t i) {
  while (i > 0 && before(&o->heap[i], &o->heap[(i - 1) / 2])) {
    heap_swap(&o->heap[i], &o->heap[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
}

static void heap_down(struct net_outbox *o, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < o->n && before(&o->heap[l], &o->heap[m]))
      m = l;
    if (r < o->n && before(&o->heap[r], &o->heap[m]))
      m = r;
    if (m == i)
      return;
    heap_swap(&o->heap[i], &o->heap[m]);
    i = m;
  }
}

/* Queue a message whose payload the outbox owns from now on. */
static int outbox_queue(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                        void *payload, size_t len, uint64_t priority) {
  struct pending *heap = grow_for_one(o->heap, &o->cap, o->n, sizeof *o->heap, 64);
  if (!heap) {
    free(payload);
    return DSANA_ENOMEM;
  }
  o->heap = heap;
  struct pending *p = &o->heap[o->n];
  *p = (struct pending){.priority = priority,
                        .seq = o->seq++,
                        .ready_ns = clock_now_ns() + o->latency_ns,
                        .sock = s,
                        .hdr = *h,
                        .payload = payload,
                        .len = len};
  if (to) {
    p->to = *to;
    p->has_to = 1;
  }
  o->n++;
  heap_up(o, o->n - 1);
  return 0;
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

static int outbox_send_top(struct net_outbox *o) {
  struct pending top = o->heap[0];
  o->heap[0] = o->heap[--o->n];
  heap_down(o, 0);
  /* the copy made when it was queued goes to ZeroMQ as it is */
  return net_send_owned(top.sock, top.has_to ? &top.to : NULL, &top.hdr, top.payload, top.len);
}

/* The top message enters the link when it is ready and the link has
 * carried everything before it; it is delivered once its last byte has
 * crossed. */
static uint64_t top_delivery_ns(const struct net_outbox *o) {
  const struct pending *top = &o->heap[0];
  return top->ready_ns + token_bucket_peek(&o->tb, WIRE_HDR_BYTES + top->len, top->ready_ns);
}

int net_outbox_pump(struct net_outbox *o, uint64_t now_ns, uint64_t *next_ns) {
  if (next_ns)
    *next_ns = 0;
  int first_err = 0;
  while (o && o->n > 0) {
    uint64_t end = top_delivery_ns(o);
    if (end > now_ns) {
      if (next_ns)
        *next_ns = end;
      return first_err;
    }
    token_bucket_take(&o->tb, WIRE_HDR_BYTES + o->heap[0].len, o->heap[0].ready_ns);
    /* a message that cannot be sent is dropped; the others still leave */
    int rc = outbox_send_top(o);
    if (rc && !first_err)
      first_err = rc;
  }
  return first_err;
}

uint64_t net_outbox_due_ns(const struct net_outbox *o) { return o && o->n > 0 ? top_delivery_ns(o) : 0; }

int net_outbox_flush(struct net_outbox *o) {
  while (o && o->n > 0) {
    int rc = outbox_send_top(o);
    if (rc)
      return rc;
  }
  return 0;
}

size_t net_outbox_discard(struct net_outbox *o) {
  size_t n = o ? o->n : 0;
  for (size_t i = 0; i < n; i++)
    free(o->heap[i].payload);
  if (o)
    o->n = 0;
  return n;
}
