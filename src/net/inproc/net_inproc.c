/*
 * net_inproc.c - the inproc:// transport: every role of a job in one
 * process (threads, or a test stepping them), messages in memory queues.
 *
 * An endpoint (a name) holds the listener's queue; a dialer has its own
 * queue for replies. Each queue has an eventfd that is readable while the
 * queue is non-empty, so net_poll() can wait on queues, other descriptors
 * and timers with one poll(2). Messages keep their encoded header and are
 * validated on receipt like any other transport's. Named shared buffers
 * are plain memory of this process; a region (net_buffer_join) is one
 * buffer whose slices its joiners write. Manual delivery: see net_inproc.h.
 *
 * Locks. It carries every message of the default mode (roles as threads),
 * so senders and receivers must not queue on each other: a read-write lock
 * guards the endpoints, dialers, buffers and the manual lists (sends take
 * it shared, anything that changes them exclusive) and each queue has its
 * own mutex, held only to link or unlink a message. The eventfd write that
 * wakes a receiver comes after the queue's mutex is released (under the
 * shared lock, so the queue cannot close under it): a receiver woken while
 * the sender still held it used to block on it at once, two more context
 * switches per message. So a queue's eventfd may be readable while the
 * queue is empty (the write of a message already taken): the receiver's
 * pop of an empty queue reads it back, once.
 */
#define _GNU_SOURCE /* ppoll */
#include "net/inproc/net_inproc.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsana/error.h"
#include "net/transport/transport_impl.h"
#include "util/thread/clock.h"
#include "util/thread/cpu_busy.h"
#include "util/text/log.h"
#include "util/thread/wakefd.h"

struct ip_msg {
  struct ip_msg *next;
  struct ip_queue *dest; /* manual mode: where it goes */
  const void *link;      /* manual mode: the sending socket */
  uint8_t hdr[WIRE_HDR_BYTES];
  uint32_t from_id;
  bool from_dialer;
  void *payload;
  size_t len;
  struct net_release rel; /* fn set: payload is lent, rel.fn(rel.arg) instead of free() */
};

struct ip_queue {
  pthread_mutex_t mu; /* head and tail, and the wake-up's count */
  struct ip_msg *head, *tail;
  struct wakefd wake; /* readable while the queue is non-empty */
};

struct ip_endpoint {
  struct ip_endpoint *next;
  char name[256];
  struct ip_queue q;
  bool bound;
  struct ip_dialer *dialers;
};

struct ip_dialer {
  struct ip_dialer *next;
  struct ip_endpoint *ep;
  uint32_t self_id;
  struct ip_queue q;
};

struct ip_buffer {
  struct ip_buffer *next;
  char name[64];
  double *p;
  size_t bytes;
  int refs;
};

static pthread_rwlock_t ip_rw = PTHREAD_RWLOCK_INITIALIZER; /* the structure (see the top) */
static struct ip_endpoint *ip_endpoints;
static struct ip_buffer *ip_buffers;
static bool ip_manual;
static struct ip_msg *ip_pending_head, *ip_pending_tail; /* manual mode */
static unsigned ip_seq;

/* ---- queues ------------------------------------------------------------- */

static int ip_queue_init(struct ip_queue *q) {
  q->head = q->tail = NULL;
  if (wakefd_open(&q->wake) != 0)
    return DSANA_ENET;
  pthread_mutex_init(&q->mu, NULL);
  return 0;
}

static void ip_msg_free(struct ip_msg *m) {
  if (m->rel.fn)
    m->rel.fn(m->rel.arg);
  else
    free(m->payload);
  free(m);
}

static void ip_queue_fini(struct ip_queue *q) {
  for (struct ip_msg *m = q->head, *n; m; m = n) {
    n = m->next;
    ip_msg_free(m);
  }
  if (q->wake.fd >= 0) {
    wakefd_close(&q->wake);
    pthread_mutex_destroy(&q->mu);
  }
}

/* Queue m (under ip_rw, shared or not) and wake the receiver if the queue
 * was empty (not empty: its eventfd is readable already). */
