/*
 * outfile_internal.h - private to the output module (include/dsana/outfile.h):
 *   outfile_path.c  what a path names (links followed), checks, identity,
 *                   anonymous files (bottom)
 *   outfile.c       writing: buffers, gzip, atomic commit (calls down)
 */
#ifndef DSANA_IO_OUTFILE_INTERNAL_H
#define DSANA_IO_OUTFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define OUT_PATH_MAX 4096

/* What writing a path means. */
struct out_target {
  char final[OUT_PATH_MAX]; /* the path with every symbolic link followed */
  char dir[OUT_PATH_MAX];   /* final's folder ("." for a bare name) */
  bool is_stdout;           /* "-" */
  bool in_place;            /* stdout, a device, FIFO, socket or anonymous file */
  bool exists;              /* final exists */
  mode_t mode;              /* an existing regular target's permission bits */
};

/* Resolve path; refuses directories, link loops and unreadable folders
 * (DSANA_EIO with one line in err). */
int out_resolve(const char *path, struct out_target *t, char *err, size_t errlen);

#endif
