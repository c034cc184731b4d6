/* iter_figures.c - chunk sizes, bounds and medians (see iter_figures.h). */
#include "runtime/core/iter_figures.h"

#include <stdlib.h>
#include <string.h>

#include "policy/chunk.h"
#include "runtime/core/keymask.h"

double rt_slowest_link(const struct scenario *sc) {
  double bw = sc->global_link.bandwidth_bytes_per_s;
  for (uint32_t w = 0; w < sc->n_workers; w++)
    if (sc->link[w].bandwidth_bytes_per_s > 0 && (bw == 0 || sc->link[w].bandwidth_bytes_per_s < bw))
      bw = sc->link[w].bandwidth_bytes_per_s;
  return bw;
}

uint64_t rt_space_chunk_keys(const struct dsana_job *job, uint32_t sp, const struct run_config *cfg,
                             const struct scenario *sc, bool local) {
  struct chunk_request r = {.mode = cfg->chunk,
                            .fixed_bytes = cfg->chunk_bytes,
                            .n_keys = job->space_keys[sp],
                            .n_servers = cfg->n_servers,
                            .bandwidth_bytes_per_s = rt_slowest_link(sc),
                            .local_unthrottled = local};
  for (uint32_t t = 0; t < job->n_tables; t++) {
    const struct job_table *jt = &job->tables[t];
    if (jt->space != sp)
      continue;
    r.bytes_per_key = 8 * jt->width > r.bytes_per_key ? 8 * jt->width : r.bytes_per_key;
    struct job_range rr;
    bool read = false;
    for (uint32_t i = 0; i < job->n_tasks && !read; i++)
      read = job_task_reads(job, i, t, &rr);
    if (read)
      r.read_bytes += keymask_count(jt->unread, 0, jt->n_keys) * jt->width * sizeof(double);
  }
  return chunk_keys_for(&r);
}

double rt_compute_bound(const struct scenario *sc, uint32_t n_workers, uint32_t iter, double raw_compute_s) {
  double speed = 0;
  for (uint32_t w = 0; w < n_workers; w++)
    speed += 1.0 / scenario_slowdown(sc, w, iter);
  return speed > 0 ? raw_compute_s / speed : 0;
}

double rt_transfer_bound(const struct scenario *sc, const struct worker_iter_stats *ws, uint32_t n_workers,
                         uint32_t n_servers) {
  double pulled = 0, bound = 0;
  for (uint32_t w = 0; w < n_workers; w++) {
    pulled += (double)ws[w].bytes_in;
    double bw = w < sc->n_workers ? sc->link[w].bandwidth_bytes_per_s : 0;
    if (bw > 0 && (double)ws[w].bytes_out / bw > bound)
      bound = (double)ws[w].bytes_out / bw;
  }
  double sbw = sc->global_link.bandwidth_bytes_per_s;
  if (sbw > 0 && pulled / n_servers / sbw > bound)
    bound = pulled / n_servers / sbw;
  return bound;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double rt_median(const double *v, uint32_t n) {
  if (n == 0)
    return 0;
  double *c = malloc(sizeof *c * n);
  if (!c)
    return v[0];
  memcpy(c, v, sizeof *c * n);
  qsort(c, n, sizeof *c, cmp_double);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}
