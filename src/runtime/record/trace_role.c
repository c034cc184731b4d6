/* trace_role.c - naming and opening the trace part of a role (trace.h). */
#include <stdio.h>

#include "dsana/dsana.h"
#include "runtime/record/trace.h"

#define TRACE_MAX_EVENTS ((size_t)1 << 20)

void trace_part_path(char *buf, size_t len, const char *trace_path, const char *role, uint32_t index) {
  snprintf(buf, len, "%s.part.%s.%u", trace_path, role, index);
}

int trace_open_role(const char *trace_path, const char *role, uint32_t pid, uint32_t index, struct trace **out) {
  *out = NULL;
  if (!trace_path || !trace_path[0])
    return 0;
  char part[1200], track[64];
  trace_part_path(part, sizeof part, trace_path, role, index);
  snprintf(track, sizeof track, "%s %u", role, index);
  return trace_open(part, track, pid, index, TRACE_MAX_EVENTS, out);
}
