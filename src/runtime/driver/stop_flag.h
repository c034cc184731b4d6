/*
 * stop_flag.h - the stop signal a role run by hand caught: one flag of
 * the process, set by the launcher's signal handler (launch.c) and read by
 * the scheduler's driver at every tick (driver_sched.c), which then ends
 * the job telling every role.
 *
 * The flag lives here, below both, so that the driver does not call up
 * into the launcher that runs it: the launcher sets, the driver reads.
 * Setting is async-signal-safe (one store of a volatile sig_atomic_t).
 */
#ifndef DSANA_RUNTIME_STOP_FLAG_H
#define DSANA_RUNTIME_STOP_FLAG_H

/* Record stop signal sig (0: forget any). Safe in a signal handler. */
void stop_flag_set(int sig);
/* The stop signal recorded, 0 when none. */
int stop_flag_caught(void);

#endif
