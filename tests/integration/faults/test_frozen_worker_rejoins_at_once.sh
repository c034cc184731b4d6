#!/usr/bin/env bash
# test_frozen_worker_rejoins_at_once.sh - a worker frozen (SIGSTOP) for
# longer than --peer-timeout is given up by the scheduler; when it wakes it
# says it was frozen (it does not blame the scheduler), the scheduler tells
# it to register again at its first word, and it takes part again within 3
# iterations of the wake - every time, not by a race with its own timeout.
# The ranks stay the fault-free run's bytes.
# timeout: 100 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 12 --seed 3 --out k.bin >/dev/null || die "graph gen failed"
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "ns_per_cost": 4000, "time_scale": 1}
JSON
JOB=(pagerank k.bin --isolate processes --workers 3 --servers 2 --scenario slow.json --max-iter 80 --tol 0 --peer-timeout 2 --quiet)
"$DSANA" "${JOB[@]}" --out ref.tsv || die "fault-free run failed"

for round in 1 2; do
  "$DSANA" "${JOB[@]}" --out "f$round.tsv" --metrics "f$round.jsonl" 2>"f$round.err" &
  job=$!
  w=""
  for _ in $(seq 1 100); do
    w=$(pgrep -P "$job" -f '^dsana: worker 2 ' || true)
    [ -n "$w" ] && break
    sleep 0.05
  done
  sleep 0.5
  kill -STOP "$w" 2>/dev/null || true
  sleep 3.5
  kill -CONT "$w" 2>/dev/null || true
  rc=0
  wait "$job" || rc=$?
  err=f$round.err
  woke=$(grep -m1 -o 'worker 2, given up, is heard from again in iteration [0-9]*' "$err" | grep -o '[0-9]*$' || true)
  back=$(grep -m1 -o 'worker 2 rejoined; it takes part from iteration [0-9]*' "$err" | grep -o '[0-9]*$' || true)
  tasks=$(tasks_since_rejoin "f$round.jsonl" "$err" 2)
  if [ -n "$w" ] && [ "$rc" -eq 0 ] && cmp -s ref.tsv "f$round.tsv" && grep -q "worker 2: this worker was frozen for" "$err" &&
    ! grep -q "worker 2: lost the scheduler" "$err" && [ -n "$woke" ] && [ -n "$back" ] &&
    [ "$back" -le $((woke + 3)) ] && [ "${tasks:-0}" -gt 0 ]; then
    pass "round $round: woke in iteration $woke, takes part from $back, $tasks tasks since; the same bytes"
  else
    fail "round $round (pid ${w:-not found}): rc=$rc woke=${woke:-?} back=${back:-?} tasks=${tasks:-?}: $(grep -v dropped "$err" | head -c 600)"
  fi
done
finish
