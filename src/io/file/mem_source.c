/*
 * mem_source.c - in-memory data sources: a graph or a dataset the caller
 * holds in memory, registered under a name ("dsana-mem:graph:3") that the
 * io layer's readers take wherever they take a path. An app that reads its
 * input by name (the GRAPH or TRAIN argument) so reads memory unchanged:
 * the name reads like a memory-mapped binary file (dsana_graph_is_binary
 * and dsana_dataset_is_binary say true, the map functions hand out a view
 * of the caller's arrays in O(1), the open functions check it whole). The
 * A vector (a personalization) is read by name where a file of
 * 'vertex weight' lines is. The
 * roles of a job that run as threads of the process, or as processes it
 * forks, see the same registry. The caller keeps the data alive and
 * unchanged until it unregisters the name; so a dataset's rows, once all
 * checked, are not checked again by the roles (the launcher checked them).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dsana/dataset.h"
#include "dsana/error.h"
#include "dsana/graph.h"
#include "io/file/file_internal.h"

#define MEM_SLOTS 64
#define MEM_PREFIX "dsana-mem:"

struct mem_slot {
  char name[48];
  const void *data; /* caller-owned: a struct dsana_graph, a struct dsana_dataset or a struct io_mem_vector */
  enum io_mem_kind kind;
  struct io_mem_vector vec;  /* kind IO_MEM_VECTOR: data points here */
  uint64_t checked_features; /* kind IO_MEM_DATASET: every row checked against this many (0: not checked) */
};

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mem_slot mem_slots[MEM_SLOTS]; /* guarded by mem_lock */
static uint64_t mem_serial;                  /* guarded by mem_lock */

bool io_mem_is_name(const char *path) { return path && strncmp(path, MEM_PREFIX, strlen(MEM_PREFIX)) == 0; }

const void *io_mem_find(const char *path, enum io_mem_kind kind) {
  const void *found = NULL;
  if (!io_mem_is_name(path))
    return NULL;
  pthread_mutex_lock(&mem_lock);
  for (int i = 0; i < MEM_SLOTS && !found; i++)
    if (mem_slots[i].data && mem_slots[i].kind == kind && strcmp(mem_slots[i].name, path) == 0)
      found = mem_slots[i].data;
  pthread_mutex_unlock(&mem_lock);
  return found;
}

/* The registered dataset whose arrays ds views; under mem_lock. */
static struct mem_slot *viewed(const struct dsana_dataset *ds) {
  for (int i = 0; i < MEM_SLOTS; i++) {
    const struct dsana_dataset *r = mem_slots[i].data;
    if (r && mem_slots[i].kind == IO_MEM_DATASET && r->row_off == ds->row_off && r->col == ds->col &&
        r->val_f64 == ds->val_f64 && r->val_f32 == ds->val_f32 && r->label == ds->label && r->n_rows == ds->n_rows &&
        r->nnz == ds->nnz)
      return &mem_slots[i];
  }
  return NULL;
}

bool io_mem_dataset_checked(const struct dsana_dataset *ds) {
  pthread_mutex_lock(&mem_lock);
  const struct mem_slot *s = viewed(ds);
  bool checked = s && s->checked_features && s->checked_features <= ds->n_features;
  pthread_mutex_unlock(&mem_lock);
  return checked;
}

void io_mem_dataset_mark_checked(const struct dsana_dataset *ds) {
  pthread_mutex_lock(&mem_lock);
  struct mem_slot *s = viewed(ds);
  if (s && (!s->checked_features || ds->n_features < s->checked_features))
    s->checked_features = ds->n_features;
  pthread_mutex_unlock(&mem_lock);
}

static const char *const kind_name[] = {"graph", "dataset", "vector"};

static int mem_register(const void *data, enum io_mem_kind kind, char *name, size_t len) {
  int rc = DSANA_ERANGE;
  pthread_mutex_lock(&mem_lock);
  for (int i = 0; i < MEM_SLOTS; i++)
    if (!mem_slots[i].data) {
      struct mem_slot *s = &mem_slots[i];
      snprintf(s->name, sizeof s->name, MEM_PREFIX "%s:%llu", kind_name[kind], (unsigned long long)++mem_serial);
      rc = snprintf(name, len, "%s", s->name) < (int)len ? 0 : DSANA_EINVAL;
      if (!rc) {
        s->kind = kind;
        s->data = data;
        if (kind == IO_MEM_VECTOR) {
          s->vec = *(const struct io_mem_vector *)data;
          s->data = &s->vec;
        }
      }
      break;
    }
  pthread_mutex_unlock(&mem_lock);
  return rc;
}

int dsana_graph_mem_register(const struct dsana_graph *g, char *name, size_t len) {
  return g ? mem_register(g, IO_MEM_GRAPH, name, len) : DSANA_EINVAL;
}

int dsana_dataset_mem_register(const struct dsana_dataset *ds, char *name, size_t len) {
  return ds ? mem_register(ds, IO_MEM_DATASET, name, len) : DSANA_EINVAL;
}

int dsana_vector_mem_register(const double *v, uint64_t n, char *name, size_t len) {
  struct io_mem_vector vec = {.v = v, .n = n};
  return v ? mem_register(&vec, IO_MEM_VECTOR, name, len) : DSANA_EINVAL;
}

void dsana_mem_unregister(const char *name) {
  pthread_mutex_lock(&mem_lock);
  for (int i = 0; i < MEM_SLOTS; i++)
    if (mem_slots[i].data && strcmp(mem_slots[i].name, name) == 0)
      memset(&mem_slots[i], 0, sizeof mem_slots[i]);
  pthread_mutex_unlock(&mem_lock);
}
