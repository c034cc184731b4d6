/* registry.c - the built-in apps, found by name. */
#include <string.h>

#include "dsana/dsana.h"

extern const struct dsana_app pagerank_app;

static const struct dsana_app *const app_list[] = {&pagerank_app, NULL};

const struct dsana_app *const *dsana_app_list(void) { return app_list; }

const struct dsana_app *dsana_app_find(const char *name) {
  for (size_t i = 0; app_list[i]; i++)
    if (strcmp(app_list[i]->name, name) == 0)
      return app_list[i];
  return NULL;
}