static void ip_queue_push(struct ip_queue *q, struct ip_msg *m) {
  m->next = NULL;
  pthread_mutex_lock(&q->mu);
  bool was_empty = !q->tail;
  if (q->tail)
    q->tail->next = m;
  else
    q->head = m;
  q->tail = m;
  if (was_empty)
    wakefd_promise(&q->wake);
  pthread_mutex_unlock(&q->mu);
  if (was_empty)
    wakefd_signal(&q->wake);
}

/* The oldest message, or NULL; the eventfd is read back when the queue is
 * left empty (or was: a late write's), while a write is owed (wakefd.h). */
static struct ip_msg *ip_queue_pop(struct ip_queue *q) {
  pthread_mutex_lock(&q->mu);
  struct ip_msg *m = q->head;
  if (m)
    q->head = m->next;
  if (!q->head) {
    q->tail = NULL;
    wakefd_drain(&q->wake);
  }
  pthread_mutex_unlock(&q->mu);
  return m;
}

/* Drop the messages of list *head (tail *tail) that wait for queue q. */
static void ip_forget_in(struct ip_msg **head, struct ip_msg **tail, const struct ip_queue *q) {
  struct ip_msg **pp = head;
  *tail = NULL;
  while (*pp) {
    if ((*pp)->dest == q) {
      struct ip_msg *m = *pp;
      *pp = m->next;
      ip_msg_free(m);
    } else {
      *tail = *pp;
      pp = &(*pp)->next;
    }
  }
}

static struct ip_msg *ip_kept_head, *ip_kept_tail; /* manual mode: copies kept aside (net_inproc_keep_copy) */

/* Manual mode: drop what waits for a queue about to go away. */
static void ip_forget_pending(struct ip_queue *q) {
  ip_forget_in(&ip_pending_head, &ip_pending_tail, q);
  ip_forget_in(&ip_kept_head, &ip_kept_tail, q);
}

/* ---- endpoints ---------------------------------------------------------- */

static struct ip_endpoint *ip_endpoint_get(const char *name) {
  for (struct ip_endpoint *e = ip_endpoints; e; e = e->next)
    if (strcmp(e->name, name) == 0)
      return e;
  struct ip_endpoint *e = calloc(1, sizeof *e);
  if (!e || strlen(name) >= sizeof e->name || ip_queue_init(&e->q) != 0) {
    free(e);
    return NULL;
  }
  snprintf(e->name, sizeof e->name, "%s", name);
  e->next = ip_endpoints;
  ip_endpoints = e;
  return e;
}

/* Free an endpoint nobody listens on or dials any more. */
static void ip_endpoint_release(struct ip_endpoint *e) {
  if (e->bound || e->dialers)
    return;
  for (struct ip_endpoint **pp = &ip_endpoints; *pp; pp = &(*pp)->next)
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  ip_forget_pending(&e->q);
  ip_queue_fini(&e->q);
  free(e);
}

static int ip_ctx_create(struct net_ctx *ctx) {
  ctx->impl = NULL;
  return 0;
}

static void ip_ctx_destroy(struct net_ctx *ctx) { (void)ctx; }

static int ip_listen(struct net_sock *s, const char *addr) {
  char fresh[64];
  pthread_rwlock_wrlock(&ip_rw);
  if (!addr) {
    snprintf(fresh, sizeof fresh, "inproc://l-%u", ip_seq++);
    addr = fresh;
  }
  struct ip_endpoint *e = ip_endpoint_get(addr);
  int rc = !e ? DSANA_ENOMEM : e->bound ? DSANA_ENET : 0;
  if (!rc) {
    e->bound = true;
    s->impl = e;
  }
  pthread_rwlock_unlock(&ip_rw);
  if (rc == DSANA_ENET)
    log_error("net: cannot listen on %s: address in use", addr);
  return rc;
}

static int ip_bound_addr(struct net_sock *s, char *buf, size_t len) {
  const struct ip_endpoint *e = s->impl;
  if (strlen(e->name) >= len)
    return DSANA_ERANGE;
  memcpy(buf, e->name, strlen(e->name) + 1);
  return 0;
}

