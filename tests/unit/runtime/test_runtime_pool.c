/*
 * test_runtime_pool.c - a worker's compute thread runs a block-wise task
 * instance's items back to back (src/runtime/worker/pool.c with
 * worker_next_item): the blocks whose chunks the control thread said are in
 * (wtask.chain), then the end once it may run, each run (and timed) on its
 * own and in order, handed back in one batch with one wake-up of the owner;
 * a failed item ends the batch; a batch whose instance waits for its next
 * chunk wakes the owner all the same. A minimal worker holds what
 * worker_next_item reads: the block table's chunk count and the one-block
 * flag. Items submitted together run at once on as many threads. Waits
 * are bounded (10 s); no test asserts on time. The owner's own wake-up
 * is read back once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "runtime/worker/pool.h"
#include "runtime/worker/worker_state.h"

#define N_CHUNKS 8
#define MAX_RUN 32

struct fixture {
  struct worker w;
  struct wtask wt;
  struct pool *pool;
  struct witem ran[MAX_RUN]; /* what the thread ran, in order (read after pool_take) */
  uint32_t n_ran;
  uint64_t fail_chunk; /* a block that fails (UINT64_MAX: none) */
};

static void run(void *arg, struct witem *it, uint32_t thread) {
  struct fixture *f = arg;
  (void)thread;
  it->rc = it->kind == WITEM_BLOCK && it->chunk == f->fail_chunk ? -1 : 0;
  it->modelled_ns = 1000 + it->chunk; /* timed on its own */
  if (f->n_ran < MAX_RUN)
    f->ran[f->n_ran++] = *it;
}

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->w.blocks = true;
  f->w.one_block_items = true;
  f->w.job.block_table = 0;
  f->w.mirror.t[0].n_chunks = N_CHUNKS;
  f->wt.live = f->wt.running = true;
  f->wt.task = 3;
  f->wt.rt = (struct dsana_task_rt){.w = &f->w, .wt = &f->wt};
  f->fail_chunk = UINT64_MAX;
  assert_int_equal(pool_create(1, -1, 0, 0, run, f, &f->pool), 0);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  pool_destroy(f->pool);
  free(f);
  return 0;
}

static void publish(struct fixture *f, uint64_t chunks, uint64_t flags) {
  atomic_store_explicit(&f->wt.chain, chunks << 3 | flags, memory_order_release);
}

static void submit_block(struct fixture *f, uint64_t c) {
  struct witem it = {.kind = WITEM_BLOCK, .wt = &f->wt, .chunk = c, .chunk_end = c + 1};
  it.slot = witem_slot(&f->w, &it);
  assert_int_equal(pool_submit(f->pool, &it, 1), 0);
}

static bool fd_readable(struct fixture *f, int timeout_ms) {
  struct pollfd p = {.fd = pool_fd(f->pool), .events = POLLIN};
  return poll(&p, 1, timeout_ms) == 1;
}

/* The owner's own wake-up (pool_wake: a running item said keys final)
 * makes the fd readable with nothing finished; the next take, empty,
 * reads it back, and takes after it make no more to read. */
static void test_wake_is_read_back_once(void **state) {
  struct fixture *f = *state;
  struct witem it;
  assert_false(fd_readable(f, 0));
  pool_wake(f->pool);
  pool_wake(f->pool);
  assert_true(fd_readable(f, 0));
  assert_false(pool_take(f->pool, &it));
  assert_false(fd_readable(f, 0));
  assert_false(pool_take(f->pool, &it));
  assert_false(fd_readable(f, 0));
}

/* Take the whole batch (n items), waiting at most 10 s for the first. */
static void take(struct fixture *f, struct witem *out, uint32_t n) {
  struct timespec pause = {0, 1000000};
  for (int i = 0; i < 10000 && !pool_take(f->pool, &out[0]); i++)
    nanosleep(&pause, NULL);
  assert_true(out[0].wt == &f->wt);
  for (uint32_t i = 1; i < n; i++)
    assert_true(pool_take(f->pool, &out[i]));
}

/* Five blocks in: one hand-out runs them all, one at a time in order,
 * each on its own emulation slot, and they come back together: one
 * wake-up, the hand-out in flight until its last item is taken. The batch
 * stops for chunk 5, not in, and still wakes the owner: its blocks may
 * have made pushes ready that only the owner sends (a batch kept back
 * until the chunk came stalled jobs until the heartbeat's tick). */
