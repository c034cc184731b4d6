/*
 * dsana.h - the public surface of dsana: error codes (error.h), exact sums
 * (xsum.h), and the interface a parameter-server application implements.
 *
 * An app declares, in setup():
 *   - tables (dsana_job_add_table_id, with the app's own ids 0, 1, ...):
 *     arrays of `width` doubles per key, keys 0..n_keys-1, sharded over the
 *     servers by contiguous key ranges; each with a rule (enum dsana_rule)
 *     saying who writes it and how an iteration's pushes combine: ASSIGN
 *     (one task a key), SUM (added exactly), ISUM (integers, added in
 *     double), DERIVED (the servers' hooks write it) or STATE (a server's
 *     own, never pulled or pushed);
 *   - tasks: units of work with a cost hint and an app-defined range (graph
 *     vertices, training rows ...), and for each task the key ranges of the
 *     tables it reads and writes; a data-parallel app has its rows cut into
 *     tasks by dsana_job_add_row_tasks.
 * Declarations keep their first error, so setup() makes them one after the
 * other and checks once (dsana_job_status). Options are rows that may name
 * their field, range and default (struct dsana_app_option): the runtime
 * then parses them (dsana_app_parse_option) and --help shows the range.
 * Every iteration, workers run every task exactly once: a task reads the
 * values of the previous iteration (pulled for it by the runtime) and
 * pushes its results. A server combines the pushes into its shard, and once
 * every task writing a key range has ended, calls finish() on it (derived
 * values, partial sums). The scheduler adds the partial sums up exactly,
 * calls reduce() (globals for the next iteration, convergence) and commits
 * the iteration; servers then call update() with the new globals.
 *
 * An app never sees processes, sockets or messages. Which role calls which
 * hook, from which thread, is said at each hook below.
 */
#ifndef DSANA_DSANA_H
#define DSANA_DSANA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/export.h"
#include "error.h" /* DSANA_E* error codes, dsana_strerror() */
#include "xsum.h"  /* exact sums: dsana_xsum */

/* The version, written only here: CMakeLists.txt reads it for the project. */
#define DSANA_VERSION_STRING "1.2.0"

/* How a server combines the values pushed into a table in one iteration. */
enum dsana_rule {
  /* Each key is written by exactly one task: the tasks' declared write
   * ranges of the table are disjoint (checked at setup, naming the two
   * tasks), and a task pushes its whole range. */
  DSANA_RULE_ASSIGN = 0,
  /* Contributions are added exactly (dsana_xsum per value), whatever the
   * order or grouping of the pushes; keys no task pushed are 0. */
  DSANA_RULE_SUM = 1,
  /* Never pushed: written by the server's finish() and update() hooks. */
  DSANA_RULE_DERIVED = 2,
  /* A server's own state: one copy per shard (old_values and new_values
   * are the same array), read and written only by finish() and update(),
   * kept across iterations and in checkpoints; never pulled or pushed (an
   * optimiser's history, say). */
  DSANA_RULE_STATE = 3,
  /* Contributions are integers (doubles without a fraction, below 2^52 in
   * magnitude) added in double: exact, whatever the order or grouping,
   * while every partial sum stays below 2^53. Cheaper than SUM (8 bytes a
   * value on the server, a plain addition): for apps that push fixed-point
   * numbers. An addend with a fraction, or a partial sum that reaches 2^53,
   * makes the key's total NaN: the job stops naming the table and key.
   * Pushed as SUM is, without partial sums (dsana_push_buf, _keys). */
  DSANA_RULE_ISUM = 4
};

#define DSANA_MAX_TABLES 16
#define DSANA_MAX_GLOBALS 512
#define DSANA_MAX_SUMS 128
#define DSANA_MAX_METRICS 16
#define DSANA_MAX_FACTS 8
#define DSANA_ALL_TASKS UINT32_MAX

/* One unit of work: [lo, hi) is app-defined (vertices, rows ...). */
struct dsana_task_decl {
  uint64_t lo, hi;
  double cost; /* > 0, relative cost hint, e.g. edges or non-zeros */
};