static int ip_dial(struct net_sock *s, const char *addr, uint32_t self_id) {
  struct ip_dialer *d = calloc(1, sizeof *d);
  if (!d || ip_queue_init(&d->q) != 0) {
    free(d);
    return DSANA_ENOMEM;
  }
  pthread_rwlock_wrlock(&ip_rw);
  d->ep = ip_endpoint_get(addr);
  if (d->ep) {
    d->self_id = self_id;
    d->next = d->ep->dialers;
    d->ep->dialers = d;
  }
  pthread_rwlock_unlock(&ip_rw);
  if (!d->ep) {
    ip_queue_fini(&d->q);
    free(d);
    return DSANA_ENOMEM;
  }
  s->impl = d;
  return 0;
}

static void ip_close(struct net_sock *s) {
  pthread_rwlock_wrlock(&ip_rw);
  if (s->listener) {
    struct ip_endpoint *e = s->impl;
    e->bound = false;
    ip_forget_pending(&e->q);
    for (struct ip_msg *m; (m = ip_queue_pop(&e->q)) != NULL;)
      ip_msg_free(m);
    ip_endpoint_release(e);
  } else {
    struct ip_dialer *d = s->impl;
    for (struct ip_dialer **pp = &d->ep->dialers; *pp; pp = &(*pp)->next)
      if (*pp == d) {
        *pp = d->next;
        break;
      }
    ip_forget_pending(&d->q);
    ip_queue_fini(&d->q);
    ip_endpoint_release(d->ep);
    free(d);
  }
  pthread_rwlock_unlock(&ip_rw);
}

/* ---- sending and receiving ---------------------------------------------- */

/* The queue a message from s to `to` goes into (under ip_rw), or NULL. */
static struct ip_queue *ip_dest(struct net_sock *s, const struct net_peer *to) {
  if (!s->listener)
    return &((struct ip_dialer *)s->impl)->ep->q;
  uint32_t id;
  if (net_peer_id(to, &id) != 0)
    return NULL;
  for (struct ip_dialer *d = ((struct ip_endpoint *)s->impl)->dialers; d; d = d->next)
    if (d->self_id == id)
      return &d->q;
  return NULL;
}

/* Queue m (its payload and release set) for the peer `to` of s. */
static int ip_enqueue(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, struct ip_msg *m, size_t len) {
  memcpy(m->hdr, hdr, WIRE_HDR_BYTES);
  m->len = len;
  m->from_dialer = !s->listener;
  m->from_id = s->listener ? 0 : ((struct ip_dialer *)s->impl)->self_id;
  m->link = s;
  pthread_rwlock_rdlock(&ip_rw);
  struct ip_queue *q = ip_manual ? NULL : ip_dest(s, to);
  bool manual = ip_manual;
  if (q)
    ip_queue_push(q, m);
  pthread_rwlock_unlock(&ip_rw);
  if (manual) { /* the manual lists change: exclusive */
    pthread_rwlock_wrlock(&ip_rw);
    q = ip_dest(s, to);
    if (q && ip_manual) {
      m->dest = q;
      m->next = NULL;
      if (ip_pending_tail)
        ip_pending_tail->next = m;
      else
        ip_pending_head = m;
      ip_pending_tail = m;
    } else if (q)
      ip_queue_push(q, m);
    pthread_rwlock_unlock(&ip_rw);
  }
  if (!q) {
    ip_msg_free(m);
    return DSANA_ENET;
  }
  return 0;
}

static int ip_send(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, void *payload, size_t len,
                   bool owned) {
  struct ip_msg *m = calloc(1, sizeof *m);
  void *copy = owned ? payload : (len ? malloc(len) : NULL);
  if (!m || (len && !copy)) {
    free(m);
    free(copy);
    return DSANA_ENOMEM;
  }
  if (!owned && len)
    memcpy(copy, payload, len);
  m->payload = copy;
  return ip_enqueue(s, to, hdr, m, len);
}

