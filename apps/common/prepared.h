/*
 * prepared.h - the binary copies that prepare() makes of a job's text
 * inputs, found again by the roles that run in the same process.
 *
 * The process that starts a job converts each text input once (prepare():
 * parsed and checked whole, written to an anonymous file, dsana/outfile.h)
 * so that every role maps the copy instead of parsing the text again. A
 * role forked from that process inherits the app's state, copy included.
 * A role run as a thread of it (--isolate threads, the default) creates
 * its own state from the job's arguments, which name the text file: it
 * asks here for the copy made of that input. Roles started elsewhere find
 * nothing and read the input themselves.
 *
 * An entry is keyed by what made the copy: the input's path as given and
 * the options that shape what is read from it (e.g. "dedup"); its value is
 * the copy's path (/proc/self/fd/N), valid while the app state that made it
 * keeps the descriptor open: it forgets the entry before closing it.
 * Thread-safe (one mutex); the launcher notes entries before any role
 * starts, so a role always finds its job's copy.
 */
#ifndef DSANA_APPS_COMMON_PREPARED_H
#define DSANA_APPS_COMMON_PREPARED_H

#include <stdbool.h>
#include <stddef.h>

/* Remember that `copy` holds input `path` read with `shape` ("" for
 * none); replaces an entry of the same key. DSANA_ENOMEM, or
 * DSANA_ERANGE for a path or shape too long, and nothing noted. */
int prepared_note(const char *path, const char *shape, const char *copy);
/* The copy of input `path` read with `shape`, into copy[0..len): true, or
 * false (copy[0] = 0) when none was noted or it does not fit. */
bool prepared_find(const char *path, const char *shape, char *copy, size_t len);
/* Forget the entry whose copy is `copy` (its descriptor is about to be
 * closed); nothing when there is none. */
void prepared_forget(const char *copy);

#endif
