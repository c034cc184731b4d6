/*
 * mirror.h - a worker's copy of the tables its tasks read.
 *
 * Every table read is stored whole on the worker (n_keys * width doubles,
 * indexed by key, allocated on first use), but only what tasks read is
 * fetched. Two ways:
 *
 * Dense: the worker asks every server for the cover of the table's read
 * ranges (minus keys the app declared unread) for an iteration; servers
 * answer in pieces that never straddle a chunk (`chunk_keys` keys of the
 * table's key space), and a chunk is usable once all its wanted keys of
 * that iteration arrived, so a task can start on the first chunks while
 * later ones are still on the wire. Fetching ahead: asking for iteration
 * front+1 keeps every chunk's current values; a chunk switches to the new
 * iteration when its first new piece arrives, provided no held task reads
 * it for the old one any more (mirror_need()); a piece that cannot be taken
 * yet is held back by the driver (mirror_take() says MIRROR_HOLD) with its
 * server's stream behind it, so a table is never buffered twice.
 *
 * Sparse (tables the app lists keys for, task_keys()): a task asks for its
 * keys of an iteration; keys already asked for by an earlier request of
 * that iteration are not asked again, and the task is ready once every
 * request up to the last one holding its keys is answered. Requests are
 * per server, named by the asking task; answers carry the values of the
 * request's keys inside a key range.
 *
 * Every piece is checked (table, iteration, the sending server's shard,
 * the chunk, counts against the keys wanted) before it is copied; anything
 * else is logged and dropped. Owned by the worker's control thread; compute
 * threads only read values of chunks the worker told them are complete.
 */
#ifndef DSANA_RUNTIME_MIRROR_H
#define DSANA_RUNTIME_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "net/zcodec.h"
#include "runtime/event.h"
#include "runtime/job.h"

struct mirror_req;     /* a sparse request (mirror_sparse.c) */
struct mirror_refetch; /* a piece to ask for again (mirror_zc.c) */

struct mirror_table {
  bool used;   /* some task of this worker reads it */
  bool sparse; /* keys listed per task */
  uint32_t width;
  uint64_t n_keys, chunk_keys, n_chunks;
  uint64_t cover_lo, cover_hi; /* dense: the keys asked for */
  double *values;              /* n_keys * width, indexed by key; NULL until first used */
  const uint64_t *unread;      /* borrowed: keys no task reads, NULL = all read */
  /* dense */
  uint64_t *chunk_want; /* wanted keys of each chunk: complete when chunk_got reaches it */
  uint64_t *chunk_got;  /* wanted keys of each chunk received for chunk_iter[c] */
  uint32_t *chunk_iter; /* the iteration each chunk's values belong to */
  uint64_t *have;       /* bitmap: keys received (no key twice) */
  uint32_t iter;        /* the iteration requested last (the front), 0 = none */
  uint64_t missing;     /* wanted keys of `iter` not yet received */
  uint64_t busy_from;   /* chunks >= this are still read for iter-1 */
  uint64_t switched_hi; /* chunks < this may have switched to iter (fetching ahead) */
  uint64_t behind;      /* chunks not switched to iter yet */
  uint32_t ahead_want;  /* iter+1 asked for while chunks were behind: asked once none is */
  uint32_t *chunk_base; /* compressing: the iteration whose complete values chunk c held when it
                         * switched to chunk_iter[c] (0: none), what DELTA pieces XOR (mirror_zc.c) */
  /* sparse */
  uint32_t *key_iter;      /* per key: the iteration it was asked for (0 = never) */
  uint32_t *key_req;       /* per key: the request (sequence) that asked for it */
  struct mirror_req *reqs; /* outstanding requests */
  uint32_t req_iter;       /* the iteration of the sequence numbers below */
  uint32_t req_next;       /* next request sequence (1, 2, ...) */
  uint32_t req_done;       /* every request <= this is answered */
  uint32_t req_open;       /* requests not answered */
};