/* ------------------------------------------------------------------ job */

/* The job under construction in setup(). */
struct dsana_job;

/* Facts the app may consult in setup(). */
struct dsana_job_info {
  uint32_t n_workers, n_servers;
  uint32_t tasks_per_worker;
  const char *role; /* "scheduler", "server", "worker" or "launcher" */
  /* Every role runs on this machine and tables cross shared memory, no
   * link modelled: a pushed value costs a memory copy, not a transfer, so
   * work may move from servers to tasks (as PageRank's contributions do).
   * The same for every role of a job (false in the launcher's check). */
  bool local;
  /* The user left --tasks-per-worker at its default and no scenario models
   * the compute: an app may declare fewer than n_workers *
   * tasks_per_worker tasks where they would be too small to pay for what
   * each costs the runtime (a hand-out, a push, a report: tens of
   * microseconds), down to one a worker. The same for every role. */
  bool tasks_auto;
};
DSANA_API void dsana_job_get_info(const struct dsana_job *job, struct dsana_job_info *info);

/* Declarations keep their first error: once the job has refused one (the
 * dsana_job_* calls below that return an int), every later declaration
 * does nothing and returns that first code, so setup() may make its
 * declarations one after the other and check once, at the end, with
 * dsana_job_status(). */
/* Why the job refused its first refused declaration, or NULL. */
DSANA_API const char *dsana_job_error(const struct dsana_job *job);
/* 0, or the DSANA_E* code of the first declaration the job refused; then
 * err gets "WHAT: why" (just "why" when what is NULL). */
DSANA_API int dsana_job_status(const struct dsana_job *job, const char *what, char *err, size_t errlen);
/* The app's own failure while declaring (out of memory, say), kept as a
 * refusal is when it is the first: returns the job's first code (`code`,
 * unless an earlier refusal came first); why: one line, copied. */
DSANA_API int dsana_job_fail(struct dsana_job *job, int code, const char *why);

/* Declare table `id`, of n_keys keys of `width` doubles each (width >= 1).
 * Ids are 0, 1, ... in declaration order: the app names its tables with
 * its own constants (an enum) and declares them in that order; an id out
 * of order is refused (DSANA_EINVAL, naming the table and the id it would
 * have). DSANA_ERANGE when n_keys exceeds the run's --max-keys, DSANA_EINVAL
 * for a bad name, size or more than DSANA_MAX_TABLES tables. */
DSANA_API int dsana_job_add_table_id(struct dsana_job *job, uint32_t id, const char *name, uint64_t n_keys,
                                     uint32_t width, enum dsana_rule rule);
/* The same, the id (the next in declaration order) through *id. */
DSANA_API int dsana_job_add_table(struct dsana_job *job, const char *name, uint64_t n_keys, uint32_t width,
                                  enum dsana_rule rule, uint32_t *id);
/* Declare the tasks run every iteration (copied). Every role must declare
 * the same tasks. */
DSANA_API int dsana_job_set_tasks(struct dsana_job *job, const struct dsana_task_decl *tasks, uint32_t n_tasks);
/* Task `task` (or DSANA_ALL_TASKS) pushes into keys [lo, hi) of `table`
 * (ASSIGN or SUM). A server expects an end marker from every task whose
 * write ranges touch its shard: a task that pushes nothing there still
 * ends, so a range may be a cover of sparse pushes. One range per table
 * and task. */
DSANA_API int dsana_job_task_writes(struct dsana_job *job, uint32_t task, uint32_t table, uint64_t lo, uint64_t hi);
/* Task `task` (or DSANA_ALL_TASKS) reads keys [lo, hi) of `table`: their
 * values of the previous iteration are on the worker before the task runs
 * (or, for the block table, chunk by chunk). With the task_keys() hook the
 * task reads only the keys it lists inside that range. One range per table
 * and task. */