static void test_ready_blocks_run_back_to_back(void **state) {
  struct fixture *f = *state;
  publish(f, 5, 0);
  submit_block(f, 0);
  assert_true(fd_readable(f, 10000));
  struct witem got[5];
  take(f, got, 1);
  assert_true(fd_readable(f, 0)); /* the batch is all in: still readable */
  take(f, got + 1, 4);
  for (uint64_t c = 0; c < 5; c++) {
    assert_int_equal(got[c].kind, WITEM_BLOCK);
    assert_int_equal(got[c].chunk, c);
    assert_int_equal(got[c].chunk_end, c + 1);
    assert_int_equal(got[c].slot, 3 * (N_CHUNKS + 2) + 1 + c);
    assert_int_equal(got[c].modelled_ns, 1000 + c);
    assert_int_equal(got[c].more, c < 4);
  }
  assert_int_equal(f->n_ran, 5);
  assert_int_equal(pool_in_flight(f->pool), 0);
  struct witem none;
  assert_false(pool_take(f->pool, &none));
  assert_false(fd_readable(f, 0)); /* cleared by the take that emptied it */
}

/* Every chunk in and the end allowed: the last blocks, then the end. */
static void test_end_follows_the_last_block(void **state) {
  struct fixture *f = *state;
  publish(f, N_CHUNKS, CHAIN_END);
  submit_block(f, N_CHUNKS - 2);
  assert_true(fd_readable(f, 10000));
  struct witem got[3];
  take(f, got, 3);
  assert_int_equal(got[0].chunk, N_CHUNKS - 2);
  assert_int_equal(got[1].chunk, N_CHUNKS - 1);
  assert_int_equal(got[2].kind, WITEM_END);
  assert_int_equal(got[2].slot, 3 * (N_CHUNKS + 2) + 1 + N_CHUNKS);
  assert_false(got[2].more);
  assert_int_equal(pool_in_flight(f->pool), 0);
}

/* Without the end allowed (its iteration's TASKS not in), the batch stops
 * after the last block; a failed block ends it at once. */
static void test_batch_stops_at_what_cannot_run(void **state) {
  struct fixture *f = *state;
  publish(f, N_CHUNKS, 0);
  submit_block(f, N_CHUNKS - 1);
  assert_true(fd_readable(f, 10000));
  struct witem got[3];
  take(f, got, 1);
  assert_false(got[0].more);
  f->fail_chunk = 2;
  submit_block(f, 1);
  assert_true(fd_readable(f, 10000));
  take(f, got, 2);
  assert_int_equal(got[1].chunk, 2);
  assert_int_equal(got[1].rc, -1);
  assert_false(got[1].more);
  assert_int_equal(f->n_ran, 3);
}

/* Two items submitted in one call run at the same time on a pool of two
 * threads: each waits (at most 10 s) until the other has started. */
struct meet {
  atomic_uint started;
  atomic_uint met;
};

static void run_meeting(void *arg, struct witem *it, uint32_t thread) {
  struct meet *m = arg;
  (void)thread;
  atomic_fetch_add(&m->started, 1);
  struct timespec nap = {0, 1000000};
  for (int i = 0; i < 10000 && atomic_load(&m->started) < 2; i++)
    nanosleep(&nap, NULL);
  if (atomic_load(&m->started) == 2)
    atomic_fetch_add(&m->met, 1);
  it->rc = 0;
}

static void test_batch_runs_on_every_thread_at_once(void **state) {
  (void)state;
  struct meet m = {0};
  static struct worker w; /* not block-wise: an item is a whole task */
  static struct wtask wt;
  wt.rt = (struct dsana_task_rt){.w = &w, .wt = &wt};
  struct pool *p;
  assert_int_equal(pool_create(2, -1, 0, 0, run_meeting, &m, &p), 0);
  struct witem items[2] = {{.kind = WITEM_RUN, .wt = &wt}, {.kind = WITEM_RUN, .wt = &wt}};
  assert_int_equal(pool_submit(p, items, 2), 0);
  assert_int_equal(pool_in_flight(p), 2);
  struct pollfd pf = {.fd = pool_fd(p), .events = POLLIN};
  struct witem got;
  for (uint32_t taken = 0; taken < 2;) {
    assert_true(poll(&pf, 1, 10000) > 0);
    while (taken < 2 && pool_take(p, &got))
      taken++;
  }
  assert_int_equal(atomic_load(&m.met), 2);
  pool_destroy(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_ready_blocks_run_back_to_back, setup, teardown),
      cmocka_unit_test_setup_teardown(test_end_follows_the_last_block, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batch_stops_at_what_cannot_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wake_is_read_back_once, setup, teardown),
      cmocka_unit_test(test_batch_runs_on_every_thread_at_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
