/* stop_flag.c - the process's caught stop signal (stop_flag.h). */
#include <signal.h>

#include "runtime/driver/stop_flag.h"

static volatile sig_atomic_t stop_flag_sig;

void stop_flag_set(int sig) { stop_flag_sig = sig; }

int stop_flag_caught(void) { return stop_flag_sig; }