DSANA_API int dsana_job_task_reads(struct dsana_job *job, uint32_t task, uint32_t table, uint64_t lo, uint64_t hi);
/* Optional: keys of `table` that no task ever reads, bit k of
 * unread_bits[k / 64] set for key k (n_keys / 64 + 1 words, copied). Pulls
 * then carry only the other keys; a worker's copy of an unread key is
 * unspecified. Every role must declare the same keys. */
DSANA_API int dsana_job_set_unread(struct dsana_job *job, uint32_t table, const uint64_t *unread_bits);
/* Optional, with the task_block() hook: tasks run block by block, one block
 * per chunk of `table` (which they read), as the chunks arrive. */
DSANA_API int dsana_job_set_block_table(struct dsana_job *job, uint32_t table);
/* The table the scheduler collects at the end and hands to output(). */
DSANA_API int dsana_job_set_result_table(struct dsana_job *job, uint32_t table);
/* Sums the app uses (finish() and tasks fill sums[0..n)); default 8. */
DSANA_API int dsana_job_set_sums(struct dsana_job *job, uint32_t n);
/* Optional: the convergence test's tolerance and iteration cap, so the
 * progress line can estimate the time left, a run stopped by the cap is
 * reported, and --resume refuses a cap the checkpoint is already past. */
DSANA_API void dsana_job_set_convergence(struct dsana_job *job, double tol, uint32_t max_iter);
/* Optional: a fact about the input for the run's summary, e.g. "vertices"
 * (name: a static string, [a-z_]), at most DSANA_MAX_FACTS; DSANA_EINVAL
 * beyond. */
DSANA_API int dsana_job_add_fact(struct dsana_job *job, const char *name, double value);

/* Data-parallel tasks: each a range of rows [lo, hi) of the app's data,
 * cut by dsana_job_add_row_tasks(). What each task of the group reads and
 * writes, per table: DSANA_ROWS_READ and/or DSANA_ROWS_WRITE, of the whole
 * table (keys 0..n_keys-1: the model, a gradient) or, with DSANA_ROWS_OWN,
 * of the keys [lo, hi) of its own rows (per-row state, k-means' labels). */
enum { DSANA_ROWS_READ = 1, DSANA_ROWS_WRITE = 2, DSANA_ROWS_OWN = 4 };
struct dsana_dataset; /* dsana/dataset.h */
struct dsana_row_tasks {
  /* The rows: a data set's, cut into ranges of about equal non-zeros plus
   * rows (dsana_dataset_cut_rows); or, with ds NULL, rows [0, n_rows) cut
   * into ranges of about equal rows (task i of k starts at block
   * floor(B * i / k), B = the blocks). */
  const struct dsana_dataset *ds;
  uint64_t n_rows;    /* without ds */
  uint64_t block;     /* every task edge a multiple of this many rows (0: 1),
                       * so results summed per block do not depend on the cut */
  uint32_t max_tasks; /* at most this many (fewer when there are fewer
                       * blocks); 0: n_workers * tasks_per_worker */
  /* each task's cost hint: entries * cost_entry + rows * cost_row +
   * cost_task (entries: its rows' non-zeros in ds; > 0 in all) */
  double cost_entry, cost_row, cost_task;
  /* what every task of the group reads and writes; a use of 0 ends the list */
  struct {
    uint32_t table;
    unsigned use; /* DSANA_ROWS_READ | DSANA_ROWS_WRITE [| DSANA_ROWS_OWN] */
  } tables[DSANA_MAX_TABLES];
};
/* Cut rows into tasks, add them after the job's tasks (ids *first ..
 * *first + *n - 1; either pointer may be NULL) and declare their reads and
 * writes. An app with two data sets (training and test rows) calls it
 * once for each. Returns as the declarations do (the first refusal kept);
 * *n is 0 when refused. */
DSANA_API int dsana_job_add_row_tasks(struct dsana_job *job, const struct dsana_row_tasks *rows, uint32_t *first,
                                      uint32_t *n);
/* Task `task` as declared, into *decl; DSANA_EINVAL for no such task. */
DSANA_API int dsana_job_get_task(const struct dsana_job *job, uint32_t task, struct dsana_task_decl *decl);

