/*
 * test_runtime_cluster.c - whole clusters in one process: a scheduler,
 * servers and workers, their real drivers and state machines, over the
 * inproc:// transport with manual delivery (net_inproc.h) and manual
 * compute pools. Every step of a run is chosen by a seeded random number
 * generator: which role steps, which link delivers its next message, which
 * work item completes. For every seed and cluster shape the result must be
 * byte-identical to an independent plain computation (or, for PageRank, to
 * the W=1 S=1 run), and every task must have ended exactly once per
 * iteration.
 *
 * Apps: "sparse" (written here): sparse reads by key lists, sparse pushes
 * into a SUM table of width 2 (doubles from even tasks, exact partial sums
 * from odd ones), integers into an ISUM table (sparse from even tasks,
 * dense from odd ones; a fraction stops the run), task sums, finish()
 * sums, a STATE table kept across iterations and an update() hook driven
 * by reduce()'s globals (both called over small pieces of the shard in
 * half the shapes), and its variant "sparse-dense" whose pushes are all
 * dense (sent chunk by chunk, each chunk final at its server before the
 * task's last message, the first chunks while the task still runs:
 * dsana_push_ready); the real PageRank app (dense ASSIGN pushes,
 * block-wise tasks over chunks, fetching and running ahead); and the real
 * k-means app (two key spaces: a DERIVED table finish()
 * derives from exact SUM partials, an ASSIGN table each task reads and
 * writes its own range of, the initial values made by every server).
 * Half the shapes pull compressed (--compress on: XOR bases kept across
 * chunk switches and fetches ahead, whatever the delivery order). Stale
 * messages (late, twice, from a replaced worker) are injected into runs
 * and must be dropped and counted, the bytes unchanged. What workers hand
 * their manual pools is watched: a task begun ahead that the next plan
 * gave to another worker runs nothing once its iteration began.
 * timeout: 90 s (about 18 s here)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "apps/apps.h"
#include "dsana/graph.h"
#include "net/inproc/net_inproc.h"
#include "runtime/driver/driver.h"
#include "runtime/msg/msg.h"
#include "runtime/core/observer.h"
#include "runtime/worker/pool.h"
#include "runtime/worker/worker_state.h"
#include "util/text/log.h"

/* ------------------------------------------------------------------ rng */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

/* --------------------------------------------------------- sparse app */

#define SP_KEYS 97
#define SP_WIDTH 2
#define SP_ITERS 6

struct sp_app {
  uint32_t n_tasks;
  uint64_t **keys; /* per task, ascending */
  uint64_t *n_keys;
  uint32_t t_x, t_g, t_h, t_n;
  double result[SP_KEYS * SP_WIDTH];
  bool have_result;
  uint32_t *ends; /* (iter, task) completions, SP_ITERS+1 x n_tasks */
  bool give_back; /* "sparse-done": key lists lent per run (task_keys_done) */
  bool dense;     /* "sparse-dense": every push dense (pieces chunk by chunk, WIRE_F_THROUGH) */
  uint32_t *lent; /* per task: lists lent and not given back */
};

static bool sp_isum_fraction; /* task 0 pushes a fraction into the ISUM table in iteration 2 */
static bool sp_bad_give_back; /* a list given back that was not lent, or lent 3 times at once */
static uint64_t sp_given_back;
static bool sp_reruns_ok; /* a task may run twice in an iteration: its worker was lost */

static struct sp_app *sp_last; /* the scheduler's instance: the result */
static uint32_t sp_ends[SP_ITERS + 2][256];

/* Task t's keys: a deterministic subset of about a third of the keys. */
static uint64_t task_key_count(uint32_t t, uint64_t *out) {
  uint64_t n = 0;
  for (uint64_t k = 0; k < SP_KEYS; k++)
    if ((k * 7 + t * 13) % 3 == 0 || k == t % SP_KEYS) {
      if (out)
        out[n] = k;
      n++;
    }
  return n;
}

static int sp_create(void **out) {
  struct sp_app *a = calloc(1, sizeof *a);
  *out = a;
  return a ? 0 : DSANA_ENOMEM;
}

static int sp_create_dense(void **out) {
  int rc = sp_create(out);
  if (!rc)
    ((struct sp_app *)*out)->dense = true;
  return rc;
}

static int sp_create_done(void **out) {
  int rc = sp_create(out);
  if (!rc)
    ((struct sp_app *)*out)->give_back = true;
  return rc;
}

static void sp_free_keys(struct sp_app *a) {
  for (uint32_t t = 0; a->keys && t < a->n_tasks; t++)
    free(a->keys[t]);
  free(a->keys);
  free(a->n_keys);
  free(a->lent);
  a->keys = NULL;
  a->n_keys = NULL;
  a->lent = NULL;
}

static void sp_destroy(void *p) {
  struct sp_app *a = p;
  sp_free_keys(a);
  free(a);
}

static int sp_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) { return 0; }

static int sp_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct sp_app *a = app;
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  sp_free_keys(a);
  a->n_tasks = info.n_workers * info.tasks_per_worker;
  a->keys = calloc(a->n_tasks, sizeof *a->keys);
  a->n_keys = calloc(a->n_tasks, sizeof *a->n_keys);
  a->lent = calloc(a->n_tasks, sizeof *a->lent);
  struct dsana_task_decl *t = calloc(a->n_tasks, sizeof *t);
  int rc = a->keys && a->n_keys && a->lent && t ? 0 : DSANA_ENOMEM;
  for (uint32_t i = 0; !rc && i < a->n_tasks; i++) {
    a->n_keys[i] = task_key_count(i, NULL);
    a->keys[i] = malloc(a->n_keys[i] * sizeof(uint64_t));
    task_key_count(i, a->keys[i]);
    t[i] = (struct dsana_task_decl){.lo = i, .hi = i + 1, .cost = (double)a->n_keys[i]};
  }
  if (!rc)
    rc = dsana_job_add_table(job, "x", SP_KEYS, SP_WIDTH, DSANA_RULE_DERIVED, &a->t_x);
  if (!rc)
    rc = dsana_job_add_table(job, "g", SP_KEYS, SP_WIDTH, DSANA_RULE_SUM, &a->t_g);
  if (!rc)
    rc = dsana_job_add_table(job, "h", SP_KEYS, 1, DSANA_RULE_STATE, &a->t_h);
  if (!rc)
    rc = dsana_job_add_table(job, "n", SP_KEYS, 1, DSANA_RULE_ISUM, &a->t_n);
  if (!rc)
    rc = dsana_job_set_tasks(job, t, a->n_tasks);
  if (!rc)
    rc = dsana_job_task_reads(job, DSANA_ALL_TASKS, a->t_x, 0, SP_KEYS);
  if (!rc)
    rc = dsana_job_task_writes(job, DSANA_ALL_TASKS, a->t_g, 0, SP_KEYS);
  if (!rc)
    rc = dsana_job_task_writes(job, DSANA_ALL_TASKS, a->t_n, 0, SP_KEYS);
  if (!rc)
    rc = dsana_job_set_result_table(job, a->t_x);
  if (!rc)
    rc = dsana_job_set_sums(job, 3);
  dsana_job_set_convergence(job, 0, SP_ITERS);
  free(t);
  if (rc)
    snprintf(err, errlen, "sparse setup: %s", dsana_job_error(job) ? dsana_job_error(job) : dsana_strerror(rc));
  return rc;
}