/* The receiver gets the payload itself (no copy); rel runs when it is done. */
static int ip_send_lent(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, const void *payload,
                        size_t len, struct net_release rel) {
  struct ip_msg *m = calloc(1, sizeof *m);
  if (!m) {
    rel.fn(rel.arg);
    return DSANA_ENOMEM;
  }
  m->payload = (void *)payload;
  m->rel = rel;
  return ip_enqueue(s, to, hdr, m, len);
}

static struct ip_queue *ip_queue_of(struct net_sock *s) {
  return s->listener ? &((struct ip_endpoint *)s->impl)->q : &((struct ip_dialer *)s->impl)->q;
}

static int ip_recv(struct net_sock *s, struct net_msg *m) {
  struct ip_msg *im = ip_queue_pop(ip_queue_of(s)); /* its own queue: only its owner closes it */
  if (!im)
    return DSANA_EAGAIN;
  struct net_peer from = {0};
  if (im->from_dialer) {
    from.len = 5;
    from.id[0] = 'D';
    wire_put_u32(from.id + 1, im->from_id);
  }
  int rc = net_accept(s, s->listener ? &from : NULL, im->hdr, WIRE_HDR_BYTES, im->len > 0, im->len, &m->hdr);
  if (rc == 0) {
    m->from = from;
    m->payload = im->payload; /* malloc'ed or lent: 8-aligned */
    m->store = im->payload ? NET_STORE_HEAP : NET_STORE_NONE;
    if (im->rel.fn) { /* lent: released when the receiver is done */
      m->store = NET_STORE_IMPL;
      memcpy(m->impl, &im->rel, sizeof im->rel);
      im->rel.fn = NULL;
    }
    im->payload = NULL;
  }
  ip_msg_free(im);
  return rc;
}

static void ip_msg_fini(struct net_msg *m) {
  if (m->store != NET_STORE_IMPL) {
    net_msg_free_copy(m);
    return;
  }
  struct net_release rel;
  memcpy(&rel, m->impl, sizeof rel);
  rel.fn(rel.arg);
}

/* Waiting by polling before sleeping. On a virtual machine waking a
 * thread whose vCPU halted costs tens of microseconds, more than a short
 * iteration's whole work, so a thread whose recent waits were short first
 * polls its queues and descriptors (yielding the CPU between polls) for up
 * to IP_SPIN_NS, as MPI's shared-memory transport does; a thread whose
 * waits are long, or in a process whose compute threads are at work
 * (cpu_busy.h: polling would take their CPU time), sleeps at once.
 * DSANA_SPIN_US overrides the budget (0: never poll). */
#define IP_SPIN_NS 100000u

static uint64_t ip_spin_ns = IP_SPIN_NS;
static pthread_once_t ip_spin_once = PTHREAD_ONCE_INIT;

/* DSANA_SPIN_US, read once: a whole number of microseconds below 10^6, or
 * one line saying it is ignored. */
static void ip_spin_read(void) {
  const char *e = getenv("DSANA_SPIN_US");
  if (!e)
    return;
  char *end;
  unsigned long long us = strtoull(e, &end, 10);
  if (*e >= '0' && *e <= '9' && !*end && us < 1000000u)
    ip_spin_ns = us * 1000u;
  else
    log_warn("DSANA_SPIN_US='%s' ignored: want whole microseconds below 1000000 (0: no polling); polling up to %u us",
             e, IP_SPIN_NS / 1000u);
}

static uint64_t ip_spin_budget(void) {
  pthread_once(&ip_spin_once, ip_spin_read);
  return ip_spin_ns;
}

/* Each thread's last wait, whose length decides whether the next polls. */
static _Thread_local uint64_t ip_last_wait_ns;

/* Poll p without sleeping until something is ready, the budget is spent or
 * `until` (a deadline of the caller's, 0: none) comes: poll(2)'s count, 0
 * when nothing came. */
