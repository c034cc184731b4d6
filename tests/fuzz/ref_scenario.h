/*
 * ref_scenario.h - the scenario fuzz target's reference reader: the schema
 * of docs/scenarios.md and src/io/scenario/scenario.h's contract over
 * ref_json.h's tree, independent of src/io/scenario/scenario.c.
 *
 * Top level: an object of workers, default_worker, groups, link, transient,
 * time_scale, ns_per_cost; every object's keys known to it and each once.
 * Numbers finite. link: bandwidth_mbit 0 or 1e-6..1e9 (stored as bytes/s,
 * x 1e6 / 8), latency_ms 0 or 1e-6..1e6 (stored as s, / 1000); a node's
 * link starts from the global one and replaces what it gives. transient:
 * probability in [0, 1] (0), slowdown >= 1 (1), seed an integer in
 * [0, 2^53] (0). time_scale in [1, 1e6] (1); ns_per_cost in (0, 1e9] (0:
 * absent). A node (workers[i], default_worker, groups[i]): speed > 0
 * required, 1/speed x slowdown (when probability > 0) finite (workers
 * sleep for it), optional link; a group also fraction in (0, 1], the
 * fractions adding up to at most 1 (+1e-9), at most 64 groups, and groups
 * need a default_worker. workers: an array, required without a
 * default_worker, then not empty.
 */
#ifndef DSANA_FUZZ_REF_SCENARIO_H
#define DSANA_FUZZ_REF_SCENARIO_H

#include <math.h>

#include "io/scenario/scenario.h"
#include "ref_json.h"

struct ref_scenario {
  struct scenario sc; /* the expected fields; speed and link malloc'd */
};

/* Every key of object o one of names (NULL-terminated), and once. */
static bool ref_sc_keys(const struct ref_json *j, int o, const char *const *names) {
  for (int c = j->node[o].child; c >= 0; c = j->node[c].next) {
    bool known = false;
    for (const char *const *n = names; *n && !known; n++)
      known = j->node[c].key_ascii && j->node[c].key_len == strlen(*n) && memcmp(j->node[c].key, *n, strlen(*n)) == 0;
    if (!known)
      return false;
    for (int d = j->node[o].child; d != c; d = j->node[d].next)
      if (j->node[d].key_len == j->node[c].key_len && memcmp(j->node[d].key, j->node[c].key, j->node[c].key_len) == 0)
        return false;
  }
  return j->node[o].type == RJ_OBJECT;
}

/* o.name as a finite number: 1 present (*v set), 0 absent, -1 bad. */
static int ref_sc_num(const struct ref_json *j, int o, const char *name, double *v) {
  int c = ref_json_get(j, o, name);
  if (c < 0)
    return 0;
  if (j->node[c].type != RJ_NUMBER || !isfinite(j->node[c].num))
    return -1;
  *v = j->node[c].num;
  return 1;
}

static bool ref_sc_link(const struct ref_json *j, int o, struct scenario_link *l) {
  static const char *const keys[] = {"bandwidth_mbit", "latency_ms", NULL};
  double mbit, ms;
  if (!ref_sc_keys(j, o, keys))
    return false;
  int hb = ref_sc_num(j, o, "bandwidth_mbit", &mbit), hl = ref_sc_num(j, o, "latency_ms", &ms);
  if (hb < 0 || hl < 0 || (hb && mbit != 0 && !(mbit >= 1e-6 && mbit <= 1e9)) ||
      (hl && ms != 0 && !(ms >= 1e-6 && ms <= 1e6)))
    return false;
  if (hb)
    l->bandwidth_bytes_per_s = mbit * 1e6 / 8.0;
  if (hl)
    l->latency_s = ms / 1000.0;
  return true;
}

/* A worker's description: speed and link (from the global link). */
static bool ref_sc_node(const struct ref_json *j, int o, const char *const *keys, const struct scenario *sc,
                        double *speed, struct scenario_link *l) {
  if (!ref_sc_keys(j, o, keys) || ref_sc_num(j, o, "speed", speed) != 1 || !(*speed > 0) ||
      !isfinite(1.0 / *speed * (sc->transient_p > 0 ? sc->transient_slowdown : 1.0)))
    return false;
  *l = sc->global_link;
  int link = ref_json_get(j, o, "link");
  return link < 0 || ref_sc_link(j, link, l);
}