static int sp_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *v) {
  for (uint64_t k = lo; table == ((struct sp_app *)app)->t_x && k < hi; k++)
    for (uint32_t j = 0; j < SP_WIDTH; j++)
      v[k * SP_WIDTH + j] = 0.01 * (double)k + (double)j;
  return 0;
}

static int sp_task_keys(void *app, uint32_t task, uint32_t table, const uint64_t **keys, uint64_t *n) {
  struct sp_app *a = app;
  if (table != a->t_x || task >= a->n_tasks)
    return DSANA_EAGAIN;
  *keys = a->keys[task];
  *n = a->n_keys[task];
  /* an instance of this iteration and one of the next at most */
  if (a->give_back && ++a->lent[task] > 2)
    sp_bad_give_back = true;
  return 0;
}

static void sp_task_keys_done(void *app, uint32_t task, uint32_t table) {
  struct sp_app *a = app;
  if (table != a->t_x || task >= a->n_tasks || a->lent[task] == 0)
    sp_bad_give_back = true;
  else
    a->lent[task]--;
  sp_given_back++;
}

/* The value task t pushes for key k, column j, from x. */
static double sp_contrib(uint32_t t, uint64_t k, uint32_t j, double x, uint32_t iter) {
  return sin(x + 0.25 * j) * (1.0 + 0.001 * t) + 1e-3 * (double)k / (iter + 1);
}

/* The integer task t pushes into the ISUM table for key k: its first
 * column's contribution on a grid of 2^-30. */
static double sp_count(double v) { return trunc(v * 0x1p30); }

/* Whether key k's count goes into the ISUM table in iteration iter: in
 * every third only the first quarter's, so that (every push sparse then,
 * but in "sparse-dense") the other servers' ISUM shards get no push at all,
 * and finish() must find zeros there, not the sums of two iterations
 * before (the same buffer: iteration 3's is iteration 1's). */
static bool sp_counted(uint64_t k, uint32_t iter) { return iter % 3 || k < SP_KEYS / 4; }

/* Into the ISUM table: sparse from even tasks, dense from odd ones but in
 * every third iteration (all dense in "sparse-dense"); counted keys only. */
static int sp_push_counts(struct sp_app *a, struct dsana_task_ctx *ctx, const double *x) {
  uint64_t n = a->n_keys[ctx->task];
  bool dense = a->dense || (ctx->task % 2 && ctx->iter % 3);
  while (!dense && n > 0 && !sp_counted(a->keys[ctx->task][n - 1], ctx->iter))
    n--; /* the counted keys are a prefix of the ascending list */
  double *c = NULL;
  if (!dense && n == 0)
    return 0;
  if (!dense && dsana_push_keys(ctx, a->t_n, a->keys[ctx->task], n, &c) != 0)
    return DSANA_ESTATE;
  if (dense && !(c = dsana_push_buf(ctx, a->t_n)))
    return DSANA_ESTATE;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = a->keys[ctx->task][i];
    if (sp_counted(k, ctx->iter))
      c[dense ? k : i] = sp_count(sp_contrib(ctx->task, k, 0, x[k * SP_WIDTH], ctx->iter));
  }
  if (sp_isum_fraction && ctx->task == 0 && ctx->iter == 2)
    c[0] += 0.5;
  return 0;
}

/* Odd tasks push exact partial sums, even ones doubles: the totals agree. */
static int sp_run_task(void *app, struct dsana_task_ctx *ctx) {
  struct sp_app *a = app;
  const double *x = dsana_read(ctx, a->t_x);
  double *vals = NULL;
  dsana_xsum *parts = NULL;
  uint64_t n = a->n_keys[ctx->task];
  if (a->give_back && a->lent[ctx->task] == 0)
    return DSANA_ESTATE; /* running without its key list */
  int rc = 0;
  if (a->dense &&
      !(ctx->task % 2 ? (void *)(parts = dsana_push_xsum(ctx, a->t_g)) : (void *)(vals = dsana_push_buf(ctx, a->t_g))))
    rc = DSANA_ESTATE;
  else if (!a->dense)
    rc = ctx->task % 2 ? dsana_push_xsum_keys(ctx, a->t_g, a->keys[ctx->task], n, &parts)
                       : dsana_push_keys(ctx, a->t_g, a->keys[ctx->task], n, &vals);
  if (rc || !x || (rc = sp_push_counts(a, ctx, x)) != 0)
    return rc ? rc : DSANA_ESTATE;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t k = a->keys[ctx->task][i], at = (a->dense ? k : i) * SP_WIDTH;
    for (uint32_t j = 0; j < SP_WIDTH; j++) {
      double v = sp_contrib(ctx->task, k, j, x[k * SP_WIDTH + j], ctx->iter);
      if (parts)
        dsana_xsum_add(&parts[at + j], v);
      else
        vals[at + j] = v;
      dsana_xsum_add(&ctx->sums[0], v);
    }
    if (a->dense && i % 8 == 7) /* keys up to k are final: they may leave while the task goes on */
      dsana_push_ready(ctx, i < 16 ? 0 : a->keys[ctx->task][i - 16] + 1, k + 1); /* ranges overlap */
  }
  if (ctx->iter <= SP_ITERS + 1 && ctx->task < 256)
    sp_ends[ctx->iter][ctx->task]++;
  return 0;
}

/* The widest range finish() and update() were called on in a run: at
 * most the shape's hook piece (run_config.hook_piece_keys). */
static uint64_t sp_widest;

static void sp_note_range(const struct dsana_shard_ctx *ctx) {
  if (ctx->hi - ctx->lo > sp_widest)
    sp_widest = ctx->hi - ctx->lo;
}

/* Keys whose ISUM count finish() checked against the tasks' own sum. */
static uint64_t sp_counts_checked;

