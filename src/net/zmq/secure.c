/* secure.c - token-derived CURVE keys (see secure.h). */
#include "net/zmq/secure.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <zmq.h>

#include "dsana/error.h"

static const char key_label[] = "dsana curve v1";

int net_curve_secret_from_token(const void *token, size_t len, char secret_z85[NET_KEY_Z85_LEN]) {
  if (len < NET_TOKEN_MIN_BYTES || !zmq_has("curve"))
    return DSANA_EINVAL;
  crypto_hash_sha256_state st;
  uint8_t secret[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, (const uint8_t *)key_label, sizeof key_label);
  crypto_hash_sha256_update(&st, token, len);
  crypto_hash_sha256_final(&st, secret);
  int ok = zmq_z85_encode(secret_z85, secret, sizeof secret) != NULL;
  sodium_memzero(secret, sizeof secret);
  return ok ? 0 : DSANA_EINVAL;
}

int net_random_token(uint8_t *buf, size_t len) {
  size_t at = 0;
  while (at < len) {
    ssize_t n = getrandom(buf + at, len - at, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return DSANA_EIO;
    at += (size_t)n;
  }
  return 0;
}

int net_read_token_file(const char *path, uint8_t *buf, size_t cap, size_t *len, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return DSANA_EIO;
  }
  size_t n = fread(buf, 1, cap, f);
  int more = fgetc(f) != EOF, bad = ferror(f);
  fclose(f);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
    n--;
  if (bad || more || n < NET_TOKEN_MIN_BYTES) {
    snprintf(err, errlen, "%s: a token must be %d to %d bytes%s", path, NET_TOKEN_MIN_BYTES, NET_TOKEN_MAX_BYTES,
             bad ? " (read error)" : "");
    return DSANA_EINVAL;
  }
  *len = n;
  return 0;
}
