/*
 * secure.h - authenticated, encrypted transport: ZeroMQ CURVE with keys
 * derived from the job's shared secret (its token).
 *
 * Every process of a job derives the same server key pair from the token
 * (SHA-256 of a label and the token is the CURVE secret key). Listeners are
 * CURVE servers with that secret; dialers must know the matching public
 * key to complete the handshake, and only holders of the token can compute
 * it. A peer without the token fails the handshake before any message of
 * it is delivered; listeners log and count such refusals.
 */
#ifndef DSANA_NET_SECURE_H
#define DSANA_NET_SECURE_H

#include <stddef.h>
#include <stdint.h>

#define NET_KEY_Z85_LEN 41 /* 40 characters + NUL */
#define NET_TOKEN_MIN_BYTES 16
#define NET_TOKEN_MAX_BYTES 4096

/* Derive the job's CURVE secret key (Z85 text) from a token. DSANA_EINVAL
 * when the token is shorter than NET_TOKEN_MIN_BYTES or CURVE is missing
 * from this ZeroMQ build. */
int net_curve_secret_from_token(const void *token, size_t len, char secret_z85[NET_KEY_Z85_LEN]);
/* Fill buf with len random bytes (a token for a local run). */
int net_random_token(uint8_t *buf, size_t len);
/* Read a token file (trailing newlines dropped): one line naming the file
 * on error in err. */
int net_read_token_file(const char *path, uint8_t *buf, size_t cap, size_t *len, char *err, size_t errlen);

#endif
