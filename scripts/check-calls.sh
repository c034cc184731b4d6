#!/usr/bin/env bash
# check-calls.sh - fail when two source files of one folder call each other
# (each defines a function the other calls): the files of a role must call
# in one direction only (docs/design.md). Prints each such pair with one
# function of each direction; exits 1 if there is any.
set -euo pipefail
cd "$(dirname "$0")/.."

defined() { # the non-static functions a .c file defines (names at column 0 before '(')
  grep -E '^[a-z][a-zA-Z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(' "$1" | grep -v '^static' |
    sed -E 's/^[a-zA-Z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(.*/\1/' | sort -u || true
}

strip_comments() { # a C file without its /* */ and // comments and string literals
  awk 'BEGIN { c = 0 }
  { out = ""; n = length($0); i = 1
    while (i <= n) {
      two = substr($0, i, 2); ch = substr($0, i, 1)
      if (c) { if (two == "*/") { c = 0; i += 2 } else i++; continue }
      if (two == "/*") { c = 1; i += 2; continue }
      if (two == "//") break
      if (ch == "\"") { i++; while (i <= n && substr($0, i, 1) != "\"") { if (substr($0, i, 1) == "\\") i++; i++ } i++; continue }
      out = out ch; i++
    }
    print out }' "$1"
}

called() { # every identifier a .c file calls
  strip_comments "$1" | grep -oE '(^|[^a-zA-Z0-9_])[a-z_][a-z0-9_]*\(' | sed -E 's/^[^a-z_]//; s/\($//' | sort -u || true
}

bad=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# every folder of sources, those added later too
shopt -s nullglob
for dir in src/*/ apps/*/ cli/; do
  dir=${dir%/}
  files=("$dir"/*.c)
  [ ${#files[@]} -gt 1 ] || continue
  keys=()
  for f in "${files[@]}"; do
    k=${f//\//_}
    keys+=("$k")
    defined "$f" >"$tmp/$k.def"
    called "$f" >"$tmp/$k.call"
  done
  for ((i = 0; i < ${#files[@]}; i++)); do
    for ((j = i + 1; j < ${#files[@]}; j++)); do
      a=${keys[i]} b=${keys[j]}
      ab=$(comm -12 "$tmp/$a.call" "$tmp/$b.def" | head -1)
      ba=$(comm -12 "$tmp/$b.call" "$tmp/$a.def" | head -1)
      if [ -n "$ab" ] && [ -n "$ba" ]; then
        echo "${files[i]} and ${files[j]} call each other (${files[i]} calls $ab, ${files[j]} calls $ba)"
        bad=$((bad + 1))
      fi
    done
  done
done
if [ "$bad" -ne 0 ]; then
  echo "check-calls: $bad pair(s) of files calling each other" >&2
  exit 1
fi
echo "check-calls: the files of every folder call one way"
