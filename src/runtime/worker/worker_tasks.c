/*
 * worker_tasks.c - the tasks a worker holds: their input, which of their
 * hook calls can run now, and what happens when one finished.
 *
 * A task handed to the worker becomes an instance (a slot) as soon as
 * there is room. Whole tasks run once their input is in. Block-wise tasks
 * (a block table pulled in chunks) run task_begin() once their other input
 * is in, then a block per chunk of the block table as the chunks arrive
 * (consecutive ready blocks in one item), then task_end(), which needs the
 * iteration's globals. Instances are served in the order they started, so
 * tasks finish in the order they were handed (ascending keys under
 * contiguous assignment), which lets the servers' chunks of the next
 * iteration become final early and in order.
 *
 * Running ahead: a worker mostly runs the same tasks every iteration (the
 * plan is sticky). Told to fetch ahead (WIRE_F_AHEAD with ITER_START of
 * t, or FETCH_AHEAD), it asks for t+1's input at once, into the mirror's
 * other buffer (mirror.h): servers stream each chunk as it becomes final.
 * Each task it finishes for t starts again, provisionally, for t+1: its
 * blocks run as t+1's chunks arrive, before the scheduler's barrier. A
 * provisional instance ends (the end needs t+1's globals) only after
 * ITER_START of t+1 and the TASKS that hands it to this worker again; one
 * that t+1 began without runs nothing more (the plan moved its task to
 * another worker: its blocks would delay the tasks this one was handed)
 * and is dropped once everything is handed out, or at t+2. Sums still run
 * in chunk order, so results are unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/record/trace.h"
#include "runtime/worker/worker_state.h"
#include "util/memory/bigmem.h"
#include "util/text/log.h"
#include "util/memory/refbuf.h"

int wtasks_alloc(struct worker *w) {
  uint32_t n = w->job.n_tasks;
  w->n_slots = 2 * n;
  /* the slots and their sums resident now (big_calloc touches them): an
   * instance first using a slot in iteration 2 faulted on it */
  w->slots = big_calloc(w->n_slots, sizeof *w->slots);
  w->order = calloc(w->n_slots, sizeof *w->order);
  w->queue = calloc(n, sizeof *w->queue);
  w->ran = calloc(n, sizeof *w->ran);
  w->tkeys = w->sparse ? calloc((size_t)n * w->job.n_tables, sizeof *w->tkeys) : NULL;
  w->push_to = calloc(w->map->n_servers, sizeof *w->push_to);
  /* every slot's sums and sent marks in one block each: a block per slot
   * (4 KiB of sums) grew a thread's malloc arena a page at a time, one
   * mprotect() under the process's memory-map lock each, which 64 workers
   * starting at once queued on for seconds */
  w->slot_sums = big_calloc((size_t)w->n_slots * DSANA_MAX_SUMS, sizeof *w->slot_sums);
  w->slot_sent = big_calloc((size_t)w->n_slots * w->map->n_servers, sizeof *w->slot_sent);
  if (!w->slots || !w->order || !w->queue || !w->ran || (w->sparse && !w->tkeys) || !w->push_to || !w->slot_sums ||
      !w->slot_sent)
    return DSANA_ENOMEM;
  for (uint32_t i = 0; i < w->n_slots; i++) {
    w->slots[i].sums = w->slot_sums + (size_t)i * DSANA_MAX_SUMS;
    w->slots[i].sent = w->slot_sent + (size_t)i * w->map->n_servers;
  }
  return 0;
}

void wtasks_free(struct worker *w) {
  free(w->slot_sums);
  free(w->slot_sent);
  for (uint32_t i = 0; w->slots && i < w->n_slots; i++) {
    free(w->slots[i].ready);
    for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++)
      refbuf_drop(w->slots[i].push[t].mem);
  }
  free(w->push_to);
  free(w->slots);
  free(w->order);
  free(w->queue);
  free(w->ran);
  free(w->tkeys);
}

/* ---- instances ------------------------------------------------------------ */

/* Add slot s to the order instances are served in: the order they came,
 * except block-wise instances, by iteration then task (ascending keys
 * under contiguous assignment): their blocks run chunk by chunk over every
 * instance held, so a task's end and push come in key order whatever order
 * they were handed in, and the servers' chunks of the next iteration
 * become final early and in the order the next iteration reads them. */
