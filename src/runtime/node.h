/*
 * node.h - what servers and workers share: the connection to the scheduler,
 * registration, the cluster map, the app's setup and liveness checks.
 * A struct node is owned by the process's only thread.
 */
#ifndef DSANA_RUNTIME_NODE_H
#define DSANA_RUNTIME_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/scenario.h"
#include "net/outbox.h"
#include "net/transport.h"
#include "runtime/job.h"
#include "runtime/runtime.h"

struct node {
  enum node_role role;
  uint32_t index;
  struct run_config cfg; /* copy; mode, sched... updated from the map */
  struct net_ctx *ctx;
  struct net_sock *sched;
  struct msg_cluster_map *map; /* owned */
  const struct dsana_app *app;
  void *app_state;
  bool own_app; /* created from the map: destroy at the end */
  struct dsana_job job;
  struct scenario sc;
  struct net_outbox *outbox; /* this process's emulated outgoing link */
  uint64_t last_heard_ns, last_sent_ns;
};

/* Create the ZeroMQ context and dial the scheduler. */
int node_open(struct node *n, const struct role_params *p, enum node_role role);
/* Register (addr: where peers reach this node, may be ""), wait for the
 * cluster map, create the app if standalone, run its setup. */
int node_join(struct node *n, const struct role_params *p, const char *addr);
void node_close(struct node *n);

/* Send a message to the scheduler. */
int node_send(struct node *n, const struct wire_hdr *h, const void *payload, size_t len);
/* Heartbeat the scheduler when one is due. */
void node_tick(struct node *n);
/* DSANA_ETIMEDOUT (logged) when the scheduler has been silent too long. */
int node_check_scheduler(struct node *n);

#endif
