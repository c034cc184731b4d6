/* codec.c - see codec.h. */
#include "runtime/msg/codec.h"

#include <string.h>

#include "dsana/dsana.h"
#include "net/wire/wire.h"

void wbuf_init(struct wbuf *w, uint8_t *storage, size_t cap) {
  w->p = storage;
  w->len = 0;
  w->cap = cap;
  w->err = 0;
}

static uint8_t *wbuf_take(struct wbuf *w, size_t n) {
  if (w->err || w->cap - w->len < n) {
    w->err = DSANA_ERANGE;
    return NULL;
  }
  uint8_t *at = w->p + w->len;
  w->len += n;
  return at;
}

void wbuf_u32(struct wbuf *w, uint32_t v) {
  uint8_t *at = wbuf_take(w, 4);
  if (at)
    wire_put_u32(at, v);
}

void wbuf_u64(struct wbuf *w, uint64_t v) {
  uint8_t *at = wbuf_take(w, 8);
  if (at)
    wire_put_u64(at, v);
}

void wbuf_f64(struct wbuf *w, double v) {
  uint8_t *at = wbuf_take(w, 8);
  if (at)
    wire_put_f64(at, v);
}

static void wbuf_bytes(struct wbuf *w, const void *src, size_t n) {
  uint8_t *at = wbuf_take(w, n);
  if (at && n)
    memcpy(at, src, n);
}

void wbuf_str(struct wbuf *w, const char *s) {
  size_t n = strlen(s);
  wbuf_u32(w, (uint32_t)n);
  wbuf_bytes(w, s, n);
}

void rbuf_init(struct rbuf *r, const void *p, size_t len) {
  r->p = p;
  r->len = len;
  r->pos = 0;
  r->err = 0;
}

static const uint8_t *rbuf_take(struct rbuf *r, size_t n) {
  if (r->err || r->len - r->pos < n) {
    r->err = DSANA_EPROTO;
    return NULL;
  }
  const uint8_t *at = r->p + r->pos;
  r->pos += n;
  return at;
}

uint32_t rbuf_u32(struct rbuf *r) {
  const uint8_t *at = rbuf_take(r, 4);
  return at ? wire_get_u32(at) : 0;
}

uint64_t rbuf_u64(struct rbuf *r) {
  const uint8_t *at = rbuf_take(r, 8);
  return at ? wire_get_u64(at) : 0;
}

double rbuf_f64(struct rbuf *r) {
  const uint8_t *at = rbuf_take(r, 8);
  return at ? wire_get_f64(at) : 0.0;
}

void rbuf_str(struct rbuf *r, char *dst, size_t cap) {
  uint32_t n = rbuf_u32(r);
  if (!r->err && (size_t)n >= cap)
    r->err = DSANA_EPROTO;
  const uint8_t *at = r->err ? NULL : rbuf_take(r, n);
  if (!at) {
    if (cap)
      dst[0] = 0;
    return;
  }
  memcpy(dst, at, n);
  dst[n] = 0;
}

int rbuf_done(const struct rbuf *r) { return (r->err || r->pos != r->len) ? DSANA_EPROTO : 0; }
