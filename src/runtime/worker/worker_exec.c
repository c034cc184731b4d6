/*
 * worker_exec.c - running one work item (a hook call of a task instance)
 * on any of the worker's compute threads, and the task-side API apps call
 * from those hooks (dsana_read, dsana_push_buf, dsana_push_keys,
 * dsana_push_ready).
 *
 * Thread safety: the control thread sets an instance up and does not touch
 * it while one of its items runs (but for wtask.chain, which tells the
 * compute thread what it may run next: worker_next_item); values the hook
 * reads (mirror chunks the control thread said are complete, the globals)
 * are not written while any item runs that may read them. Push buffers are the instance's own, or
 * (ASSIGN) disjoint ranges of one worker-wide buffer. The one exception:
 * once a task publishes key ranges of its pushes as final (ready_pub,
 * release), the control thread sends those keys while the task writes the
 * others, and reads the instance's push set-up, which no longer changes
 * (dsana_push_ready needs every buffer to exist), and the ranges published.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/worker/worker.h"
#include "runtime/worker/worker_state.h"
#include "util/memory/refbuf.h"

void worker_exec(struct witem *it) {
  struct wtask *wt = it->wt;
  struct worker *w = wt->rt.w;
  struct dsana_task_ctx *ctx = &wt->ctx;
  const struct dsana_app *app = w->app;
  ctx->cost = 0;
  switch (it->kind) {
  case WITEM_RUN:
    it->rc = app->run_task(w->app_state, ctx);
    it->cost = ctx->cost > 0 ? ctx->cost : w->job.tasks[wt->task].cost; /* a whole task costs its hint */
    return;
  case WITEM_BEGIN:
    it->rc = app->task_begin ? app->task_begin(w->app_state, ctx) : 0;
    it->cost = 0; /* not timed: it may build per-task data once */
    return;
  case WITEM_BLOCK:
    it->cost = 0;
    it->rc = 0;
    for (uint64_t c = it->chunk; c < it->chunk_end && !it->rc; c++) {
      ctx->cost = 0;
      it->rc = app->task_block(w->app_state, ctx, c);
      it->cost += ctx->cost;
    }
    return;
  case WITEM_END:
    it->rc = app->task_end ? app->task_end(w->app_state, ctx) : 0;
    it->cost = ctx->cost;
    return;
  }
}

bool worker_next_item(struct witem *it) {
  struct wtask *wt = it->wt;
  const struct worker *w = wt->rt.w;
  if (it->rc || !w->blocks || (it->kind != WITEM_BEGIN && it->kind != WITEM_BLOCK))
    return false;
  uint64_t word = atomic_load_explicit(&wt->chain, memory_order_acquire); /* the chunks it counts are in */
  uint64_t from = it->kind == WITEM_BLOCK ? it->chunk_end : 0, ready = CHAIN_CHUNKS(word);
  uint64_t n = w->mirror.t[w->job.block_table].n_chunks;
  struct witem next = {.wt = wt, .kind = from < n ? WITEM_BLOCK : WITEM_END, .overlap = word & CHAIN_MISSING};
  if (from < n ? ready <= from : !(word & CHAIN_END))
    return false;
  if (from < n) {
    next.chunk = from;
    next.chunk_end = w->one_block_items ? from + 1 : ready;
  } else {
    next.overlap = false;
  }
  next.slot = witem_slot(w, &next);
  *it = next;
  return true;
}

const double *dsana_read(const struct dsana_task_ctx *ctx, uint32_t table) {
  const struct worker *w = ctx->rt->w;
  struct job_range r;
  if (table >= w->job.n_tables || !job_task_reads(&w->job, ctx->task, table, &r))
    return NULL;
  return mirror_values(&w->mirror, table, ctx->iter);
}

uint32_t dsana_servers(const struct dsana_task_ctx *ctx) { return ctx->rt->w->map->n_servers; }

uint64_t dsana_block_keys(const struct dsana_task_ctx *ctx) {
  const struct worker *w = ctx->rt->w;
  uint32_t b = w->job.block_table;
  return b == JOB_NONE ? 0 : w->blocks ? w->mirror.t[b].chunk_keys : w->job.tables[b].n_keys;
}

/* n doubles for an instance's push, zeroed if `zero` (sums; an ASSIGN
 * task writes every value): the last instance's buffer unless it is too
 * small or a message still holds it (lent, in flight). */
static double *push_mem(struct wpush *p, size_t n, bool zero) {
  if (!p->mem || refbuf_shared(p->mem) || refbuf_cap(p->mem) < n) {
    refbuf_drop(p->mem);
    if (!(p->mem = refbuf_new(n ? n : 1)))
      return NULL;
  }
  double *m = refbuf_data(p->mem);
  if (zero)
    memset(m, 0, n * sizeof(double));
  return m;
}

/* dsana_push_buf() and dsana_push_buf_uninit(): zero, whether a SUM or
 * ISUM buffer is zeroed when made. */
