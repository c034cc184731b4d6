#!/usr/bin/env bash
# test_recovery_worker_rejoins.sh - a lost worker comes back. A worker
# frozen (SIGSTOP) for longer than --peer-timeout is lost, ends itself
# when it wakes, is started again by the local launcher, re-registers and
# runs tasks again from a later iteration; a SIGKILLed worker likewise. The
# ranks stay the fault-free run's bytes.
# timeout: 70 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 12 --seed 3 --out k.bin >/dev/null || die "graph gen failed"
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "ns_per_cost": 2000, "time_scale": 1}
JSON
JOB=(pagerank k.bin --isolate processes --workers 3 --scenario slow.json --max-iter 120 --tol 0 --peer-timeout 2 --quiet)
"$DSANA" "${JOB[@]}" --out ref.tsv || die "fault-free run failed"

for how in STOP KILL; do
  "$DSANA" "${JOB[@]}" --out "$how.tsv" --metrics "$how.jsonl" 2>"$how.err" &
  job=$!
  w=""
  for _ in $(seq 1 100); do
    w=$(pgrep -P "$job" -f '^dsana: worker 1 ' || true)
    [ -n "$w" ] && break
    sleep 0.05
  done
  sleep 0.5
  if [ "$how" = STOP ]; then
    kill -STOP "$w" 2>/dev/null || true
    sleep 4
    kill -CONT "$w" 2>/dev/null || true
  else
    kill -KILL "$w" 2>/dev/null || true
  fi
  rc=0
  wait "$job" || rc=$?
  last=$(tasks_since_rejoin "$how.jsonl" "$how.err" 1)
  if [ -n "$w" ] && [ "$rc" -eq 0 ] && cmp -s ref.tsv "$how.tsv" && grep -q "worker 1 rejoined" "$how.err" &&
    [ "${last:-0}" -gt 0 ]; then
    pass "SIG$how worker 1: $(grep -m1 -o 'worker 1 rejoined.*' "$how.err"); $last tasks since; the same bytes"
  else
    fail "SIG$how worker 1 (pid ${w:-not found}): rc=$rc, tasks since the rejoin ${last:-?}: $(head -c 400 "$how.err")"
  fi
done
finish