struct mirror {
  uint32_t n_tables, n_servers, self;
  struct mirror_table t[DSANA_MAX_TABLES];
  const struct rt_env *env;
  bool share;                     /* shared-buffer answers welcome */
  const double **shm;             /* per (server, table, buffer): mapped server buffers */
  uint64_t bytes_in;              /* reply bytes taken (header + payload), cumulative */
  uint64_t bytes_in_raw;          /* the same before compression (header + values) */
  uint32_t iter_now;              /* the worker's iteration (mirror_iter_start) */
  uint64_t ahead_in, ahead_raw;   /* of those: pieces of a later iteration, not yet its worker's */
  bool compress;                  /* dense pulls ask for compressed answers (mirror_set_compress) */
  uint64_t max_raw_bytes;         /* compressing: the largest piece of values decoded */
  struct zcodec *zc;              /* compressing: the decoder */
  struct zcodec_piece zpiece;     /* compressing: a piece's values and their base, packed */
  struct mirror_refetch *refetch; /* compressing: pieces that did not decode, to ask again plainly */
  size_t n_refetch, cap_refetch;
  uint64_t wait_since_ns; /* for traces */
};

enum mirror_take_rc { MIRROR_TAKEN = 0, MIRROR_HOLD = 1 };

/* Set up for the tables of job this worker may read; chunk_keys per key
 * space (0 = whole). `sparse_tables` bit t: table t is read by key lists. */
int mirror_init(struct mirror *m, const struct dsana_job *job, const uint64_t *chunk_keys, uint32_t sparse_tables,
                uint32_t n_servers, uint32_t self, const struct rt_env *env, bool share);
void mirror_fini(struct mirror *m);

/* Dense tables ask for compressed answers from now on (WIRE_F_ZSTD, and
 * WIRE_F_DELTA for keys whose previous iteration's values are all here),
 * pieces of at most max_raw_bytes of values. DSANA_ENOMEM. */
int mirror_set_compress(struct mirror *m, uint64_t max_raw_bytes);

/* Dense: ask every server for table t as of the end of iteration iter-1
 * (nothing if already asked for iter). iter = front+1 fetches ahead (see
 * above); any other iteration starts the table afresh. */
int mirror_request(struct mirror *m, uint32_t t, uint32_t iter, struct rt_outq *out);
/* Dense: the worker still reads chunks >= from_chunk of table t for
 * iteration iter (UINT64_MAX: none). Fetching ahead, chunks below may
 * switch to the front; if one it still needs switched already, the table
 * is fetched again for iter. */
int mirror_need(struct mirror *m, uint32_t t, uint32_t iter, uint64_t from_chunk, struct rt_outq *out);
/* The worker reads no older iteration than the front of any dense table. */
void mirror_release(struct mirror *m);
/* Dense: request again every table used before, for iteration iter. */
int mirror_prefetch(struct mirror *m, uint32_t iter, struct rt_outq *out);
/* The worker starts iteration iter: the pieces of it fetched ahead during
 * the one before stop being ahead_in (a task's record reports the bytes of
 * its own iteration's input: bytes_in - ahead_in). */
void mirror_iter_start(struct mirror *m, uint32_t iter);
/* Dense: [lo, hi) of t for iter is complete. */
bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi);
/* Dense: chunk c of table t for iter is complete. */
bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c);
/* Asks pending once every chunk is at the front, and plain asks for
 * compressed pieces that did not decode (call after taking pieces). */
int mirror_kick(struct mirror *m, struct rt_outq *out);

/* Sparse: task `task` reads keys[0..n) of table t in iteration iter: ask
 * for those not asked yet; *ticket gets what mirror_sparse_ready() needs. */
int mirror_sparse_request(struct mirror *m, uint32_t t, uint32_t iter, uint32_t task, const uint64_t *keys, uint64_t n,
                          uint32_t *ticket, struct rt_outq *out);
bool mirror_sparse_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint32_t ticket);

/* A PULL_REPLY from server s: MIRROR_TAKEN (stored, or dropped with a log
 * line), or MIRROR_HOLD: offer it again later and nothing more from s
 * before it (its chunk is still read for the previous iteration). */
int mirror_take(struct mirror *m, uint32_t s, const struct net_msg *msg);

#endif
