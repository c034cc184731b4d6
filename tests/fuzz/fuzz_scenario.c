/*
 * fuzz_scenario.c - libFuzzer target for the scenario parser
 * (io/scenario/scenario.c, JSON through cJSON): scenario_parse() on a
 * NUL-terminated copy of the input (bytes after an embedded NUL are
 * invisible to it, as to any caller holding a C string; scenario_load
 * refuses them itself).
 *
 * Beyond "no crash", an accepted scenario must hold what scenario.h
 * promises its users: at least one worker, speeds > 0, every stored number
 * finite (the transport and the workers' sleeps use them as they are),
 * p in [0,1], slowdown >= 1, and scenario_slowdown() finite and > 0.
 *
 * Semantic mode: an independent reference reader (ref_scenario.h over the
 * RFC 8259 JSON reader of ref_json.h, not cJSON) reads the same text; when
 * dsana accepts, it must accept too and every field (workers, speeds,
 * links, transient, time_scale, ns_per_cost, default worker, groups) must
 * be its, bit for bit. A refusal names the file, and a file the reference
 * accepts is never refused as malformed.
 *
 * Build and run: tests/fuzz/run.sh SECONDS scenario
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/scenario/scenario.h"
#include "ref_scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_link_ok(const struct scenario_link *l) {
  return isfinite(l->bandwidth_bytes_per_s) && l->bandwidth_bytes_per_s >= 0 && isfinite(l->latency_s) &&
         l->latency_s >= 0;
}

static void fuzz_check_scenario(const struct scenario *sc) {
  if ((sc->n_workers < 1 && !sc->has_default) || (sc->n_workers && (!sc->speed || !sc->link)) || !sc->name ||
      !fuzz_link_ok(&sc->global_link) || !(sc->transient_p >= 0 && sc->transient_p <= 1) ||
      !(sc->transient_slowdown >= 1) || !isfinite(sc->transient_slowdown))
    abort();
  for (uint32_t w = 0; w < sc->n_workers; w++) {
    if (!(sc->speed[w] > 0) || !isfinite(sc->speed[w]) || !fuzz_link_ok(&sc->link[w]))
      abort();
    for (uint32_t iter = 0; iter < 4; iter++) {
      double f = scenario_slowdown(sc, w, iter);
      if (!(f > 0) || !isfinite(f))
        abort();
    }
  }
  if (scenario_slowdown(sc, sc->n_workers, 0) != 1.0)
    abort();
}

static void differs(const char *what, uint32_t at, double want, double got) {
  fprintf(stderr, "semantic mismatch: %s [%u]: reference %.17g, dsana %.17g\n", what, at, want, got);
  abort();
}

static void same(const char *what, uint32_t at, double want, double got) {
  if (memcmp(&want, &got, sizeof want) != 0)
    differs(what, at, want, got);
}

static void same_link(const char *what, uint32_t at, const struct scenario_link *a, const struct scenario_link *b) {
  same(what, at, a->bandwidth_bytes_per_s, b->bandwidth_bytes_per_s);
  same(what, at, a->latency_s, b->latency_s);
}

/* Every field the reference read, as dsana read it (bit for bit). */
static void compare_reference(const struct scenario *r, const struct scenario *sc) {
  same("worker count", 0, r->n_workers, sc->n_workers);
  for (uint32_t w = 0; w < r->n_workers; w++) {
    same("speed of worker", w, r->speed[w], sc->speed[w]);
    same_link("link of worker", w, &r->link[w], &sc->link[w]);
  }
  same_link("global link", 0, &r->global_link, &sc->global_link);
  same("transient probability", 0, r->transient_p, sc->transient_p);
  same("transient slowdown", 0, r->transient_slowdown, sc->transient_slowdown);
  same("transient seed", 0, (double)r->transient_seed, (double)sc->transient_seed);
  same("time_scale", 0, r->time_scale, sc->time_scale);
  same("ns_per_cost", 0, r->ns_per_cost, sc->ns_per_cost);
  same("default worker", 0, r->has_default, sc->has_default);
  if (r->has_default) {
    same("default speed", 0, r->default_speed, sc->default_speed);
    same_link("default link", 0, &r->default_link, &sc->default_link);
  }
  same("group count", 0, r->n_groups, sc->n_groups);
  for (uint32_t g = 0; g < r->n_groups; g++) {
    same("fraction of group", g, r->groups[g].fraction, sc->groups[g].fraction);
    same("speed of group", g, r->groups[g].speed, sc->groups[g].speed);
    same_link("link of group", g, &r->groups[g].link, &sc->groups[g].link);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > SCENARIO_MAX_BYTES)
    return 0;
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  struct scenario sc;
  char err[256] = "";
  int rc = scenario_parse("fuzz.json", text, &sc, err, sizeof err);
  struct ref_scenario ref;
  bool ref_ok = ref_scenario_read(text, strlen(text), &ref);
  if (rc == 0 && !ref_ok) {
    fprintf(stderr, "semantic mismatch: the reference refuses, dsana accepts\n");
    abort();
  }
  if (rc != 0 && (!strstr(err, "fuzz.json") || (ref_ok && rc == DSANA_EFORMAT))) {
    fprintf(stderr, "semantic mismatch: %s (the reference %s)\n", err, ref_ok ? "accepts" : "refuses");
    abort();
  }
  if (rc == 0)
    compare_reference(&ref.sc, &sc);
  ref_scenario_fini(&ref);
  if (rc == 0) {
    fuzz_check_scenario(&sc);
    char why[256];
    if (scenario_fit_workers(&sc, sc.n_workers, why, sizeof why) != 0 ||
        (scenario_fit_workers(&sc, sc.n_workers + 1, why, sizeof why) == 0) != sc.has_default)
      abort(); /* beyond the list only with a default worker */
    if (sc.has_default) {
      if (scenario_fit_workers(&sc, sc.n_workers + 1000, why, sizeof why) != 0)
        abort();
      fuzz_check_scenario(&sc); /* every made worker as valid as a listed one */
    }
    scenario_fini(&sc);
  } else if (err[0] == '\0' || sc.speed != NULL || sc.name != NULL) {
    abort(); /* a failure names its cause and leaves nothing to free */
  }
  free(text);
  return 0;
}
