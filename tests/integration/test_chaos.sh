#!/usr/bin/env bash
# test_chaos.sh - a bounded chaos campaign (tests/chaos/run.sh, 10 seeded
# trials, well under 2 minutes): random SIGKILLs and SIGSTOP/SIGCONT of
# random roles at random moments, in local runs and (a killed server) with
# every role started on its own; every run's ranks byte-identical to the
# fault-free run, no hang.
# timeout: 130 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_bins
if out=$(DSANA="$DSANA" CHAOS_DIR="$T/chaos" bash "$DSANA_SRC/tests/chaos/run.sh" 10 "${CHAOS_SEED:-17}" 2>&1); then
  pass "chaos, 10 trials: $(tail -n +2 <<<"$out" | grep -c ": identical,") identical; $(tail -n 5 <<<"$out" | tr -s ' ' | tr '\n' ';')"
else
  fail "chaos: $out"
fi
finish
