/*
 * dsana.h - the public surface of dsana: error codes, exact sums, and the
 * application interface an app (PageRank, ...) implements.
 *
 * An app declares tables (arrays of doubles indexed by key, sharded over the
 * servers by contiguous key ranges) and tasks (units of work with a cost
 * hint), and supplies the per-task function that workers run. It never sees
 * processes, sockets or messages: the runtime moves table values between
 * servers and workers and calls the app's hooks in the right role.
 */
#ifndef DSANA_DSANA_H
#define DSANA_DSANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DSANA_VERSION_STRING "0.1.0"

/* Error codes: 0 is success, every failure is a negative DSANA_E* value. */
#define DSANA_ERRNO_MAP(X)                                   \
  X(ENOMEM, -1, "out of memory")                             \
  X(EINVAL, -2, "invalid argument")                          \
  X(EIO, -3, "input/output error")                           \
  X(EFORMAT, -4, "malformed input")                          \
  X(EPROTO, -5, "protocol error (bad message)")              \
  X(ETIMEDOUT, -6, "timed out")                              \
  X(ENET, -7, "network error")                               \
  X(EPEER, -8, "a peer failed")                              \
  X(ERANGE, -9, "value out of range")                        \
  X(EAGAIN, -10, "nothing available now")                    \
  X(ESTATE, -11, "operation not valid in this state")        \
  X(EUSAGE, -12, "bad command-line usage")

enum dsana_err {
  DSANA_OK = 0,
#define DSANA_ERR_ENUM(name, val, text) DSANA_##name = (val),
  DSANA_ERRNO_MAP(DSANA_ERR_ENUM)
#undef DSANA_ERR_ENUM
};

/* Words for an error code; never NULL, static storage. */
const char *dsana_strerror(int err);

/*
 * Exact, order-independent sums of doubles in [-2^40, 2^40] with a fixed
 * resolution of 2^-80 (each addend is rounded to that grid). Partial sums
 * computed on any partition of the keys add up to bit-identical totals, which
 * is what keeps convergence decisions identical for every server count.
 */
typedef struct dsana_xsum {
  __int128 acc;
} dsana_xsum;

#define DSANA_XSUM_FRAC_BITS 80

/* Add x, truncated toward zero to a multiple of 2^-80. Inline fast path:
 * |x| * 2^80 is exact (a power-of-two scaling) and, below 2^63, a cast
 * truncates it exactly; larger, infinite or NaN addends take the general
 * path, which reads the IEEE-754 bits (and ignores inf/NaN). */
void dsana_xsum_add_bits(dsana_xsum *s, double x);
static inline void dsana_xsum_add(dsana_xsum *s, double x) {
  double y = (x < 0 ? -x : x) * 0x1p80;
  if (y < 0x1p63) {
    long long v = (long long)y;
    s->acc += x < 0 ? -v : v;
    return;
  }
  dsana_xsum_add_bits(s, x);
}
void dsana_xsum_merge(dsana_xsum *into, const dsana_xsum *from);
double dsana_xsum_value(const dsana_xsum *s);

/* How a server combines values pushed into a table within one iteration. */
enum dsana_rule {
  DSANA_RULE_ASSIGN = 0, /* each key written once per iteration */
  DSANA_RULE_SUM = 1,    /* contributions added (buffer zeroed each iteration) */
  DSANA_RULE_DERIVED = 2 /* never pushed; written by the app's finish hook */
};

#define DSANA_MAX_TABLES 8
#define DSANA_MAX_GLOBALS 8
#define DSANA_MAX_SUMS 8

struct dsana_table_decl {
  char name[32];
  uint64_t n_keys;
  enum dsana_rule rule;
};

/* One unit of work. [lo, hi) is the key range of `out_table` it writes. */
struct dsana_task_decl {
  uint64_t lo, hi;
  double cost; /* relative cost hint, e.g. edge count */
};

/* The job under construction in setup(); filled by the app. */
struct dsana_job;

/* Facts the app may consult in setup(). */
struct dsana_job_info {
  uint32_t n_workers, n_servers;
  uint32_t tasks_per_worker;
  const char *role; /* "scheduler", "server", "worker" or "launcher" */
};
void dsana_job_get_info(const struct dsana_job *job, struct dsana_job_info *info);

/* Why the job refused the last declaration (a limit), or NULL. */
const char *dsana_job_error(const struct dsana_job *job);
/* Declare a table; returns its id (0, 1, ...) through *id. DSANA_ERANGE
 * when n_keys exceeds the run's --max-keys. */
int dsana_job_add_table(struct dsana_job *job, const char *name, uint64_t n_keys,
                        enum dsana_rule rule, uint32_t *id);
/* Declare the tasks of every iteration, all writing `out_table`. Copied. */
int dsana_job_set_tasks(struct dsana_job *job, uint32_t out_table,
                        const struct dsana_task_decl *tasks, uint32_t n_tasks);
/* Optional: the convergence test's tolerance and iteration cap, so the
 * progress line can estimate the time left. */
void dsana_job_set_convergence(struct dsana_job *job, double tol, uint32_t max_iter);
/* Optional: keys of `table` that no task ever reads, bit k of
 * unread_bits[k / 64] set for key k (n_keys / 64 + 1 words, copied). Pulls
 * of the table then carry only the other keys' values; a worker's copy of
 * an unread key is unspecified, so the app must never read one (PageRank:
 * the contributions of vertices without out-edges, which are in no task's
 * in-edges). Every role must declare the same keys (in setup()). */