/* The ISUM table's count of key k in iteration iter, summed here from what
 * each task pushes (sp_push_counts), whatever the runtime did: the first
 * push a server stores, the rest it adds, and keys no push reached it zeroes. */
static double sp_want_count(const struct sp_app *a, uint64_t k, double x0, uint32_t iter) {
  double want = 0;
  for (uint32_t t = 0; sp_counted(k, iter) && t < a->n_tasks; t++)
    if ((k * 7 + t * 13) % 3 == 0 || k == t % SP_KEYS) /* task_key_count's rule */
      want += sp_count(sp_contrib(t, k, 0, x0, iter));
  return want;
}

static int sp_finish(void *app, struct dsana_shard_ctx *ctx) {
  struct sp_app *a = app;
  sp_note_range(ctx);
  const double *x0 = ctx->old_values[a->t_x];
  const double *g = ctx->new_values[a->t_g], *cnt = ctx->new_values[a->t_n];
  for (uint64_t k = ctx->lo; k < ctx->hi && ctx->iter > 0 && !sp_isum_fraction; k++, sp_counts_checked++)
    assert_true(cnt[k] == sp_want_count(a, k, x0[k * SP_WIDTH], ctx->iter));
  double *x = ctx->new_values[a->t_x], *h = ctx->new_values[a->t_h];
  assert_ptr_equal(h, ctx->old_values[a->t_h]); /* STATE: one copy */
  for (uint64_t k = ctx->lo; k < ctx->hi; k++) {
    for (uint32_t j = 0; j < SP_WIDTH; j++) {
      uint64_t i = k * SP_WIDTH + j;
      x[i] = ctx->iter == 0 ? x[i] : 0.5 * x0[i] + 0.1 * g[i] + (j == 0 ? 0x1p-40 * cnt[k] : 0);
      dsana_xsum_add(&ctx->sums[1], x[i]);
    }
    h[k] += x[k * SP_WIDTH]; /* kept across iterations */
  }
  return 0;
}

static int sp_update(void *app, struct dsana_shard_ctx *ctx) {
  struct sp_app *a = app;
  sp_note_range(ctx);
  double *x = ctx->new_values[a->t_x];
  const double *h = ctx->new_values[a->t_h];
  for (uint64_t k = ctx->lo; k < ctx->hi; k++)
    for (uint32_t j = 0; j < SP_WIDTH; j++)
      x[k * SP_WIDTH + j] = x[k * SP_WIDTH + j] * ctx->globals[0] + 1e-3 * h[k];
  return 0;
}

static int sp_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  ctx->globals[0] = 1.0 / (1.0 + 0.01 * fabs(ctx->sums[1]) + 0.001 * fabs(ctx->sums[0]));
  ctx->residual = ctx->sums[1];
  ctx->converged = false;
  return 0;
}

static int sp_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
                     char *err, size_t errlen) {
  struct sp_app *a = app;
  memcpy(a->result, values, n * width * sizeof *values);
  a->have_result = true;
  sp_last = a;
  return 0;
}

/* The sparse app's hooks under a name, with a create() choosing the
 * variant and, for one of them, task_keys_done(). */
#define SPARSE_APP(nm, create_fn, done_fn)                                                                             \
  {                                                                                                                    \
    .name = nm, .summary = "test", .args = "", .create = create_fn, .destroy = sp_destroy,                             \
    .set_option = sp_set_option, .setup = sp_setup, .init = sp_init, .task_keys = sp_task_keys,                        \
    .task_keys_done = done_fn, .run_task = sp_run_task, .finish = sp_finish, .update = sp_update, .reduce = sp_reduce, \
    .output = sp_output                                                                                                \
  }
static const struct dsana_app sparse_app = SPARSE_APP("sparse", sp_create, NULL);
/* The same, taking its key lists back after each run of a task. */
static const struct dsana_app sparse_done_app = SPARSE_APP("sparse-done", sp_create_done, sp_task_keys_done);
/* The same with every push dense: tasks send theirs chunk by chunk, each
 * chunk final at its server before the task's last message, the first ones
 * while the task runs (dsana_push_ready). */
static const struct dsana_app sparse_dense_app = SPARSE_APP("sparse-dense", sp_create_dense, NULL);

/* The same computation, plainly, with exact sums per key. */
static void sp_reference(uint32_t n_tasks, double *x) {
  double x0[SP_KEYS * SP_WIDTH], h[SP_KEYS] = {0};
  uint64_t keys[SP_KEYS];
  sp_init(&(struct sp_app){.t_x = 0}, 0, 0, SP_KEYS, x);
  dsana_xsum s1 = {0};
  for (uint32_t i = 0; i < SP_KEYS * SP_WIDTH; i++)
    dsana_xsum_add(&s1, x[i]);
  for (uint32_t k = 0; k < SP_KEYS; k++)
    h[k] += x[k * SP_WIDTH];
  double g0 = 1.0 / (1.0 + 0.01 * fabs(dsana_xsum_value(&s1)));
  for (uint32_t i = 0; i < SP_KEYS * SP_WIDTH; i++)
    x[i] = x[i] * g0 + 1e-3 * h[i / SP_WIDTH]; /* update() of iteration 0 */
  for (uint32_t it = 1; it <= SP_ITERS; it++) {
    dsana_xsum g[SP_KEYS * SP_WIDTH], s0 = {0};
    double cnt[SP_KEYS] = {0};
    memset(g, 0, sizeof g);
    memcpy(x0, x, sizeof x0);
    for (uint32_t t = 0; t < n_tasks; t++) {
      uint64_t n = task_key_count(t, keys);
      for (uint64_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < SP_WIDTH; j++) {
          double v = sp_contrib(t, keys[i], j, x0[keys[i] * SP_WIDTH + j], it);
          dsana_xsum_add(&g[keys[i] * SP_WIDTH + j], v);
          dsana_xsum_add(&s0, v);
          cnt[keys[i]] += j == 0 && sp_counted(keys[i], it) ? sp_count(v) : 0;
        }
    }
    dsana_xsum sx = {0};
    for (uint32_t i = 0; i < SP_KEYS * SP_WIDTH; i++) {
      x[i] = 0.5 * x0[i] + 0.1 * dsana_xsum_value(&g[i]) + (i % SP_WIDTH == 0 ? 0x1p-40 * cnt[i / SP_WIDTH] : 0);
      dsana_xsum_add(&sx, x[i]);
    }
    for (uint32_t k = 0; k < SP_KEYS; k++)
      h[k] += x[k * SP_WIDTH];
    double gl = 1.0 / (1.0 + 0.01 * fabs(dsana_xsum_value(&sx)) + 0.001 * fabs(dsana_xsum_value(&s0)));
    for (uint32_t i = 0; i < SP_KEYS * SP_WIDTH; i++)
      x[i] = x[i] * gl + 1e-3 * h[i / SP_WIDTH]; /* update() after every commit, the last one's included */
  }
}

