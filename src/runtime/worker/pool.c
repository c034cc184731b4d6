/* pool.c - a worker's compute threads (pool.h): two FIFO rings under one
 * mutex, a condition variable for the threads, an eventfd for the owner.
 * A thread runs a hand-out's items one after the other (worker_next_item)
 * into a batch of its own, which it hands back in one go. */
#include "runtime/worker/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "runtime/worker/worker.h"
#include "runtime/role/role_title.h"
#include "util/thread/affinity.h"
#include "util/memory/bigmem.h"
#include "util/thread/cpu_busy.h"
#include "util/memory/grow.h"
#include "util/text/log.h"
#include "util/thread/wakefd.h"

struct ring {
  struct witem *v;
  size_t head, n, cap;
};

struct pool {
  pool_run_fn run;
  void *arg;
  uint32_t n_threads;
  pthread_t *threads;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct ring todo, done;
  uint32_t in_flight; /* the owner's: hand-outs submitted whose last item it did not take */
  bool armed;         /* the fd was made readable for finished items (not taken since) */
  atomic_bool stop;
  struct wakefd wake; /* the owner's fd (-1: a manual pool) */
};

static int ring_push(struct ring *r, const struct witem *it) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 16;
    struct witem *v = malloc(cap * sizeof *v);
    if (!v)
      return DSANA_ENOMEM;
    for (size_t i = 0; i < r->n; i++)
      v[i] = r->v[(r->head + i) % r->cap];
    free(r->v);
    r->v = v;
    r->head = 0;
    r->cap = cap;
  }
  r->v[(r->head + r->n++) % r->cap] = *it;
  return 0;
}

static struct witem ring_pop_at(struct ring *r, size_t k) {
  struct witem it = r->v[(r->head + k) % r->cap];
  for (size_t i = k; i > 0; i--) /* keep the others in order */
    r->v[(r->head + i) % r->cap] = r->v[(r->head + i - 1) % r->cap];
  r->head = (r->head + 1) % r->cap;
  r->n--;
  return it;
}

struct thread_arg {
  struct pool *p;
  uint32_t index;
  uint32_t worker;   /* the worker it computes for (its name) */
  size_t heap_pad;   /* heap_prefault() as it starts */
  int64_t cpu;       /* the n-th CPU this process may run on, modulo their count; < 0: any */
  struct ring batch; /* the items of its hand-out run so far (room for POOL_BATCH_FIRST to begin with) */
};

#define POOL_BATCH_FIRST 16

/* Run hand-out `it` and the items after it that may run at once (the
 * same instance's, worker_next_item) into batch, in order, each but the
 * last marked `more`. Room for the next one is made before it runs (none:
 * the batch ends there), so no item gets lost. */
static void run_chain(struct pool *p, struct witem it, uint32_t index, struct ring *batch) {
  for (;;) {
    cpu_busy_add(1);
    p->run(p->arg, &it, index);
    cpu_busy_add(-1);
    struct witem next = it, *v = grow_for_one(batch->v, &batch->cap, batch->n + 1, sizeof *v, POOL_BATCH_FIRST);
    batch->v = v ? v : batch->v;
    it.more = v && !atomic_load_explicit(&p->stop, memory_order_relaxed) && worker_next_item(&next);
    batch->v[batch->n++] = it; /* (head stays 0: a batch is a plain array) */
    if (!it.more)
      return;
    it = next;
  }
}

/* A batch's items go to the owner together (under the mutex); true when
 * the caller must wake it through the fd (not readable already), which it
 * does once the mutex is released: the owner, woken, takes the mutex at
 * once. Every batch wakes the owner: even one whose instance then waits
 * for a chunk may have made pushes ready (env push_ready) that only the
 * owner sends, and a batch kept back for the chunk's arrival stalled
 * whole jobs until the heartbeat's tick when that chunk waited for those
 * very pushes. */
static bool hand_back(struct pool *p, struct ring *batch) {
  for (size_t i = 0; i < batch->n; i++)
    if (ring_push(&p->done, &batch->v[i]) != 0)
      log_error("pool: out of memory keeping a finished item");
  batch->n = 0;
  bool wake = !p->armed;
  p->armed = true;
  if (wake)
    wakefd_promise(&p->wake);
  return wake;
}

static void *thread_main(void *argp) {
  struct thread_arg ta = *(struct thread_arg *)argp;
  free(argp);
  struct pool *p = ta.p;
  char suffix[16];
  snprintf(suffix, sizeof suffix, ".t%u", ta.index);
  role_helper_title(ROLE_WORKER, ta.worker, suffix);
  if (ta.cpu >= 0 && affinity_bind_nth((uint64_t)ta.cpu) != 0)
    log_debug("pool: cannot bind compute thread %u to a CPU", ta.index);
  heap_prefault(ta.heap_pad); /* its push buffers, before the first iteration */
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->todo.n == 0)
      pthread_cond_wait(&p->cv, &p->mu);
    if (p->stop)
      break;
    struct witem it = ring_pop_at(&p->todo, 0);
    pthread_mutex_unlock(&p->mu);
    run_chain(p, it, ta.index, &ta.batch);
    pthread_mutex_lock(&p->mu);
    if (hand_back(p, &ta.batch)) {
      pthread_mutex_unlock(&p->mu);
      wakefd_signal(&p->wake); /* a late write after pool_take() emptied `done` is one spurious wake-up */
      pthread_mutex_lock(&p->mu);
    }
  }
  pthread_mutex_unlock(&p->mu);
  free(ta.batch.v);
  return NULL;
}

