/*
 * apps.h - the apps built into dsana. The command line (cli/) lists them
 * and hands the list down to the runtime, which finds an app by name for a
 * role started alone.
 */
#ifndef DSANA_APPS_APPS_H
#define DSANA_APPS_APPS_H

#include "dsana/dsana.h"

extern const struct dsana_app pagerank_app;

#endif