/* ------------------------------------------------------------- harness */

struct shape {
  uint32_t workers, servers, tpw;
  enum sched_kind sched;
  enum chunk_mode chunk;
  uint64_t chunk_bytes;
  bool compress;        /* --compress on (else off) */
  uint64_t piece;       /* run_config.hook_piece_keys (0: the default) */
  const char *scenario; /* run_config.scenario_path (NULL: none) */
};

static const struct dsana_app *const test_apps[] = {&sparse_app,   &sparse_done_app, &sparse_dense_app,
                                                    &pagerank_app, &kmeans_app,      NULL};

/* What a test does to a run's messages (the tests of stale messages near
 * the end); NULL: nothing. */
struct inject {
  /* link k's oldest message is due: true when this delivered it (or held
   * it) itself */
  bool (*deliver)(struct inject *in, size_t k);
  /* at every step: may freeze a worker (the drivers d[0..n)) */
  void (*step)(struct inject *in, struct drv **d, uint32_t n);
  uint32_t frozen;      /* the driver slot not stepped (0: none) */
  int deaths_fd;        /* the scheduler reads lost workers here (0: none) */
  int deaths_wr;        /* the test writes them here */
  uint64_t injected;    /* messages the test made stale: copies, late ones, a replaced worker's */
  uint32_t copies_left; /* copies still to make */
  bool took_piece, took_end;
  uint32_t worker;                      /* the replaced worker's index (UINT32_MAX: none yet) */
  uint64_t steps;                       /* since the replaced worker's iteration 2 started */
  bool other_pushed[SP_ITERS + 2][256]; /* (iteration, task): a push of it from another worker arrived */
};
static struct inject *cl_inject;

/* The last run's summary: messages dropped as stale by its servers and workers. */
static uint64_t cl_stale;

static void cl_summary(void *arg, const struct rt_run_report *r) {
  (void)arg;
  cl_stale = r->stale_msgs;
}
static const struct rt_observer cl_observer = {.summary = cl_summary};

/* What the workers hand out, when a test watches: items of provisional
 * instances whose iteration began without a hand-out confirming them
 * (must stay 0), and the worker steps after which one was held (the case
 * arose). */
struct handout_watch {
  uint64_t unconfirmed_items, dropped_ahead;
  const struct worker *seen[8]; /* the run's workers, by driver slot, once they handed something out */
};
static struct handout_watch *cl_watch;

static bool unconfirmed_instance(const struct wtask *wt) { return wt->provisional && wt->iter == wt->rt.w->iter; }

/* The iteration of the worker in driver slot r, once known (else 0). */
static uint32_t watched_iter(uint32_t r) {
  return r < sizeof cl_watch->seen / sizeof cl_watch->seen[0] && cl_watch->seen[r] ? cl_watch->seen[r]->iter : 0;
}

/* After the worker in driver slot r stepped from iteration iter_before:
 * the items it queued from `before` on. A step that began an iteration
 * may have queued some before its ITER_START came: those are not
 * checked. */
static void watch_worker(uint32_t r, struct pool *pl, uint32_t before, uint32_t iter_before) {
  for (uint32_t k = before; k < pool_pending(pl); k++) {
    const struct witem *it = pool_queued(pl, k);
    cl_watch->unconfirmed_items += iter_before == it->wt->rt.w->iter && unconfirmed_instance(it->wt);
    if (r < sizeof cl_watch->seen / sizeof cl_watch->seen[0])
      cl_watch->seen[r] = it->wt->rt.w;
  }
}

/* At the end of a run: the provisional instances its workers dropped. */
static void watch_end(void) {
  for (uint32_t r = 0; r < sizeof cl_watch->seen / sizeof cl_watch->seen[0]; r++) {
    if (cl_watch->seen[r])
      cl_watch->dropped_ahead += cl_watch->seen[r]->dropped_ahead;
    cl_watch->seen[r] = NULL;
  }
}

/* Run a whole cluster in this thread, every choice from the seed. */
static int run_cluster(const struct dsana_app *app, void *app_state, const struct app_args *args,
                       const struct shape *sh, uint64_t seed) {
  struct run_config cfg;
  config_defaults(&cfg);
  cfg.n_workers = sh->workers;
  cfg.n_servers = sh->servers;
  cfg.tasks_per_worker = sh->tpw;
  cfg.sched = sh->sched;
  cfg.chunk = sh->chunk;
  cfg.chunk_bytes = sh->chunk_bytes;
  cfg.compress = sh->compress ? COMPRESS_ON : COMPRESS_OFF;
  if (sh->piece)
    cfg.hook_piece_keys = sh->piece;
  if (sh->scenario)
    snprintf(cfg.scenario_path, sizeof cfg.scenario_path, "%s", sh->scenario);
  cfg.quiet = true;
  /* Real clocks, but no timeouts and no heartbeats under test: a slow host
   * (valgrind) must not lose peers, and heartbeats sent every 0.5 s of a
   * slow host's time would pile up undelivered faster than the random
   * steps below deliver them, slowing every step further. */
  cfg.peer_timeout_s = 3600;
  cfg.register_timeout_s = 3600;
  cfg.heartbeat_s = 1800;
  snprintf(cfg.scheduler_addr, sizeof cfg.scheduler_addr, "inproc://sched-%llu", (unsigned long long)seed);
  uint32_t n = 1 + sh->servers + sh->workers;
  struct drv **d = calloc(n, sizeof *d);
  struct role_params p = {.cfg = &cfg,
                          .apps = test_apps,
                          .app = app,
                          .app_state = app_state,
                          .args = args,
                          .index = UINT32_MAX,
                          .observer = &cl_observer,
                          .deaths_fd = cl_inject ? cl_inject->deaths_fd : 0};
  cl_stale = UINT64_MAX;
  int rc = driver_create(ROLE_SCHEDULER, &p, true, &d[0]);
  struct role_params alone = {.cfg = &cfg, .apps = test_apps, .index = UINT32_MAX};
  for (uint32_t i = 1; !rc && i < n; i++)
    rc = driver_create(i <= sh->servers ? ROLE_SERVER : ROLE_WORKER, &alone, true, &d[i]);
  uint64_t rng = seed;
  for (uint64_t step = 0; !rc && !driver_done(d[0]) && step < 5000000; step++) {
    uint32_t what = rng_below(&rng, 4);
    if (cl_inject && cl_inject->step)
      cl_inject->step(cl_inject, d, n);
    uint32_t frozen = cl_inject && cl_inject->frozen ? cl_inject->frozen : UINT32_MAX; /* slot 0: the scheduler */
    if (what == 0 && net_inproc_links_pending()) {
      size_t k = rng_below(&rng, (uint32_t)net_inproc_links_pending());
      if (!cl_inject || !cl_inject->deliver || !cl_inject->deliver(cl_inject, k))
        net_inproc_deliver(k);
    } else if (what == 1) {
      uint32_t w = 1 + sh->servers + rng_below(&rng, sh->workers);
      struct pool *pl = driver_pool(d[w]);
      if (pl && pool_pending(pl) && w != frozen)
        pool_run(pl, rng_below(&rng, pool_pending(pl)));
    } else {
      uint32_t r = rng_below(&rng, n);
      struct pool *pl = r > sh->servers ? driver_pool(d[r]) : NULL;
      uint32_t before = pl ? pool_pending(pl) : 0, iter_before = cl_watch ? watched_iter(r) : 0;
      if (!driver_done(d[r]) && r != frozen)
        rc = driver_step(d[r], 0);
      if (cl_watch && pl)
        watch_worker(r, pl, before, iter_before);
    }
  }
  /* let the others see STOP and leave */
  for (uint32_t round = 0; !rc && round < 100000; round++) {
    bool all = true;
    while (net_inproc_links_pending())
      net_inproc_deliver(0);
    for (uint32_t i = 1; i < n; i++)
      if (!driver_done(d[i])) {
        all = false;
        driver_step(d[i], 0);
      }
    if (all)
      break;
  }
  if (!rc && !driver_done(d[0]))
    rc = DSANA_ETIMEDOUT;
  if (!rc)
    rc = driver_error(d[0]);
  if (!rc)
    rc = driver_finish(d[0]);
  if (cl_watch)
    watch_end();
  for (uint32_t i = 0; i < n; i++)
    if (d[i])
      driver_destroy(d[i]);
  free(d);
  while (net_inproc_links_pending())
    net_inproc_deliver(0);
  return rc;
}

