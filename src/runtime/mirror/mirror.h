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
 * later ones are still on the wire. A dense table has two buffers, one per
 * parity of the iteration: iteration t+1's values arrive (fetched ahead,
 * streamed by the servers as each chunk becomes final) while tasks of t
 * still read t's, and a task handed late in t reads t's chunks whatever has
 * arrived for t+1. Asking for iteration i empties buffer i & 1, which held
 * i-2: the worker never asks beyond the iteration after its own, so nobody
 * reads i-2 any more. Every piece is taken at once. Compressing, the ask
 * for i waits until i-1 is complete (pieces of i-1 XORed with i-2 decode
 * against buffer i & 1 until then; see mirror_zc.c): the servers cannot
 * finish a chunk of i before this worker's tasks read all of i-1 anyway.
 *
 * Sparse (tables the app lists keys for, task_keys()): a task asks for its
 * keys of an iteration; keys already asked for by an earlier request of
 * that iteration are not asked again, and the task is ready once every
 * request up to the last one holding its keys is answered. Requests are
 * per server, named by the asking task; answers carry the values of the
 * request's keys inside a key range.
 *
 * Shared answers (servers on this machine, WIRE_F_SHARED) name the
 * server's buffer instead of carrying values. When the servers' buffers of
 * a table are slices of one region (net_buffer_join: roles as threads),
 * the worker reads an iteration's values in place there, no copy: from
 * the ask on (a task may take the pointer before its chunks arrive), in
 * the region of server buffer iter & 1, where every server keeps the
 * version iteration iter reads (server.c) and writes again only for the
 * version two commits on, which needs every task of this iteration ended.
 * A piece that is not read there (a plain or compressed one) moves what
 * was into the worker's own buffer; a task that took the region's pointer
 * reads the same values there.
 *
 * Every piece is checked (table, iteration, the sending server's shard,
 * the chunk, counts against the keys wanted) before it is copied; anything
 * else is logged and dropped. A piece of an iteration no longer (or not)
 * asked for, of a request already answered, or with keys that arrived
 * already is counted in `stale` (the summary's stale_messages). Owned by the worker's control thread; compute
 * threads only read values of chunks the worker told them are complete.
 *
 * The structs are mirror_state.h's; what the mirror's files share beyond
 * them, mirror_shared.h.
 */
#ifndef DSANA_RUNTIME_MIRROR_H
#define DSANA_RUNTIME_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/mirror/mirror_state.h"

/* Set up for the tables of job this worker may read; chunk_keys per key
 * space (0 = whole). `sparse_tables` bit t: table t is read by key lists. */
int mirror_init(struct mirror *m, const struct dsana_job *job, const uint64_t *chunk_keys, uint32_t sparse_tables,
                uint32_t n_servers, uint32_t self, const struct rt_env *env, bool share);
void mirror_fini(struct mirror *m);

/* Dense tables ask for compressed answers from now on (WIRE_F_ZSTD, and
 * WIRE_F_DELTA for keys whose previous iteration's values are all here),
 * pieces of at most max_raw_bytes of values. DSANA_ENOMEM. */
int mirror_set_compress(struct mirror *m, uint64_t max_raw_bytes);

/* Dense: ask every server for table t as of the end of iteration iter-1,
 * into buffer iter & 1 (nothing if already asked for iter). The caller
 * reads no iteration before iter-1 any more. */
int mirror_request(struct mirror *m, uint32_t t, uint32_t iter, struct rt_outq *out);
/* Dense: request every table some task reads, for iteration iter (the
 * job's first: the worker does not know its tasks yet). */
int mirror_prefetch_all(struct mirror *m, uint32_t iter, struct rt_outq *out);
/* Every dense table some task reads holds iteration iter's complete values. */
bool mirror_all_ready(const struct mirror *m, uint32_t iter);
/* Dense: request every table used before, for iteration iter. */
int mirror_prefetch(struct mirror *m, uint32_t iter, struct rt_outq *out);
/* The worker starts iteration iter: the pieces of it fetched ahead during
 * the one before stop being ahead_in (a task's record reports the bytes of
 * its own iteration's input: bytes_in - ahead_in). */
void mirror_iter_start(struct mirror *m, uint32_t iter);
/* Dense: [lo, hi) of t for iter is complete. */
bool mirror_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi);
/* Dense: chunk c of table t for iter is complete. */
bool mirror_chunk_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint64_t c);
/* Table t's values of iteration iter, indexed by key (dense: its buffer;
 * sparse: the one buffer), NULL before first use. */
const double *mirror_values(const struct mirror *m, uint32_t t, uint32_t iter);
/* Dense: keys of the front iteration of table t not received yet. */
uint64_t mirror_missing(const struct mirror *m, uint32_t t);
/* Asks that waited for the iteration before them to be complete, and plain
 * asks for compressed pieces that did not decode (call after taking
 * pieces). */
int mirror_kick(struct mirror *m, struct rt_outq *out);

/* Sparse: task `task` reads keys[0..n) of table t in iteration iter: ask
 * for those not asked yet; *ticket gets what mirror_sparse_ready() needs. */
int mirror_sparse_request(struct mirror *m, uint32_t t, uint32_t iter, uint32_t task, const uint64_t *keys, uint64_t n,
                          uint32_t *ticket, struct rt_outq *out);
bool mirror_sparse_ready(const struct mirror *m, uint32_t t, uint32_t iter, uint32_t ticket);

/* A PULL_REPLY from server s: stored, or dropped with a log line. */
void mirror_take(struct mirror *m, uint32_t s, const struct net_msg *msg);

#endif
