/*
 * fault.h - fault injection for tests (in the spirit of SQLite's test
 * hooks): DSANA_FAULT="worker=I,iter=K,point=P,how=H" makes worker I, in
 * iteration K, at point P (before-task | before-push | mid-push |
 * after-push) die by H (kill = SIGKILL, exit = exit code 5). Unset, it
 * costs one branch per task.
 */
#ifndef DSANA_RUNTIME_FAULT_H
#define DSANA_RUNTIME_FAULT_H

#include <stddef.h>
#include <stdint.h>

/* The exit code of an injected exit (not 3, which says "incomplete",
 * util/status.h). */
#define FAULT_EXIT_CODE 5

enum fault_point { FAULT_NONE = 0, FAULT_BEFORE_TASK, FAULT_BEFORE_PUSH, FAULT_MID_PUSH, FAULT_AFTER_PUSH };

/* Read DSANA_FAULT once; a malformed value is reported and ignored. */
void fault_init(uint32_t worker);
/* Die here if the configured fault matches. */
void fault_point(enum fault_point p, uint32_t iter);
/* Servers: DSANA_FAULT="server=I,iter=K,point=commit,how=kill|exit" dies
 * right after committing iteration K;
 * DSANA_FAULT="server=I,iter=K,point=compressed,how=flip" flips one bit of
 * the first compressed piece it sends for iteration K (the copy on the
 * wire, not the one kept for other workers). */
void fault_init_server(uint32_t server);
void fault_server_point(uint32_t iter);
void fault_server_corrupt(uint32_t iter, uint8_t *bytes, size_t len);

#endif
