#!/usr/bin/env bash
# test_pagerank_task_count.sh - how many tasks PageRank declares. Left to
# dsana (no --tasks-per-worker, no scenario), a graph too small for 16 tasks
# a worker gets fewer (each at least ~0.1 ms of work, one a worker at
# least), and the ranks are those of any other split; --tasks-per-worker and
# a scenario (whose stragglers need many tasks to balance) keep the count
# asked for. The spin-before-sleep of the in-process transport off
# (DSANA_SPIN_US=0) gives the same ranks; a malformed DSANA_SPIN_US is
# ignored with one line.
# timeout: 60 s (CTest; about ten times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 3 --out small.bin >/dev/null || die "graph gen failed"
"$DSANA" graph gen kron --scale 14 --edge-factor 16 --seed 3 --out big.bin >/dev/null || die "graph gen failed"
tasks() { jq -r 'select(.type == "summary") | .tasks' "$1"; }
run() { # NAME ARGS...: a 4-worker run whose ranks go to NAME.tsv, metrics to NAME.jsonl
  local name=$1
  shift
  run_capture "$name" "$DSANA" pagerank "$@" --workers 4 --servers 1 --threads 1 --tol 1e-12 --quiet \
    --out "$name.tsv" --metrics "$name.jsonl"
  [ "$RC" -eq 0 ] || die "$name failed: $(head -c 300 "$name.err")"
}

run auto small.bin
run asked small.bin --tasks-per-worker 16
printf '{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}, {"speed": 0.25}]}' >stragglers.json
run scen small.bin --scenario stragglers.json
DSANA_SPIN_US=0 run nospin small.bin
DSANA_SPIN_US=soon run badspin small.bin
run big big.bin

# 1024 vertices + ~8k edges: far below 4 tasks of 32768 edges + vertices
[ "$(tasks auto.jsonl)" = 4 ] && pass "a small graph left to dsana: one task a worker" ||
  fail "a small graph left to dsana: $(tasks auto.jsonl) tasks, want 4"
[ "$(tasks asked.jsonl)" = 64 ] && pass "--tasks-per-worker 16: 64 tasks" ||
  fail "--tasks-per-worker 16: $(tasks asked.jsonl) tasks, want 64"
[ "$(tasks scen.jsonl)" = 64 ] && pass "under a scenario: 16 tasks a worker" ||
  fail "under a scenario: $(tasks scen.jsonl) tasks, want 64"
# 16k vertices + 256k edges: work for (n + m) / 32768 tasks, between 4 and 64
want=$(jq -r 'select(.type == "summary") | (.input.vertices + .input.edges) / 32768 | floor
  | if . < 4 then 4 elif . > 64 then 64 else . end' big.jsonl)
[ "$(tasks big.jsonl)" = "$want" ] && [ "$want" -gt 4 ] && [ "$want" -lt 64 ] &&
  pass "a larger graph: $want tasks, as many as its work fills" ||
  fail "a larger graph: $(tasks big.jsonl) tasks, want $want"
[ "$(grep -c "DSANA_SPIN_US='soon' ignored" badspin.err)" = 1 ] && [ "$(wc -l <badspin.err)" = 1 ] &&
  pass "a malformed DSANA_SPIN_US: one line says it is ignored" || fail "DSANA_SPIN_US=soon: $(head -c 300 badspin.err)"
for other in asked scen nospin badspin; do
  cmp -s auto.tsv "$other.tsv" && pass "ranks identical: left to dsana vs $other" ||
    fail "ranks differ: left to dsana vs $other"
done
finish