static int ip_spin(struct pollfd *p, int total, uint64_t start, uint64_t until) {
  uint64_t budget = ip_spin_budget();
  if (!budget || ip_last_wait_ns > budget || !cpu_busy_quiet(start))
    return 0;
  if (!until || until > start + budget)
    until = start + budget;
  uint64_t now = start;
  int rc;
  while (((rc = poll(p, (nfds_t)total, 0)) == 0 || (rc < 0 && errno == EINTR)) && (now = clock_now_ns()) < until &&
         cpu_busy_quiet(now))
    sched_yield();
  ip_last_wait_ns = now - start;
  return rc < 0 && errno == EINTR ? 0 : rc; /* a signal: the sleeping poll below retries */
}

/* ppoll(2) until something is ready or `until` (clock_now_ns() time; 0:
 * no end) comes, retried on signals: a wait to the nanosecond without a
 * timer descriptor (creating, arming and closing one were three more
 * system calls per wait). */
static int ip_sleep(struct pollfd *p, int total, uint64_t until) {
  for (;;) {
    struct timespec ts, *tp = NULL;
    if (until) {
      uint64_t now = clock_now_ns(), left = until > now ? until - now : 0;
      ts = (struct timespec){.tv_sec = (time_t)(left / 1000000000u), .tv_nsec = (long)(left % 1000000000u)};
      tp = &ts;
    }
    int rc = ppoll(p, (nfds_t)total, tp, NULL);
    if (rc >= 0 || errno != EINTR)
      return rc;
  }
}

/* What ip_poll() waits on: the queues' eventfds, then the other
 * descriptors, into `into` (NULL: allocated). */
static struct pollfd *ip_pollfds(struct pollfd *into, struct net_sock *const *socks, int n, const int *fds, int nfds) {
  struct pollfd *p = into ? into : malloc(sizeof *p * (size_t)(n + nfds ? n + nfds : 1));
  for (int i = 0; p && i < n; i++)
    p[i] = (struct pollfd){.fd = ip_queue_of(socks[i])->wake.fd, .events = POLLIN};
  for (int i = 0; p && i < nfds; i++)
    p[n + i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
  return p;
}

static int ip_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
                   bool *ready, bool *fd_ready) {
  uint64_t start = clock_now_ns();
  if (until_ns && until_ns <= start)
    timeout_ms = 0;
  int total = n + nfds;
  struct pollfd stack[16], *p = ip_pollfds(total <= 16 ? stack : NULL, socks, n, fds, nfds);
  if (!p)
    return DSANA_ENOMEM;
  uint64_t deadline = timeout_ms > 0 ? start + (uint64_t)timeout_ms * 1000000u : 0;
  uint64_t until = deadline && (!until_ns || deadline < until_ns) ? deadline : until_ns;
  if (timeout_ms == 0)
    until = start; /* do not wait */
  int rc = timeout_ms != 0 ? ip_spin(p, total, start, until) : 0;
  if (rc == 0) {
    rc = ip_sleep(p, total, until);
    if (timeout_ms != 0)
      ip_last_wait_ns = clock_now_ns() - start;
  }
  int got = 0;
  for (int i = 0; i < n; i++)
    got += ready[i] = rc > 0 && (p[i].revents & POLLIN);
  for (int i = 0; i < nfds; i++)
    got += fd_ready[i] = rc > 0 && (p[n + i].revents & POLLIN);
  if (p != stack)
    free(p);
  return rc < 0 ? DSANA_ENET : got;
}

/* ---- shared buffers ----------------------------------------------------- */

/* A zeroed buffer named `name`, not yet in the list (NULL: no memory). */
static struct ip_buffer *ip_buffer_new(const char *name, size_t bytes) {
  struct ip_buffer *b = calloc(1, sizeof *b);
  if (b)
    b->p = calloc(bytes ? bytes : 8, 1);
  if (!b || !b->p || strlen(name) >= sizeof b->name) {
    if (b)
      free(b->p);
    free(b);
    return NULL;
  }
  snprintf(b->name, sizeof b->name, "%s", name);
  b->bytes = bytes;
  b->refs = 1;
  return b;
}

