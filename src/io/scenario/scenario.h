/*
 * scenario.h - emulated cluster descriptions (JSON scenario files).
 *
 * {
 *   "workers":   [{"speed": 1.0, "link": {...}?}, ...],   per-worker speed > 0
 *   "default_worker": {"speed": s, "link": {...}?},       optional
 *   "groups":    [{"fraction": f, "speed": s, "link": {...}?}, ...]  optional
 *   "transient": {"probability": p, "slowdown": k, "seed": x},  optional
 *   "link":      {"bandwidth_mbit": B, "latency_ms": L}          optional
 *   "time_scale": T                                               optional, >= 1
 *   "ns_per_cost": N                                              optional, > 0
 * }
 * time_scale T makes every emulated node T times slower than one core of
 * this machine (a worker of speed s takes T/s times its compute time), so
 * that W emulated nodes fit on fewer physical cores: with sum(speed) / T
 * below the core count, the real computation stays inside the modelled
 * time and the emulation does not depend on how busy the host is.
 * How long a piece of work takes on an emulated node of speed 1 (before
 * time_scale): without ns_per_cost, its fastest real time on this machine
 * so far (measured); with it, N ns per unit of the app's cost hint (for
 * PageRank an in-edge or a vertex), fixed by the file: the emulated compute,
 * and so the compute bound, no longer depend on this machine's speed or
 * load, as long as the real computation fits inside the modelled time.
 * A worker with speed s takes 1/s as long per task; transient stragglers make
 * worker w k times slower in iteration t with probability p, decided by a
 * hash of (seed, w, t): deterministic and independent of everything else.
 * Unknown keys, wrong types, negative or zero speeds, p outside [0,1],
 * k < 1, negative bandwidth or latency are errors naming the key.
 *
 * Workers 0..n-1 are the "workers" entries. With "default_worker" the
 * list may be shorter than the job (or absent): the workers beyond it are
 * made when the job's size is known (scenario_fit_workers), each group
 * taking round(f * U) of those U workers, spread evenly over them (the
 * groups in order, each among the workers the earlier ones left), the
 * rest as the default worker: {"default_worker": {"speed": 1}, "groups":
 * [{"fraction": 0.1, "speed": 0.25}]} is any number of workers, a tenth
 * of them 4 times slower. Fractions are in (0, 1] and add up to at most 1.
 * Without "default_worker" the list must cover every worker.
 *
 * Units: bandwidth_mbit is megabits per second (1 Mbit = 1e6 bits; 0 means
 * unlimited), latency_ms milliseconds; both are stored in SI units below.
 * A worker's "link" starts from the global link and replaces the fields it
 * gives. Every key other than "workers" and "speed" is optional: link
 * fields default to 0, probability to 0, slowdown to 1, seed to 0. The seed
 * is an integer in [0, 2^53]. Files over SCENARIO_MAX_BYTES are refused.
 */
#ifndef DSANA_IO_SCENARIO_H
#define DSANA_IO_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scenario_link {
  double bandwidth_bytes_per_s; /* 0 = unlimited */
  double latency_s;
};

#define SCENARIO_MAX_BYTES (1u << 20)

/* A share of the workers made from "default_worker" (scenario.h top). */
struct scenario_group {
  double fraction, speed;
  struct scenario_link link;
};

#define SCENARIO_MAX_GROUPS 64

struct scenario {
  char *name; /* file name used in messages (owned), NULL for defaults */
  uint32_t n_workers;
  double *speed;              /* n_workers */
  struct scenario_link *link; /* n_workers, per worker (defaults to the global link) */
  struct scenario_link global_link;
  double transient_p, transient_slowdown;
  double time_scale;  /* every emulated node is this many times slower than a core here (>= 1) */
  double ns_per_cost; /* modelled ns per unit of task cost at speed 1; 0 = measured model */
  uint64_t transient_seed;
  bool has_default; /* "default_worker": workers beyond the list are made from it */
  double default_speed;
  struct scenario_link default_link;
  uint32_t n_groups;
  struct scenario_group groups[SCENARIO_MAX_GROUPS];
};

/* Parse a scenario file. On error returns DSANA_EFORMAT/EIO and writes one
 * line into err, e.g. "s.json: workers[2].speed: must be > 0". */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* Same, from a string (name is used in messages). */
int scenario_parse(const char *name, const char *json, struct scenario *sc, char *err, size_t errlen);
/* A scenario of n equal workers of speed 1 and no link limits. */
int scenario_default(uint32_t n_workers, struct scenario *sc);
void scenario_fini(struct scenario *sc);

/* Slowdown factor (>= 1) of worker w in iteration iter: 1/speed times the
 * transient factor when it strikes. (Below 1 only for speeds above 1.) The
 * transient strikes when splitmix64(seed, w, iter) mapped to [0,1) is < p.
 * A worker beyond the scenario's entries runs at nominal speed (1.0). */
double scenario_slowdown(const struct scenario *sc, uint32_t w, uint32_t iter);

/* Make the scenario describe n_workers workers: 0 when its list covers
 * them (extra entries are unused) or it has a "default_worker" (the rest
 * are made from it and its groups, always the same for the same n);
 * DSANA_EINVAL with e.g. "s.json: workers: 2 entries for 4 workers (or
 * give a "default_worker")" in err otherwise; DSANA_ENOMEM. */
int scenario_fit_workers(struct scenario *sc, uint32_t n_workers, char *err, size_t errlen);

#endif
