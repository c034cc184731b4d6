#!/usr/bin/env bash
# test_cli_scenario_sets_workers.sh - with --scenario and no --workers, the
# run has as many workers as the scenario describes (not the core count,
# silently dropping the rest); fewer --workers than it describes are named
# in a warning; more are refused.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
"$DSANA" graph gen kron --scale 9 --seed 3 --out g.bin >/dev/null || die "graph gen failed"
cat >five.json <<'J'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}, {"speed": 0.5}, {"speed": 0.25}]}
J

run_capture nw "$DSANA" pagerank g.bin --scenario five.json --quiet --max-iter 3 --metrics nw.jsonl
if [ "$RC" -eq 0 ] && [ "$(tail -n 1 nw.jsonl | jq .workers)" -eq 5 ] &&
  [ "$(jq -s '[.[] | select(.type == "worker" and .iter == 1)] | length' nw.jsonl)" -eq 5 ]; then
  pass "no --workers: the scenario's 5 workers run"
else
  fail "no --workers: rc=$RC workers $(tail -n 1 nw.jsonl | jq .workers 2>/dev/null) $(head -c 200 nw.err)"
fi

run_capture few "$DSANA" pagerank g.bin --scenario five.json --workers 2 --quiet --max-iter 3
if [ "$RC" -eq 0 ] && grep -q "warning: --workers 2 runs the first 2 of the 5 workers five.json describes" few.err; then
  pass "fewer --workers: $(cat few.err)"
else
  fail "fewer --workers: rc=$RC $(head -c 300 few.err)"
fi

run_capture many "$DSANA" pagerank g.bin --scenario five.json --workers 6 --quiet --max-iter 3
[ "$RC" -eq 2 ] && grep -q "5 entries for 6 workers" many.err && pass "more --workers: $(cat many.err)" ||
  fail "more --workers: rc=$RC $(head -c 300 many.err)"
finish
