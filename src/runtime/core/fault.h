/*
 * fault.h - fault injection for tests (in the spirit of SQLite's test
 * hooks). A plan is parsed once from its text (the command line reads it
 * from DSANA_FAULT) and travels in the run_config; a role keeps the part
 * that names it and asks it at each fault point. No global state: a
 * restarted run clears the plan so that a fault fires in the first run only.
 *
 *   worker=I,iter=K,point=P,how=H   worker I, in iteration K, at point P
 *       (before-task | before-push | mid-push | after-push), dies by H
 *       (kill = SIGKILL, exit = exit code FAULT_EXIT_CODE);
 *   server=I,iter=K,point=commit,how=kill|exit   server I dies right after
 *       committing iteration K;
 *   server=I,iter=K,point=compressed,how=flip   server I flips one bit of
 *       the first compressed piece it sends for iteration K (the copy on
 *       the wire, not the one kept for other workers).
 *
 * Without a plan a fault point costs one branch.
 */
#ifndef DSANA_RUNTIME_FAULT_H
#define DSANA_RUNTIME_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exit code of an injected exit (not 3, which says "incomplete",
 * util/text/status.h). */
#define FAULT_EXIT_CODE 5

enum fault_point {
  FAULT_NONE = 0,
  FAULT_BEFORE_TASK,
  FAULT_BEFORE_PUSH,
  FAULT_MID_PUSH,
  FAULT_AFTER_PUSH,
  FAULT_COMMIT,
  FAULT_COMPRESSED
};
enum fault_how { FAULT_EXIT, FAULT_KILL, FAULT_FLIP };

struct fault_plan {
  enum fault_point point; /* FAULT_NONE: no fault */
  bool server;            /* the role it names: a server, else a worker */
  uint32_t index, iter;
  enum fault_how how;
};

/* Parse spec (NULL or "" = no fault). DSANA_EINVAL for a malformed one,
 * and then the plan is empty. */
int fault_plan_parse(const char *spec, struct fault_plan *plan);
/* The plan as it concerns one role: empty unless it names that role. */
struct fault_plan fault_plan_for(const struct fault_plan *plan, bool server, uint32_t index);
/* Die here if the role's plan says so (the points but FAULT_COMPRESSED). */
void fault_point(const struct fault_plan *plan, enum fault_point at, uint32_t iter);
/* FAULT_COMPRESSED: flip one bit of bytes if the plan says so for iter;
 * the plan is then spent. */
void fault_corrupt(struct fault_plan *plan, uint32_t iter, uint8_t *bytes, size_t len);

#endif
