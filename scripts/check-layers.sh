#!/usr/bin/env bash
# check-layers.sh - fail when an #include points up a layer (docs/design.md):
#
#   cli/  ->  apps/ | src/sim/  ->  src/runtime/  ->  src/policy/ | src/net/ | src/io/  ->  src/util/
#
# src/sim/ (the simulator) sits beside apps/: it drives the real policies
# and reads the runtime's plain-data headers only (SIM_RUNTIME_OK), never
# its roles, drivers or transport.
# A file may include its own layer, any layer below it, and the public
# headers include/dsana/*.h. The three middle layers do not include each
# other. Apps include only include/dsana/*.h and their own folder's
# headers (never src/); public headers include only public headers.
# Prints one line per offending include (file:line: what and why) and
# exits 1 if there is any; 0 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

rank() { # layer name -> rank
  case $1 in
  cli) echo 6 ;; apps | sim) echo 5 ;; runtime) echo 4 ;; policy | net | io) echo 3 ;; util) echo 2 ;; dsana) echo 0 ;;
  *) echo -1 ;;
  esac
}

layer_of_file() { # path of a source file -> its layer
  case $1 in
  cli/*) echo cli ;; apps/*) echo apps ;; include/dsana/*) echo dsana ;;
  src/*) echo "$1" | cut -d/ -f2 ;;
  *) echo "" ;;
  esac
}

# The runtime headers the simulator may include: plain data and pure functions.
SIM_RUNTIME_OK=" runtime/job.h runtime/config.h runtime/observer.h runtime/keymask.h runtime/iter_figures.h runtime/rules.h runtime/msg.h "

bad=0
report() {
  echo "$1"
  bad=$((bad + 1))
}

while IFS= read -r file; do
  from=$(layer_of_file "$file")
  [ -n "$from" ] || continue
  dir=$(dirname "$file")
  while IFS=: read -r line inc; do
    target=${inc#*\"}
    target=${target%\"*}
    if [ -f "$dir/$target" ] && [[ $target != */* ]]; then
      continue # a header of the same folder
    fi
    to=${target%%/*}
    [[ $target == */* ]] || to=""
    if [ "$from" = dsana ]; then
      [ "$to" = dsana ] || report "$file:$line: public header includes \"$target\" (only include/dsana/ headers)"
      continue
    fi
    if [ "$from" = apps ]; then
      if [ "$to" != dsana ] && [[ $target != apps/* ]]; then
        report "$file:$line: app includes \"$target\" (apps see only include/dsana/ and their own headers)"
      fi
      continue
    fi
    if [ "$from" = sim ] && [ "$to" = runtime ] && [[ $SIM_RUNTIME_OK != *" $target "* ]]; then
      report "$file:$line: the simulator includes \"$target\" (only the runtime's plain-data headers:$SIM_RUNTIME_OK)"
      continue
    fi
    rf=$(rank "$from")
    rt=$(rank "${to:-none}")
    if [ "$rt" -lt 0 ]; then
      report "$file:$line: \"$target\" is not a header of any layer"
    elif [ "$rt" -gt "$rf" ]; then
      report "$file:$line: $from includes \"$target\" from $to, a layer above it"
    elif [ "$rt" -eq "$rf" ] && [ "$to" != "$from" ]; then
      report "$file:$line: $from includes \"$target\" from $to, a layer beside it"
    fi
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(find cli apps src include -name '*.[ch]' | sort)

if [ "$bad" -ne 0 ]; then
  echo "check-layers: $bad include(s) against the layer order" >&2
  exit 1
fi
echo "check-layers: every include points down a layer"
