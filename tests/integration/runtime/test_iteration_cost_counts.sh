#!/usr/bin/env bash
# test_iteration_cost_counts.sh - what a steady iteration costs the host,
# as the runtime counts it (usage.h) and prints in the summary: the
# scheduler's messages and the wake-ups (voluntary context switches) and
# CPU time of every role's process, per iteration from the second on.
# Counts, not times: a 4-worker, 1-server job on a small graph (compute
# ~0.05 ms an iteration) must stay within the budgets below; the runtime
# rewrite that doubled the cost of an iteration (132 wake-ups per
# iteration, 18 scheduler messages) fails them. Both modes, identical ranks
# (measured 7.7-9.7 wake-ups in bsp, 6.3-6.6 in dsana, on a busy 2-core
# machine; 13.2 and 12.6 in the sanitizer build beside a CPU-bound process,
# where slower roles sleep more: budgets 24 and 20). Then block-wise tasks on the compute threads: 2 workers on an
# emulated link (chunks) with a cost model (items long enough for the
# pool), where a compute thread runs an instance's ready blocks back to back
# and hands them back together (pool.h): measured 207-216 wake-ups an
# iteration; 266-273 when every block was a hand-off and back. Last, 64
# workers: the scheduler's messages are 2 a worker, 2 a server and 2 a
# hand-out.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

W=4 S=1
"$DSANA" graph gen kron --scale 10 --seed 1 --out k.bin >/dev/null || die "graph gen failed"
for mode in bsp dsana; do
  run_capture "$mode" "$DSANA" pagerank k.bin --workers $W --servers $S --threads 1 --mode $mode --tol 0 \
    --max-iter 200 --quiet --metrics "$mode.jsonl" --out "$mode.tsv"
  [ "$RC" -eq 0 ] || die "$mode run failed: $(head -c 300 "$mode.err")"
  read -r msgs wake cpu steals < <(jq -r 'select(.type == "summary") | [.scheduler_messages_per_iter,
    .wakeups_per_iter, .cpu_ms_per_iter, .steals_per_iter] | map(. // "none" | tostring) | join(" ")' "$mode.jsonl")
  note "$mode: per iteration $msgs scheduler messages, $steals steals, $wake wake-ups, $cpu ms of CPU"
  [ "$msgs" != none ] && [ "$wake" != none ] && [ "$cpu" != none ] && [ "$steals" != none ] &&
    pass "$mode: the summary counts the iteration's cost" || { fail "$mode: summary without the counts"; continue; }
  # scheduler: ITER_START and one TASK_DONE per worker, SHARD_REPORT and ITER_END per server,
  # a hand-out and a report per steal at most, and (chunking: dsana) one FETCH_AHEAD per
  # worker that ran dry; +1 for heartbeats
  ahead=0
  [ "$mode" = dsana ] && ahead=$W
  budget=$(awk -v s="$steals" -v w=$W -v v=$S -v a=$ahead 'BEGIN { print 2 * w + 2 * v + 2 * s + a + 1 }')
  awk -v m="$msgs" -v b="$budget" 'BEGIN { exit !(m <= b) }' &&
    pass "$mode: $msgs scheduler messages per iteration <= $budget" ||
    fail "$mode: $msgs scheduler messages per iteration > $budget"
  wbudget=24
  [ "$mode" = dsana ] && wbudget=20
  awk -v x="$wake" -v b=$wbudget 'BEGIN { exit !(x > 0 && x <= b) }' &&
    pass "$mode: $wake wake-ups per iteration <= $wbudget" ||
    fail "$mode: $wake wake-ups per iteration (budget $wbudget)"
done
cmp -s bsp.tsv dsana.tsv && pass "identical ranks in both modes" || fail "ranks differ between bsp and dsana"

"$DSANA" graph gen kron --scale 15 --seed 3 --out k15.bin >/dev/null || die "graph gen failed"
cat >link.json <<'EOF'
{"workers": [{"speed": 1}, {"speed": 1}], "link": {"bandwidth_mbit": 1310, "latency_ms": 0.5},
 "ns_per_cost": 3, "time_scale": 8}
EOF
run_capture blocks "$DSANA" pagerank k15.bin --workers 2 --servers 1 --threads 1 --mode dsana --tol 0 \
  --max-iter 60 --quiet --scenario link.json --metrics blocks.jsonl --out blocks.tsv
[ "$RC" -eq 0 ] || die "block-wise run failed: $(head -c 300 blocks.err)"
wake=$(jq -r 'select(.type == "summary") | .wakeups_per_iter // "none"' blocks.jsonl)
note "block-wise on an emulated link: $wake wake-ups per iteration"
awk -v x="$wake" 'BEGIN { exit !(x > 0 && x <= 245) }' &&
  pass "block-wise: $wake wake-ups per iteration <= 245" || fail "block-wise: $wake wake-ups per iteration (budget 245)"

# Many workers: 64 on a cost model whose tasks (8 a worker) each take ~1 ms.
# The scheduler's messages are ITER_START and one TASK_DONE a worker,
# SHARD_REPORT and ITER_END a server, and two a hand-out beyond ITER_START
# (a report that asks for more, TASKS; steals are hand-outs too): how many
# hand-outs an iteration affords follows what a message costs the scheduler
# (policy/handout.h), so the budget counts them. Once every task is handed
# out (WIRE_F_HANDED_ALL) a worker reports once, after its last task:
# reports that asked for nothing, one more a worker, fail the budget (measured
# 196-202 with them; 132 = 2W + 2S without, where no hand-out was needed). And
# a heartbeat goes only to a role told nothing for a heartbeat's time: a
# broadcast every second added 66 an iteration of 30 ms at 64 workers.
# Where hand-outs happen, a worker's report may also find the others took
# the rest (nothing to hand it, one more report at its end): W more at most.
W=64
jq -n --argjson w $W '{workers: [range($w) | {speed: 1}], ns_per_cost: 3, time_scale: 4096}' >many.json
"$DSANA" graph gen kron --scale 12 --seed 1 --out k12.bin >/dev/null || die "graph gen failed"
run_capture many "$DSANA" pagerank k12.bin --workers $W --servers 2 --mode dsana --tol 0 --max-iter 10 --quiet \
  --scenario many.json --metrics many.jsonl
[ "$RC" -eq 0 ] || die "64-worker run failed: $(head -c 300 many.err)"
read -r msgs steals handouts < <(jq -r 'select(.type == "summary") | [.scheduler_messages_per_iter, .steals_per_iter,
  .handouts_per_iter] | map(. // "none" | tostring) | join(" ")' many.jsonl)
note "64 workers: $msgs scheduler messages, $handouts hand-outs, $steals steals per iteration"
[ "$handouts" != none ] && [ "$steals" != none ] || die "64 workers: summary without hand-outs or steals"
budget=$(awk -v h="$handouts" -v w=$W 'BEGIN { print 2 * w + 2 * 2 + 2 * h + (h > 0 ? w : 0) }')
awk -v m="$msgs" -v b="$budget" 'BEGIN { exit !(m > 0 && m <= b) }' &&
  pass "64 workers: $msgs scheduler messages per iteration <= $budget (2W + 2S + 2 a hand-out)" ||
  fail "64 workers: $msgs scheduler messages per iteration > $budget (2W + 2S + 2 a hand-out)"
finish
