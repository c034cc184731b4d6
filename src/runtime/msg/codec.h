/*
 * codec.h - bounds-checked little-endian writers and readers for the
 * structured payloads of control messages (registration, cluster map,
 * task reports). A reader that runs past the end sets err and returns
 * zeros, so a decoder checks err once at the end instead of after each field.
 */
#ifndef DSANA_RUNTIME_CODEC_H
#define DSANA_RUNTIME_CODEC_H

#include <stddef.h>
#include <stdint.h>

struct wbuf {
  uint8_t *p;
  size_t len, cap;
  int err;
};

struct rbuf {
  const uint8_t *p;
  size_t len, pos;
  int err;
};

void wbuf_init(struct wbuf *w, uint8_t *storage, size_t cap);
void wbuf_u32(struct wbuf *w, uint32_t v);
void wbuf_u64(struct wbuf *w, uint64_t v);
void wbuf_f64(struct wbuf *w, double v);
void wbuf_str(struct wbuf *w, const char *s); /* u32 length + bytes */

void rbuf_init(struct rbuf *r, const void *p, size_t len);
uint32_t rbuf_u32(struct rbuf *r);
uint64_t rbuf_u64(struct rbuf *r);
double rbuf_f64(struct rbuf *r);
/* Copies a string of at most cap-1 bytes (NUL-terminated); longer = err. */
void rbuf_str(struct rbuf *r, char *dst, size_t cap);
/* 0 when every byte was consumed without error, else DSANA_EPROTO. */
int rbuf_done(const struct rbuf *r);

#endif
