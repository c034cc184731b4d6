/*
 * trace.c - Chrome trace-event timeline (see trace.h).
 *
 * Each process keeps one preallocated array of fixed-size span records;
 * trace_span() only fills the next slot (no allocation, no I/O), so tracing
 * can stay on in the hot loop. trace_close() writes the part file: one JSON
 * event object per line - metadata (process/thread names and sort order),
 * the spans, and an instant event if spans were dropped - to a temporary
 * file renamed over the part, so a part is either complete or the empty
 * file trace_open() created. trace_merge() (the launcher) checks every line
 * with cJSON and joins them into {"traceEvents":[...]} (gzipped for a
 * name ending in ".gz": Perfetto and chrome://tracing open both).
 *
 * A role owns its trace (struct trace) and hands it to its state machine
 * in its environment (event.h); nothing is process-global.
 */
#include "runtime/record/trace.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include "dsana/dsana.h"
#include "dsana/outfile.h"
#include "util/text/log.h"
#include "util/text/status.h"

/* One span; name, cat and arg2_name point at static strings. */
struct trace_rec {
  const char *name, *cat, *arg2_name;
  uint64_t start_ns, end_ns;
  double arg2;
  uint32_t iter;
};

/* Spans come from a role's control thread and its compute threads: mu
 * guards recs, n, dropped and first_drop_ns. */
struct trace {
  pthread_mutex_t mu;
  char *part_path, *track;
  uint32_t pid, tid;
  struct trace_rec *recs;
  size_t n, cap;
  uint64_t dropped;
  uint64_t first_drop_ns; /* start of the first span that did not fit */
};

static void trace_free(struct trace *tr) {
  if (!tr)
    return;
  pthread_mutex_destroy(&tr->mu);
  free(tr->part_path);
  free(tr->track);
  free(tr->recs);
  free(tr);
}

int trace_open(const char *part_path, const char *track, uint32_t pid, uint32_t tid, size_t max_events,
               struct trace **out) {
  *out = NULL;
  if (!part_path || !part_path[0] || !track || max_events == 0 || max_events > SIZE_MAX / sizeof(struct trace_rec))
    return DSANA_EINVAL;
  struct trace *tr = calloc(1, sizeof *tr);
  if (!tr)
    return DSANA_ENOMEM;
  pthread_mutex_init(&tr->mu, NULL);
  tr->part_path = strdup(part_path);
  tr->track = strdup(track);
  tr->recs = malloc(max_events * sizeof *tr->recs);
  if (!tr->part_path || !tr->track || !tr->recs) {
    trace_free(tr);
    return DSANA_ENOMEM;
  }
  /* Create the (empty) part now: an unwritable path fails here, not at the
   * end of the run, and a process that dies leaves an empty, valid part. */
  FILE *f = fopen(part_path, "w");
  if (!f || fclose(f) != 0) {
    log_error("%s: cannot write trace part: %s", part_path, strerror(errno));
    trace_free(tr);
    return DSANA_EIO;
  }
  tr->pid = pid;
  tr->tid = tid;
  tr->cap = max_events;
  *out = tr;
  return 0;
}

void trace_span(struct trace *tr, const char *name, const char *cat, uint64_t start_ns, uint64_t end_ns, uint32_t iter,
                const char *arg2_name, double arg2) {
  if (!tr || !name)
    return;
  pthread_mutex_lock(&tr->mu);
  if (tr->n == tr->cap) {
    if (tr->dropped++ == 0)
      tr->first_drop_ns = start_ns;
    pthread_mutex_unlock(&tr->mu);
    return;
  }
  struct trace_rec *r = &tr->recs[tr->n++];
  r->name = name;
  r->cat = cat ? cat : "";
  r->arg2_name = arg2_name;
  r->start_ns = start_ns;
  r->end_ns = end_ns < start_ns ? start_ns : end_ns; /* a span never runs backwards */
  r->arg2 = arg2;
  r->iter = iter;
  pthread_mutex_unlock(&tr->mu);
}

/* Writes s as a JSON string literal. Names are meant to be static ASCII, but
 * escaping keeps a stray quote from corrupting the whole trace. */
static void trace_put_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/* JSON has no NaN or infinity. */
static void trace_put_num(FILE *f, double v) {
  if (isfinite(v))
    fprintf(f, "%.17g", v);
  else
    fputs("null", f);
}

