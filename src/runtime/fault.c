/* fault.c - see fault.h. */
#include "runtime/fault.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

static struct {
  enum fault_point point;
  uint32_t iter;
  int kill;
} fault;

static enum fault_point fault_parse_point(const char *s) {
  static const char *const names[] = {"", "before-task", "before-push", "mid-push", "after-push"};
  for (int i = 1; i < 5; i++)
    if (strcmp(s, names[i]) == 0)
      return (enum fault_point)i;
  return FAULT_NONE;
}

void fault_init(uint32_t worker) {
  const char *spec = getenv("DSANA_FAULT");
  if (!spec || !spec[0] || strncmp(spec, "server=", 7) == 0)
    return;
  unsigned w, iter;
  char point[32] = "", how[16] = "";
  if (sscanf(spec, "worker=%u,iter=%u,point=%31[a-z-],how=%15[a-z]", &w, &iter, point, how) != 4 ||
      fault_parse_point(point) == FAULT_NONE || (strcmp(how, "kill") && strcmp(how, "exit"))) {
    log_warn("ignoring malformed DSANA_FAULT '%s'", spec);
    return;
  }
  if (w != worker)
    return;
  fault.point = fault_parse_point(point);
  fault.iter = iter;
  fault.kill = strcmp(how, "kill") == 0;
}

static struct {
  int on, kill, corrupt;
  uint32_t iter;
} server_fault;

void fault_init_server(uint32_t server) {
  const char *spec = getenv("DSANA_FAULT");
  unsigned s, iter;
  char point[16] = "", how[16] = "";
  if (!spec || sscanf(spec, "server=%u,iter=%u,point=%15[a-z],how=%15[a-z]", &s, &iter, point, how) != 4 || s != server)
    return;
  server_fault.iter = iter;
  if (strcmp(point, "commit") == 0) {
    server_fault.on = 1;
    server_fault.kill = strcmp(how, "kill") == 0;
  } else if (strcmp(point, "compressed") == 0 && strcmp(how, "flip") == 0) {
    server_fault.corrupt = 1;
  } else {
    log_warn("ignoring malformed DSANA_FAULT '%s'", spec);
  }
}

void fault_server_corrupt(uint32_t iter, uint8_t *bytes, size_t len) {
  if (!server_fault.corrupt || server_fault.iter != iter || len == 0)
    return;
  server_fault.corrupt = 0;
  bytes[len / 2] ^= 0x10;
  log_warn("fault injection: flipped a bit of a compressed piece of iteration %u", iter);
}

void fault_server_point(uint32_t iter) {
  if (!server_fault.on || server_fault.iter != iter)
    return;
  log_warn("fault injection: dying after committing iteration %u", iter);
  if (server_fault.kill)
    raise(SIGKILL);
  _exit(FAULT_EXIT_CODE);
}

void fault_point(enum fault_point p, uint32_t iter) {
  if (fault.point != p || fault.iter != iter)
    return;
  log_warn("fault injection: dying at iteration %u", iter);
  if (fault.kill)
    raise(SIGKILL);
  _exit(FAULT_EXIT_CODE);
}
