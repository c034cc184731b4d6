/*
 * event.h - what the role state machines share: who a message is from, the
 * list of messages a handler wants sent, and the environment a driver
 * gives them.
 *
 * A role (scheduler, server, worker) is a state machine: a handler takes
 * one event (a message, a timer tick, a finished piece of work) and appends
 * the messages to send to an rt_outq; it never touches a socket, a clock or
 * a thread. The driver (driver.h) owns the transport, the link emulation
 * and the compute threads, delivers events and sends what the queue holds.
 * Tests drive the same state machines over the in-process transport in
 * seeded random orders.
 */
#ifndef DSANA_RUNTIME_EVENT_H
#define DSANA_RUNTIME_EVENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/transport/transport.h"

struct msg_cluster_map;
struct trace;

enum rt_role { ROLE_SCHEDULER = 0, ROLE_SERVER = 1, ROLE_WORKER = 2 };

/* A server or worker without its cluster map sends its registration again
 * this often (one may be lost while the scheduler rolls back). */
#define RT_REGISTER_RESEND_NS 1000000000ull
const char *rt_role_name(enum rt_role r);

/* The transport identity a role's dialers use once it knows its index. */
/* A dialer's identity: its role (8 bits), an incarnation (12 bits: a
 * process started again in the same place dials as a new peer, so that
 * answers meant for its predecessor never reach it) and its index (12
 * bits: at most 4096 workers). */
static inline uint32_t rt_dial_id(enum rt_role r, uint32_t index, uint32_t incarnation) {
  return (uint32_t)r << 24 | (incarnation & 0xfff) << 12 | (index & 0xfff);
}
static inline uint32_t rt_dial_index(uint32_t id) { return id & 0xfff; }

/* Where a message came from: a dialer's only peer (role, index), or a
 * listener's peer (`peer`; role and index are then what its identity says,
 * or ROLE_SCHEDULER/UINT32_MAX when it says nothing). */
struct rt_from {
  enum rt_role role;
  uint32_t index;
  struct net_peer peer;
  bool via_listener;
};

/* One message to send: to a dialer's peer (role, index), or, when
 * `peer.len` is set, to that peer of the role's listener. */
struct rt_out {
  enum rt_role role;
  uint32_t index;
  struct net_peer peer;
  struct wire_hdr hdr;
  const void *payload;     /* borrowed: valid until the driver drains the queue */
  void *owned;             /* non-NULL: malloc()ed payload the queue owns */
  struct net_release lent; /* fn set: payload is lent; the transport (or the queue, unsent) releases it */
  uint64_t priority;       /* lower leaves first on an emulated link */
};

struct rt_outq {
  struct rt_out *v;
  size_t n, cap;
};

/* Append a message with a borrowed payload (payload_bytes set from len). */
int rt_send(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, const void *payload,
            size_t len);
/* The same, leaving an emulated link by priority (lower first), not 0. */
int rt_send_priority(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h,
                     const void *payload, size_t len, uint64_t priority);
/* Append a message to a listener's peer. */
int rt_reply(struct rt_outq *q, const struct net_peer *to, const struct wire_hdr *h, const void *payload, size_t len,
             uint64_t priority);
/* The same, taking over a malloc()ed payload (freed at once on failure). */
int rt_reply_owned(struct rt_outq *q, const struct net_peer *to, const struct wire_hdr *h, void *payload, size_t len,
                   uint64_t priority);
int rt_send_owned(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, void *payload,
                  size_t len, uint64_t priority);
/* The same with a lent payload (net_send_lent: no copy in one process;
 * released at once on failure). */
int rt_send_lent(struct rt_outq *q, enum rt_role role, uint32_t index, const struct wire_hdr *h, const void *payload,
                 size_t len, uint64_t priority, struct net_release rel);
/* The scheduler's ABORT as a server or worker takes it (logged):
 * DSANA_ERESTART when the job rolls back (WIRE_F_ROLLBACK: register again),
 * else DSANA_EPEER. said_here: the role shares its process (and stderr)
 * with the scheduler, which logged why: the reason is not said again. */
int rt_scheduler_abort(const struct wire_hdr *h, const void *payload, bool said_here);

/* A server's or worker's watch on the scheduler: last_heard_ns is set
 * by the role on every message from it (heard too). */
struct rt_watch {
  uint64_t last_heard_ns, started_ns;
  bool heard; /* anything at all came from the scheduler */
  bool said;  /* "no answer yet" was logged */
};
/* No word at all from the scheduler within this time: say what may be wrong. */
#define RT_NO_ANSWER_NS 2000000000ull
/* Once per tick: without any word from the scheduler for RT_NO_ANSWER_NS,
 * say once what the role waits for and the likely causes; silent past
 * --peer-timeout (with the map) or --register-timeout (before it): log
 * why and return DSANA_ETIMEDOUT. */
int rt_watch_scheduler(struct rt_watch *w, const char *addr, const struct msg_cluster_map *map,
                       double register_timeout_s, uint64_t now_ns);
/* Free what the driver did not take (owned payloads) and empty the queue. */
void rt_outq_clear(struct rt_outq *q);
void rt_outq_fini(struct rt_outq *q);

/* A process's counters so far: voluntary context switches of all its
 * threads (wake-ups) and CPU time, user + system. */
struct rt_usage {
  uint64_t wakeups, cpu_ns;
};

/* What a driver gives a state machine. */
struct rt_env {
  void *arg;
  uint64_t (*now_ns)(void *arg);
  /* This role's process counters (NULL: not counted, e.g. several roles
   * in one process): 0 or a DSANA_E* code. */
  int (*usage)(void *arg, struct rt_usage *u);
  /* Shared buffers with the roles of this machine (net_buffer_*); NULL
   * hooks or DSANA_ENOTSUP: none. */
  int (*buffer_create)(void *arg, const char *name, size_t bytes, double **out);
  int (*buffer_map)(void *arg, const char *name, size_t bytes, const double **out);
  void (*buffer_release)(void *arg, const void *p, size_t bytes);
  /* A slice of a region its joiners share (net_buffer_join; NULL or
   * DSANA_ENOTSUP: none). */
  int (*buffer_join)(void *arg, const char *name, size_t region_bytes, size_t offset, size_t bytes, double **out);
  /* Send a header-only message to the scheduler now, past the role's
   * queue: a heartbeat from inside a long computation on the control
   * thread (NULL: not possible, e.g. in the in-process test cluster). */
  int (*send_scheduler_now)(void *arg, const struct wire_hdr *h);
  /* This role's timeline trace (trace.h; NULL: not traced). */
  struct trace *trace;
  /* Worker, on a compute thread (dsana_push_ready): the running item's
   * first n key ranges said final may be read. The driver stores n into
   * *ready and wakes the control thread once the item's modelled clock
   * gets there (NULL: the caller stores it at once). */
  void (*push_ready)(void *arg, _Atomic uint64_t *ready, uint64_t n);
};

/* The name servers share version buffer b of table t under and workers map
 * it by: server s's own buffer, or (s == RT_BUFFER_REGION) the region whose
 * slices every server's buffer is (buffer_join). name: RT_BUFFER_NAME bytes. */
#define RT_BUFFER_REGION UINT32_MAX
#define RT_BUFFER_NAME 48
void rt_buffer_name(char *name, uint32_t s, uint32_t t, uint32_t b);

static inline uint64_t rt_now(const struct rt_env *e) { return e->now_ns(e->arg); }

#endif
