/*
 * shm.h - shared-memory table buffers for roles on one machine.
 *
 * In local mode (all roles forked on this machine, no emulated link) a
 * server keeps each table's two version buffers in files of the run's
 * private folder, mapped shared; a worker pulling a table is answered with
 * "read buffer b" (PULL_SHM) instead of the values, and copies them
 * straight from the mapping. The version protocol makes this safe: buffer b
 * holds the committed values the pull asked for and is not written again
 * before every task that read it has reported done.
 */
#ifndef DSANA_RUNTIME_SHM_H
#define DSANA_RUNTIME_SHM_H

#include <stddef.h>
#include <stdint.h>

void shm_path(char *buf, size_t len, const char *dir, uint32_t server, uint32_t table, uint32_t which);
/* Create (truncate) and map read-write `bytes` at path. */
int shm_create(const char *path, size_t bytes, double **out);
/* Map an existing buffer read-only; DSANA_EIO if absent or too short. */
int shm_open_ro(const char *path, size_t bytes, const double **out);
void shm_unmap(const void *p, size_t bytes);

#endif
