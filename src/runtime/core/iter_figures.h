/*
 * iter_figures.h - figures the scheduler reports per iteration and per
 * run, as pure functions of plain data so that the simulator (src/sim)
 * reports exactly what a real run does: the key-space chunk size a run
 * resolves, the balanced compute bound, the busiest link's transfer bound
 * and the median iteration.
 */
#ifndef DSANA_RUNTIME_ITER_FIGURES_H
#define DSANA_RUNTIME_ITER_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "io/scenario/scenario.h"
#include "runtime/core/config.h"
#include "runtime/core/job.h"
#include "runtime/core/observer.h"

/* The slowest emulated link of a scenario (bytes/s; 0: none). */
double rt_slowest_link(const struct scenario *sc);
/* Keys per chunk of key space sp under cfg's --chunk (0 = whole tables):
 * what a transfer of the space's read tables carries sizes the chunks.
 * local: every role on this machine. */
uint64_t rt_space_chunk_keys(const struct dsana_job *job, uint32_t sp, const struct run_config *cfg,
                             const struct scenario *sc, bool local);
/* Balanced compute bound: raw compute (no emulated slowdown) over the
 * workers' effective speeds in iteration iter. */
double rt_compute_bound(const struct scenario *sc, uint32_t n_workers, uint32_t iter, double raw_compute_s);
/* Transfer bound: bytes over the busiest emulated link (workers' uploads,
 * servers' uploads of what workers pulled, spread evenly). */
double rt_transfer_bound(const struct scenario *sc, const struct worker_iter_stats *ws, uint32_t n_workers,
                         uint32_t n_servers);
/* Median of v[0..n) (0 when n == 0); v is not changed. */
double rt_median(const double *v, uint32_t n);

#endif
