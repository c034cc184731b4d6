/* role_join.c - how a server or a worker joins a job (role_join.h). */
#include "runtime/role/role_join.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/role/app_check.h"
#include "util/text/log.h"

int role_register(struct msg_register *reg, struct rt_outq *out) {
  gethostname(reg->host, sizeof reg->host - 1);
  uint8_t *buf = malloc(1024);
  size_t len = 0;
  int rc = buf ? msg_register_encode(reg, buf, 1024, &len) : DSANA_ENOMEM;
  struct wire_hdr h = wire_hdr_make(WIRE_REGISTER, reg->index);
  if (rc) {
    free(buf);
    return rc;
  }
  return rt_send_owned(out, ROLE_SCHEDULER, 0, &h, buf, len, 0);
}

int role_take_map(const struct net_msg *m, struct msg_cluster_map **map) {
  struct msg_cluster_map *mp = calloc(1, sizeof *mp);
  if (!mp)
    return DSANA_ENOMEM;
  if (msg_map_decode(m->payload, m->hdr.payload_bytes, mp) != 0) {
    log_error("the scheduler's cluster map does not decode");
    free(mp);
    return DSANA_EPROTO;
  }
  *map = mp;
  return 0;
}

/* The app: this process's, configured; else the one the map names. */
static int take_app(const struct role_params *p, const struct msg_cluster_map *map, const struct dsana_app **app,
                    void **app_state, bool *own_app) {
  char err[512] = "";
  const struct dsana_app *a = p->app ? p->app : role_find_app(p->apps, map->app);
  if (!a) {
    log_error("the scheduler runs app '%s', which this dsana does not know", map->app);
    return DSANA_EPROTO;
  }
  if (app_check(a, err, sizeof err) != 0) {
    log_error("%s", err);
    return DSANA_EINVAL;
  }
  *app = a;
  if (p->app) {
    *app_state = p->app_state;
    return 0;
  }
  int rc = a->create(app_state);
  if (rc)
    return rc;
  *own_app = true;
  for (uint32_t i = 0; i < map->args.n; i++) {
    const char *name = map->args.name[i][0] ? map->args.name[i] : NULL;
    if ((rc = a->set_option(*app_state, name, map->args.value[i], err, sizeof err)) != 0) {
      log_error("app option from the scheduler: %s", err);
      return rc;
    }
  }
  return 0;
}

int role_join(const struct role_params *p, const struct msg_cluster_map *map, const char *role,
              const struct dsana_app **app, void **app_state, bool *own_app, struct dsana_job *job) {
  char err[512] = "";
  int rc = take_app(p, map, app, app_state, own_app);
  if (rc)
    return rc;
  job_init(job, map->n_workers, map->n_servers, map->tasks_per_worker, role);
  job->max_keys = p->cfg->max_keys;
  job->info.local = (map->flags & MAP_F_LOCAL) != 0;
  job->info.tasks_auto = (map->flags & MAP_F_TASKS_AUTO) != 0;
  if ((rc = (*app)->setup(*app_state, job, err, sizeof err)) != 0 || (rc = job_finalize(job, err, sizeof err)) != 0) {
    log_error("%s", err[0] ? err : dsana_strerror(rc));
    return rc;
  }
  return 0;
}