static struct shape random_shape(uint64_t *rng) {
  struct shape sh = {.workers = 1 + rng_below(rng, 4),
                     .servers = 1 + rng_below(rng, 3),
                     .tpw = 1 + rng_below(rng, 4),
                     .sched = rng_below(rng, 2) ? SCHED_DYNAMIC : SCHED_STATIC};
  uint32_t c = rng_below(rng, 3);
  sh.chunk = c == 0 ? CHUNK_OFF : CHUNK_FIXED;
  sh.chunk_bytes = c == 1 ? 8 * (1 + rng_below(rng, 40)) : 1 << 20;
  sh.compress = rng_below(rng, 2); /* drawn after the above: the shapes stay those of earlier versions */
  sh.piece = rng_below(rng, 2) ? 1 + rng_below(rng, 7) : 0; /* servers' hooks over small pieces */
  return sh;
}

/* One run of the sparse SUM app: the plain computation's bytes, and every
 * task ended exactly once per iteration. */
static void check_sparse_app(const struct dsana_app *sa, uint64_t seed, const struct shape *sh) {
  void *app;
  assert_int_equal(sa->create(&app), 0);
  memset(sp_ends, 0, sizeof sp_ends);
  sp_last = NULL;
  sp_bad_give_back = false;
  sp_given_back = 0;
  sp_widest = 0;
  sp_counts_checked = 0;
  int rc = run_cluster(sa, app, NULL, sh, seed);
  if (rc)
    fail_msg("seed %llu (W=%u S=%u tpw=%u %s chunk %llu): %s", (unsigned long long)seed, sh->workers, sh->servers,
             sh->tpw, sh->sched == SCHED_STATIC ? "static" : "dynamic",
             (unsigned long long)(sh->chunk == CHUNK_OFF ? 0 : sh->chunk_bytes), dsana_strerror(rc));
  assert_non_null(sp_last);
  double ref[SP_KEYS * SP_WIDTH];
  uint32_t n_tasks = sh->workers * sh->tpw;
  sp_reference(n_tasks, ref);
  if (memcmp(ref, sp_last->result, sizeof ref) != 0)
    fail_msg("seed %llu (W=%u S=%u): result differs from the plain computation", (unsigned long long)seed, sh->workers,
             sh->servers);
  for (uint32_t it = 1; it <= SP_ITERS; it++)
    for (uint32_t t = 0; t < n_tasks; t++)
      if (sp_ends[it][t] != 1 && !(sp_reruns_ok && sp_ends[it][t] == 2))
        fail_msg("seed %llu: task %u ran %u times in iteration %u", (unsigned long long)seed, t, sp_ends[it][t], it);
  if (sp_counts_checked < (uint64_t)SP_KEYS * SP_ITERS)
    fail_msg("seed %llu: finish() checked %llu ISUM counts, want every key in every iteration",
             (unsigned long long)seed, (unsigned long long)sp_counts_checked);
  if (sh->piece && sp_widest > sh->piece)
    fail_msg("seed %llu: finish() or update() ran over %llu keys at once (pieces of %llu asked)",
             (unsigned long long)seed, (unsigned long long)sp_widest, (unsigned long long)sh->piece);
  if (sp_bad_give_back || (sa->task_keys_done && sp_given_back < n_tasks * SP_ITERS))
    fail_msg("seed %llu: key lists lent and given back wrongly (%llu given back)", (unsigned long long)seed,
             (unsigned long long)sp_given_back);
  sa->destroy(app);
}

static void check_sparse(uint64_t seed, const struct shape *sh) { check_sparse_app(&sparse_app, seed, sh); }

/* Key lists lent per run (task_keys_done): every task runs holding its
 * list, none is given back twice, the bytes are the same. */
static void test_sparse_keys_given_back(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    uint64_t rng = seed * 104729;
    struct shape sh = random_shape(&rng);
    check_sparse_app(&sparse_done_app, seed, &sh);
  }
}

static void test_sparse_sum_every_interleaving(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 100; seed++) {
    uint64_t rng = seed * 7919;
    struct shape sh = random_shape(&rng);
    check_sparse(seed, &sh);
  }
}

/* Every push dense: with chunks, a task's pushes go chunk by chunk and its
 * servers finish each chunk once every task sent it whole, before their
 * last messages arrive; the bytes are the same in every interleaving. */
