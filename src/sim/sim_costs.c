/*
 * sim_costs.c - the simulator's cost constants: the defaults measured on
 * this machine (bench/sim_calibrate.sh; docs/sim.md says how and what they
 * were), and the JSON costs file (a machine's profile: --profile FILE)
 * that overrides them, read through one table of fields; a profile of
 * another version (profile_version) is refused.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "sim/sim.h"

/* net_msg_s, the *_msg_s, worker_task_s and worker_ns_per_cost as
 * bench/sim_calibrate.sh --runs 3 measured them on this machine (2 vCPU,
 * Release, 2026-12-06; docs/sim.md has the runs); sched_record_s and
 * sched_handout_s as bench/tools/sched_cost.c times the scheduler's code
 * for them (80-100 ns a record, 5-8 ns a hand-out, 2026-12-07), and
 * sched_plan_task_s its plan for workers of many threads (0.17 us a task,
 * 16 workers of 64 threads, speeds 1 1 0.5 0.25); the others
 * chosen from the code paths, which no calibration run is sensitive enough
 * to measure. */
void sim_costs_default(struct sim_costs *c) {
  *c = (struct sim_costs){
      .net_msg_s = 20e-6,
      .net_bytes_per_s = 0,
      .sched_msg_s = 40e-6,
      .sched_record_s = 1e-7,
      .sched_handout_s = 1e-8,
      .sched_iter_s = 50e-6,
      .sched_plan_task_s = 0.17e-6,
      .server_msg_s = 40e-6,
      .server_push_byte_s = 0.5e-9,
      .server_pull_byte_s = 0.5e-9,
      .worker_msg_s = 40e-6,
      .worker_task_s = 14e-6,
      .worker_ns_per_cost = 1.86,
      .host_cores = 0,
  };
}

#define FIELD(name) \
  { #name, offsetof(struct sim_costs, name) }
static const struct {
  const char *name;
  size_t off;
} fields[] = {FIELD(net_msg_s),          FIELD(net_bytes_per_s),    FIELD(sched_msg_s),       FIELD(sched_record_s),
              FIELD(sched_handout_s),    FIELD(sched_iter_s),       FIELD(sched_plan_task_s), FIELD(server_msg_s),
              FIELD(server_push_byte_s), FIELD(server_pull_byte_s), FIELD(worker_msg_s),      FIELD(worker_task_s),
              FIELD(worker_ns_per_cost)};
#define N_FIELDS (sizeof fields / sizeof fields[0])

/* One key of the file into c; err names it when it is wrong. */
static int set_key(const char *path, const cJSON *k, struct sim_costs *c, char *err, size_t errlen) {
  if (!cJSON_IsNumber(k) || !isfinite(k->valuedouble) || k->valuedouble < 0) {
    snprintf(err, errlen, "%s: %s: must be a finite number >= 0", path, k->string);
    return DSANA_EFORMAT;
  }
  if (strcmp(k->string, "profile_version") == 0) {
    if (k->valuedouble != SIM_PROFILE_VERSION) {
      snprintf(err, errlen,
               "%s: profile_version: %g is not this dsana's (%d): measure the machine again with "
               "bench/sim_calibrate.sh",
               path, k->valuedouble, SIM_PROFILE_VERSION);
      return DSANA_EFORMAT;
    }
    return 0;
  }
  if (strcmp(k->string, "host_cores") == 0) {
    if (k->valuedouble > 1024 || floor(k->valuedouble) != k->valuedouble) {
      snprintf(err, errlen, "%s: host_cores: must be an integer in [0, 1024]", path);
      return DSANA_EFORMAT;
    }
    c->host_cores = (uint32_t)k->valuedouble;
    return 0;
  }
  for (size_t i = 0; i < N_FIELDS; i++)
    if (strcmp(k->string, fields[i].name) == 0) {
      *(double *)(void *)((char *)c + fields[i].off) = k->valuedouble;
      return 0;
    }
  snprintf(err, errlen, "%s: unknown key '%s'", path, k->string);
  return DSANA_EFORMAT;
}

static int read_text(const char *path, char **out, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t n = 0;
  if (f) {
    text = malloc(1 << 16);
    n = text ? fread(text, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
  }
  if (!text) {
    snprintf(err, errlen, "%s: cannot read the costs file", path);
    return DSANA_EIO;
  }
  text[n] = '\0';
  *out = text;
  return 0;
}

int sim_costs_load(const char *path, struct sim_costs *c, char *err, size_t errlen) {
  char *text;
  int rc = read_text(path, &text, err, errlen);
  if (rc)
    return rc;
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!cJSON_IsObject(root)) {
    snprintf(err, errlen, "%s: not a JSON object of costs", path);
    cJSON_Delete(root);
    return DSANA_EFORMAT;
  }
  for (const cJSON *k = root->child; k && !rc; k = k->next)
    rc = set_key(path, k, c, err, errlen);
  cJSON_Delete(root);
  return rc;
}