static double trace_us(uint64_t ns) { return (double)ns / 1000.0; }

static void trace_write_span(const struct trace *tr, FILE *f, const struct trace_rec *r) {
  fputs("{\"ph\":\"X\",\"name\":", f);
  trace_put_str(f, r->name);
  fputs(",\"cat\":", f);
  trace_put_str(f, r->cat);
  fprintf(f, ",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"iter\":%u", tr->pid, tr->tid,
          trace_us(r->start_ns), trace_us(r->end_ns - r->start_ns), r->iter);
  if (r->arg2_name) {
    fputc(',', f);
    trace_put_str(f, r->arg2_name);
    fputc(':', f);
    trace_put_num(f, r->arg2);
  }
  fputs("}}\n", f);
}

static const char *trace_process_name(uint32_t pid) {
  static const char *const names[] = {"role 0", "scheduler", "servers", "workers"};
  return pid < sizeof names / sizeof names[0] ? names[pid] : "role";
}

/* One metadata event built with cJSON: the track name is caller text. */
static int trace_write_meta(const struct trace *tr, FILE *f, const char *name, int with_tid, const char *arg_key,
                            const char *str_val, double num_val) {
  cJSON *o = cJSON_CreateObject(), *args = cJSON_CreateObject();
  if (!o || !args) {
    cJSON_Delete(o);
    cJSON_Delete(args);
    return DSANA_ENOMEM;
  }
  cJSON_AddStringToObject(o, "ph", "M");
  cJSON_AddStringToObject(o, "name", name);
  cJSON_AddNumberToObject(o, "pid", tr->pid);
  if (with_tid)
    cJSON_AddNumberToObject(o, "tid", tr->tid);
  if (str_val)
    cJSON_AddStringToObject(args, arg_key, str_val);
  else
    cJSON_AddNumberToObject(args, arg_key, num_val);
  cJSON_AddItemToObject(o, "args", args);
  char *text = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  if (!text)
    return DSANA_ENOMEM;
  fprintf(f, "%s\n", text);
  free(text);
  return 0;
}

static int trace_write_part(const struct trace *tr, FILE *f) {
  int rc = 0;
  if (!rc)
    rc = trace_write_meta(tr, f, "process_name", 0, "name", trace_process_name(tr->pid), 0);
  if (!rc)
    rc = trace_write_meta(tr, f, "process_sort_index", 0, "sort_index", NULL, tr->pid);
  if (!rc)
    rc = trace_write_meta(tr, f, "thread_name", 1, "name", tr->track, 0);
  if (!rc)
    rc = trace_write_meta(tr, f, "thread_sort_index", 1, "sort_index", NULL, tr->tid);
  if (rc)
    return rc;
  for (size_t i = 0; i < tr->n; i++)
    trace_write_span(tr, f, &tr->recs[i]);
  if (tr->dropped > 0)
    fprintf(f,
            "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"trace_dropped\",\"cat\":\"trace\",\"pid\":%u,\"tid\":%u,"
            "\"ts\":%.3f,\"args\":{\"dropped\":%llu,\"max_events\":%zu}}\n",
            tr->pid, tr->tid, trace_us(tr->first_drop_ns), (unsigned long long)tr->dropped, tr->cap);
  return 0;
}

int trace_close(struct trace *tr) {
  if (!tr)
    return 0;
  int rc = 0, saved = 0;
  size_t len = strlen(tr->part_path) + 5;
  char *tmp = malloc(len);
  FILE *f = NULL;
  if (tmp) {
    snprintf(tmp, len, "%s.tmp", tr->part_path);
    f = fopen(tmp, "w");
  }
  if (!f) {
    rc = tmp ? DSANA_EIO : DSANA_ENOMEM;
    saved = errno;
  } else {
    rc = trace_write_part(tr, f);
    int bad = ferror(f) || fflush(f) != 0;
    saved = errno;
    if ((fclose(f) != 0 || bad) && !rc)
      rc = DSANA_EIO;
    if (!rc && rename(tmp, tr->part_path) != 0)
      rc = DSANA_EIO;
    if (rc)
      unlink(tmp);
  }
  /* a trace is a report: losing it does not fail the role, but the run
   * ends incomplete (util/text/status.h) */
  if (rc) {
    log_error("the trace will lack the events of %s: %s", tr->track, saved ? strerror(saved) : dsana_strerror(rc));
    status_mark_incomplete();
  } else if (tr->dropped > 0) {
    log_warn("trace: %llu events dropped (buffer of %zu)", (unsigned long long)tr->dropped, tr->cap);
  }
  free(tmp);
  trace_free(tr);
  return 0;
}