/* --------------------------------------------------------------- worker */

/* What a task hook sees. Hooks of different tasks may run at the same time
 * on different threads of one worker; the hooks of one task instance run
 * one after the other. */
struct dsana_task_ctx {
  uint32_t task, iter;
  uint64_t lo, hi;          /* the task's range */
  const double *globals;    /* DSANA_MAX_GLOBALS values from the last reduce() */
  dsana_xsum *sums;         /* DSANA_MAX_SUMS, zero when the task starts: added
                           * exactly over all tasks, into reduce()'s sums */
  double cost;              /* out, per call: the work done in the units of
                           * the cost hint (set to 0 before each call); a
                           * task's calls should add up to its hint. Used by
                           * emulated clusters with a cost model. */
  struct dsana_task_rt *rt; /* the runtime's, opaque */
};

/* Values of `table` as of the previous iteration, indexed by key
 * (p[key * width + j]), or NULL when the task does not read the table. Only
 * the keys the task reads are valid (in task_block(): of the block table,
 * only chunk `chunk`'s). Valid until the hook returns. */
DSANA_API const double *dsana_read(const struct dsana_task_ctx *ctx, uint32_t table);
/* Keys per chunk of the block table (its whole size when not chunked). */
DSANA_API uint64_t dsana_block_keys(const struct dsana_task_ctx *ctx);
/* The push buffer of the task's declared write range [lo, hi) of `table`,
 * indexed by key (p[key * width + j], lo <= key < hi). The first call in a
 * task instance creates it (SUM: zeroed; ASSIGN: unspecified, the task must
 * write every value); later calls return the same buffer. Sent when the
 * task ends. NULL for a table the task does not write. */
DSANA_API double *dsana_push_buf(struct dsana_task_ctx *ctx, uint32_t table);
/* As dsana_push_buf(), but a SUM or ISUM buffer is not zeroed: the task
 * writes every value of its range. For a task that makes a large dense
 * push part by part: zeroing each part just before adding into it, while
 * it is in cache, saves a pass over the whole buffer (the MLP's gradient:
 * 3.3 MB a task). The first call of either decides; later calls of either
 * return the same buffer. */
DSANA_API double *dsana_push_buf_uninit(struct dsana_task_ctx *ctx, uint32_t table);
/* A sparse push into a SUM table: n keys, strictly ascending, inside the
 * task's write range; *values gets n * width zeroed doubles to fill
 * (values[i * width + j] for keys[i]). keys must stay valid until the task
 * ends. At most one push per table per task instance. */
DSANA_API int dsana_push_keys(struct dsana_task_ctx *ctx, uint32_t table, const uint64_t *keys, uint64_t n,
                              double **values);

/* Exact partial sums for a SUM table: as dsana_push_buf() and
 * dsana_push_keys(), but the task adds dsana_xsum partials (zero at first)
 * that the server merges exactly. A table's totals are then independent of
 * how the work is grouped into tasks, as long as each partial is (e.g. a
 * task adds one partial per fixed block of rows, or per example): results
 * do not change with the task count. Either kind of push per table and
 * task, not both. */
DSANA_API dsana_xsum *dsana_push_xsum(struct dsana_task_ctx *ctx, uint32_t table);
DSANA_API int dsana_push_xsum_keys(struct dsana_task_ctx *ctx, uint32_t table, const uint64_t *keys, uint64_t n,
                                   dsana_xsum **values);
/* Optional, from run_task(): every value this task instance pushes for
 * keys [lo, hi) is final (it writes none of them again), in every table it
 * writes; call it once all its push buffers exist. The runtime may send
 * those keys while the task computes the rest, so a large push overlaps
 * the task that makes it (as a network's gradient leaves layer by layer
 * during the backward pass, P3): a server's keys leave from its shard's
 * start up to the first key not yet said final, in whole chunks. Honoured
 * when every table the task writes is a dense push (dsana_push_buf,
 * dsana_push_xsum) of the same keys, in one chunked key space, for the
 * first 64 ranges of a task instance: true. Otherwise it does nothing (the
 * keys leave when the task ends) and says false, so a task need not cut its
 * work into pieces for it. */
