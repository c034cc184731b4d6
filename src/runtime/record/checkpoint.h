/*
 * checkpoint.h - consistent snapshots of a job, and resuming from them.
 *
 * With --checkpoint DIR --checkpoint-every K, each server writes its shard
 * of every table after committing iteration t (t a multiple of K) to
 * DIR/shard-<s>.ckpt; once all servers have, the scheduler writes
 * DIR/manifest (iteration, server count, keys, the globals for iteration
 * t+1, and the job's identity: what --resume must find unchanged). Every file is written to a temporary name, fsynced and renamed, and
 * carries CRC-32 checksums, so a crash leaves the previous complete
 * checkpoint intact and a damaged file is refused, never half-read.
 * --resume DIR restarts from the manifest: servers load their shards, the
 * scheduler continues with iteration t+1, and the job reaches the same
 * final output as an uninterrupted run.
 */
#ifndef DSANA_RUNTIME_CHECKPOINT_H
#define DSANA_RUNTIME_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "dsana/dsana.h"

/* The tables of a job, as a checkpoint records them. */
struct ckpt_shape {
  uint32_t n_tables;
  uint64_t n_keys[DSANA_MAX_TABLES];
  uint32_t width[DSANA_MAX_TABLES];
};

#define CKPT_IDENTITY_MAX 8192

struct ckpt_manifest {
  uint32_t iter, n_servers;
  struct ckpt_shape shape;
  double globals[DSANA_MAX_GLOBALS];
  double residual;
  /* what defines the job's result (run_config.job_identity): lines without
   * '\n' inside, each ending in '\n'; "" for checkpoints of older builds */
  char identity[CKPT_IDENTITY_MAX];
};

struct ckpt_shard {
  uint32_t iter, n_servers, server;
  struct ckpt_shape shape;
};

/* Write the server's shard of every table (tables[t]: its shard of table
 * t, (hi - lo) * width doubles where [lo, hi) is shard_range()'s). */
int ckpt_write_shard(const char *dir, const struct ckpt_shard *sh, double *const *tables, char *err, size_t errlen);
/* Check a shard file against `want` (every field) and its checksums;
 * with tables != NULL, load the values too. */
int ckpt_read_shard(const char *dir, const struct ckpt_shard *want, double *const *tables, char *err, size_t errlen);
int ckpt_write_manifest(const char *dir, const struct ckpt_manifest *m, char *err, size_t errlen);
int ckpt_read_manifest(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen);
/* A checkpoint that could not be written (err from the writers above):
 * the first one of this process is logged, every one marks the run
 * incomplete (util/text/status.h: exit status 3); the job goes on, the last
 * complete checkpoint stays valid. Any thread. */
void ckpt_report_failure(const char *err);
/* Check the manifest and every shard it names (headers and checksums). */
int ckpt_validate(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen);

#endif
