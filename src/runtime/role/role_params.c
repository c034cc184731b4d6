/* role_params.c - finding an app in the registry the command line hands
 * down (role_params.h). */
#include "runtime/role/role_params.h"

#include <string.h>

const struct dsana_app *role_find_app(const struct dsana_app *const *apps, const char *name) {
  for (size_t i = 0; apps && apps[i]; i++)
    if (strcmp(apps[i]->name, name) == 0)
      return apps[i];
  return NULL;
}
