/*
 * outfile.h - how dsana writes every file it produces: results (pagerank
 * --out, logreg --model-out, predictions), metrics, traces, checkpoints,
 * converted graphs and datasets. One rule for all of them (public: apps
 * write their results through it; implemented in the io layer).
 *
 * The target is the path with its symbolic links followed to the end:
 *  - absent, or a regular file: written atomically. The data goes to an
 *    unnamed file in the target's folder (O_TMPFILE; a hidden named
 *    temporary ".NAME.tmp.XXXXXX" where the filesystem lacks it), is
 *    fsync'd, and is renamed over the target only when complete: a reader
 *    sees the old file or the whole new one, and a process killed while
 *    writing leaves nothing behind. A replaced file keeps its permission
 *    bits; a new one gets 0666 less the umask. A regular file the user
 *    may not write (mode 0444) is refused, not replaced.
 *  - "-" (standard output), a character or block device (/dev/null, a
 *    terminal), a FIFO, a socket, or an anonymous file (a /proc/self/fd/N
 *    path of an unlinked file, see dsana_outfile_anon): written in place,
 *    never replaced or removed.
 *  - a directory: refused.
 * With DSANA_OUT_GZIP_SUFFIX, a path ending in ".gz" is written
 * gzip-compressed (what `dsana pagerank --out ranks.gz` expects).
 *
 * Errors are one line naming the path and the reason, e.g.
 * "out/x.tsv: write failed: No space left on device".
 * A struct dsana_outfile belongs to one thread.
 */
#ifndef DSANA_OUTFILE_H
#define DSANA_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "dsana/export.h"

struct dsana_outfile;

/* dsana_outfile_open flags */
#define DSANA_OUT_GZIP_SUFFIX 1u /* a name ending in ".gz" is written gzip-compressed */

/* Can path be written (before any work is done)? Checks what open() and
 * commit() will need without creating anything: the target's folder
 * exists and is writable, the target is not a directory, an existing
 * target is writable. A FIFO is not opened (that would wait for a
 * reader). Returns 0, or DSANA_EIO with one line in err. */
DSANA_API int dsana_outfile_check(const char *path, char *err, size_t errlen);
/* The same for a folder the run fills (checkpoints): an existing folder
 * must be writable; a missing one must be creatable (its parent exists
 * and is writable). */
DSANA_API int dsana_outfile_check_dir(const char *dir, char *err, size_t errlen);
/* true when writing path replaces it atomically (its target is absent or
 * a regular file); false when it is written in place (stdout, devices,
 * FIFOs) or cannot be resolved. */
DSANA_API bool dsana_outfile_replaces(const char *path);
/* true when a and b name the same file once links are followed: the same
 * device and inode when both exist, else the same name in the same
 * folder. "-" is the same as "-" only. */
DSANA_API bool dsana_outfile_same(const char *a, const char *b);

/* Standard output carries data from now on (an output named "-"): "-"
 * is written to the standard output the process started with, and what
 * is printed on stdout afterwards (iteration tables, summaries, top-K
 * lists) goes to standard error, so a pipe receives the data alone.
 * Call it once, before any role is started; 0 or an errno value. */
DSANA_API int dsana_outfile_stdout_for_data(void);

/* Start writing path (see the top). *out is NULL on failure. */
DSANA_API int dsana_outfile_open(const char *path, unsigned flags, struct dsana_outfile **out, char *err,
                                 size_t errlen);
/* Buffered writes (the first allocates the 1 MiB buffer). After the first
 * failure every call returns DSANA_EIO and does nothing; commit() reports
 * the reason. */
DSANA_API int dsana_outfile_write(struct dsana_outfile *o, const void *p, size_t len);
DSANA_API int dsana_outfile_printf(struct dsana_outfile *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Push what is buffered to the file (in place: visible to readers now). */
DSANA_API int dsana_outfile_flush(struct dsana_outfile *o);
/* The descriptor, for writers that write() whole sections themselves
 * (nothing buffered may be pending; not with gzip). */
DSANA_API int dsana_outfile_fd(const struct dsana_outfile *o);
/* Finish: flush, fsync, and (atomic) rename into place. Frees o, whatever
 * the result; on failure the target is unchanged (atomic) and the
 * temporary is gone. */
DSANA_API int dsana_outfile_commit(struct dsana_outfile *o, char *err, size_t errlen);
/* Give up: the target is unchanged (atomic) and the temporary is gone.
 * Frees o; NULL is fine. */
DSANA_API void dsana_outfile_discard(struct dsana_outfile *o);

/* An unnamed file in $TMPDIR (else /tmp) that nothing can leave behind:
 * it has no name from the start (O_TMPFILE, or created and unlinked at
 * once), and disappears when the last process holding *fd exits, even
 * killed. path gets "/proc/self/fd/N", which this process and the
 * processes it forks (they inherit the descriptor) open, map and write
 * like any path. Close *fd when done. */
DSANA_API int dsana_outfile_anon(char *path, size_t len, int *fd, char *err, size_t errlen);

#endif /* DSANA_OUTFILE_H */
