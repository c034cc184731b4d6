#!/usr/bin/env bash
# test_check_exports.sh - scripts/check-exports.sh against planted shared
# libraries: one exporting only dsana_* names passes; one that also
# exports another name, one that exports an internal name, and one with
# fewer dsana_* names than asked each fail, naming why.
# timeout: 30 s
set -euo pipefail
SRC=${DSANA_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/integration/lib.sh
source "$SRC/tests/integration/lib.sh"
CHECK=$SRC/scripts/check-exports.sh
command -v cc >/dev/null && command -v nm >/dev/null || skip "no cc or nm"

# planted NAME MIN EXPECT SOURCE: a library built from SOURCE checked with
# MIN; EXPECT "" = passes, else fails with a line containing EXPECT
planted() {
  printf '%s\n' "$4" >"$T/$1.c"
  cc -shared -fPIC -fvisibility=hidden -o "$T/lib$1.so" "$T/$1.c" || die "cannot build the planted $1"
  RC=0
  bash "$CHECK" "$T/lib$1.so" "$2" >"$T/out" 2>&1 || RC=$?
  if [ -z "$3" ] && [ "$RC" -eq 0 ]; then
    pass "$1 passes: $(tail -1 "$T/out")"
  elif [ -n "$3" ] && [ "$RC" -eq 1 ] && grep -qF -- "$3" "$T/out"; then
    pass "$1 fails: $(head -1 "$T/out")"
  else
    fail "$1: exit $RC, expected ${3:-a pass}: $(cat "$T/out")"
  fi
}

V='__attribute__((visibility("default")))'
planted clean 2 "" "$V int dsana_a(void) { return 1; } $V int dsana_b(void) { return 2; } int hidden(void) { return 3; }"
planted other 2 "exports helper" "$V int dsana_a(void) { return 1; } $V int dsana_b(void) { return 2; } $V int helper(void) { return 3; }"
planted internal 1 "exports the internal log_msg" "$V int dsana_a(void) { return 1; } $V void log_msg(void) {}"
planted few 3 "fewer than 3" "$V int dsana_a(void) { return 1; } $V int dsana_b(void) { return 2; }"
finish
