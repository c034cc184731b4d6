/*
 * worker.c - the worker role: runs the tasks the scheduler hands it, pulling
 * table values from the servers and pushing each task's results.
 *
 * The worker keeps a mirror of every table it reads (indexed by key) and a
 * push buffer for the tasks' output table. In this version a pull fetches
 * the whole table once per iteration (whole-table transfers, as in plain
 * BSP). A task's speed is emulated after it computes: the worker sleeps so
 * that the task's wall time is its compute time times the scenario's
 * slowdown for this worker and iteration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fault.h"
#include "runtime/trace.h"
#include "runtime/worker.h"
#include "util/clock.h"
#include "util/log.h"

/* The emulated compute's sleep: the worker's link keeps sending meanwhile
 * (pushes queued before it leave on time, not after the next block). */
static void worker_sleep(void *arg, uint64_t until_ns) {
  struct worker *w = arg;
  for (uint64_t now = clock_now_ns(); now < until_ns; now = clock_now_ns()) {
    uint64_t due = net_outbox_due_ns(w->node.outbox);
    uint64_t wake = due && due < until_ns ? due : until_ns;
    if (wake > now)
      clock_sleep_ns(wake - now);
    int rc = due && due <= wake ? net_outbox_pump(w->node.outbox, clock_now_ns(), NULL) : 0;
    if (rc && !w->sleep_err)
      w->sleep_err = rc; /* a server gone: the loop stops on it */
  }
}

static int worker_connect_servers(struct worker *w) {
  uint32_t s_n = w->node.cfg.n_servers;
  w->servers = calloc(s_n, sizeof *w->servers);
  if (!w->servers)
    return DSANA_ENOMEM;
  for (uint32_t s = 0; s < s_n; s++) {
    int rc = net_dial(w->node.ctx, w->node.map->server_addr[s], 0x20000000u | (w->node.index << 8) | s, &w->servers[s]);
    if (rc) {
      log_error("cannot connect to server %u at %s", s, w->node.map->server_addr[s]);
      return rc;
    }
  }
  const struct dsana_job *job = &w->node.job;
  uint64_t n = job->tables[job->out_table].n_keys;
  w->push_buf = calloc(n, sizeof(double));
  if (!w->push_buf)
    return DSANA_ENOMEM;
  int rc = mirror_init(&w->mirror, job->n_tables, n, w->node.map->chunk_keys, w->servers, s_n, w->node.outbox,
                       w->node.index, w->node.cfg.peer_timeout_s);
  /* on one machine without an emulated link, read the servers' buffers */
  if (!rc && !net_outbox_emulating(w->node.outbox))
    mirror_use_shm(&w->mirror, w->node.cfg.ipc_dir);
  for (uint32_t t = 0; !rc && t < job->n_tables; t++)
    mirror_set_unread(&w->mirror, t, job->unread[t]);
  if (!rc)
    rc = emulate_init(&w->emu, worker_slot(w, job->n_tasks, 0), w->node.sc.ns_per_cost);
  if (!rc && net_outbox_emulating(w->node.outbox))
    emulate_set_sleep(&w->emu, worker_sleep, w);
  return rc;
}

static int worker_alloc_tasks(struct worker *w) {
  uint32_t n = w->node.job.n_tasks;
  w->queue = calloc(n, sizeof *w->queue);
  w->ran = calloc(n, sizeof *w->ran);
  if (w->blocks)
    w->held = calloc(worker_held_cap(w), sizeof *w->held);
  return w->queue && w->ran && (w->held || !w->blocks) ? 0 : DSANA_ENOMEM;
}

uint32_t worker_queue_pop(struct worker *w) {
  uint32_t task = w->queue[w->q_head];
  w->q_head = (w->q_head + 1) % w->node.job.n_tasks;
  w->q_len--;
  return task;
}