DSANA_API bool dsana_push_ready(struct dsana_task_ctx *ctx, uint64_t lo, uint64_t hi);
/* The number of servers S: server i holds keys [i * N / S, (i + 1) * N / S)
 * (integer division) of every table of N keys. A task that makes a large
 * push piece by piece (dsana_push_ready) keeps every server's link busy by
 * making each server's keys in ascending order, all servers' at once. */
DSANA_API uint32_t dsana_servers(const struct dsana_task_ctx *ctx);

/* --------------------------------------------------------------- server */

/* What finish() and update() see, on one server. [lo, hi) is a range of
 * keys of the tables with n_keys keys; pointers of tables of other sizes
 * are NULL. Values are indexed by key (p[key * width + j]). */
struct dsana_shard_ctx {
  uint32_t iter;   /* 0 after init(), then 1, 2, ... */
  uint64_t n_keys; /* the key count of the tables concerned */
  uint64_t lo, hi;
  const double *old_values[DSANA_MAX_TABLES]; /* previous iteration */
  double *new_values[DSANA_MAX_TABLES];       /* this iteration */
  const double *globals;                      /* update(): what reduce() of `iter` set; finish(): NULL */
  dsana_xsum *sums;                           /* finish(): DSANA_MAX_SUMS, zero, to fill with this range's
                           * share (the runtime adds the shares up); update(): NULL */
};

/* -------------------------------------------------------------- scheduler */

/* What reduce() sees after every iteration. */
struct dsana_reduce_ctx {
  uint32_t iter;
  double sums[DSANA_MAX_SUMS];       /* exact totals over all shards and tasks */
  double globals[DSANA_MAX_GLOBALS]; /* in: the previous ones; out: for the next iteration */
  double residual;                   /* out: reported in metrics and progress */
  bool converged;                    /* out: stop after this iteration */
  /* out, optional: up to DSANA_MAX_METRICS named values for the
   * per-iteration report and metrics (names: static strings) */
  struct {
    const char *name;
    double value;
  } metrics[DSANA_MAX_METRICS];
  uint32_t n_metrics;
  /* out, optional: leave this iteration's row out of the table on the
   * terminal (it stays in --metrics and the progress line), for apps of
   * many short iterations that show one row per epoch */
  bool quiet_row;
};

/* Append a named value to reduce()'s metrics (name: a static string);
 * DSANA_ERANGE, and nothing added, beyond DSANA_MAX_METRICS. */
static inline int dsana_reduce_metric(struct dsana_reduce_ctx *ctx, const char *name, double value) {
  if (ctx->n_metrics >= DSANA_MAX_METRICS)
    return DSANA_ERANGE;
  ctx->metrics[ctx->n_metrics].name = name;
  ctx->metrics[ctx->n_metrics++].value = value;
  return 0;
}

/* How the run went, for the app's own report. */
struct dsana_run_summary {
  uint32_t iters;
  double residual;
  bool converged;       /* reduce() said so (else the iteration cap stopped it) */
  double total_s;       /* all iterations */
  double median_iter_s; /* median wall time of one iteration */
  bool quiet;
};

/* What an app option's value is: the command line checks files before any
 * process starts, and --resume refuses a change that would change the
 * result (the checkpoint records the PARAM values and the INPUT files). */
enum dsana_option_kind {
  DSANA_OPT_PARAM = 0, /* defines the result (the default): --resume refuses another value */
  DSANA_OPT_INPUT,     /* a file the result is computed from: --resume refuses other contents */
  DSANA_OPT_OUTPUT,    /* a file the run writes: checked writable before the run, never an input */
  DSANA_OPT_REPORT     /* changes what is reported or when the run stops, not the values it
                        * computes (--top, --max-iter, a test set): free on --resume */
};

