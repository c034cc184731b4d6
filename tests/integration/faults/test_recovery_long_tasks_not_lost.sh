#!/usr/bin/env bash
# test_recovery_long_tasks_not_lost.sh - heartbeats do not stop while a
# task runs. Every task of the job takes more than 3x --peer-timeout (one
# task per worker, compute stretched by a scenario's cost model), yet no
# worker is lost and the ranks are the plain run's, byte for byte.
# timeout: 40 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 4 --out k.bin >/dev/null || die "graph gen failed"
# a task of a worker is ~4,600 cost units: 1.4 ms each makes it ~6.4 s
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}], "ns_per_cost": 1400000, "time_scale": 1}
JSON
"$DSANA" pagerank k.bin --max-iter 2 --tol 0 --quiet --out plain.tsv || die "plain run failed"
run_capture slow "$DSANA" pagerank k.bin --scenario slow.json --tasks-per-worker 1 --max-iter 2 --tol 0 \
  --peer-timeout 2 --quiet --out slow.tsv --metrics slow.jsonl
shortest=$(jq -s '[.[] | select(.type == "worker") | .compute_s] | min' slow.jsonl 2>/dev/null || echo 0)
if [ "$RC" -eq 0 ] && ! grep -q lost slow.err && cmp -s plain.tsv slow.tsv &&
  awk -v s="$shortest" 'BEGIN { exit !(s > 6) }'; then
  pass "tasks of ${shortest} s at --peer-timeout 2: no worker lost, the plain run's bytes"
else
  fail "long tasks: rc=$RC shortest task ${shortest} s: $(head -c 300 slow.err)"
fi
finish