static void worker_free(struct worker *w) {
  emulate_fini(&w->emu);
  mirror_fini(&w->mirror);
  free(w->held);
  free(w->queue);
  free(w->ran);
  free(w->push_buf);
  if (w->servers)
    for (uint32_t s = 0; s < w->node.cfg.n_servers; s++)
      if (w->servers[s])
        net_close(w->servers[s]);
  free(w->servers);
  node_close(&w->node);
  free(w);
}

int dsana_pull(struct dsana_worker_view *v, uint32_t table, uint64_t lo, uint64_t hi, const double **values) {
  struct worker *w = v->w;
  const struct dsana_job *job = &w->node.job;
  if (table >= job->n_tables || lo > hi || hi > job->tables[table].n_keys)
    return DSANA_EINVAL;
  int rc = mirror_wait(&w->mirror, table, w->run_iter, lo, hi);
  if (rc)
    return rc;
  *values = w->mirror.t[table].values;
  return 0;
}

uint64_t dsana_pull_granularity(struct dsana_worker_view *v) { return v->w->mirror.chunk_keys; }

double *dsana_push_buf(struct dsana_worker_view *v) { return v->w->push_buf; }

/* Send the task's output range to the servers owning it. */
static int worker_push(struct worker *w, uint32_t task, const struct dsana_task_decl *d) {
  const struct dsana_job *job = &w->node.job;
  uint64_t n = job->tables[job->out_table].n_keys;
  uint64_t max_keys = config_keys_per_msg(&w->node.cfg);
  for (uint64_t at = d->lo; at < d->hi;) {
    uint32_t s = shard_of(n, w->node.cfg.n_servers, at);
    uint64_t slo, shi;
    shard_range(n, w->node.cfg.n_servers, s, &slo, &shi);
    uint64_t end = d->hi < shi ? d->hi : shi;
    if (end - at > max_keys)
      end = at + max_keys;
    struct wire_hdr h = wire_hdr_make(WIRE_PUSH, w->node.index);
    h.table = job->out_table;
    h.iter = w->iter;
    h.chunk = task;
    h.key_lo = at;
    h.key_hi = end;
    h.payload_bytes = (end - at) * sizeof(double);
    int rc = net_outbox_send(w->node.outbox, w->servers[s], NULL, &h, w->push_buf + at, (size_t)h.payload_bytes, 0);
    if (rc)
      return rc;
    w->bytes_out += WIRE_HDR_BYTES + h.payload_bytes;
    at = end;
    if (at < d->hi)
      fault_point(FAULT_MID_PUSH, w->iter);
  }
  return 0;
}

uint64_t worker_slot(const struct worker *w, uint32_t task, uint64_t part) {
  return (uint64_t)task * (w->mirror.n_chunks + 2) + part;
}

uint64_t worker_emulate(struct worker *w, uint32_t iter, uint64_t slot, uint64_t compute_ns, double cost) {
  return emulate_work(&w->emu, slot, compute_ns, cost, scenario_slowdown(&w->node.sc, w->node.index, iter));
}