int dsana_job_set_unread(struct dsana_job *job, uint32_t table, const uint64_t *unread_bits);
/* Which table the scheduler collects at the end and hands to output(). */
int dsana_job_set_result_table(struct dsana_job *job, uint32_t table);

/* Worker side: what run_task() sees. */
struct dsana_task_ctx {
  uint32_t task, iter;
  uint64_t lo, hi;               /* the task's key range */
  const double *globals;         /* DSANA_MAX_GLOBALS values from reduce() */
  struct dsana_worker_view *view; /* opaque, for dsana_pull/dsana_push_buf */
  /* Out, for task_block() and task_end(): the cost of the work this call
   * did, in the units of the task's cost hint; the runtime sets it to 0
   * before each call. Emulated clusters with a cost model (scenario
   * ns_per_cost) time each call from it, so a task's calls should add up to
   * its cost hint. task_begin() is not timed (it may build per-task data
   * once); run_task() need not set it: a whole task costs its hint. */
  double cost;
};
struct dsana_worker_view;
/* Values of `table` for keys [lo, hi) as of the end of the previous
 * iteration. The pointer is indexed by key (p[lo] .. p[hi-1]) and stays
 * valid until the task returns. Fetches from servers when needed. */
int dsana_pull(struct dsana_worker_view *v, uint32_t table, uint64_t lo, uint64_t hi,
               const double **values);
/* Keys per chunk of pulled tables (the whole table when chunking is off):
 * pulling chunk by chunk, in key order, lets a task start while later
 * chunks are still arriving. */
uint64_t dsana_pull_granularity(struct dsana_worker_view *v);
/* A buffer, indexed by key, for the task's results in [lo, hi) of the
 * task's out table; sent to the servers when run_task() returns. */
double *dsana_push_buf(struct dsana_worker_view *v);

/* Server side: what finish() sees. [lo, hi) is a part of the server's
 * shard whose pushes for the iteration are complete: finish() is called once
 * for each such part (the parts of one iteration partition the shard, in no
 * fixed order), so it must only touch keys in [lo, hi). sums are the part's
 * contribution; the server adds them up exactly. */
struct dsana_shard_ctx {
  uint32_t iter; /* 0 after init, then 1, 2, ... */
  uint64_t lo, hi;
  double *old_values[DSANA_MAX_TABLES]; /* previous iteration, indexed by key */
  double *new_values[DSANA_MAX_TABLES]; /* this iteration, indexed by key */
  dsana_xsum sums[DSANA_MAX_SUMS];      /* to fill: reduced over all shards */
};

/* Scheduler side: what reduce() sees after every iteration. */
struct dsana_reduce_ctx {
  uint32_t iter;
  double sums[DSANA_MAX_SUMS];     /* exact totals over all shards */
  double globals[DSANA_MAX_GLOBALS]; /* to fill: broadcast to run_task() */
  double residual;                 /* to fill: reported in metrics */
  bool converged;                  /* to fill: stop after this iteration */
};

/* How the run went, for the app's own report. */
struct dsana_run_summary {
  uint32_t iters;
  double residual;
  double total_s;       /* all iterations */
  double median_iter_s; /* median wall time of one iteration */
  bool quiet;
};

/* An option an app adds to the command line (long form only). */
struct dsana_app_option {
  const char *name;
  bool has_arg;
  const char *help;
};

struct dsana_app {
  const char *name;
  const char *summary;  /* one line for `dsana --help` */
  const char *args;     /* positional arguments, e.g. "GRAPH" */
  const char *help;     /* extra help text (policies, formats) */
  const struct dsana_app_option *options; /* terminated by {NULL} */
  /* Create the app's option state. */
  int (*create)(void **app);
  void (*destroy)(void *app);
  /* One option or positional (name NULL) argument; err gets a one-line message. */
  int (*set_option)(void *app, const char *name, const char *value, char *err, size_t errlen);
  /* Prepare data (possibly shared files) once, in the launcher, before
   * processes start: may rewrite the app's state (e.g. convert a graph). */
  int (*prepare)(void *app, char *err, size_t errlen);
  /* In every role: load shared data, declare tables and tasks. */
  int (*setup)(void *app, struct dsana_job *job, char *err, size_t errlen);
  /* Server: initial values of table t for keys [lo, hi) (indexed by key). */
  int (*init)(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values);
  /* Worker: run one task. */
  int (*run_task)(void *app, struct dsana_task_ctx *ctx);
  /* Optional, for chunked transfers: a task as a sequence of blocks, one per
   * chunk of the table it reads (`pull_table`), run in chunk order as the
   * chunks arrive, possibly interleaved with the blocks of other tasks.
   * task_block(ctx, c) may dsana_pull() only keys of chunk c. With these
   * hooks the worker overlaps all its tasks with the transfer. */
  int (*task_begin)(void *app, struct dsana_task_ctx *ctx);
  int (*task_block)(void *app, struct dsana_task_ctx *ctx, uint64_t chunk);
  int (*task_end)(void *app, struct dsana_task_ctx *ctx);
  uint32_t pull_table;
  /* Server: end of an iteration for a shard: derive tables, fill sums. */
  int (*finish)(void *app, struct dsana_shard_ctx *ctx);
  /* Scheduler: combine sums into globals, decide convergence. */
  int (*reduce)(void *app, struct dsana_reduce_ctx *ctx);
  /* Scheduler: the final values of the result table, all keys. */
  int (*output)(void *app, const double *values, uint64_t n_keys, const struct dsana_run_summary *run,
                char *err, size_t errlen);
};

/* Registry of built-in apps. */
const struct dsana_app *dsana_app_find(const char *name);
const struct dsana_app *const *dsana_app_list(void);

#endif /* DSANA_DSANA_H */
