/* outbox.c - see outbox.h. A binary heap of pending messages ordered by
 * (priority, sequence). */
#include "net/outbox.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
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
  double bw;          /* bytes per second, 0 = unlimited */
  uint64_t latency_ns;
  uint64_t link_free_ns; /* when the link finishes its last departure */
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
  o->bw = bandwidth_bytes_per_s;
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

int net_outbox_emulating(const struct net_outbox *o) { return o && (o->bw > 0 || o->latency_ns > 0); }
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

int net_outbox_send(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                    const void *payload, size_t len, uint64_t priority) {
  if (!net_outbox_emulating(o))
    return net_send(s, to, h, payload, len);
  struct pending *heap = grow_for_one(o->heap, &o->cap, o->n, sizeof *o->heap, 64);
  if (!heap)
    return DSANA_ENOMEM;
  o->heap = heap;
  struct pending *p = &o->heap[o->n];
  memset(p, 0, sizeof *p);
  if (len && !(p->payload = malloc(len)))
    return DSANA_ENOMEM;
  if (len)
    memcpy(p->payload, payload, len);
  p->len = len;
  p->priority = priority;
  p->seq = o->seq++;
  p->ready_ns = clock_now_ns() + o->latency_ns;
  p->sock = s;
  p->hdr = *h;
  if (to) {
    p->to = *to;
    p->has_to = 1;
  }
  o->n++;
  heap_up(o, o->n - 1);
  return 0;
}

static int outbox_send_top(struct net_outbox *o) {
  struct pending top = o->heap[0];
  o->heap[0] = o->heap[--o->n];
  heap_down(o, 0);
  /* the copy made when it was queued goes to ZeroMQ as it is */
  return net_send_owned(top.sock, top.has_to ? &top.to : NULL, &top.hdr, top.payload, top.len);
}

int net_outbox_pump(struct net_outbox *o, uint64_t now_ns, uint64_t *next_ns) {
  if (next_ns)
    *next_ns = 0;
  int first_err = 0;
  while (o && o->n > 0) {
    /* the top message starts when it is ready and the link is free, and
     * is delivered once its last byte has crossed the link */
    const struct pending *top = &o->heap[0];
    uint64_t start = top->ready_ns > o->link_free_ns ? top->ready_ns : o->link_free_ns;
    uint64_t bytes = WIRE_HDR_BYTES + top->len;
    uint64_t end = start + (o->bw > 0 ? (uint64_t)((double)bytes / o->bw * 1e9) : 0);
    if (end > now_ns) {
      if (next_ns)
        *next_ns = end;
      return first_err;
    }
    o->link_free_ns = end;
    /* a message that cannot be sent is dropped; the others still leave */
    int rc = outbox_send_top(o);
    if (rc && !first_err)
      first_err = rc;
  }
  return first_err;
}

int net_outbox_wait_ms(struct net_outbox *o, int cap_ms) {
  uint64_t next;
  uint64_t now = clock_now_ns();
  if (!o || o->n == 0 || net_outbox_pump(o, now, &next) != 0 || next == 0)
    return o && o->n ? 0 : -1;
  uint64_t ms = (next - now + 999999u) / 1000000u;
  return ms > (uint64_t)cap_ms ? cap_ms : (int)ms;
}

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