int worker_complete(struct worker *w, uint32_t task, uint64_t compute_ns, uint64_t wait_ns, uint64_t overlap_ns,
                    uint64_t start_ns) {
  fault_point(FAULT_BEFORE_PUSH, w->iter);
  uint64_t t0 = clock_now_ns();
  int rc = worker_push(w, task, &w->node.job.tasks[task]);
  if (rc)
    return rc;
  trace_span("push", "transfer", t0, clock_now_ns(), w->iter, "task", task);
  fault_point(FAULT_AFTER_PUSH, w->iter);
  struct msg_task_done done = {.compute_ns = compute_ns, .wait_ns = wait_ns,
                               .idle_ns = w->last_task_end_ns && start_ns > w->last_task_end_ns
                                              ? start_ns - w->last_task_end_ns : 0,
                               .bytes_in = w->mirror.bytes_in - w->bytes_in_mark,
                               .bytes_out = w->bytes_out - w->bytes_out_mark,
                               .overlap_ns = overlap_ns,
                               .overrun_ns = w->emu.overrun_ns - w->overrun_mark};
  w->overrun_mark = w->emu.overrun_ns;
  if (w->n_ran < w->node.job.n_tasks)
    w->ran[w->n_ran++] = task;
  w->bytes_in_mark = w->mirror.bytes_in;
  w->bytes_out_mark = w->bytes_out;
  w->last_task_end_ns = clock_now_ns();
  uint8_t buf[MSG_TASK_DONE_BYTES];
  msg_task_done_encode(&done, buf);
  struct wire_hdr h = wire_hdr_make(WIRE_TASK_DONE, w->node.index);
  h.iter = w->iter;
  h.chunk = task;
  h.payload_bytes = sizeof buf;
  rc = node_send(&w->node, &h, buf, sizeof buf);
  /* let the push leave now, not after the rest of the worker's blocks */
  return rc ? rc : net_outbox_pump(w->node.outbox, clock_now_ns(), NULL);
}

static int worker_run_task(struct worker *w, uint32_t task) {
  const struct dsana_task_decl *d = &w->node.job.tasks[task];
  fault_point(FAULT_BEFORE_TASK, w->iter);
  uint64_t t0 = clock_now_ns();
  uint64_t wait0 = w->mirror.wait_ns;
  struct dsana_task_ctx ctx = {.task = task, .iter = w->iter, .lo = d->lo, .hi = d->hi, .globals = w->globals,
                               .view = &w->view};
  w->run_iter = w->iter;
  int rc = w->node.app->run_task(w->node.app_state, &ctx);
  if (rc) {
    log_error("task %u failed in iteration %u: %s", task, w->iter, dsana_strerror(rc));
    return rc;
  }
  uint64_t waited = w->mirror.wait_ns - wait0;
  uint64_t compute = worker_emulate(w, w->iter, worker_slot(w, task, 0), clock_now_ns() - t0 - waited, d->cost);
  trace_span("task", "compute", t0, clock_now_ns(), w->iter, "task", task);
  return worker_complete(w, task, compute, waited, 0, t0);
}

/* The scheduler has nothing more for this worker in this iteration: what
 * it still holds provisionally is not its own; it starts fetching iteration
 * iter's input (block-wise tasks: alongside the tasks it still runs, chunk
 * by chunk, see mirror.h) and, under static scheduling, running iter's
 * tasks, which are the ones it runs now. */
static int worker_on_fetch_ahead(struct worker *w, uint32_t iter) {
  if (iter != w->iter + 1)
    return 0;
  worker_blocks_drop_provisional(w);
  bool idle = w->q_len == 0 && w->n_held == 0;
  if (!idle && !w->blocks)
    return 0;
  int rc = mirror_prefetch(&w->mirror, iter);
  if (idle)
    mirror_release(&w->mirror);
  if (!rc && w->blocks && w->node.cfg.sched == SCHED_STATIC)
    rc = worker_blocks_ahead(w, iter);
  return rc;
}