int pool_create(uint32_t n_threads, int64_t first_cpu, uint32_t worker, size_t heap_pad, pool_run_fn run, void *arg,
                struct pool **out) {
  struct pool *p = calloc(1, sizeof *p);
  if (!p)
    return DSANA_ENOMEM;
  p->run = run;
  p->arg = arg;
  p->wake.fd = -1;
  if (n_threads)
    wakefd_open(&p->wake);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->threads = calloc(n_threads ? n_threads : 1, sizeof *p->threads);
  if (!p->threads || (n_threads && p->wake.fd < 0)) {
    pool_destroy(p);
    return DSANA_ENOMEM;
  }
  for (uint32_t i = 0; i < n_threads; i++) {
    struct thread_arg *ta = malloc(sizeof *ta);
    struct witem *batch = malloc(POOL_BATCH_FIRST * sizeof *batch);
    if (ta && batch)
      *ta = (struct thread_arg){.p = p,
                                .index = i,
                                .worker = worker,
                                .heap_pad = heap_pad,
                                .cpu = first_cpu < 0 ? -1 : first_cpu + i,
                                .batch = {.v = batch, .cap = POOL_BATCH_FIRST}};
    if (!ta || !batch || pthread_create(&p->threads[i], NULL, thread_main, ta) != 0) {
      free(batch);
      free(ta);
      pool_destroy(p);
      return DSANA_ENOMEM;
    }
    p->n_threads++;
  }
  *out = p;
  return 0;
}

void pool_destroy(struct pool *p) {
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t i = 0; i < p->n_threads; i++)
    pthread_join(p->threads[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  wakefd_close(&p->wake);
  free(p->threads);
  free(p->todo.v);
  free(p->done.v);
  free(p);
}

/* All n queued before any thread wakes: a compute thread woken on the
 * owner's core preempts it, and the owner's next item then waited for the
 * core until that item ended (the MLP's second task ran after the first
 * in half of its steps). */
int pool_submit(struct pool *p, const struct witem *items, uint32_t n) {
  int rc = 0;
  uint32_t queued = 0;
  pthread_mutex_lock(&p->mu);
  while (queued < n && (rc = ring_push(&p->todo, &items[queued])) == 0)
    queued++;
  p->in_flight += queued;
  pthread_mutex_unlock(&p->mu);
  /* after the unlock: the threads woken take the mutex at once. One
   * broadcast, not a signal per item: the thread the first signal woke
   * preempted the owner before its second (the MLP's two tasks ran one
   * after the other in 49-56 of 150 steps that way, 0-1 with this) */
  if (queued > 1)
    pthread_cond_broadcast(&p->cv);
  else if (queued)
    pthread_cond_signal(&p->cv);
  return rc;
}

bool pool_take(struct pool *p, struct witem *it) {
  pthread_mutex_lock(&p->mu);
  bool got = p->done.n > 0;
  if (got) {
    *it = ring_pop_at(&p->done, 0);
    p->in_flight -= !it->more;
  }
  if (p->done.n == 0) {
    wakefd_drain(&p->wake);
    p->armed = false;
  }
  pthread_mutex_unlock(&p->mu);
  return got;
}

uint32_t pool_in_flight(const struct pool *p) { return p->in_flight; }
uint32_t pool_threads(const struct pool *p) { return p->n_threads; }
int pool_fd(const struct pool *p) { return p->wake.fd; }
void pool_wake(struct pool *p) {
  if (p->wake.fd < 0)
    return;
  pthread_mutex_lock(&p->mu);
  wakefd_promise(&p->wake);
  pthread_mutex_unlock(&p->mu);
  wakefd_signal(&p->wake);
}
uint32_t pool_pending(const struct pool *p) { return (uint32_t)p->todo.n; }

const struct witem *pool_queued(const struct pool *p, uint32_t k) {
  return p->n_threads || k >= p->todo.n ? NULL : &p->todo.v[(p->todo.head + k) % p->todo.cap];
}

void pool_run(struct pool *p, uint32_t k) {
  if (p->n_threads || k >= p->todo.n)
    return;
  struct witem it = ring_pop_at(&p->todo, k);
  p->run(p->arg, &it, 0);
  if (ring_push(&p->done, &it) != 0)
    log_error("pool: out of memory keeping a finished item");
}
