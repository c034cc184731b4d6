/*
 * server.h - the server role as a state machine (see event.h): it owns
 * shard [i*N/S, (i+1)*N/S) of every table, combines the workers' pushes
 * (ASSIGN, SUM), runs the app's finish() on every key range once all its
 * writers ended and reports the sums, commits on the scheduler's word
 * (then update() with the new globals), answers pulls chunk by chunk and
 * writes checkpoints. The state its files share: server_state.h.
 */
#ifndef DSANA_RUNTIME_SERVER_H
#define DSANA_RUNTIME_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/role/role_params.h"

struct server;

/* A server reachable by workers at addr (its listener's address). */
int server_create(const struct role_params *p, const struct rt_env *env, const char *addr, struct server **out);
void server_destroy(struct server *sv);
/* Send the registration. */
int server_start(struct server *sv, struct rt_outq *out);
/* A message from the scheduler, or (via the listener) from a worker. */
int server_on_msg(struct server *sv, const struct rt_from *from, struct net_msg *m, struct rt_outq *out);
/* Timers: heartbeats, the scheduler's silence (DSANA_ETIMEDOUT, logged). */
int server_on_tick(struct server *sv, uint64_t now_ns, struct rt_outq *out);
/* Answer the pulls that can be answered: one piece per pull and call
 * (all: everything that can go, for a link that orders and paces it);
 * *active = pulls with more to send now. */
int server_pump(struct server *sv, bool all, struct rt_outq *out, size_t *active);
/* STOP handled (the result sent): the server may leave. */
bool server_stopped(const struct server *sv);

#endif