static int worker_on_sched(struct worker *w, const struct net_msg *m, bool *done) {
  const struct wire_hdr *h = &m->hdr;
  switch (h->type) {
  case WIRE_ITER_START: {
    /* fetch the tables now if this worker ran tasks in the iteration
     * before (it most likely runs some again); else on its first task */
    bool ran = w->n_ran > 0;
    w->iter = h->iter;
    msg_globals_decode(m->payload, w->globals); /* provisional tasks read them from here too */
    w->last_task_end_ns = 0;
    w->n_ran = 0;
    return ran ? mirror_prefetch(&w->mirror, w->iter) : 0;
  }
  case WIRE_TASK:
    if (h->iter != w->iter || h->chunk >= w->node.job.n_tasks || w->q_len == w->node.job.n_tasks) {
      log_warn("dropped TASK %u for iteration %u (at iteration %u)", h->chunk, h->iter, w->iter);
      return 0;
    }
    if (!worker_blocks_confirm(w, h->chunk))
      w->queue[(w->q_head + w->q_len++) % w->node.job.n_tasks] = h->chunk;
    return 0;
  case WIRE_FETCH_AHEAD:
    return worker_on_fetch_ahead(w, h->iter);
  case WIRE_STOP: {
    *done = true;
    struct wire_hdr bye = wire_hdr_make(WIRE_BYE, w->node.index);
    return node_send(&w->node, &bye, NULL, 0);
  }
  case WIRE_ABORT:
    log_error("scheduler aborted the job: %.*s", (int)h->payload_bytes, (const char *)m->payload);
    return DSANA_EPEER;
  case WIRE_HEARTBEAT:
    return 0;
  default:
    log_warn("ignored %s from the scheduler", wire_type_name(h->type));
    return 0;
  }
}

/* With no work in hand, block on the scheduler until a message, the next
 * emulated send or a heartbeat is due. */
static int worker_idle(struct worker *w, int idle_ms) {
  if (w->q_len || w->n_held)
    return 0;
  bool ready;
  int rc = net_poll_until(&w->node.sched, 1, idle_ms, net_outbox_due_ns(w->node.outbox), &ready);
  return rc < 0 ? rc : 0;
}

static int worker_loop(struct worker *w) {
  int idle_ms = (int)(w->node.cfg.heartbeat_s * 1000);
  for (bool done = false; !done;) {
    struct net_msg m;
    int rc = worker_idle(w, idle_ms);
    if (rc)
      return rc;
    while (!done && (rc = net_recv(w->node.sched, &m, 0)) == 0) {
      w->node.last_heard_ns = clock_now_ns();
      rc = worker_on_sched(w, &m, &done);
      net_msg_fini(&m);
      if (rc)
        return rc;
    }
    if (!done && rc != DSANA_EAGAIN)
      return rc;
    if (!done && w->blocks) {
      bool progress;
      if ((rc = worker_blocks_step(w, &progress)) != 0)
        return rc;
      if (!progress && w->n_held && (rc = mirror_recv(&w->mirror, 1, &(int){0})) < 0)
        return rc;
      w->node.last_heard_ns = clock_now_ns(); /* busy, not deaf */
    } else if (!done && w->q_len) {
      if ((rc = worker_run_task(w, worker_queue_pop(w))) != 0)
        return rc;
      w->node.last_heard_ns = clock_now_ns(); /* busy, not deaf */
    }
    if ((rc = w->sleep_err) != 0 || (rc = net_outbox_pump(w->node.outbox, clock_now_ns(), NULL)) != 0)
      return rc;
    node_tick(&w->node);
    if ((rc = node_check_scheduler(&w->node)) != 0)
      return rc;
  }
  return net_outbox_flush(w->node.outbox);
}

int runtime_run_worker(const struct role_params *p) {
  struct worker *w = calloc(1, sizeof *w);
  if (!w)
    return DSANA_ENOMEM;
  log_set_role("worker");
  w->view.w = w;
  int rc = node_open(&w->node, p, ROLE_WORKER);
  if (!rc)
    rc = node_join(&w->node, p, "");
  if (!rc)
    rc = worker_connect_servers(w);
  if (!rc)
    fault_init(w->node.index);
  if (!rc)
    rc = trace_open_role(w->node.map->trace_path, "worker", 3, w->node.index);
  w->blocks = !rc && w->node.map->chunk_keys && w->node.app->task_block;
  if (!rc)
    rc = worker_alloc_tasks(w);
  if (!rc)
    rc = worker_loop(w);
  if (rc)
    log_debug("stopping: %s", dsana_strerror(rc));
  int trc = trace_close();
  worker_free(w);
  rc = rc ? rc : trc;
  return rc;
}