/* How the runtime reads an option's value into the app's state itself
 * (dsana_app_parse_option), a row's `type`: the row then holds every fact
 * about the option once (its field, range and default), and the parse,
 * the error message and --help all read them there. */
enum dsana_value_type {
  DSANA_VALUE_APP = 0, /* the app's set_option parses it */
  DSANA_VALUE_UINT,    /* decimal digits, an integer in [min, max]: a uint64_t or uint32_t field */
  DSANA_VALUE_DOUBLE,  /* a finite number in [min, max] (an end excluded by `open`): a double field */
  DSANA_VALUE_CHOICE,  /* one of the words of `arg` ("relu|tanh"): its index, into an int (an enum's
                        * first values) or, for two words, a bool field */
  DSANA_VALUE_PATH,    /* a non-empty path shorter than the field: a char array */
  DSANA_VALUE_FLAG     /* a flag (arg NULL): true into a bool field */
};
enum { DSANA_OPEN_MIN = 1, DSANA_OPEN_MAX = 2 }; /* dsana_app_option.open */

/* A row's field: member f (a member designator, "d.path" too) of the app's
 * state type T. */
#define DSANA_FIELD(T, f) .offset = offsetof(T, f), .size = sizeof(((T *)0)->f)

/* An option an app adds to the command line (long form only). */
struct dsana_app_option {
  const char *name;
  const char *arg; /* "N", "FILE" ...; NULL for a flag */
  const char *help;
  enum dsana_option_kind kind;
  const char *default_value; /* as typed on the command line; NULL: none (a flag has none: off).
                              * Shown in --help, recorded in reports and checkpoints. */
  /* Optional (zero: the app parses the value): how the runtime parses it,
   * e.g. .type = DSANA_VALUE_UINT, DSANA_FIELD(struct my_app, max_iter),
   * .min = 1, .max = 1000000. --help shows the range after the help text. */
  enum dsana_value_type type;
  size_t offset, size; /* the field, DSANA_FIELD() */
  double min, max;     /* DSANA_VALUE_UINT and _DOUBLE: the range (max may be INFINITY) */
  unsigned open;       /* DSANA_VALUE_DOUBLE: DSANA_OPEN_MIN, DSANA_OPEN_MAX */
};

/* An app. The runtime checks it once where a process takes it (the command
 * line; the scheduler, a server, a worker as it starts), before calling any
 * hook: the strings, the required hooks (create, destroy, set_option,
 * setup, reduce, and run_task or task_block), the hooks that go together
 * (task_begin and task_end need task_block, task_keys_done needs
 * task_keys) and the option table; what is wrong is one line naming the
 * hook and why. Hooks not marked optional are required. */
