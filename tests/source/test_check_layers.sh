#!/usr/bin/env bash
# test_check_layers.sh - scripts/check-layers.sh against planted trees: an
# include up a layer fails in both forms, "…" and <…> (src/ and include/
# are on the include path, so <runtime/job.h> is a project header); system
# headers and includes down a layer pass; below the runtime, the app
# contract dsana/dsana.h fails and dsana/error.h passes. A file in a
# sub-folder of cli/ (cli/core/) is of the cli layer, both as includer
# and as included. A file in a room of a layer (src/io/graph/,
# src/util/text/) is of that layer: it includes another room of it
# (io/file/) freely, and a layer above it not at all.
# timeout: 30 s
set -euo pipefail
SRC=${DSANA_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/integration/lib.sh
source "$SRC/tests/integration/lib.sh"
CHECK=$SRC/scripts/check-layers.sh

# A small tree of layers: util (a room of it, text/) below runtime below
# cli, one public header, one app.
base=$T/base
mkdir -p "$base"/{cli/core,apps/toy,src/util/text,src/runtime,src/io/file,src/io/graph,include/dsana}
printf '#pragma once\nint u_log(void);\n' >"$base/src/util/text/log.h"
printf '#pragma once\nint rt_job(void);\n' >"$base/src/runtime/job.h"
printf '#pragma once\n#include <stddef.h>\nint dsana_x(void);\n' >"$base/include/dsana/dsana.h"
printf '#pragma once\nenum { DSANA_EIO = -3 };\n' >"$base/include/dsana/error.h"
printf '#include "log.h"\n#include <stdio.h>\n#include "dsana/error.h"\nint u_log(void) { return 0; }\n' >"$base/src/util/text/log.c"
printf '#include "job.h"\n#include <util/text/log.h>\n#include "util/text/log.h"\n#include <dsana/dsana.h>\n#include <sys/types.h>\nint rt_job(void) { return u_log(); }\n' \
  >"$base/src/runtime/job.c"
printf '#pragma once\nint io_open(void);\n' >"$base/src/io/file/file.h"
printf '#include "io/file/file.h"\n#include "util/text/log.h"\nint io_graph(void) { return io_open() + u_log(); }\n' \
  >"$base/src/io/graph/graph.c"
printf '#include <runtime/job.h>\n#include <stdlib.h>\nint main(void) { return rt_job(); }\n' >"$base/cli/main.c"
printf '#include <dsana/dsana.h>\n#include <math.h>\nint toy(void) { return dsana_x(); }\n' >"$base/apps/toy/toy.c"
# a room of the cli layer (cli/core/), its header named from the root
printf '#pragma once\n#include "runtime/job.h"\nint cli_opt(void);\n' >"$base/cli/core/opts.h"
printf '#include "cli/core/opts.h"\n#include "opts.h"\nint cli_opt(void) { return rt_job(); }\n' >"$base/cli/core/opts.c"

if bash "$CHECK" "$base" >"$T/out" 2>&1; then
  pass "includes down a layer, in both forms, and system headers pass"
else
  fail "a clean tree fails: $(cat "$T/out")"
fi

# planted NAME FILE LINE EXPECT: FILE with LINE added fails, naming EXPECT
planted() {
  local tree=$T/$1
  rm -rf "$tree"
  cp -r "$base" "$tree"
  printf '%s\n' "$3" >>"$tree/$2"
  RC=0
  bash "$CHECK" "$tree" >"$T/out" 2>&1 || RC=$?
  if [ "$RC" -eq 1 ] && grep -qF -- "$2:" "$T/out" && grep -qF -- "$4" "$T/out"; then
    pass "$1 fails: $(head -1 "$T/out")"
  else
    fail "$1: exit $RC (want 1 naming $2 and '$4'): $(cat "$T/out")"
  fi
}

planted "util includes runtime with <>" src/util/text/log.c '#include <runtime/job.h>' \
  'util includes <runtime/job.h> from runtime, a layer above it'
planted "util includes runtime with quotes" src/util/text/log.c '#include "runtime/job.h"' \
  'util includes "runtime/job.h" from runtime, a layer above it'
planted "a spaced angle include" src/util/text/log.c '  #  include   <runtime/job.h> // up' \
  'util includes <runtime/job.h> from runtime, a layer above it'
planted "a public header includes src with <>" include/dsana/dsana.h '#include <util/text/log.h>' \
  'public header includes <util/text/log.h>'
planted "an app includes the runtime with <>" apps/toy/toy.c '#include <runtime/job.h>' \
  'app includes <runtime/job.h>'
planted "the runtime includes the cli with <> from the root" src/runtime/job.c '#include <cli/main.c>' \
  'runtime includes <cli/main.c> from cli, a layer above it'
planted "the runtime includes a cli room's header" src/runtime/job.c '#include "cli/core/opts.h"' \
  'runtime includes "cli/core/opts.h" from cli, a layer above it'
planted "a cli room's file includes what no layer holds" cli/core/opts.c '#include "include/dsana/dsana.h"' \
  '"include/dsana/dsana.h" is not a header of any layer'
planted "a room of io includes the runtime" src/io/graph/graph.c '#include "runtime/job.h"' \
  'io includes "runtime/job.h" from runtime, a layer above it'
planted "util includes the app contract" src/util/text/log.c '#include "dsana/dsana.h"' \
  'util includes "dsana/dsana.h", the app contract'
finish