static void test_dense_pushes_chunk_by_chunk(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 60; seed++) {
    uint64_t rng = seed * 3571;
    struct shape sh = random_shape(&rng);
    if (seed % 2) { /* small chunks: several pieces to every server */
      sh.chunk = CHUNK_FIXED;
      sh.chunk_bytes = 8 * (1 + rng_below(&rng, 24));
    }
    check_sparse_app(&sparse_dense_app, seed, &sh);
  }
}

/* A fraction pushed into an ISUM table stops the run, in every shape. */
static void test_isum_fraction_stops(void **state) {
  (void)state;
  sp_isum_fraction = true;
  for (uint64_t seed = 1; seed <= 10; seed++) {
    uint64_t rng = seed * 6151;
    struct shape sh = random_shape(&rng);
    void *app;
    assert_int_equal(sparse_app.create(&app), 0);
    int rc = run_cluster(&sparse_app, app, NULL, &sh, seed);
    if (rc != DSANA_ERANGE && rc != DSANA_EPEER && rc != DSANA_EENDED)
      fail_msg("seed %llu: a fraction in an ISUM push gave %s", (unsigned long long)seed, dsana_strerror(rc));
    sparse_app.destroy(app);
  }
  sp_isum_fraction = false;
}

/* Exactly once at 64 workers: both policies, with and without
 * chunks, 1..3 servers, random delivery orders. */
static void test_sparse_sum_64_workers(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    struct shape sh = {.workers = 64,
                       .servers = 1 + (uint32_t)(seed % 3),
                       .tpw = 2,
                       .sched = seed % 2 ? SCHED_DYNAMIC : SCHED_STATIC,
                       .chunk = seed <= 2 ? CHUNK_OFF : CHUNK_FIXED,
                       .chunk_bytes = 64 * seed};
    check_sparse(seed, &sh);
  }
}

/* PageRank: every shape and interleaving gives the bytes of W=1 S=1. */
static char pr_graph[300], pr_dir[256], km_data[300];

/* One run of a real app with options opts[0..n) (name "" for the
 * positional one), as the command line would set them. */
static int app_run(const struct dsana_app *a, const char *const (*opts)[2], size_t n, const struct shape *sh,
                   uint64_t seed) {
  void *app;
  char err[256];
  assert_int_equal(a->create(&app), 0);
  static struct app_args args; /* what roles started alone get from the scheduler */
  args.n = 0;
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(a->set_option(app, opts[i][0][0] ? opts[i][0] : NULL, opts[i][1], err, sizeof err), 0);
    snprintf(args.name[args.n], sizeof args.name[0], "%s", opts[i][0]);
    snprintf(args.value[args.n++], sizeof args.value[0], "%s", opts[i][1]);
  }
  assert_int_equal(a->prepare(app, err, sizeof err), 0);
  int rc = run_cluster(a, app, &args, sh, seed);
  a->destroy(app);
  return rc;
}

static int pr_run(const struct shape *sh, uint64_t seed, const char *out) {
  const char *const opts[][2] = {{"", pr_graph}, {"out", out}, {"tol", "1e-13"}, {"max-iter", "40"}, {"top", "0"}};
  return app_run(&pagerank_app, opts, sizeof opts / sizeof opts[0], sh, seed);
}

static bool same_file(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  bool same = fa && fb;
  for (int ca = 0, cb = 0; same && ca != EOF;) {
    ca = fgetc(fa);
    cb = fgetc(fb);
    same = ca == cb;
  }
  if (fa)
    fclose(fa);
  if (fb)
    fclose(fb);
  return same;
}

static void test_pagerank_every_interleaving(void **state) {
  (void)state;
  char base[300], out[300];
  snprintf(base, sizeof base, "%s/base.tsv", pr_dir);
  snprintf(out, sizeof out, "%s/out.tsv", pr_dir);
  struct shape one = {.workers = 1, .servers = 1, .tpw = 4, .sched = SCHED_STATIC, .chunk = CHUNK_OFF};
  assert_int_equal(pr_run(&one, 999, base), 0);
  for (uint64_t seed = 1; seed <= 100; seed++) {
    uint64_t rng = seed * 104729;
    struct shape sh = random_shape(&rng);
    int rc = pr_run(&sh, seed, out);
    if (rc || !same_file(base, out) || cl_stale != 0)
      fail_msg("seed %llu (W=%u S=%u tpw=%u %s chunk %llu compress %d): %s (%llu stale messages)",
               (unsigned long long)seed, sh.workers, sh.servers, sh.tpw,
               sh.sched == SCHED_STATIC ? "static" : "dynamic",
               (unsigned long long)(sh.chunk == CHUNK_OFF ? 0 : sh.chunk_bytes), sh.compress,
               rc                      ? dsana_strerror(rc)
               : !same_file(base, out) ? "output differs from W=1 S=1"
                                       : "a fault-free run dropped messages as stale",
               (unsigned long long)cl_stale);
  }
}

/* A worker whose new plan gave a task it began ahead to another worker
 * runs nothing more of that instance once the iteration began (its blocks
 * would go before the tasks it was handed and delay them), and the bytes
 * stay those of W=1 S=1. Dynamic scheduling, chunked, two workers or
 * more, worker 0 emulated four times slower than the others: the first
 * plan splits the tasks evenly, the next ones by the measured speeds, so
 * tasks begun ahead move. */
static void test_pagerank_unconfirmed_run_nothing(void **state) {
  (void)state;
  char base[300], out[300], scenario[300];
  snprintf(base, sizeof base, "%s/base-unconfirmed.tsv", pr_dir);
  snprintf(out, sizeof out, "%s/out-unconfirmed.tsv", pr_dir);
  snprintf(scenario, sizeof scenario, "%s/slow-worker-0.json", pr_dir);
  FILE *f = fopen(scenario, "w");
  assert_non_null(f);
  fputs("{\"workers\": [{\"speed\": 0.25}], \"default_worker\": {\"speed\": 1}, \"ns_per_cost\": 200}\n", f);
  assert_int_equal(fclose(f), 0);
  struct shape one = {.workers = 1, .servers = 1, .tpw = 4, .sched = SCHED_STATIC, .chunk = CHUNK_OFF};
  assert_int_equal(pr_run(&one, 999, base), 0);
  struct handout_watch watch = {0};
  cl_watch = &watch;
  for (uint64_t seed = 1; seed <= 40; seed++) {
    uint64_t rng = seed * 7919;
    struct shape sh = random_shape(&rng);
    sh.workers = 2 + (uint32_t)(seed % 3);
    sh.tpw = 2 + (uint32_t)(seed % 3);
    sh.sched = SCHED_DYNAMIC;
    sh.chunk = CHUNK_FIXED;
    sh.chunk_bytes = 8 * (4 + seed % 40);
    sh.scenario = scenario;
    int rc = pr_run(&sh, seed, out);
    if (rc || !same_file(base, out))
      fail_msg("seed %llu (W=%u S=%u tpw=%u chunk %llu): %s", (unsigned long long)seed, sh.workers, sh.servers, sh.tpw,
               (unsigned long long)sh.chunk_bytes, rc ? dsana_strerror(rc) : "output differs from W=1 S=1");
  }
  cl_watch = NULL;
  if (watch.unconfirmed_items != 0)
    fail_msg("%llu items of unconfirmed instances handed out", (unsigned long long)watch.unconfirmed_items);
  if (watch.dropped_ahead == 0)
    fail_msg("no worker dropped an instance begun ahead: the plans never moved one");
}