static bool ref_sc_transient(const struct ref_json *j, int o, struct scenario *sc) {
  static const char *const keys[] = {"probability", "slowdown", "seed", NULL};
  double p = 0, k = 1, seed = 0;
  if (!ref_sc_keys(j, o, keys) || ref_sc_num(j, o, "probability", &p) < 0 || ref_sc_num(j, o, "slowdown", &k) < 0 ||
      ref_sc_num(j, o, "seed", &seed) < 0)
    return false;
  if (!(p >= 0 && p <= 1) || !(k >= 1) || !(seed >= 0 && seed <= 9007199254740992.0 && floor(seed) == seed))
    return false;
  sc->transient_p = p;
  sc->transient_slowdown = k;
  sc->transient_seed = (uint64_t)seed;
  return true;
}

static bool ref_sc_default(const struct ref_json *j, struct scenario *sc) {
  static const char *const dkeys[] = {"speed", "link", NULL}, *const gkeys[] = {"fraction", "speed", "link", NULL};
  int def = ref_json_get(j, 0, "default_worker"), groups = ref_json_get(j, 0, "groups");
  double total = 0;
  if (def < 0)
    return groups < 0;
  if (!ref_sc_node(j, def, dkeys, sc, &sc->default_speed, &sc->default_link))
    return false;
  sc->has_default = true;
  if (groups < 0)
    return true;
  if (j->node[groups].type != RJ_ARRAY)
    return false;
  for (int g = j->node[groups].child; g >= 0; g = j->node[g].next) {
    if (sc->n_groups == SCENARIO_MAX_GROUPS)
      return false;
    struct scenario_group *sg = &sc->groups[sc->n_groups++];
    if (!ref_sc_node(j, g, gkeys, sc, &sg->speed, &sg->link) || ref_sc_num(j, g, "fraction", &sg->fraction) != 1 ||
        !(sg->fraction > 0 && sg->fraction <= 1) || (total += sg->fraction) > 1 + 1e-9)
      return false;
  }
  return true;
}

static bool ref_sc_workers(const struct ref_json *j, struct scenario *sc) {
  static const char *const keys[] = {"speed", "link", NULL};
  int w = ref_json_get(j, 0, "workers"), n = 0;
  if (w < 0)
    return sc->has_default;
  if (j->node[w].type != RJ_ARRAY)
    return false;
  for (int c = j->node[w].child; c >= 0; c = j->node[c].next)
    n++;
  if (n == 0)
    return sc->has_default;
  sc->n_workers = (uint32_t)n;
  sc->speed = calloc((size_t)n, sizeof *sc->speed);
  sc->link = calloc((size_t)n, sizeof *sc->link);
  if (!sc->speed || !sc->link)
    abort();
  n = 0;
  for (int c = j->node[w].child; c >= 0; c = j->node[c].next, n++)
    if (!ref_sc_node(j, c, keys, sc, &sc->speed[n], &sc->link[n]))
      return false;
  return true;
}

/* Read text (n bytes) as a scenario into r; true if it is one. Free with
 * ref_scenario_fini. */
static bool ref_scenario_read(const char *text, size_t n, struct ref_scenario *r) {
  static const char *const keys[] = {"workers", "default_worker", "groups",      "transient",
                                     "link",    "time_scale",     "ns_per_cost", NULL};
  struct ref_json j;
  struct scenario *sc = &r->sc;
  memset(r, 0, sizeof *r);
  sc->transient_slowdown = 1;
  sc->time_scale = 1;
  bool ok = ref_json_parse(text, n, &j) && ref_sc_keys(&j, 0, keys);
  int ts = ok ? ref_sc_num(&j, 0, "time_scale", &sc->time_scale) : 0;
  int cost = ok ? ref_sc_num(&j, 0, "ns_per_cost", &sc->ns_per_cost) : 0;
  ok = ok && ts >= 0 && cost >= 0 && sc->time_scale >= 1 && sc->time_scale <= 1e6 &&
       (!cost || (sc->ns_per_cost > 0 && sc->ns_per_cost <= 1e9));
  int link = ok ? ref_json_get(&j, 0, "link") : -1, tr = ok ? ref_json_get(&j, 0, "transient") : -1;
  ok = ok && (link < 0 || ref_sc_link(&j, link, &sc->global_link)) && (tr < 0 || ref_sc_transient(&j, tr, sc));
  ok = ok && ref_sc_default(&j, sc) && ref_sc_workers(&j, sc);
  free(j.node);
  return ok;
}

static void ref_scenario_fini(struct ref_scenario *r) {
  free(r->sc.speed);
  free(r->sc.link);
  memset(r, 0, sizeof *r);
}

#endif
