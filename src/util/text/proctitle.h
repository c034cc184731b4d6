/*
 * proctitle.h - a process's title in ps/top, as PostgreSQL and Redis set
 * theirs: the forked roles of one dsana command would all show the
 * launcher's command line otherwise. The title overwrites the memory of
 * argv (and of environ after it, which is moved to the heap first), so it
 * may be as long as the original command line; the kernel's 15-byte name
 * (prctl PR_SET_NAME, shown by top and ps -o comm) is set too.
 */
#ifndef DSANA_UTIL_PROCTITLE_H
#define DSANA_UTIL_PROCTITLE_H

/* Call first thing in main(). Returns a copy of argv for main to use from
 * then on (the original strings are overwritten by titles); on any doubt
 * about the memory layout it returns argv and titles only set the name. */
char **proctitle_init(int argc, char **argv);

/* Set the kernel's name (name: cut to 15 bytes) and the title (printf). */
void proctitle_set(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name the calling thread only (the kernel's name of a thread: ps -L,
 * top -H, /proc/PID/task/TID/comm), cut to 15 bytes; the process title
 * is left alone. A thread starts with its creator's name. */
void proctitle_thread_set(const char *name);

/* Name the calling thread, a helper of the thread named `parent`: parent
 * followed by suffix (".p1") when both fit in 15 bytes, else parent alone
 * (a name cut short could name another thread). */
void proctitle_thread_helper(const char *parent, const char *suffix);

#endif
