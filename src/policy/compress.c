/* compress.c - see compress.h. */
#include "policy/compress.h"

#include <string.h>

#include "dsana/error.h"

int compress_mode_parse(const char *name, enum compress_mode *mode) {
  static const enum compress_mode modes[] = {COMPRESS_AUTO, COMPRESS_OFF, COMPRESS_ON};
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
    if (name && strcmp(name, compress_mode_name(modes[i])) == 0) {
      *mode = modes[i];
      return 0;
    }
  return DSANA_EINVAL;
}

const char *compress_mode_name(enum compress_mode mode) {
  return mode == COMPRESS_ON ? "on" : mode == COMPRESS_OFF ? "off" : "auto";
}

bool compress_wanted(const struct compress_request *r) {
  if (r->mode != COMPRESS_AUTO)
    return r->mode == COMPRESS_ON;
  if (r->chunk != CHUNK_AUTO || (r->bandwidth_bytes_per_s <= 0 && r->local_unthrottled))
    return false;
  double bw = r->bandwidth_bytes_per_s > 0 ? r->bandwidth_bytes_per_s : CHUNK_UNKNOWN_LINK_BYTES_PER_S;
  return bw < COMPRESS_ENCODE_BYTES_PER_S;
}
