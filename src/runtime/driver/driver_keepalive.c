/*
 * driver_keepalive.c - a server's or worker's heartbeats while its
 * control thread joins the job (driver_internal.h): the app's setup()
 * loads and parses its input, the server makes its initial values, for as
 * long as that takes, and the scheduler must not count it as silence. A
 * helper thread ("dsana-srv-1.hb") sends a heartbeat every heartbeat_s on
 * the role's own dialer to the scheduler (the scheduler knows a peer by
 * its connection), which the control thread does not touch meanwhile but
 * through drv_keepalive_send(): one mutex hands the socket from thread to
 * thread (a full memory barrier, as ZeroMQ asks of a socket that moves).
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/driver/driver_internal.h"
#include "runtime/role/role_title.h"
#include "util/text/log.h"

struct drv_keepalive {
  pthread_t tid;
  pthread_mutex_t mu; /* the dialer to the scheduler and `stop` */
  pthread_cond_t cv;
  bool stop;
  struct net_sock *sched;
  enum rt_role role;
  uint32_t index;
  uint64_t period_ns;
};

static void *keepalive_main(void *arg) {
  struct drv_keepalive *k = arg;
  role_helper_title(k->role, k->index, ".hb");
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, k->index);
  pthread_mutex_lock(&k->mu);
  while (!k->stop) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    uint64_t ns = (uint64_t)at.tv_nsec + k->period_ns;
    at.tv_sec += (time_t)(ns / 1000000000u);
    at.tv_nsec = (long)(ns % 1000000000u);
    while (!k->stop && pthread_cond_timedwait(&k->cv, &k->mu, &at) == 0) {
    }
    if (!k->stop && net_send(k->sched, NULL, &h, NULL, 0) != 0)
      log_debug("a heartbeat while joining could not be sent");
  }
  pthread_mutex_unlock(&k->mu);
  return NULL;
}

int drv_keepalive_start(struct drv *d, uint32_t index, double heartbeat_s) {
  if (d->ka || !d->sched || d->manual) /* manual: a test steps every role on one thread */
    return 0;
  struct drv_keepalive *k = calloc(1, sizeof *k);
  if (!k)
    return DSANA_ENOMEM;
  *k = (struct drv_keepalive){.sched = d->sched, .role = d->role, .index = index};
  k->period_ns = heartbeat_s > 0 ? (uint64_t)(heartbeat_s * 1e9) : 500000000u;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&k->cv, &ca);
  pthread_condattr_destroy(&ca);
  pthread_mutex_init(&k->mu, NULL);
  if (pthread_create(&k->tid, NULL, keepalive_main, k) != 0) {
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    free(k);
    log_warn("no heartbeat thread: a long setup may count as silence");
    return 0;
  }
  d->ka = k;
  return 0;
}

void drv_keepalive_stop(struct drv *d) {
  struct drv_keepalive *k = d->ka;
  if (!k)
    return;
  pthread_mutex_lock(&k->mu);
  k->stop = true;
  pthread_cond_signal(&k->cv);
  pthread_mutex_unlock(&k->mu);
  pthread_join(k->tid, NULL);
  pthread_cond_destroy(&k->cv);
  pthread_mutex_destroy(&k->mu);
  free(k);
  d->ka = NULL;
}

int drv_keepalive_send(struct drv *d, const struct wire_hdr *h) {
  if (!d->ka)
    return net_send(d->sched, NULL, h, NULL, 0);
  pthread_mutex_lock(&d->ka->mu);
  int rc = net_send(d->sched, NULL, h, NULL, 0);
  pthread_mutex_unlock(&d->ka->mu);
  return rc;
}