static double *push_buf(struct dsana_task_ctx *ctx, uint32_t table, bool zero) {
  struct worker *w = ctx->rt->w;
  struct wpush *p = table < DSANA_MAX_TABLES ? &ctx->rt->wt->push[table] : NULL;
  struct job_range r;
  if (!p || !job_task_writes(&w->job, ctx->task, table, &r) || (p->used && (p->keys || p->xbuf)))
    return NULL;
  if (p->used)
    return p->buf;
  const struct job_table *jt = &w->job.tables[table];
  double *m = push_mem(p, (r.hi - r.lo) * jt->width, zero && jt->rule != DSANA_RULE_ASSIGN);
  p->buf = m ? m - r.lo * jt->width : NULL;
  p->used = p->buf != NULL;
  return p->buf;
}

double *dsana_push_buf(struct dsana_task_ctx *ctx, uint32_t table) { return push_buf(ctx, table, true); }

double *dsana_push_buf_uninit(struct dsana_task_ctx *ctx, uint32_t table) { return push_buf(ctx, table, false); }

/* A sparse push of n keys: checked against the task's write range;
 * words doubles per value (1, or DSANA_XSUM_WORDS for partial sums). */
static int push_keys(struct dsana_task_ctx *ctx, uint32_t table, const uint64_t *keys, uint64_t n, size_t words,
                     double **mem) {
  struct worker *w = ctx->rt->w;
  struct wpush *p = table < DSANA_MAX_TABLES ? &ctx->rt->wt->push[table] : NULL;
  struct job_range r;
  if (!p || p->used || !job_task_writes(&w->job, ctx->task, table, &r))
    return DSANA_EINVAL;
  enum dsana_rule rule = w->job.tables[table].rule;
  if (rule != DSANA_RULE_SUM && (rule != DSANA_RULE_ISUM || words != 1))
    return DSANA_EINVAL;
  for (uint64_t i = 0; i < n; i++)
    if (keys[i] < r.lo || keys[i] >= r.hi || (i && keys[i] <= keys[i - 1]))
      return DSANA_EINVAL;
  double *m = push_mem(p, n * w->job.tables[table].width * words, true);
  if (!m)
    return DSANA_ENOMEM;
  p->keys = keys;
  p->n = n;
  p->used = true;
  *mem = m;
  return 0;
}

int dsana_push_keys(struct dsana_task_ctx *ctx, uint32_t table, const uint64_t *keys, uint64_t n, double **values) {
  int rc = push_keys(ctx, table, keys, n, 1, values);
  if (!rc)
    ctx->rt->wt->push[table].buf = *values;
  return rc;
}

int dsana_push_xsum_keys(struct dsana_task_ctx *ctx, uint32_t table, const uint64_t *keys, uint64_t n,
                         dsana_xsum **values) {
  double *m;
  int rc = push_keys(ctx, table, keys, n, DSANA_XSUM_WORDS, &m);
  if (!rc)
    *values = ctx->rt->wt->push[table].xbuf = (dsana_xsum *)(void *)m; /* malloc'ed: 16-aligned */
  return rc;
}

bool dsana_push_ready(struct dsana_task_ctx *ctx, uint64_t lo, uint64_t hi) {
  struct worker *w = ctx->rt->w;
  struct wtask *wt = ctx->rt->wt;
  if (lo >= hi || wt->ready_n == WT_READY_MAX || !wpush_chunk(w, wt, false))
    return false; /* (beyond the ranges kept, the keys leave when the task ends) */
  if (!wt->ready && !(wt->ready = malloc(WT_READY_MAX * sizeof *wt->ready)))
    return false;
  wt->ready[wt->ready_n++] = (struct wready){lo, hi};
  if (w->env->push_ready)
    w->env->push_ready(w->env->arg, &wt->ready_pub, wt->ready_n);
  else
    atomic_store_explicit(&wt->ready_pub, wt->ready_n, memory_order_release);
  return true;
}

dsana_xsum *dsana_push_xsum(struct dsana_task_ctx *ctx, uint32_t table) {
  struct worker *w = ctx->rt->w;
  struct wpush *p = table < DSANA_MAX_TABLES ? &ctx->rt->wt->push[table] : NULL;
  struct job_range r;
  if (!p || !job_task_writes(&w->job, ctx->task, table, &r) || w->job.tables[table].rule != DSANA_RULE_SUM ||
      (p->used && (p->keys || !p->xbuf)))
    return NULL;
  if (p->used)
    return p->xbuf;
  uint32_t width = w->job.tables[table].width;
  double *m = push_mem(p, (r.hi - r.lo) * width * DSANA_XSUM_WORDS, true);
  if (!m)
    return NULL;
  p->xbuf = (dsana_xsum *)(void *)m - r.lo * width;
  p->used = true;
  return p->xbuf;
}