static void order_insert(struct worker *w, uint32_t s) {
  uint32_t at = w->n_held;
  const struct wtask *wt = &w->slots[s];
  while (w->blocks && at > 0) {
    const struct wtask *prev = &w->slots[w->order[at - 1]];
    if (prev->iter < wt->iter || (prev->iter == wt->iter && prev->task < wt->task))
      break;
    at--;
  }
  memmove(&w->order[at + 1], &w->order[at], sizeof *w->order * (w->n_held - at));
  w->order[at] = s;
  w->n_held++;
}

static struct wtask *instance_begin(struct worker *w, uint32_t task, uint32_t iter, bool provisional) {
  uint32_t s = 0;
  while (s < w->n_slots && w->slots[s].live)
    s++;
  if (s == w->n_slots)
    return NULL;
  struct wtask *wt = &w->slots[s];
  const struct dsana_task_decl *d = &w->job.tasks[task];
  dsana_xsum *sums = wt->sums;
  uint64_t *sent = wt->sent;
  struct wready *ready = wt->ready;
  struct wpush push[DSANA_MAX_TABLES];
  memcpy(push, wt->push, sizeof push);
  memset(wt, 0, sizeof *wt);
  atomic_init(&wt->ready_pub, 0);
  atomic_init(&wt->chain, 0);
  wt->ready = ready;
  wt->sent = sent;
  memset(sent, 0, w->map->n_servers * sizeof *sent);
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++)
    wt->push[t] = (struct wpush){.mem = push[t].mem}; /* buf, xbuf, keys: none */
  memset(sums, 0, DSANA_MAX_SUMS * sizeof *sums);
  wt->live = true;
  wt->task = task;
  wt->iter = iter;
  wt->provisional = provisional;
  wt->sums = sums;
  wt->start_ns = rt_now(w->env);
  wt->rt = (struct dsana_task_rt){.w = w, .wt = wt};
  wt->ctx = (struct dsana_task_ctx){
      .task = task, .iter = iter, .lo = d->lo, .hi = d->hi, .globals = w->globals, .sums = sums, .rt = &wt->rt};
  order_insert(w, s);
  return wt;
}

/* Remove the held instance at position i of the order, keeping the rest;
 * the key lists it held go back to the app. */
static void instance_remove(struct worker *w, uint32_t i) {
  struct wtask *wt = &w->slots[w->order[i]];
  for (uint32_t t = 0; wt->keys_held; t++)
    if (wt->keys_held >> t & 1) {
      wt->keys_held &= ~(1u << t);
      w->app->task_keys_done(w->app_state, wt->task, t);
    }
  wt->live = false;
  memmove(&w->order[i], &w->order[i + 1], sizeof *w->order * (--w->n_held - i));
}

static int start_queued(struct worker *w) {
  while (w->q_len > 0) {
    uint32_t task = w->queue[w->q_head];
    if (!instance_begin(w, task, w->iter, false))
      return 0; /* no room: later */
    w->q_head = (w->q_head + 1) % w->job.n_tasks;
    w->q_len--;
  }
  return 0;
}

/* A provisional instance whose iteration began without it: it is dropped
 * (once no item of it runs), reads nothing and runs nothing more. */
static bool stale(const struct worker *w, const struct wtask *wt) { return wt->provisional && wt->iter < w->iter; }

/* A provisional instance of the iteration now running that no hand-out
 * has confirmed: the plan gave its task to another worker, unless a later
 * TASKS (a steal) hands it here. It runs nothing meanwhile: its blocks
 * would go before the tasks this worker was handed (instances run in task
 * order) and delay them by their compute, modelled time included. */
static bool unconfirmed(const struct worker *w, const struct wtask *wt) {
  return wt->provisional && wt->iter == w->iter;
}

/* Provisional and begun ahead of an iteration that is now running (stale
 * or unconfirmed): it hands out no item. */
static bool runs_nothing(const struct worker *w, const struct wtask *wt) {
  return wt->provisional && wt->iter <= w->iter;
}

/* Nothing can confirm it any more: everything is handed out. */
static bool doomed(const struct worker *w, const struct wtask *wt) {
  return stale(w, wt) || (w->handed_all && unconfirmed(w, wt));
}

/* Drop the provisional instances of iterations before `before` (not running). */
static void drop_provisional(struct worker *w, uint32_t before) {
  for (uint32_t i = 0; i < w->n_held;) {
    struct wtask *wt = &w->slots[w->order[i]];
    if (wt->provisional && wt->iter < before && !wt->running) {
      instance_remove(w, i);
      w->dropped_ahead++;
    } else {
      i++;
    }
  }
}

