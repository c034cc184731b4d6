#!/usr/bin/env bash
# test_low_memory_fails_cleanly.sh - under a memory limit too small for
# ZeroMQ's threads or the roles' own (ulimit -v 30000; processes and
# threads), every role ends with one line saying
# what it could not start, and the job stops with exit 1: no abort from
# inside ZeroMQ ("src/thread.cpp"), no SIGABRT, no hang.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
# An AddressSanitizer build (libasan linked, or clang's runtime linked in:
# __asan_init either way) reserves terabytes of address space.
if ldd "$DSANA" 2>/dev/null | grep -q libasan || grep -aq __asan_init "$DSANA"; then
  skip "an AddressSanitizer build reserves terabytes of address space: ulimit -v cannot apply"
fi
cd "$T"
"$DSANA" graph gen kron --scale 9 --seed 3 --out k.bin >/dev/null || die "graph gen failed"
# processes: each role's ZeroMQ threads cannot start
run_capture low bash -c "ulimit -v 30000 && exec timeout 60 \"$DSANA\" pagerank k.bin --isolate processes --workers 2 --quiet --out o.tsv"
if [ "$RC" -eq 1 ] && grep -q "net: cannot start ZeroMQ's threads" low.err &&
  ! grep -qE "thread.cpp|Aborted|signal 6" low.err; then
  pass "processes: exit 1: $(grep -m1 "cannot start" low.err)"
else
  fail "processes, ulimit -v 30000: rc=$RC $(head -c 400 low.err)"
fi
# threads: the roles' threads cannot start
run_capture lowt bash -c "ulimit -v 30000 && exec timeout 60 \"$DSANA\" pagerank k.bin --isolate threads --workers 2 --quiet --out o.tsv"
if [ "$RC" -eq 1 ] && grep -q "cannot start a thread for" lowt.err && ! grep -qE "Aborted|signal 6" lowt.err; then
  pass "threads: exit 1: $(grep -m1 "cannot start" lowt.err)"
else
  fail "threads, ulimit -v 30000: rc=$RC $(head -c 400 lowt.err)"
fi
finish
