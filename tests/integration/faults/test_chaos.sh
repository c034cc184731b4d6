#!/usr/bin/env bash
# test_chaos.sh - a bounded chaos campaign (tests/chaos/run.sh, 10 seeded
# trials): random SIGKILLs and SIGSTOP/SIGCONT of random roles at random
# moments while the job runs, in local runs (roles as processes) and (a
# killed server) with every role started on its own; every run's ranks
# byte-identical to the fault-free run, no hang, and the faults must land:
# the campaign fails when more than 1 of the 10 trials missed (found no
# live role to signal), so it cannot pass by injecting nothing.
# timeout: 240 s (CTest; 3.3 times its nice'd run time on a busy 2-core machine, 72 s with a failed trial in it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
if out=$(DSANA="$DSANA" CHAOS_DIR="$T/chaos" bash "$DSANA_SRC/tests/chaos/run.sh" 10 "${CHAOS_SEED:-17}" 2>&1); then
  # the table's last row: all TRIALS INJECTED MISSED IDENTICAL FAILED
  read -r _ trials injected missed identical failed < <(grep '^all ' <<<"$out") || true
  if [[ ${trials:-} == 10 && ${injected:-0} -ge 9 && ${identical:-0} == "$injected" && ${failed:-1} == 0 ]]; then
    pass "chaos, 10 trials: $injected injected, $missed missed, $identical identical; $(grep -A7 '^fault ' <<<"$out" | tr -s ' ' | tr '\n' ';')"
  else
    fail "chaos: the campaign passed but its table says otherwise: $out"
  fi
else
  fail "chaos: $out"
fi
finish
