/* metrics.c - JSON lines through cJSON into an output file (metrics.h;
 * gzipped for a name ending in ".gz"). */
#include "cli/output/metrics.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "dsana/dsana.h"
#include "dsana/outfile.h"

struct metrics {
  struct dsana_outfile *f;
};

int metrics_open(const char *path, struct metrics **out, char *err, size_t errlen) {
  *out = NULL;
  if (!path || !path[0])
    return 0;
  struct metrics *m = calloc(1, sizeof *m);
  if (!m)
    return DSANA_ENOMEM;
  int rc = dsana_outfile_open(path, DSANA_OUT_GZIP_SUFFIX, &m->f, err, errlen);
  if (rc) {
    free(m);
    return rc;
  }
  *out = m;
  return 0;
}

/* One line; a failed write is kept by the file and reported at close. */
static void metrics_emit(struct metrics *m, cJSON *obj) {
  char *text = cJSON_PrintUnformatted(obj);
  if (text && dsana_outfile_printf(m->f, "%s\n", text) == 0)
    dsana_outfile_flush(m->f); /* a FIFO or terminal sees each line as it comes */
  free(text);
  cJSON_Delete(obj);
}

void metrics_iteration(struct metrics *m, const struct rt_iter_report *r) {
  if (!m)
    return;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "iteration");
  cJSON_AddNumberToObject(o, "iter", r->iter);
  cJSON_AddNumberToObject(o, "wall_s", r->wall_s);
  cJSON_AddNumberToObject(o, "residual", r->residual);
  cJSON_AddNumberToObject(o, "bound_s", r->bound_s);
  cJSON_AddNumberToObject(o, "transfer_bound_s", r->transfer_bound_s);
  cJSON_AddNumberToObject(o, "scheduler_messages", (double)r->messages);
  uint64_t sent = 0, raw = 0;
  for (uint32_t w = 0; w < r->n_workers; w++) {
    sent += r->workers[w].bytes_in;
    raw += r->workers[w].bytes_in_raw;
  }
  cJSON_AddNumberToObject(o, "pull_bytes", (double)sent);
  cJSON_AddNumberToObject(o, "pull_bytes_raw", (double)raw);
  for (uint32_t i = 0; i < r->n_metrics; i++)
    cJSON_AddNumberToObject(o, r->metric_name[i], r->metric[i]);
  metrics_emit(m, o);
}

void metrics_worker(struct metrics *m, uint32_t iter, uint32_t worker, const struct worker_iter_stats *st) {
  if (!m)
    return;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "type", "worker");
  cJSON_AddNumberToObject(o, "iter", iter);
  cJSON_AddNumberToObject(o, "worker", worker);
  cJSON_AddNumberToObject(o, "compute_s", st->compute_s);
  cJSON_AddNumberToObject(o, "wait_s", st->wait_s);
  cJSON_AddNumberToObject(o, "overlap_s", st->overlap_s);
  cJSON_AddNumberToObject(o, "overrun_s", st->overrun_s);
  cJSON_AddNumberToObject(o, "tasks", st->tasks);
  cJSON_AddNumberToObject(o, "bytes_in", (double)st->bytes_in);
  cJSON_AddNumberToObject(o, "bytes_in_raw", (double)st->bytes_in_raw);
  cJSON_AddNumberToObject(o, "bytes_out", (double)st->bytes_out);
  cJSON_AddNumberToObject(o, "stolen", st->stolen);
  cJSON_AddNumberToObject(o, "speed_est", st->speed_est);
  metrics_emit(m, o);
}

void metrics_summary(struct metrics *m, cJSON *obj) {
  if (!m) {
    cJSON_Delete(obj);
    return;
  }
  cJSON_AddStringToObject(obj, "type", "summary");
  metrics_emit(m, obj);
}

int metrics_close(struct metrics *m, char *err, size_t errlen) {
  if (!m)
    return 0;
  int rc = dsana_outfile_commit(m->f, err, errlen);
  free(m);
  return rc;
}