/* b first in the list (the lock held). */
static void ip_buffer_link(struct ip_buffer *b) {
  b->next = ip_buffers;
  ip_buffers = b;
}

static int ip_buffer_create(struct net_ctx *ctx, const char *name, size_t bytes, double **out) {
  (void)ctx;
  struct ip_buffer *b = ip_buffer_new(name, bytes);
  if (!b)
    return DSANA_ENOMEM;
  pthread_rwlock_wrlock(&ip_rw);
  ip_buffer_link(b);
  pthread_rwlock_unlock(&ip_rw);
  *out = b->p;
  return 0;
}

static int ip_buffer_map(struct net_ctx *ctx, const char *name, size_t bytes, const double **out) {
  (void)ctx;
  int rc = DSANA_EIO;
  pthread_rwlock_wrlock(&ip_rw);
  for (struct ip_buffer *b = ip_buffers; b; b = b->next)
    if (strcmp(b->name, name) == 0 && b->bytes >= bytes) {
      b->refs++;
      *out = b->p;
      rc = 0;
      break;
    }
  pthread_rwlock_unlock(&ip_rw);
  return rc;
}

/* A slice of region `name`: joined when a region of that name and size
 * is there (the slice zeroed: it is the joiner's alone), else created (it
 * shadows any other of the name, as ip_buffer_create's buffers do). A
 * slice is never empty: its pointer must name the region on release. */
static int ip_buffer_join(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                          double **out) {
  (void)ctx;
  if (bytes == 0)
    return DSANA_EINVAL;
  struct ip_buffer *b;
  pthread_rwlock_wrlock(&ip_rw); /* looked up and made under one hold: joiners race to create it */
  for (b = ip_buffers; b && strcmp(b->name, name) != 0; b = b->next)
    ;
  if (b && b->bytes == region_bytes) { /* joined: the slice is the joiner's alone */
    b->refs++;
    memset((char *)b->p + offset, 0, bytes);
  } else if ((b = ip_buffer_new(name, region_bytes)) != NULL) {
    ip_buffer_link(b);
  }
  if (b)
    *out = (double *)(void *)((char *)b->p + offset);
  pthread_rwlock_unlock(&ip_rw);
  return b ? 0 : DSANA_ENOMEM;
}

/* The buffer holding p: its start, or inside a region (a slice). */
static bool ip_buffer_holds(const struct ip_buffer *b, const void *p) {
  const char *c = p, *lo = (const char *)b->p;
  return c == lo || (c > lo && c < lo + b->bytes);
}

static void ip_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes) {
  (void)ctx;
  (void)bytes;
  pthread_rwlock_wrlock(&ip_rw);
  for (struct ip_buffer **pp = &ip_buffers; *pp; pp = &(*pp)->next)
    if (ip_buffer_holds(*pp, p)) {
      struct ip_buffer *b = *pp;
      if (--b->refs == 0) {
        *pp = b->next;
        free(b->p);
        free(b);
      }
      break;
    }
  pthread_rwlock_unlock(&ip_rw);
}

/* ---- manual delivery ---------------------------------------------------- */

void net_inproc_set_manual(bool on) {
  pthread_rwlock_wrlock(&ip_rw);
  ip_manual = on;
  /* off: what waits goes now, in order, before anything sent later */
  while (!on && ip_pending_head) {
    struct ip_msg *m = ip_pending_head;
    ip_pending_head = m->next;
    ip_queue_push(m->dest, m);
  }
  if (!on)
    ip_pending_tail = NULL;
  pthread_rwlock_unlock(&ip_rw);
}

/* Is m the oldest waiting message of its link? */
static bool ip_link_head(const struct ip_msg *m) {
  for (const struct ip_msg *o = ip_pending_head; o != m; o = o->next)
    if (o->link == m->link && o->dest == m->dest)
      return false;
  return true;
}

size_t net_inproc_links_pending(void) {
  size_t n = 0;
  pthread_rwlock_wrlock(&ip_rw);
  for (const struct ip_msg *m = ip_pending_head; m; m = m->next)
    n += ip_link_head(m);
  pthread_rwlock_unlock(&ip_rw);
  return n;
}

