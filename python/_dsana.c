/*
 * _dsana.c - the CPython extension module dsana._dsana: in-memory data
 * sources over Python buffers (numpy arrays are read in place when their
 * type and layout fit: no copy), and the job runner (dsana_glue.c), which
 * releases the GIL while the job runs. The Python package (python/dsana)
 * turns networkx graphs, scipy matrices and scikit-learn style arguments
 * into these calls.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdbool.h>
#include <string.h>

#include "dsana/dataset.h"
#include "dsana/dsana.h"
#include "dsana/graph.h"
#include "dsana_glue.h"

#define SRC_BUFS 5

/* A registered in-memory source and the buffers it borrows. */
typedef struct {
  PyObject_HEAD char name[64];
  int is_graph; /* 1 graph, 0 dataset, 2 vector */
  struct dsana_graph g;
  struct dsana_dataset ds;
  Py_buffer bufs[SRC_BUFS];
  int n_bufs;
} SourceObject;

static void source_dealloc(SourceObject *s) {
  if (s->name[0])
    dsana_mem_unregister(s->name);
  if (s->is_graph == 1)
    dsana_graph_fini(&s->g);
  else if (s->is_graph == 0)
    dsana_dataset_fini(&s->ds);
  for (int i = 0; i < s->n_bufs; i++)
    PyBuffer_Release(&s->bufs[i]);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyObject *source_name(SourceObject *s, void *closure) {
  (void)closure;
  return PyUnicode_FromString(s->name);
}

/* A dataset's values as the runtime reads them: "float64" or "float32" (None: not a dataset). */
static PyObject *source_values(SourceObject *s, void *closure) {
  (void)closure;
  if (s->is_graph != 0)
    Py_RETURN_NONE;
  return PyUnicode_FromString(s->ds.val_f32 ? "float32" : "float64");
}

static PyGetSetDef source_getset[] = {{"name", (getter)source_name, NULL, "the name apps read it by", NULL},
                                      {"values", (getter)source_values, NULL, "a dataset's value type", NULL},
                                      {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SourceType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dsana._dsana.Source",
    .tp_basicsize = sizeof(SourceObject),
    .tp_dealloc = (destructor)source_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "an in-memory graph or dataset, registered while the object lives",
    .tp_getset = source_getset,
};

/* Borrow obj's buffer as a C-contiguous array of one of the formats in
 * `kinds` (struct codes) with items of `size` bytes; *n its items. */
static const void *take_buffer(SourceObject *s, PyObject *obj, const char *kinds, Py_ssize_t size, const char *what,
                               Py_ssize_t *n) {
  Py_buffer *b = &s->bufs[s->n_bufs];
  if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0)
    return NULL;
  s->n_bufs++;
  const char *f = b->format ? b->format : "B";
  if (*f == '@' || *f == '=' || *f == '<')
    f++;
  if (b->itemsize != size || strlen(f) != 1 || !strchr(kinds, *f)) {
    PyErr_Format(PyExc_TypeError, "%s: want a contiguous array of %zd-byte '%s' items, got format '%s'", what, size,
                 kinds, b->format ? b->format : "B");
    return NULL;
  }
  *n = b->len / size;
  return b->buf;
}

static PyObject *raise_dsana(int rc, const char *msg) {
  PyObject *type = rc == DSANA_EIO ? PyExc_OSError : rc == DSANA_ENOMEM ? PyExc_MemoryError : PyExc_ValueError;
  if (rc == DSANA_EINTR) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    return NULL;
  }
  if (rc == DSANA_EPEER || rc == DSANA_ESTATE || rc == DSANA_ENET || rc == DSANA_ETIMEDOUT)
    type = PyExc_RuntimeError;
  PyErr_SetString(type, msg);
  return NULL;
}

static SourceObject *new_source(int is_graph) {
  SourceObject *s = PyObject_New(SourceObject, &SourceType);
  if (!s)
    return NULL;
  memset((char *)s + sizeof(PyObject), 0, sizeof *s - sizeof(PyObject));
  s->is_graph = is_graph;
  return s;
}

/* Register a source built into s; on failure drop s and raise. */
static PyObject *finish_source(SourceObject *s, int rc, const char *err) {
  if (!rc)
    rc = s->is_graph == 2
             ? dsana_vector_mem_register(s->bufs[0].buf, (uint64_t)(s->bufs[0].len / 8), s->name, sizeof s->name)
         : s->is_graph == 1 ? dsana_graph_mem_register(&s->g, s->name, sizeof s->name)
                            : dsana_dataset_mem_register(&s->ds, s->name, sizeof s->name);
  if (rc) {
    if (!s->name[0] && !err[0])
      err = "too many in-memory sources alive at once (64)";
    s->name[0] = '\0';
    Py_DECREF(s);
    return raise_dsana(rc, err);
  }
  return (PyObject *)s;
}

