/*
 * pool.h - a worker's compute threads: work items go in, finished items
 * come out, and an eventfd readable while finished items wait lets the
 * control thread poll it beside its sockets.
 *
 * Each thread runs `run(arg, item, thread)` (the hook call and its
 * emulated timing) for the item submitted and then, while
 * worker_next_item() says the same task instance's next item may run, for
 * that one too, each timed on its own; the items of one submission come
 * back together, in the order they ran (all but the last marked `more`),
 * so a task with k ready items costs the owner one wake-up, not k. With
 * n_threads == 0 the pool is manual: nothing runs until pool_run() is
 * called (from the owner's thread), one item per call, which is how tests
 * choose the order in which work completes.
 *
 * The owner's thread submits and takes; the threads only run items.
 */
#ifndef DSANA_RUNTIME_POOL_H
#define DSANA_RUNTIME_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/worker/work_item.h"

struct pool;
typedef void (*pool_run_fn)(void *arg, struct witem *it, uint32_t thread);

/* first_cpu >= 0: thread i stays on the (first_cpu + i)-th CPU the process
 * may use, modulo their count (when the caller knows the threads it binds
 * are all the compute threads of the machine: numbering them from 0
 * spreads them over the cores); < 0: the kernel places them. */
/* worker: the index of the worker the threads compute for, which names
 * them ("dsana-wrk-3.t0", "dsana-wrk-3.t1" ..., role_title.h). heap_pad:
 * bytes each thread pre-faults in its heap as it starts (heap_prefault,
 * util/memory/bigmem.h; 0: none). */
int pool_create(uint32_t n_threads, int64_t first_cpu, uint32_t worker, size_t heap_pad, pool_run_fn run, void *arg,
                struct pool **out);
/* Stop and join the threads (items not run are dropped). */
void pool_destroy(struct pool *p);
/* Queue copies of items[0..n), then wake the threads (none before all are
 * queued); on failure the items before the one that failed are queued. */
int pool_submit(struct pool *p, const struct witem *items, uint32_t n);
/* A finished item, if any: true and *it. */
bool pool_take(struct pool *p, struct witem *it);
/* Submissions whose last item was not taken. */
uint32_t pool_in_flight(const struct pool *p);
/* Threads (0 for a manual pool). */
uint32_t pool_threads(const struct pool *p);
/* Readable while finished items wait (-1 for a manual pool). */
int pool_fd(const struct pool *p);
/* Make the fd readable from any thread (a running item has news for the
 * owner: dsana_push_ready); the next pool_take() clears it. */
void pool_wake(struct pool *p);
/* Manual pool: items queued and not run. */
uint32_t pool_pending(const struct pool *p);
/* Manual pool: run the k-th queued item now (k < pool_pending()). */
void pool_run(struct pool *p, uint32_t k);
/* Manual pool: the k-th queued item (k < pool_pending(); queued in the
 * order submitted), NULL otherwise; valid until the pool changes. For
 * tests that check what a worker hands out. */
const struct witem *pool_queued(const struct pool *p, uint32_t k);

#endif
