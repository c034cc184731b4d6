/*
 * mirror.h - a worker's copy of the tables it reads, kept per chunk.
 *
 * A table of n keys is cut into chunks of `chunk_keys` keys (the last may be
 * shorter; chunking off = one chunk). The worker requests the whole table
 * from every server for an iteration; servers answer in pieces that never
 * straddle a chunk, and a chunk is usable once all its keys of that
 * iteration have arrived. mirror_wait() blocks until the chunks covering a
 * key range are in, so a task can start on the first chunk while later ones
 * are still on the wire.
 *
 * Fetching ahead: asking for iteration front+1 keeps every chunk's current
 * values; a chunk switches to the new iteration when its first new piece
 * arrives, provided the worker no longer reads it for the old one
 * (mirror_need() says from which chunk on it still does); the front moves
 * on again only after every chunk has switched to it. A piece that
 * cannot be taken yet is held back, with the rest of that server's stream
 * behind it, until the worker has moved past its chunk: one message per
 * server at most, never a second copy of the table.
 *
 * Keys the app declared unread (mirror_set_unread) are not sent: a packed
 * piece carries the read keys of its range only, and a chunk is complete
 * once its read keys are in.
 *
 * Owned by the worker's thread. Every received piece is checked against
 * the table, the iteration and the sending server's shard (and a packed one
 * against the count of read keys in its range) before it is copied;
 * anything else is logged and dropped.
 */
#ifndef DSANA_RUNTIME_MIRROR_H
#define DSANA_RUNTIME_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "net/outbox.h"
#include "net/transport.h"

struct mirror_table {
  double *values;       /* n keys, indexed by key; NULL until first used */
  const uint64_t *unread; /* borrowed: keys no task reads (keymask.h), NULL = all */
  uint64_t *chunk_want; /* read keys of each chunk: complete when chunk_got reaches it */
  uint64_t *chunk_got;  /* read keys of each chunk received for chunk_iter[c] */
  uint32_t *chunk_iter; /* iteration each chunk's values belong to */
  uint64_t *have;       /* bitmap: keys received (per chunk's iteration; no key twice) */
  uint32_t iter;        /* the iteration requested last (the front), 0 = none */
  uint64_t missing;     /* read keys of `iter` not yet received */
  uint64_t busy_from;   /* chunks >= this are still read for iter-1 */
  uint64_t switched_hi; /* chunks < this may have switched to iter (fetching ahead) */
  uint64_t behind;      /* chunks not switched to iter yet */
  uint32_t ahead_want;  /* iter+1 asked for while chunks were behind: asked once none is */
};

struct mirror {
  uint32_t n_tables, n_servers;
  uint64_t n_keys, chunk_keys, n_chunks;
  struct net_sock **servers; /* borrowed */
  struct net_outbox *outbox; /* borrowed: pumped while waiting */
  uint32_t self;             /* worker index, for headers */
  const char *shm_dir;       /* local mode: servers' shared buffers live here (NULL = none) */
  const double *shm[1024][8][2]; /* mapped buffers per server, table, version */
  double timeout_s;
  struct mirror_table t[8];
  struct net_msg *held;      /* per server: a piece that could not be taken yet */
  bool *has_held;
  uint64_t wait_ns;  /* time spent blocked in mirror_wait, cumulative */
  uint64_t bytes_in; /* reply bytes taken (header + payload), cumulative */
};

int mirror_init(struct mirror *m, uint32_t n_tables, uint64_t n_keys, uint64_t chunk_keys,
                struct net_sock **servers, uint32_t n_servers, struct net_outbox *outbox, uint32_t self,
                double timeout_s);
/* Accept shared-memory answers from local servers whose buffers are in dir. */
void mirror_use_shm(struct mirror *m, const char *dir);
/* Keys of table t that no task reads (borrowed, keymask.h): servers send
 * the others only (PULL_PACKED), and a chunk is complete without them.
 * Before the table is first requested. */
void mirror_set_unread(struct mirror *m, uint32_t t, const uint64_t *unread);
void mirror_fini(struct mirror *m);

/* Ask every server for table t as of the end of iteration iter-1 (no-op if
 * already asked for iter). iter = front+1 fetches ahead (see above); any
 * other iteration starts the table afresh. */
int mirror_request(struct mirror *m, uint32_t t, uint32_t iter);
/* The worker still reads chunks >= from_chunk of table t for iteration
 * iter (UINT64_MAX: none). Fetching ahead, chunks below it may switch to
 * the front; if one it still needs has switched already, the table is
 * fetched again for iter. */
int mirror_need(struct mirror *m, uint32_t t, uint32_t iter, uint64_t from_chunk);
/* The worker reads no older iteration than the front of any table. */
void mirror_release(struct mirror *m);
/* Request again every table used before, for iteration iter (prefetch). */
int mirror_prefetch(struct mirror *m, uint32_t iter);
/* Block until keys [lo, hi) of table t for iteration iter are in. */
int mirror_wait(struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi);
/* true when [lo, hi) of t for iter is already complete (no waiting). */
bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi);
/* Take whatever replies arrive within timeout_ms (0 = only those already
 * there), returning early when the outbox has a send due; *got = how many
 * were taken. */
int mirror_recv(struct mirror *m, int timeout_ms, int *got);
/* true when chunk c of table t for iter is complete. */
bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c);

#endif