static PyObject *py_graph_csc(PyObject *self, PyObject *args) {
  unsigned long long n;
  PyObject *off_o, *src_o, *w_o;
  if (!PyArg_ParseTuple(args, "KOOO", &n, &off_o, &src_o, &w_o))
    return NULL;
  SourceObject *s = new_source(1);
  Py_ssize_t n_off, m, n_w = 0;
  const uint64_t *off = s ? take_buffer(s, off_o, "QLK", 8, "indptr", &n_off) : NULL;
  const uint32_t *src = off ? take_buffer(s, src_o, "IL", 4, "indices", &m) : NULL;
  const double *w = src && w_o != Py_None ? take_buffer(s, w_o, "d", 8, "weights", &n_w) : NULL;
  if (!src || (w_o != Py_None && !w) || (size_t)n_off != n + 1 || (w && n_w != m)) {
    if (s && !PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "graph_csc: indptr must have n+1 items and weights as many as indices");
    Py_XDECREF(s);
    return NULL;
  }
  char err[512] = "";
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = dsana_graph_from_csc(n, (uint64_t)m, off, src, w, &s->g, err, sizeof err);
  Py_END_ALLOW_THREADS return finish_source(s, rc, err);
}

static PyObject *py_graph_edges(PyObject *self, PyObject *args) {
  unsigned long long n;
  PyObject *a_o, *b_o, *w_o;
  if (!PyArg_ParseTuple(args, "KOOO", &n, &a_o, &b_o, &w_o))
    return NULL;
  SourceObject *s = new_source(1);
  Py_ssize_t m, m2, n_w = 0;
  const uint32_t *a = s ? take_buffer(s, a_o, "IL", 4, "src", &m) : NULL;
  const uint32_t *b = a ? take_buffer(s, b_o, "IL", 4, "dst", &m2) : NULL;
  const double *w = b && w_o != Py_None ? take_buffer(s, w_o, "d", 8, "weights", &n_w) : NULL;
  if (!b || (w_o != Py_None && !w) || m != m2 || (w && n_w != m)) {
    if (s && !PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "graph_edges: src, dst and weights must have the same length");
    Py_XDECREF(s);
    return NULL;
  }
  char err[512] = "";
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = w ? dsana_graph_from_weighted_edges(n, (uint64_t)m, a, b, w, NULL, &s->g, err, sizeof err)
                                : dsana_graph_from_edges(n, (uint64_t)m, a, b, NULL, &s->g, err, sizeof err);
  Py_END_ALLOW_THREADS return finish_source(s, rc, err);
}

/* dataset_dense(rows, cols, X, y): X of doubles ('d') or of floats ('f',
 * read in place as the dataset's float values). */
static PyObject *py_dataset_dense(PyObject *self, PyObject *args) {
  unsigned long long rows, cols;
  PyObject *x_o, *y_o;
  if (!PyArg_ParseTuple(args, "KKOO", &rows, &cols, &x_o, &y_o))
    return NULL;
  SourceObject *s = new_source(0);
  Py_ssize_t nx, ny;
  bool f32 = PyArray_Check(x_o) && PyArray_TYPE((PyArrayObject *)x_o) == NPY_FLOAT32;
  const void *x = s ? take_buffer(s, x_o, f32 ? "f" : "d", f32 ? 4 : 8, "X", &nx) : NULL;
  const double *y = x ? take_buffer(s, y_o, "d", 8, "y", &ny) : NULL;
  if (!y || (unsigned long long)nx != rows * cols || (unsigned long long)ny != rows) {
    if (s && !PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "dataset_dense: X must hold rows*cols values and y rows");
    Py_XDECREF(s);
    return NULL;
  }
  char err[512] = "";
  int rc = f32 ? dsana_dataset_from_dense_f32(rows, cols, x, y, &s->ds, err, sizeof err)
               : dsana_dataset_from_dense(rows, cols, x, y, &s->ds, err, sizeof err);
  return finish_source(s, rc, err);
}