/* Drop the provisional instances nothing can confirm any more (not
 * running): those of iterations before this one, and this one's
 * unconfirmed ones once everything is handed out (WIRE_F_HANDED_ALL). */
static void drop_doomed(struct worker *w) { drop_provisional(w, w->handed_all ? w->iter + 1 : w->iter); }

int wtasks_receive(struct worker *w, const uint32_t *tasks, uint32_t n) {
  for (uint32_t k = 0; k < n; k++) {
    uint32_t task = tasks[k];
    bool confirmed = false;
    for (uint32_t i = 0; i < w->n_held && !confirmed; i++) {
      struct wtask *wt = &w->slots[w->order[i]];
      if (wt->task == task && wt->provisional && wt->iter == w->iter) {
        wt->provisional = false;
        confirmed = true;
      }
    }
    if (confirmed)
      continue;
    if (task >= w->job.n_tasks || w->q_len == w->job.n_tasks) {
      log_warn("dropped TASKS entry %u for iteration %u", task, w->iter);
      continue;
    }
    w->queue[(w->q_head + w->q_len++) % w->job.n_tasks] = task;
  }
  drop_doomed(w); /* everything handed out: what this worker began ahead unconfirmed stays so */
  return start_queued(w);
}

int wtasks_iter_start(struct worker *w, bool ran_before, struct rt_outq *out) {
  w->n_ran = 0;
  w->last_task_end_ns = 0;
  drop_provisional(w, w->iter);
  mirror_iter_start(&w->mirror, w->iter);
  /* fetch the tables now if this worker ran tasks in the iteration before
   * (it most likely runs some again); else on its first task */
  return ran_before ? mirror_prefetch(&w->mirror, w->iter, out) : 0;
}

int wtasks_begin_ahead(struct worker *w, uint32_t task, uint32_t iter) {
  if (task >= w->job.n_tasks) {
    log_warn("dropped a planned task %u of iteration %u: no such task", task, iter);
    return 0;
  }
  if (!instance_begin(w, task, iter, true))
    log_debug("no room to begin task %u ahead", task);
  return 0;
}

bool wtasks_all_begun(const struct worker *w) {
  for (uint32_t i = 0; i < w->n_held; i++)
    if (!w->slots[w->order[i]].begun)
      return false;
  return true;
}

int wtasks_fetch_ahead(struct worker *w, uint32_t iter, struct rt_outq *out) {
  if (iter != w->iter + 1 || w->ahead_iter == iter)
    return 0;
  int rc = mirror_prefetch(&w->mirror, iter, out);
  if (rc || !w->run_ahead)
    return rc;
  w->ahead_iter = iter;
  for (uint32_t i = 0; i < w->n_ran; i++)
    if (!instance_begin(w, w->ran[i], iter, true))
      break;
  return 0;
}

/* ---- input ------------------------------------------------------------- */

/* The keys of sparse table tb that instance wt reads: task_keys(), fetched
 * once per task, or once per instance when the app takes them back
 * (task_keys_done: wt holds them until it is removed). */
static int task_keys(struct worker *w, struct wtask *wt, uint32_t tb, const struct job_range *r, struct wkeys **out) {
  uint32_t t = wt->task;
  struct wkeys *k = &w->tkeys[(size_t)t * w->job.n_tables + tb];
  if (w->app->task_keys_done)
    k->got = false;
  if (!k->got) {
    int rc = w->app->task_keys(w->app_state, t, tb, &k->keys, &k->n);
    if (rc == DSANA_EAGAIN) {
      log_error("task %u: no key list for table '%s', which is read by key lists", t, w->job.tables[tb].name);
      return DSANA_EINVAL;
    }
    if (rc)
      return rc;
    if (w->app->task_keys_done)
      wt->keys_held |= 1u << tb;
    if (k->n && (k->keys[0] < r->lo || k->keys[k->n - 1] >= r->hi)) {
      log_error("task %u: its keys of table '%s' leave its read range", t, w->job.tables[tb].name);
      return DSANA_EINVAL;
    }
    k->got = true;
  }
  *out = k;
  return 0;
}

/* Ask for (once) and check the input wt needs before it can start: every
 * table it reads but the block table (in block mode). */
