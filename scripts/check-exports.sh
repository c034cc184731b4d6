#!/usr/bin/env bash
# check-exports.sh LIB [MIN] - fail unless the shared library LIB exports
# the public API only: every dynamic symbol it defines (nm -D
# --defined-only) is named dsana_*, at least MIN of them are (default 60:
# libdsana exports 91, so a build that hid the API fails), and none of
# the internal names below is there (a build without -fvisibility=hidden
# would export them). Prints one line per offending symbol and exits 1 if
# there is any; 0 otherwise. tests/source/test_check_exports.sh plants
# libraries that break each rule.
#
# usage: check-exports.sh LIB [MIN]
set -euo pipefail
lib=${1:?usage: check-exports.sh LIB [MIN]}
min=${2:-60}
INTERNAL="log_msg job_init cli_parse_run runtime_run_role net_send"
[ -f "$lib" ] || {
  echo "check-exports: $lib: no such file" >&2
  exit 2
}
mapfile -t names < <(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u)
bad=0
public=0
for s in "${names[@]}"; do
  if [[ $s == dsana_* ]]; then
    public=$((public + 1))
  else
    echo "$lib: exports $s (only dsana_* names are public)"
    bad=$((bad + 1))
  fi
done
for s in $INTERNAL; do
  if printf '%s\n' "${names[@]}" | grep -qx "$s"; then
    echo "$lib: exports the internal $s"
    bad=$((bad + 1))
  fi
done
if [ "$public" -lt "$min" ]; then
  echo "$lib: $public dsana_* symbols, fewer than $min: is the API (DSANA_API) exported?"
  bad=$((bad + 1))
fi
if [ "$bad" -ne 0 ]; then
  echo "check-exports: $lib: $bad problem(s)" >&2
  exit 1
fi
echo "check-exports: $lib exports $public dsana_* symbols and nothing else"
