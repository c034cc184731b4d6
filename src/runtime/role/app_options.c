/*
 * app_options.c - an app's option table as the one place its defaults are
 * written (dsana_app_set_defaults, dsana.h): create() applies them through
 * the app's own set_option, so --help, checkpoints and the state agree.
 */
#include "dsana/dsana.h"

int dsana_app_set_defaults(const struct dsana_app *app, void *state) {
  char err[512];
  for (size_t i = 0; app->options && app->options[i].name; i++) {
    const struct dsana_app_option *o = &app->options[i];
    if (!o->arg || !o->default_value)
      continue;
    int rc = app->set_option(state, o->name, o->default_value, err, sizeof err);
    if (rc)
      return rc;
  }
  return 0;
}