static int input_ready(struct worker *w, struct wtask *wt, bool *ready, struct rt_outq *out) {
  const struct dsana_job *job = &w->job;
  *ready = true;
  for (uint32_t i = job->rd_off[wt->task]; i < job->rd_off[wt->task + 1]; i++) {
    const struct job_range *r = &job->rd[i];
    if ((w->blocks && r->table == job->block_table) || r->lo == r->hi)
      continue;
    int rc = 0;
    if (w->sparse >> r->table & 1) {
      struct wkeys *k;
      if (!wt->input_asked && ((rc = task_keys(w, wt, r->table, r, &k)) != 0 ||
                               (rc = mirror_sparse_request(&w->mirror, r->table, wt->iter, wt->task, k->keys, k->n,
                                                           &wt->tickets[r->table], out)) != 0))
        return rc;
      *ready = *ready && mirror_sparse_ready(&w->mirror, r->table, wt->iter, wt->tickets[r->table]);
    } else {
      /* the whole table, read at once */
      if ((rc = mirror_request(&w->mirror, r->table, wt->iter, out)) != 0)
        return rc;
      *ready = *ready && mirror_ready(&w->mirror, r->table, wt->iter, r->lo, r->hi);
    }
  }
  wt->input_asked = true;
  return 0;
}

/* Block mode: the block table is asked for every iteration a held
 * instance reads (the running one, and the next when running ahead). */
static int blocks_need(struct worker *w, struct rt_outq *out) {
  uint32_t asked = 0;
  for (uint32_t i = 0; i < w->n_held; i++) {
    const struct wtask *wt = &w->slots[w->order[i]];
    if (stale(w, wt)) /* its iteration (t-1) shares the buffer of t+1: asking would take it back */
      continue;
    uint32_t iter = wt->iter;
    int rc = iter == asked ? 0 : mirror_request(&w->mirror, w->job.block_table, iter, out);
    if (rc)
      return rc;
    asked = iter;
  }
  return 0;
}

/* ---- items ------------------------------------------------------------- */

/* The item wt can run now, if any (*found). */
static int instance_item(struct worker *w, struct wtask *wt, struct witem *it, bool *found, struct rt_outq *out) {
  bool ready;
  *found = false;
  memset(it, 0, sizeof *it);
  it->wt = wt;
  if (runs_nothing(w, wt))
    return 0;
  if (!w->blocks || !wt->begun) {
    int rc = input_ready(w, wt, &ready, out);
    if (rc || !ready)
      return rc;
    it->kind = w->blocks ? WITEM_BEGIN : WITEM_RUN;
    *found = true;
    return 0;
  }
  const struct mirror_table *mt = &w->mirror.t[w->job.block_table];
  if (w->iter == 0) /* loading: tasks begin, their blocks wait for the job's first ITER_START */
    return 0;
  if (wt->next_chunk < mt->n_chunks) {
    uint64_t c = wt->next_chunk;
    while (c < mt->n_chunks && mirror_chunk_ready(&w->mirror, w->job.block_table, wt->iter, c) &&
           (c == wt->next_chunk || !w->one_block_items))
      c++;
    if (c == wt->next_chunk)
      return 0;
    it->kind = WITEM_BLOCK;
    it->chunk = wt->next_chunk;
    it->chunk_end = c;
    it->overlap = mirror_missing(&w->mirror, w->job.block_table) > 0;
    *found = true;
    return 0;
  }
  if (wt->provisional || wt->iter != w->iter)
    return 0;
  it->kind = WITEM_END;
  *found = true;
  return 0;
}

/* What the compute thread running wt's items may run by itself
 * (wtask.chain): its blocks from the next one on (as this thread last
 * knew it) whose chunks are in, and the end once they all ran, as
 * instance_item() would hand them out;
 * nothing while loading or for a provisional instance that will be
 * dropped (its iteration began without it). */
static uint64_t chain_word(const struct worker *w, const struct wtask *wt) {
  if (!w->blocks || w->iter == 0 || runs_nothing(w, wt))
    return 0;
  uint32_t b = w->job.block_table;
  uint64_t c = wt->next_chunk, n = w->mirror.t[b].n_chunks;
  while (c < n && mirror_chunk_ready(&w->mirror, b, wt->iter, c))
    c++;
  bool end = c == n && !wt->provisional && wt->iter == w->iter;
  return c << 3 | (end ? CHAIN_END : 0) | (mirror_missing(&w->mirror, b) > 0 ? CHAIN_MISSING : 0);
}