static void trace_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void trace_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Each event of one part, parsed, to fn; a missing part has none. */
typedef int (*trace_event_fn)(void *arg, cJSON *ev);

static int trace_each_event(const char *path, trace_event_fn fn, void *arg, char **buf, size_t *cap, char *err,
                            size_t errlen) {
  FILE *in = fopen(path, "r");
  if (!in) {
    if (errno == ENOENT)
      return 0;
    trace_err(err, errlen, "%s: cannot read trace part: %s", path, strerror(errno));
    return DSANA_EIO;
  }
  int rc = 0;
  size_t line = 0;
  ssize_t n;
  while (!rc && (n = getline(buf, cap, in)) >= 0) {
    line++;
    char *s = *buf;
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
      s[--n] = '\0';
    if (n == 0)
      continue;
    cJSON *ev = cJSON_Parse(s);
    if (!cJSON_IsObject(ev)) {
      trace_err(err, errlen, "%s:%zu: malformed trace event", path, line);
      rc = DSANA_EFORMAT;
    } else {
      rc = fn(arg, ev);
    }
    cJSON_Delete(ev);
  }
  if (!rc && ferror(in)) {
    trace_err(err, errlen, "%s: read error after line %zu", path, line);
    rc = DSANA_EIO;
  }
  fclose(in);
  return rc;
}

struct trace_merge_state {
  double t0_us; /* the earliest timestamp: the merged trace starts at 0 */
  struct dsana_outfile *out;
  int first;
};

static int trace_find_start(void *arg, cJSON *ev) {
  struct trace_merge_state *m = arg;
  cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
  if (cJSON_IsNumber(ts) && ts->valuedouble < m->t0_us)
    m->t0_us = ts->valuedouble;
  return 0;
}

static int trace_put_event(void *arg, cJSON *ev) {
  struct trace_merge_state *m = arg;
  cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
  if (cJSON_IsNumber(ts))
    cJSON_SetNumberValue(ts, round((ts->valuedouble - m->t0_us) * 1000.0) / 1000.0); /* whole ns, as written */
  char *text = cJSON_PrintUnformatted(ev);
  if (!text)
    return DSANA_ENOMEM;
  dsana_outfile_printf(m->out, "%s%s", m->first ? "\n" : ",\n", text);
  m->first = 0;
  free(text);
  return 0;
}

int trace_merge(const char *out_path, const char *const *part_paths, char *err, size_t errlen) {
  if (err && errlen > 0)
    err[0] = '\0';
  if (!out_path || !out_path[0] || !part_paths)
    return DSANA_EINVAL;
  struct trace_merge_state m = {.t0_us = INFINITY, .first = 1};
  char *buf = NULL;
  size_t cap = 0;
  int rc = 0;
  for (size_t i = 0; part_paths[i] && !rc; i++)
    rc = trace_each_event(part_paths[i], trace_find_start, &m, &buf, &cap, err, errlen);
  if (!isfinite(m.t0_us))
    m.t0_us = 0;
  char oerr[1200] = "";
  if (!rc && (rc = dsana_outfile_open(out_path, DSANA_OUT_GZIP_SUFFIX, &m.out, oerr, sizeof oerr)) != 0)
    trace_err(err, errlen, "%s", oerr);
  if (!rc)
    dsana_outfile_printf(m.out, "{\"traceEvents\":[");
  for (size_t i = 0; part_paths[i] && !rc; i++)
    rc = trace_each_event(part_paths[i], trace_put_event, &m, &buf, &cap, err, errlen);
  free(buf);
  if (m.out && !rc) {
    dsana_outfile_printf(m.out, "\n],\"displayTimeUnit\":\"ms\"}\n");
    if ((rc = dsana_outfile_commit(m.out, oerr, sizeof oerr)) != 0)
      trace_err(err, errlen, "%s", oerr);
  } else {
    dsana_outfile_discard(m.out); /* keep the parts: nothing was merged */
  }
  for (size_t i = 0; !rc && part_paths[i]; i++)
    unlink(part_paths[i]);
  return rc;
}
