/*
 * mirror_state.h - a worker's mirror as data: struct mirror and, per
 * table, struct mirror_table (buffers, what was asked for and what
 * arrived, sparse requests, compression). mirror.h (the API, mirror.c)
 * includes it, so that a worker embeds the struct and reads its counts;
 * the mirror's files work on it (mirror_shared.h). How the fields are
 * used is mirror.h's file comment.
 */
#ifndef DSANA_RUNTIME_MIRROR_STATE_H
#define DSANA_RUNTIME_MIRROR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/wire/zcodec.h"
#include "runtime/msg/event.h"
#include "runtime/core/job.h"

struct mirror_req;     /* a sparse request (mirror_sparse.c) */
struct mirror_refetch; /* a piece to ask for again (mirror_zc.c) */

struct mirror_table {
  bool used;   /* some task of this worker reads it */
  bool sparse; /* keys listed per task */
  uint32_t width;
  uint64_t n_keys, chunk_keys, n_chunks;
  uint64_t cover_lo, cover_hi; /* dense: the keys asked for */
  double *values;              /* indexed by key; dense: two buffers of n_keys * width (buffer p at
                                * values + p * n_keys * width), sparse: one; NULL until first used */
  const uint64_t *unread;      /* borrowed: keys no task reads, NULL = all read */
  /* dense, per buffer p (iterations of parity p) */
  uint64_t *chunk_want;   /* wanted keys of each chunk: complete when chunk_got reaches it */
  uint64_t *chunk_got[2]; /* wanted keys of each chunk received for asked[p] */
  uint64_t *have[2];      /* bitmap: keys received for asked[p] (no key twice) */
  uint32_t asked[2];      /* the iteration buffer p was asked for (0 = none) */
  const double *view[2];  /* buffer p read in place in the servers' region (shared answers), NULL: `values` */
  uint64_t missing[2];    /* wanted keys of asked[p] not yet received */
  uint32_t iter;          /* the iteration requested last (the front), 0 = none */
  uint32_t pending;       /* compressing: an iteration to ask for once the one before is in (0 = none) */
  /* sparse */
  uint32_t *key_iter;      /* per key: the iteration it was asked for (0 = never) */
  uint32_t *key_req;       /* per key: the request (sequence) that asked for it */
  struct mirror_req *reqs; /* outstanding requests */
  uint32_t req_iter;       /* the iteration of the sequence numbers below */
  uint32_t req_next;       /* next request sequence (1, 2, ...) */
  uint32_t req_done;       /* every request <= this is answered */
  uint32_t req_open;       /* requests not answered */
};

struct mirror {
  uint32_t n_tables, n_servers, self;
  struct mirror_table t[DSANA_MAX_TABLES];
  const struct rt_env *env;
  bool share;                                /* shared-buffer answers welcome */
  const double **shm;                        /* per (server, table, buffer): mapped server buffers */
  const double *region[DSANA_MAX_TABLES][2]; /* per (table, server buffer): every server's slice, mapped once */
  bool own_buffers[DSANA_MAX_TABLES][2];     /* a server's buffer of its own mapped: no region to look for */
  uint64_t bytes_in;                         /* reply bytes taken (header + payload), cumulative */
  uint64_t stale;                            /* pieces dropped, never stored: not (or no longer) wanted, or twice */
  uint64_t bytes_in_raw;                     /* the same before compression (header + values) */
  uint32_t iter_now;                         /* the worker's iteration (mirror_iter_start) */
  uint64_t ahead_in, ahead_raw;              /* of those: pieces of a later iteration, not yet its worker's */
  bool compress;                             /* dense pulls ask for compressed answers (mirror_set_compress) */
  uint64_t max_raw_bytes;                    /* compressing: the largest piece of values decoded */
  struct zcodec *zc;                         /* compressing: the decoder */
  struct zcodec_piece zpiece;                /* compressing: a piece's values and their base, packed */
  struct mirror_refetch *refetch;            /* compressing: pieces that did not decode, to ask again plainly */
  size_t n_refetch, cap_refetch;
  uint64_t wait_since_ns; /* for traces */
};

#endif