void net_inproc_deliver(size_t k) {
  pthread_rwlock_wrlock(&ip_rw);
  struct ip_msg **pp = &ip_pending_head, *prev = NULL;
  for (; *pp; prev = *pp, pp = &(*pp)->next)
    if (ip_link_head(*pp) && k-- == 0)
      break;
  struct ip_msg *m = *pp;
  if (m) {
    *pp = m->next;
    if (ip_pending_tail == m)
      ip_pending_tail = prev;
    ip_queue_push(m->dest, m);
  }
  pthread_rwlock_unlock(&ip_rw);
}

/* Link k's oldest waiting message (under ip_rw, exclusive), or NULL. */
static struct ip_msg *ip_link_oldest(size_t k) {
  for (struct ip_msg *m = ip_pending_head; m; m = m->next)
    if (ip_link_head(m) && k-- == 0)
      return m;
  return NULL;
}

bool net_inproc_peek(size_t k, struct wire_hdr *h) {
  pthread_rwlock_wrlock(&ip_rw);
  const struct ip_msg *m = ip_link_oldest(k);
  bool ok = m && wire_decode(m->hdr, WIRE_HDR_BYTES, UINT64_MAX, h, NULL) == 0;
  pthread_rwlock_unlock(&ip_rw);
  return ok;
}

/* A copy of m with a payload of its own, or NULL. */
static struct ip_msg *ip_copy(const struct ip_msg *m) {
  struct ip_msg *c = calloc(1, sizeof *c);
  void *payload = m->len ? malloc(m->len) : NULL;
  if (!c || (m->len && !payload)) {
    free(c);
    free(payload);
    return NULL;
  }
  *c = *m;
  c->next = NULL;
  c->rel = (struct net_release){0};
  c->payload = payload;
  if (m->len)
    memcpy(payload, m->payload, m->len);
  return c;
}

void net_inproc_deliver_twice(size_t k) {
  pthread_rwlock_wrlock(&ip_rw);
  struct ip_msg *m = ip_link_oldest(k), *c = m ? ip_copy(m) : NULL;
  pthread_rwlock_unlock(&ip_rw);
  net_inproc_deliver(k);
  pthread_rwlock_wrlock(&ip_rw);
  if (c)
    ip_queue_push(c->dest, c);
  pthread_rwlock_unlock(&ip_rw);
}

void net_inproc_keep_copy(size_t k) {
  pthread_rwlock_wrlock(&ip_rw);
  struct ip_msg *m = ip_link_oldest(k), *c = m ? ip_copy(m) : NULL;
  if (c && ip_kept_tail)
    ip_kept_tail->next = c;
  else if (c)
    ip_kept_head = c;
  ip_kept_tail = c ? c : ip_kept_tail;
  pthread_rwlock_unlock(&ip_rw);
}

size_t net_inproc_deliver_kept(void) {
  size_t n = 0;
  pthread_rwlock_wrlock(&ip_rw);
  while (ip_kept_head) {
    struct ip_msg *m = ip_kept_head;
    ip_kept_head = m->next;
    ip_queue_push(m->dest, m);
    n++;
  }
  ip_kept_tail = NULL;
  pthread_rwlock_unlock(&ip_rw);
  return n;
}

const struct net_ops net_inproc_ops = {
    .scheme = "inproc",
    .ctx_create = ip_ctx_create,
    .ctx_destroy = ip_ctx_destroy,
    .listen = ip_listen,
    .bound_addr = ip_bound_addr,
    .dial = ip_dial,
    .close = ip_close,
    .send = ip_send,
    .send_lent = ip_send_lent,
    .recv = ip_recv,
    .msg_fini = ip_msg_fini,
    .poll = ip_poll,
    .buffer_create = ip_buffer_create,
    .buffer_map = ip_buffer_map,
    .buffer_release = ip_buffer_release,
    .buffer_join = ip_buffer_join,
};
