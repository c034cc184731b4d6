/*
 * metrics.h - machine-readable run metrics as JSON lines (cJSON):
 *   {"type":"iteration","iter":K,"wall_s":..,"residual":..,"transfer_bound_s":..,
 *    "pull_bytes":..,"pull_bytes_raw":..}   (pulled by every worker: as sent, before compression)
 *   {"type":"worker","iter":K,"worker":I,"compute_s":..,"wait_s":..,"tasks":..,
 *    "bytes_in":..,"bytes_in_raw":..,"bytes_out":..,"stolen":..,"speed_est":..}
 *   {"type":"summary", ...totals, mode and options...}
 * A metrics handle opened with a NULL path accepts every call and writes
 * nothing, so callers need no checks.
 */
#ifndef DSANA_CLI_METRICS_H
#define DSANA_CLI_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/observer.h"

struct cJSON;
struct metrics;

/* Opens path (dsana/outfile.h: a regular file appears, whole, at close;
 * a FIFO or terminal gets each line as it is written). err: one line. */
int metrics_open(const char *path, struct metrics **out, char *err, size_t errlen);
void metrics_iteration(struct metrics *m, const struct rt_iter_report *r);
void metrics_worker(struct metrics *m, uint32_t iter, uint32_t worker, const struct worker_iter_stats *st);
/* Writes obj (a cJSON object; "type":"summary" is added) and frees it. */
void metrics_summary(struct metrics *m, struct cJSON *obj);
/* Closes (a regular file is committed even after a failed run: it says
 * what happened); DSANA_EIO with the reason in err if a write failed.
 * NULL is fine. */
int metrics_close(struct metrics *m, char *err, size_t errlen);

#endif