static PyObject *py_dataset_csr(PyObject *self, PyObject *args) {
  unsigned long long cols;
  PyObject *off_o, *col_o, *val_o, *y_o;
  if (!PyArg_ParseTuple(args, "KOOOO", &cols, &off_o, &col_o, &val_o, &y_o))
    return NULL;
  SourceObject *s = new_source(0);
  Py_ssize_t n_off, nnz, nv, ny;
  const uint64_t *off = s ? take_buffer(s, off_o, "QLK", 8, "indptr", &n_off) : NULL;
  const uint32_t *col = off ? take_buffer(s, col_o, "IL", 4, "indices", &nnz) : NULL;
  const double *val = col ? take_buffer(s, val_o, "d", 8, "data", &nv) : NULL;
  const double *y = val ? take_buffer(s, y_o, "d", 8, "y", &ny) : NULL;
  if (!y || n_off < 1 || ny != n_off - 1 || nv != nnz || (Py_ssize_t)off[n_off - 1] != nnz) {
    if (s && !PyErr_Occurred())
      PyErr_SetString(PyExc_ValueError, "dataset_csr: indptr, indices, data and y do not agree");
    Py_XDECREF(s);
    return NULL;
  }
  char err[512] = "";
  int rc = dsana_dataset_from_csr((uint64_t)ny, cols, off, col, val, y, &s->ds, err, sizeof err);
  return finish_source(s, rc, err);
}

static PyObject *py_vector(PyObject *self, PyObject *args) {
  PyObject *v_o;
  if (!PyArg_ParseTuple(args, "O", &v_o))
    return NULL;
  SourceObject *s = new_source(2);
  Py_ssize_t n;
  if (!s || !take_buffer(s, v_o, "d", 8, "vector", &n)) {
    Py_XDECREF(s);
    return NULL;
  }
  return finish_source(s, 0, "");
}

/* run(argv, print=False) -> (values (n_keys, width) float64, iterations,
 * converged, residual, warnings): a job as `dsana argv...` runs it, GIL
 * released; with print, printing what the command prints. */
static PyObject *py_run(PyObject *self, PyObject *args) {
  PyObject *list;
  int print = 0;
  if (!PyArg_ParseTuple(args, "O!|p", &PyList_Type, &list, &print))
    return NULL;
  Py_ssize_t argc = PyList_GET_SIZE(list);
  char **argv = PyMem_Calloc((size_t)argc + 1, sizeof *argv);
  if (!argv)
    return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < argc; i++) {
    const char *a = PyUnicode_AsUTF8(PyList_GET_ITEM(list, i));
    if (!a || !(argv[i] = strdup(a))) {
      for (Py_ssize_t j = 0; j < i; j++)
        free(argv[j]);
      PyMem_Free(argv);
      return a ? PyErr_NoMemory() : NULL;
    }
  }
  struct glue_result res;
  char err[1024], warn[4096];
  int rc;
  Py_BEGIN_ALLOW_THREADS rc = glue_run((int)argc, argv, print != 0, &res, err, sizeof err, warn, sizeof warn);
  Py_END_ALLOW_THREADS for (Py_ssize_t i = 0; i < argc; i++) free(argv[i]);
  PyMem_Free(argv);
  if (rc)
    return raise_dsana(rc, err);
  npy_intp dims[2] = {(npy_intp)res.n_keys, (npy_intp)res.width};
  PyObject *arr = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
  if (arr)
    memcpy(PyArray_DATA((PyArrayObject *)arr), res.values, res.n_keys * res.width * sizeof(double));
  free(res.values);
  if (!arr)
    return NULL;
  return Py_BuildValue("NIOds", arr, res.iters, res.converged ? Py_True : Py_False, res.residual, warn);
}

static PyMethodDef methods[] = {
    {"graph_csc", py_graph_csc, METH_VARARGS, "graph_csc(n, indptr u64, indices u32, weights f64|None) -> Source"},
    {"graph_edges", py_graph_edges, METH_VARARGS, "graph_edges(n, src u32, dst u32, weights f64|None) -> Source"},
    {"dataset_dense", py_dataset_dense, METH_VARARGS, "dataset_dense(rows, cols, X f64 or f32, y f64) -> Source"},
    {"dataset_csr", py_dataset_csr, METH_VARARGS, "dataset_csr(cols, indptr u64, indices u32, data f64, y f64)"},
    {"vector", py_vector, METH_VARARGS, "vector(v f64) -> Source (a personalization)"},
    {"run", py_run, METH_VARARGS, "run([app, args...], print=False) -> (values, iters, converged, residual, warnings)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dsana", "dsana's C runtime", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__dsana(void) {
  import_array();
  if (PyType_Ready(&SourceType) < 0)
    return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m)
    return NULL;
  Py_INCREF(&SourceType);
  PyModule_AddObject(m, "Source", (PyObject *)&SourceType);
  PyModule_AddStringConstant(m, "version", DSANA_VERSION_STRING);
  return m;
}