/* k-means: every shape and interleaving gives the centroids of W=1 S=1. */
static int km_run(const struct shape *sh, uint64_t seed, const char *out) {
  const char *const opts[][2] = {{"", km_data}, {"out", out}, {"k", "5"}, {"tol", "0"}, {"max-iter", "8"}};
  return app_run(&kmeans_app, opts, sizeof opts / sizeof opts[0], sh, seed);
}

static void test_kmeans_every_interleaving(void **state) {
  (void)state;
  char base[300], out[300];
  snprintf(base, sizeof base, "%s/km-base.txt", pr_dir);
  snprintf(out, sizeof out, "%s/km-out.txt", pr_dir);
  struct shape one = {.workers = 1, .servers = 1, .tpw = 1, .sched = SCHED_STATIC, .chunk = CHUNK_OFF};
  assert_int_equal(km_run(&one, 999, base), 0);
  for (uint64_t seed = 1; seed <= 40; seed++) {
    uint64_t rng = seed * 7907;
    struct shape sh = random_shape(&rng);
    int rc = km_run(&sh, seed, out);
    if (rc || !same_file(base, out))
      fail_msg("seed %llu (W=%u S=%u tpw=%u %s chunk %llu compress %d): %s", (unsigned long long)seed, sh.workers,
               sh.servers, sh.tpw, sh.sched == SCHED_STATIC ? "static" : "dynamic",
               (unsigned long long)(sh.chunk == CHUNK_OFF ? 0 : sh.chunk_bytes), sh.compress,
               rc ? dsana_strerror(rc) : "centroids differ from W=1 S=1");
  }
}

/* --------------------------------------------------- stale messages */

/* A message that is late, arrives twice or comes from a worker that was
 * replaced is dropped and counted (the summary's stale_messages), never
 * applied: each test below injects such messages into runs of the
 * in-process cluster and asserts the bytes of the undisturbed computation
 * and a count of exactly the messages it injected (neither a message
 * silently applied nor an injection that never happened passes). */

/* Whether link k's oldest message is a PUSH (or, pieces: a PULL_REPLY) of
 * iteration 2 or later of a kind not copied yet: a piece (no end marker)
 * first, then one that ends its task with values; *h gets its header. */
static bool copy_candidate(struct inject *in, size_t k, bool pieces, struct wire_hdr *h) {
  if (in->copies_left == 0 || !net_inproc_peek(k, h) || h->iter < 2)
    return false;
  if (pieces)
    return h->type == WIRE_PULL_REPLY;
  if (h->type != WIRE_PUSH || h->count == 0)
    return false;
  bool end = h->flags & WIRE_F_END;
  if (end ? in->took_end || !in->took_piece : in->took_piece)
    return false;
  in->took_piece |= !end;
  in->took_end |= end;
  return true;
}

/* Duplicates: the message and a copy right behind it. */
static bool deliver_twice(struct inject *in, size_t k, bool pieces) {
  struct wire_hdr h;
  if (!copy_candidate(in, k, pieces, &h))
    return false;
  net_inproc_deliver_twice(k);
  in->copies_left--;
  in->injected++;
  return true;
}
static bool dup_pushes(struct inject *in, size_t k) { return deliver_twice(in, k, false); }
static bool dup_pieces(struct inject *in, size_t k) { return deliver_twice(in, k, true); }

/* Late copies: kept aside in iteration 2, delivered once the scheduler
 * starts iteration 4 (iteration 2 is committed everywhere by then). */
static bool late_copies(struct inject *in, size_t k, bool pieces) {
  struct wire_hdr h;
  if (copy_candidate(in, k, pieces, &h)) {
    net_inproc_keep_copy(k);
    in->copies_left--;
  } else if (net_inproc_peek(k, &h) && h.type == WIRE_ITER_START && h.iter >= 4) {
    in->injected += net_inproc_deliver_kept();
  }
  return false; /* the message itself goes on as usual */
}
static bool late_pushes(struct inject *in, size_t k) { return late_copies(in, k, false); }
static bool late_pieces(struct inject *in, size_t k) { return late_copies(in, k, true); }

/* One sparse-app run with injection `in`: the plain computation's bytes,
 * every task ended once per iteration, stale_messages exactly as injected. */
static void check_stale_sparse(const struct dsana_app *sa, uint64_t seed, const struct shape *sh, struct inject *in) {
  cl_inject = in;
  check_sparse_app(sa, seed, sh);
  cl_inject = NULL;
  if (in->injected == 0 || cl_stale != in->injected)
    fail_msg("seed %llu (W=%u S=%u): %llu messages made stale, %llu counted as dropped", (unsigned long long)seed,
             sh->workers, sh->servers, (unsigned long long)in->injected, (unsigned long long)cl_stale);
}

/* A task's piece and its last message delivered twice: dropped, the sums
 * the same (a piece held until the end marker is not held twice). */
static void test_duplicate_pushes_dropped(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 16; seed++) {
    uint64_t rng = seed * 7919;
    struct shape sh = random_shape(&rng);
    struct inject in = {.deliver = dup_pushes, .copies_left = 2};
    check_stale_sparse(seed % 2 ? &sparse_app : &sparse_dense_app, seed, &sh, &in);
  }
}

/* Copies of pushes of iteration 2 arriving in iteration 4: dropped. */
static void test_late_pushes_dropped(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 16; seed++) {
    uint64_t rng = seed * 7919;
    struct shape sh = random_shape(&rng);
    struct inject in = {.deliver = late_pushes, .copies_left = 2};
    check_stale_sparse(seed % 2 ? &sparse_app : &sparse_dense_app, seed, &sh, &in);
  }
}

/* Pulled pieces twice, and copies of iteration 2's arriving in iteration
 * 4: dropped, by key lists (the sparse app) and by chunks (PageRank,
 * compressed in half the shapes: a copy is not decoded twice). */
