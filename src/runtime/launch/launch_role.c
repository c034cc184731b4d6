/*
 * launch_role.c - running one role in this process: its title in ps and
 * top (role_title.h), and the role a parallel launcher (mpirun, srun)
 * gave this process.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/role/role_title.h"
#include "runtime/launch/runtime.h"

int runtime_run_role(enum rt_role role, const struct role_params *p) {
  role_title_set(role, p->cfg, p->index);
  return driver_run(role, p);
}

void runtime_rank_role(uint32_t rank, uint32_t n_servers, enum rt_role *role, uint32_t *index) {
  *role = rank == 0 ? ROLE_SCHEDULER : rank <= n_servers ? ROLE_SERVER : ROLE_WORKER;
  *index = rank == 0 ? 0 : rank <= n_servers ? rank - 1 : rank - 1 - n_servers;
}

int runtime_launcher_rank(uint32_t *rank, uint32_t *size) {
  static const char *const vars[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *r = getenv(vars[i][0]), *s = getenv(vars[i][1]);
    if (!r || !s)
      continue;
    char *end1, *end2;
    unsigned long rv = strtoul(r, &end1, 10), sv = strtoul(s, &end2, 10);
    if (*end1 || *end2 || sv == 0 || rv >= sv)
      return DSANA_EINVAL;
    *rank = (uint32_t)rv;
    *size = (uint32_t)sv;
    return 0;
  }
  return DSANA_EAGAIN;
}

uint32_t runtime_launcher_local_size(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    char *end;
    unsigned long n = v ? strtoul(v, &end, 10) : 0;
    if (v && !*end && n > 0 && n <= UINT32_MAX)
      return (uint32_t)n;
  }
  return 1;
}
