/*
 * trace.h - timeline traces in Chrome trace-event JSON (opens in Perfetto
 * and chrome://tracing): one track per role process (pid = role, tid =
 * index), complete events ("ph":"X") for task compute, waits, chunk sends
 * and receives, with the iteration as an argument.
 *
 * Cheap: a role that traces owns a struct trace (trace_open) and hands it
 * to its state machine in its environment (event.h); a NULL trace is off
 * and costs one branch. Events go to a bounded in-memory buffer (oldest
 * kept, later ones counted as dropped) written to the role's part file at
 * trace_close(). The launcher merges the parts into one JSON file with
 * trace_merge(). Spans may come from several threads of a role (a mutex
 * guards them).
 */
#ifndef DSANA_RUNTIME_TRACE_H
#define DSANA_RUNTIME_TRACE_H

#include <stddef.h>
#include <stdint.h>

struct trace;

/* Start a trace. `part_path` is the role's part file; `track` names the
 * track ("worker 2"); pid/tid select the track. max_events bounds memory
 * (e.g. 1<<20). Returns 0 and *out, or DSANA_E* and NULL. */
int trace_open(const char *part_path, const char *track, uint32_t pid, uint32_t tid, size_t max_events,
               struct trace **out);
/* One complete span [start_ns, end_ns] on the trace's track (clock:
 * CLOCK_MONOTONIC ns, as clock_now_ns()); nothing when t is NULL. name and
 * cat must be static strings. iter is recorded in args; arg2_name/arg2
 * optional (NULL = none). */
void trace_span(struct trace *t, const char *name, const char *cat, uint64_t start_ns, uint64_t end_ns, uint32_t iter,
                const char *arg2_name, double arg2);
/* Write the part file and free the trace (NULL: nothing). A part that
 * cannot be written is logged (one line, the reason) and marks the run
 * incomplete (util/text/status.h); the role carries on. Returns 0. */
int trace_close(struct trace *t);
/* Merge the part files (NULL-terminated list) into `out_path`
 * ({"traceEvents":[...], "displayTimeUnit":"ms"}, timestamps shifted so
 * that the earliest event is at 0), written through dsana/outfile.h
 * (atomically for a regular file); removes the parts once merged. */
int trace_merge(const char *out_path, const char *const *part_paths, char *err, size_t errlen);

/* The part file of one role: "<trace>.part.<role>.<index>". */
void trace_part_path(char *buf, size_t len, const char *trace_path, const char *role, uint32_t index);
/* Open this role's part when trace_path is set (pid: 1 scheduler, 2
 * servers, 3 workers); *out stays NULL when it is not. Logs and returns
 * DSANA_E* on failure. */
int trace_open_role(const char *trace_path, const char *role, uint32_t pid, uint32_t index, struct trace **out);

#endif
