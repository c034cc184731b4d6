#!/usr/bin/env bash
# test_tiny_pushes_merge_across_gaps.sh - a task that computes for less than
# 50 us keeps its pushes to leave with the next tasks' (runtime/core/rules.h),
# one message per server ending them all. A dynamic plan gives a worker tasks
# that are not adjacent (largest first, each to the worker predicted to finish
# it first; workers of equal speed get contiguous ranges instead, so two of
# them here run at half speed); their values still go as one message, each
# task's over its own range. On an emulated cluster whose tasks are tiny (their modelled time is
# what counts: no timing here), in iterations 3 to 8, the servers take fewer
# push messages than there are tasks less adjacent pairs among each worker's
# tasks, which merging adjacent tasks alone cannot reach; the run really was
# dynamic, and its ranks are byte-identical to plain BSP's.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
command -v jq >/dev/null || skip "jq missing"
cd "$T"

"$DSANA" graph gen kron --scale 14 --seed 5 --out k.bin >/dev/null || die "graph gen failed"
cat >cloud.json <<'J'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}, {"speed": 0.5}],
 "link": {"bandwidth_mbit": 1000, "latency_ms": 0.1}, "ns_per_cost": 1, "time_scale": 4}
J
run_capture dyn "$DSANA" pagerank k.bin --workers 4 --servers 2 --sched dynamic --chunk off --tol 0 --max-iter 8 \
  --quiet --scenario cloud.json --trace dyn.json --metrics dyn.jsonl --out dyn.tsv
[ "$RC" -eq 0 ] || die "dynamic run failed: $(head -c 300 dyn.err)"
run_capture bsp "$DSANA" pagerank k.bin --workers 2 --servers 1 --mode bsp --tol 0 --max-iter 8 --quiet --out bsp.tsv
[ "$RC" -eq 0 ] || die "bsp run failed: $(head -c 300 bsp.err)"

sched=$(jq -r 'select(.type == "summary") | .sched' dyn.jsonl)
[ "$sched" = dynamic ] && pass "the run's plan was dynamic" || fail "the run's plan was '$sched', not dynamic"

# per iteration from 3 on: tasks, adjacent pairs among each worker's tasks, push messages taken
jq -r '[.traceEvents[] | select(.ph == "X" and .args.iter >= 3)] | group_by(.args.iter)[]
  | (map(select(.name == "push")) | group_by([.pid, .tid])
     | map(map(.args.task) | sort | [range(1; length) as $i | select(.[$i] == .[$i - 1] + 1)] | length) | add // 0) as $adj
  | "\(.[0].args.iter) \(map(select(.name == "push")) | length) \($adj) \(map(select(.name == "push in")) | length)"' \
  dyn.json >counts.txt
n=$(wc -l <counts.txt)
below=$(awk '$4 < $2 - $3 { k++ } END { print k + 0 }' counts.txt)
note "iteration, tasks, adjacent pairs, push messages: $(tr '\n' ';' <counts.txt)"
[ "$n" -ge 5 ] && [ "$below" -eq "$n" ] &&
  pass "pushes merged across gaps: in $below of $n iterations fewer messages than tasks less adjacent pairs" ||
  fail "pushes merged across gaps in $below of $n iterations (tasks, adjacent pairs, messages: $(tr '\n' ';' <counts.txt))"

cmp -s dyn.tsv bsp.tsv && pass "ranks byte-identical to plain BSP" || fail "ranks differ from plain BSP"
finish
