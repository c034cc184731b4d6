#!/usr/bin/env bash
# check-layers.sh - fail when an #include points up a layer (docs/design.md):
#
#   cli/  ->  apps/ | src/sim/  ->  src/runtime/  ->  src/policy/ | src/net/ | src/io/  ->  src/util/
#
# src/sim/ (the simulator) sits beside apps/: it drives the real policies
# and reads the runtime's plain-data headers only (SIM_RUNTIME_OK), never
# its roles, drivers or transport.
# A file's layer is its first folder under src/: src/io/graph/x.c is of
# io, and may include io/file/y.h (a layer's rooms keep one direction
# among themselves by scripts/check-calls.sh, not by this check);
# src/util/text/log.c is of util, below every other layer.
# A file may include its own layer, any layer below it, and the public
# headers include/dsana/*.h. The three middle layers do not include each
# other. Apps include only include/dsana/*.h and their own folder's
# headers (never src/); public headers include only public headers.
# Below the runtime (util, io, net, policy) a file does not include the
# app contract dsana/dsana.h: error codes and exact sums have their own
# public headers (dsana/error.h, dsana/xsum.h) that dsana.h includes.
# Both forms count: #include "…" and #include <…> of a project header
# (src/, include/ and the repository root are on the include path, so
# <runtime/core/job.h> is src/runtime/core/job.h); <…> of anything else is a system
# header. Prints one line per offending include (file:line: what and why)
# and exits 1 if there is any; 0 otherwise. ROOT (default: this repository)
# holds cli/, apps/, src/ and include/; tests/source/test_check_layers.sh
# plants violations in a temporary one.
#
# usage: check-layers.sh [ROOT]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

rank_of() { # layer name -> its rank, in $rank
  case $1 in
  cli) rank=6 ;; apps | sim) rank=5 ;; runtime) rank=4 ;; policy | net | io) rank=3 ;; util) rank=2 ;; dsana) rank=0 ;;
  *) rank=-1 ;;
  esac
}

layer_of_file() { # path of a source file -> its layer, in $layer
  case $1 in
  cli/*) layer=cli ;; apps/*) layer=apps ;; include/dsana/*) layer=dsana ;;
  src/*)
    layer=${1#src/}
    layer=${layer%%/*}
    ;;
  *) layer="" ;;
  esac
}

# The runtime headers the simulator may include: plain data and pure functions.
SIM_RUNTIME_OK=" runtime/core/job.h runtime/core/config.h runtime/core/observer.h runtime/core/keymask.h runtime/core/iter_figures.h runtime/core/rules.h runtime/msg/msg.h "

bad=0
report() {
  echo "$1"
  bad=$((bad + 1))
}

# one grep over every file: file:line:#include ...
mapfile -t files < <(find cli apps src include -name '*.[ch]' | sort)
while IFS=: read -r file line inc; do
  layer_of_file "$file"
  from=$layer
  [ -n "$from" ] || continue
  dir=${file%/*}
  inc=${inc#*include}
  inc=${inc#"${inc%%[\"<]*}"} # from the opening quote or bracket on
  if [[ $inc == \"* ]]; then
    target=${inc#\"}
    target=${target%%\"*}
    shown="\"$target\""
    if [ -f "$dir/$target" ] && [[ $target != */* ]]; then
      continue # a header of the same folder
    fi
  else
    target=${inc#<}
    target=${target%%>*}
    shown="<$target>"
    # a project header only if the include path finds it in the project
    if [ ! -f "src/$target" ] && [ ! -f "include/$target" ] && { [[ $target != */* ]] || [ ! -f "$target" ]; }; then
      continue # a system header
    fi
  fi
  to=${target%%/*}
  [[ $target == */* ]] || to=""
  if [ "$from" = dsana ]; then
    [ "$to" = dsana ] || report "$file:$line: public header includes $shown (only include/dsana/ headers)"
    continue
  fi
  if [ "$from" = apps ]; then
    if [ "$to" != dsana ] && [[ $target != apps/* ]]; then
      report "$file:$line: app includes $shown (apps see only include/dsana/ and their own headers)"
    fi
    continue
  fi
  if [ "$target" = dsana/dsana.h ] && [ "$from" != dsana ]; then
    rank_of "$from"
    if [ "$rank" -le 3 ]; then
      report "$file:$line: $from includes $shown, the app contract (only dsana/error.h, dsana/xsum.h and the data formats' headers below the runtime)"
    fi
    continue
  fi
  if [ "$from" = sim ] && [ "$to" = runtime ] && [[ $SIM_RUNTIME_OK != *" $target "* ]]; then
    report "$file:$line: the simulator includes $shown (only the runtime's plain-data headers:$SIM_RUNTIME_OK)"
    continue
  fi
  rank_of "$from"
  rf=$rank
  rank_of "${to:-none}"
  rt=$rank
  if [ "$rt" -lt 0 ]; then
    report "$file:$line: $shown is not a header of any layer"
  elif [ "$rt" -gt "$rf" ]; then
    report "$file:$line: $from includes $shown from $to, a layer above it"
  elif [ "$rt" -eq "$rf" ] && [ "$to" != "$from" ]; then
    report "$file:$line: $from includes $shown from $to, a layer beside it"
  fi
done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${files[@]}" || true)

if [ "$bad" -ne 0 ]; then
  echo "check-layers: $bad include(s) against the layer order" >&2
  exit 1
fi
echo "check-layers: every include points down a layer"