static void test_duplicate_and_late_pieces_dropped(void **state) {
  (void)state;
  char base[300], out[300];
  snprintf(base, sizeof base, "%s/stale-base.tsv", pr_dir);
  snprintf(out, sizeof out, "%s/stale-out.tsv", pr_dir);
  struct shape one = {.workers = 1, .servers = 1, .tpw = 4, .sched = SCHED_STATIC, .chunk = CHUNK_OFF};
  assert_int_equal(pr_run(&one, 999, base), 0);
  for (uint64_t seed = 1; seed <= 16; seed++) {
    uint64_t rng = seed * 104729;
    struct shape sh = random_shape(&rng);
    struct inject in = {.deliver = seed % 2 ? dup_pieces : late_pieces, .copies_left = 2};
    if (seed % 4 < 2) {
      check_stale_sparse(&sparse_app, seed, &sh, &in);
      continue;
    }
    cl_inject = &in;
    int rc = pr_run(&sh, seed, out);
    cl_inject = NULL;
    if (rc || !same_file(base, out) || in.injected == 0 || cl_stale != in.injected)
      fail_msg("seed %llu (W=%u S=%u compress %d): %s, %llu pieces made stale, %llu counted", (unsigned long long)seed,
               sh.workers, sh.servers, sh.compress, rc ? dsana_strerror(rc) : "bytes compared",
               (unsigned long long)in.injected, (unsigned long long)cl_stale);
  }
}

/* The replaced worker (the last one): once iteration 2 started, its
 * pushes and reports are held; a while later it freezes and the scheduler
 * learns it is lost (as from the launcher). Its tasks run elsewhere; each
 * push it sent is delivered once a push of the same task came from the
 * re-run (so none is the first of its task). */
#define REPLACED_STEPS 3000

static void freeze_replaced(struct inject *in, struct drv **d, uint32_t n) {
  if (in->frozen || in->worker == UINT32_MAX || ++in->steps < REPLACED_STEPS)
    return;
  for (uint32_t i = 1; i < n; i++)
    if (driver_worker_index(d[i]) == in->worker)
      in->frozen = i;
  uint32_t w = in->worker;
  assert_int_equal(send(in->deaths_wr, &w, sizeof w, 0), (ssize_t)sizeof w);
}

static bool hold_replaced(struct inject *in, size_t k) {
  struct wire_hdr h;
  if (!net_inproc_peek(k, &h))
    return false;
  bool push = h.type == WIRE_PUSH && h.iter <= SP_ITERS + 1 && h.task < 256;
  bool dialer = h.type != WIRE_PULL_REPLY && h.type != WIRE_ITER_START && h.type != WIRE_TASKS &&
                h.type != WIRE_ITER_END && h.type != WIRE_SHARD_REPORT && h.type != WIRE_FINAL_DATA;
  if (h.type == WIRE_ITER_START && h.iter == 2 && in->worker == UINT32_MAX)
    in->worker = 2; /* the start of iteration 2 reaches the workers: from now on, hold worker 2's messages */
  if (!dialer || h.sender != in->worker) {
    if (push && h.sender != in->worker)
      in->other_pushed[h.iter][h.task] = true;
    return false;
  }
  bool reports = push || h.type == WIRE_TASK_DONE; /* its pulls go on: its tasks run */
  if (!in->frozen ? reports : push && !in->other_pushed[h.iter][h.task])
    return true; /* held */
  in->injected += push;
  net_inproc_deliver(k);
  return true;
}

static void test_replaced_worker_pushes_dropped(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 8; seed++) {
    struct shape sh = {.workers = 3,
                       .servers = 1,
                       .tpw = 2 + (uint32_t)(seed % 3),
                       .sched = seed % 2 ? SCHED_DYNAMIC : SCHED_STATIC,
                       .chunk = CHUNK_OFF};
    int fds[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, fds), 0);
    struct inject in = {.deliver = hold_replaced,
                        .step = freeze_replaced,
                        .deaths_fd = fds[0],
                        .deaths_wr = fds[1],
                        .worker = UINT32_MAX};
    sp_reruns_ok = true;
    check_stale_sparse(&sparse_app, seed, &sh, &in);
    sp_reruns_ok = false;
    close(fds[0]);
    close(fds[1]);
  }
}

/* 700 rows of 6 features around 5 centres (some features absent), libsvm. */
static int write_km_data(void) {
  FILE *f = fopen(km_data, "w");
  uint64_t rng = 42;
  for (int i = 0; f && i < 700; i++) {
    int c = (int)rng_below(&rng, 5);
    fprintf(f, "%d", c);
    for (int j = 0; j < 6; j++)
      if (rng_below(&rng, 10))
        fprintf(f, " %d:%.6f", j + 1, 10.0 * ((c * 7 + j * 3) % 11) / 11 + (double)rng_below(&rng, 1000) / 500);
    fprintf(f, "\n");
  }
  return f && fclose(f) == 0 ? 0 : -1;
}

static int setup(void **state) {
  (void)state;
  log_set_level(LOG_ERROR);
  net_inproc_set_manual(true);
  snprintf(pr_dir, sizeof pr_dir, "%s/dsana-cluster-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(pr_dir))
    return -1;
  snprintf(pr_graph, sizeof pr_graph, "%s/g.bin", pr_dir);
  snprintf(km_data, sizeof km_data, "%s/km.svm", pr_dir);
  if (write_km_data() != 0)
    return -1;
  struct dsana_graph g;
  char err[256];
  struct dsana_graph_opts o = {0};
  if (dsana_graph_gen_kron(8, 6, 11, &o, &g, err, sizeof err) != 0)
    return -1;
  int rc = dsana_graph_write_binary(&g, pr_graph, err, sizeof err);
  dsana_graph_fini(&g);
  return rc;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", pr_dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sparse_sum_every_interleaving),
      cmocka_unit_test(test_sparse_sum_64_workers),
      cmocka_unit_test(test_sparse_keys_given_back),
      cmocka_unit_test(test_dense_pushes_chunk_by_chunk),
      cmocka_unit_test(test_pagerank_every_interleaving),
      cmocka_unit_test(test_pagerank_unconfirmed_run_nothing),
      cmocka_unit_test(test_kmeans_every_interleaving),
      cmocka_unit_test(test_isum_fraction_stops),
      cmocka_unit_test(test_duplicate_pushes_dropped),
      cmocka_unit_test(test_late_pushes_dropped),
      cmocka_unit_test(test_duplicate_and_late_pieces_dropped),
      cmocka_unit_test(test_replaced_worker_pushes_dropped),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