struct dsana_app {
  const char *name;                       /* one word, the command's: `dsana NAME` */
  const char *summary;                    /* one line for `dsana --help` */
  const char *args;                       /* positional arguments, e.g. "GRAPH": the input
                                            * files the result is computed from ("" for none) */
  const char *help;                       /* optional: extra help text (formats, semantics) */
  const struct dsana_app_option *options; /* optional, terminated by {NULL}; names unique */
  /* Create and destroy the app's state (options, data). */
  int (*create)(void **app);
  void (*destroy)(void *app);
  /* One option, or (name NULL) a positional argument; err gets one line. */
  int (*set_option)(void *app, const char *name, const char *value, char *err, size_t errlen);
  /* Optional, once in the process that starts the job, before any role:
   * check and prepare data (e.g. convert a graph to a file every role maps). */
  int (*prepare)(void *app, char *err, size_t errlen);
  /* Every role: load what it needs, declare tables and tasks. It may run
   * more than once on one state: the process that starts the job declares
   * it first to check it (dsana_job_info.role "launcher"), and a role then
   * runs setup() again on the same state (in that process, or in a child
   * forked with it). Each call gets a new job and must declare the same
   * tables and tasks, freeing or reusing what an earlier call built (keep
   * loaded data, do not leak per-task state). */
  int (*setup)(void *app, struct dsana_job *job, char *err, size_t errlen);
  /* Server, optional: initial values of keys [lo, hi) of `table` (values
   * indexed by key * width). Tables not written here start at 0. */
  int (*init)(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values);
  /* Worker, optional: the keys of `table` task `task` reads, strictly
   * ascending inside its declared read range (app-owned, valid until
   * destroy); DSANA_EAGAIN = the whole range. Called from the worker's
   * control thread, at most once per (task, table) -- unless the app has
   * task_keys_done: then once per run of the task (an instance), and the
   * list need only stay valid until the matching task_keys_done(). */
  int (*task_keys)(void *app, uint32_t task, uint32_t table, const uint64_t **keys, uint64_t *n);
  /* Worker, optional: the runtime is done with a list task_keys() gave
   * (the instance's pushes have left): one call per successful
   * task_keys(), from the control thread. Lets an app build key lists per
   * run instead of keeping one per task all job long. */
  void (*task_keys_done)(void *app, uint32_t task, uint32_t table);
  /* Worker: run one task, every read in place. Required unless task_block is. */
  int (*run_task)(void *app, struct dsana_task_ctx *ctx);
  /* Worker, optional (with a block table): a task as task_begin(), then
   * task_block(ctx, c) for each chunk c of the block table in order, as the
   * chunks arrive, then task_end(). Used when the block table is pulled in
   * chunks; run_task() otherwise (when given). Without run_task, setup()
   * must declare a block table. task_begin and task_end are optional. */
  int (*task_begin)(void *app, struct dsana_task_ctx *ctx);
  int (*task_block)(void *app, struct dsana_task_ctx *ctx, uint64_t chunk);
  int (*task_end)(void *app, struct dsana_task_ctx *ctx);
  /* Server, optional: a key range whose pushes of the iteration are
   * complete: derive tables, add partial sums. Called once per such range;
   * the ranges of one iteration partition the shard, in no fixed order. */
  int (*finish)(void *app, struct dsana_shard_ctx *ctx);
  /* Server, optional: iteration `iter` was committed with the globals of its
   * reduce(); may rewrite the DERIVED tables of new_values (the values the
   * next iteration reads) from them. Called over ranges that partition the
   * shard, once per key count (like finish(), what it does to a key must
   * depend on that key's values and the globals only). With this hook, no
   * worker reads iteration t+1's input before iteration t is committed. */
  int (*update)(void *app, struct dsana_shard_ctx *ctx);
  /* Scheduler: combine the sums into globals, decide convergence. */
  int (*reduce)(void *app, struct dsana_reduce_ctx *ctx);
  /* Scheduler, optional: the final values of the result table (n_keys * width). */
  int (*output)(void *app, const double *values, uint64_t n_keys, uint32_t width, const struct dsana_run_summary *run,
                char *err, size_t errlen);
};

/* For the app's create(): give the new state every option's default_value
 * (the options with an argument and a default, in table order) through
 * app->set_option, so that the option table is the one place a default is
 * written. 0, or set_option's error (a default the app refuses is a bug). */
DSANA_API int dsana_app_set_defaults(const struct dsana_app *app, void *state);

/* For the app's set_option: option `name` (not a positional argument) as
 * its row of `options` (the app's table) says, into `state`. 0;
 * DSANA_EINVAL with "--NAME VALUE: invalid value (RULE)" in err (or
 * "unknown option --NAME"); DSANA_ENOTSUP, err untouched, for a row of
 * DSANA_VALUE_APP: the app parses it itself. Same thread as set_option. */
DSANA_API int dsana_app_parse_option(const struct dsana_app_option *options, void *state, const char *name,
                                     const char *value, char *err, size_t errlen);
/* What a valid value of row o looks like, for messages and --help: "an
 * integer in 1..1000000", "a finite number > 0", "relu or tanh", "a file
 * name"; "" for DSANA_VALUE_APP and flags. */
DSANA_API void dsana_app_option_rule(const struct dsana_app_option *o, char *buf, size_t len);

#endif /* DSANA_DSANA_H */
