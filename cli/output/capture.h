/*
 * capture.h - what a job run through dsana_run says on stderr, kept for
 * its caller instead of printed: descriptor 2 points at a file in memory
 * (memfd) while the job runs (roles forked meanwhile inherit it),
 * then gets its old target back and the text is read. Process-wide, like
 * descriptor 2 itself: one capture at a time.
 */
#ifndef DSANA_CLI_CAPTURE_H
#define DSANA_CLI_CAPTURE_H

#include <stddef.h>

struct capture {
  int saved_fd; /* descriptor 2's target before the capture */
  int file_fd;  /* the temporary file */
};

/* Start: 0, or DSANA_EIO (nothing changed) when no file can be made. */
int capture_begin(struct capture *c);
/* Stop and restore descriptor 2. *text gets what was written
 * (NUL-terminated, malloc'd; the caller frees it) or NULL when nothing
 * was (or it cannot be read). */
void capture_end(struct capture *c, char **text);
/* The first line of text that is not a warning, copied into line (at
 * most len bytes, without its newline); "" when there is none. */
void capture_first_error(const char *text, char *line, size_t len);

#endif
