/* prepared.c - the binary copies of a job's text inputs, by input and
 * shape (prepared.h): a short list under a mutex; a job has a few inputs. */
#include "prepared.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"

#define PREPARED_PATH_MAX 1024
#define PREPARED_SHAPE_MAX 64

struct prepared {
  struct prepared *next;
  char path[PREPARED_PATH_MAX], shape[PREPARED_SHAPE_MAX], copy[PREPARED_PATH_MAX];
};

static pthread_mutex_t prepared_mu = PTHREAD_MUTEX_INITIALIZER;
static struct prepared *prepared_list; /* under prepared_mu */

static struct prepared *lookup(const char *path, const char *shape) {
  for (struct prepared *e = prepared_list; e; e = e->next)
    if (strcmp(e->path, path) == 0 && strcmp(e->shape, shape) == 0)
      return e;
  return NULL;
}

int prepared_note(const char *path, const char *shape, const char *copy) {
  if (strlen(path) >= PREPARED_PATH_MAX || strlen(shape) >= PREPARED_SHAPE_MAX || strlen(copy) >= PREPARED_PATH_MAX)
    return DSANA_ERANGE;
  pthread_mutex_lock(&prepared_mu);
  struct prepared *e = lookup(path, shape);
  if (!e && (e = calloc(1, sizeof *e)) != NULL) {
    strcpy(e->path, path);
    strcpy(e->shape, shape);
    e->next = prepared_list;
    prepared_list = e;
  }
  if (e)
    strcpy(e->copy, copy);
  pthread_mutex_unlock(&prepared_mu);
  return e ? 0 : DSANA_ENOMEM;
}

bool prepared_find(const char *path, const char *shape, char *copy, size_t len) {
  pthread_mutex_lock(&prepared_mu);
  const struct prepared *e = lookup(path, shape);
  bool found = e && strlen(e->copy) < len;
  if (len)
    strcpy(copy, found ? e->copy : "");
  pthread_mutex_unlock(&prepared_mu);
  return found;
}

void prepared_forget(const char *copy) {
  pthread_mutex_lock(&prepared_mu);
  for (struct prepared **at = &prepared_list; *at; at = &(*at)->next)
    if (strcmp((*at)->copy, copy) == 0) {
      struct prepared *e = *at;
      *at = e->next;
      free(e);
      break;
    }
  pthread_mutex_unlock(&prepared_mu);
}
