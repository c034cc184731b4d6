/*
 * fuzz_scenario.c - libFuzzer target for the scenario parser
 * (io/scenario.c, JSON through cJSON): scenario_parse() on a NUL-terminated
 * copy of the input (bytes after an embedded NUL are invisible to it, as
 * to any caller holding a C string; scenario_load refuses them itself).
 *
 * Beyond "no crash", an accepted scenario must hold what scenario.h
 * promises its users: at least one worker, speeds > 0, every stored number
 * finite (the transport and the workers' sleeps use them as they are),
 * p in [0,1], slowdown >= 1, and scenario_slowdown() finite and > 0.
 *
 * Semantic mode (syntax only): an accepted scenario must be strict JSON by
 * an independent checker (ref_json.h, RFC 8259), and a refusal names the
 * file. The fields are checked by the promises above, not by a second
 * reader of the scenario's meaning.
 *
 * Build and run: tests/fuzz/run.sh SECONDS scenario
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/scenario.h"
#include "ref_json.h"

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
  if (rc == 0 && !ref_json_valid(text, strlen(text))) {
    fprintf(stderr, "semantic mismatch: dsana accepts a scenario that is not strict JSON (RFC 8259)\n");
    abort();
  }
  if (rc != 0 && !strstr(err, "fuzz.json")) {
    fprintf(stderr, "semantic mismatch: the message does not name fuzz.json: %s\n", err);
    abort();
  }
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