void wtasks_publish(struct worker *w) {
  for (uint32_t i = 0; w->blocks && i < w->n_held; i++) {
    struct wtask *wt = &w->slots[w->order[i]];
    if (wt->running)
      atomic_store_explicit(&wt->chain, chain_word(w, wt), memory_order_release);
  }
}

/* Every task of the iteration handed out (WIRE_F_HANDED_ALL), and one
 * other than `finished` still runs: the report waits for it, as the
 * scheduler has nothing more to give. */
static bool others_running(const struct worker *w, const struct wtask *finished) {
  for (uint32_t i = 0; w->handed_all && i < w->n_held; i++) {
    const struct wtask *wt = &w->slots[w->order[i]];
    if (wt != finished && wt->running && !wt->provisional && wt->iter == w->iter)
      return true;
  }
  return false;
}

int wtasks_next(struct worker *w, struct witem *it, struct rt_outq *out) {
  int rc = start_queued(w);
  if (!rc && w->blocks)
    rc = blocks_need(w, out);
  for (uint32_t i = 0; !rc && i < w->n_held; i++) {
    struct wtask *wt = &w->slots[w->order[i]];
    bool found;
    if (wt->running || (rc = instance_item(w, wt, it, &found, out)) != 0 || !found)
      continue;
    wt->running = true;
    it->slot = witem_slot(w, it);
    it->cost = it->kind == WITEM_RUN ? w->job.tasks[wt->task].cost : 0;
    atomic_store_explicit(&wt->chain, chain_word(w, wt), memory_order_release);
    return 0;
  }
  /* nothing to run now: what waits leaves before the worker idles (the
   * report too, unless it waits for the last task: others_running) */
  if (!rc)
    rc = others_running(w, NULL) ? wflush_pushes(w, out) : w->done_count ? wflush(w, out) : 0;
  return rc ? rc : DSANA_EAGAIN;
}

/* Work is held beyond what runs now: tasks queued, or instances other than
 * `finished` that are not running. */
static bool more_ahead(const struct worker *w, const struct wtask *finished) {
  if (w->q_len > 0)
    return true;
  for (uint32_t i = 0; i < w->n_held; i++) {
    const struct wtask *wt = &w->slots[w->order[i]];
    if (wt != finished && !wt->running && !wt->provisional && wt->iter == w->iter)
      return true;
  }
  return false;
}

/* A finished instance: push, report, and (running ahead) start it again. */
static int instance_finish(struct worker *w, uint32_t pos, struct rt_outq *out) {
  struct wtask *wt = &w->slots[w->order[pos]];
  uint32_t task = wt->task;
  int rc = wpush_finished(w, wt, more_ahead(w, wt) || others_running(w, wt), out);
  if (rc)
    return rc;
  if (w->n_ran < w->job.n_tasks)
    w->ran[w->n_ran++] = task;
  instance_remove(w, pos);
  if (w->run_ahead && w->ahead_iter == w->iter + 1 && !instance_begin(w, task, w->ahead_iter, true))
    log_debug("no room to run task %u ahead", task);
  return 0;
}

int wtasks_done(struct worker *w, struct witem *it, struct rt_outq *out) {
  struct wtask *wt = it->wt;
  wt->running = false;
  wt->compute_ns += it->modelled_ns;
  wt->overrun_ns += it->overrun_ns;
  if (it->overlap)
    wt->overlap_ns += it->modelled_ns;
  if (it->rc) {
    log_error("task %u failed in iteration %u: %s", wt->task, wt->iter, dsana_strerror(it->rc));
    return it->rc;
  }
  /* its iteration began without it while this item ran: after its batch's
   * last item, the drop it missed */
  if (doomed(w, wt)) {
    if (!it->more)
      drop_doomed(w);
    return 0;
  }
  if (it->kind == WITEM_BEGIN) {
    wt->begun = true;
    wt->setup_ns += it->modelled_ns;
    return 0;
  }
  if (it->kind == WITEM_BLOCK) {
    wt->next_chunk = it->chunk_end;
    return 0;
  }
  for (uint32_t i = 0; i < w->n_held; i++)
    if (&w->slots[w->order[i]] == wt) {
      return instance_finish(w, i, out);
    }
  return DSANA_ESTATE;
}
