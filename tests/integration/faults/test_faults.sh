#!/usr/bin/env bash
# test_faults.sh - a worker SIGKILLed in the middle of an iteration (before
# its push, in the middle of it, after it) costs time, not correctness: the
# job finishes with output byte-identical to an undisturbed run. A
# replacement worker can join a running job and gets tasks. Every case
# checks that its fault fired: the injector's line ("worker N: fault
# injection: dying at iteration I") and the launcher's or scheduler's word
# on the loss. The jobs run their roles as processes (--isolate processes),
# the only way a worker can die alone.
# timeout: 60 s (CTest; 12-16 s under nice on a busy 2-core machine)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins
head -c 32 /dev/urandom | base64 >"$T/job.token"

"$DSANA" graph gen uniform --vertices 3000 --edges 30000 --seed 4 --out "$T/g.bin" >/dev/null
common=(--workers 3 --servers 2 --tol 1e-12 --quiet --sched static --peer-timeout 2 --isolate processes)
run_capture ref "$DSANA" pagerank "$T/g.bin" "${common[@]}" --out "$T/ref.out"
[ "$RC" -eq 0 ] || die "reference run failed: $(cat "$T/ref.err")"

faults=0
for point in before-task before-push mid-push after-push; do
  DSANA_FAULT="worker=1,iter=3,point=$point,how=kill" run_capture "$point" "$DSANA" pagerank "$T/g.bin" \
    "${common[@]}" --out "$T/$point.out"
  faults=$((faults + 1))
  if [ "$RC" -eq 0 ] && cmp -s "$T/ref.out" "$T/$point.out" &&
    grep -q "worker 1: fault injection: dying at iteration 3" "$T/$point.err" &&
    grep -q "worker 1 lost" "$T/$point.err"; then
    pass "worker killed at $point of iteration 3: job finished, output identical"
  else
    fail "worker killed at $point: rc=$RC $(head -c 400 "$T/$point.err")"
  fi
done
DSANA_FAULT="worker=0,iter=2,point=mid-push,how=exit" run_capture dyn "$DSANA" pagerank "$T/g.bin" --workers 3 \
  --servers 2 --tol 1e-12 --quiet --mode dsana --peer-timeout 2 --isolate processes --out "$T/dyn.out"
faults=$((faults + 1))
if [ "$RC" -eq 0 ] && cmp -s "$T/ref.out" "$T/dyn.out" &&
  grep -q "worker 0: fault injection: dying at iteration 2" "$T/dyn.err" &&
  grep -q "worker 0 (pid [0-9]*) exited with code 5" "$T/dyn.err" && grep -q "worker 0 lost" "$T/dyn.err"; then
  pass "worker exiting mid-push under --mode dsana (exit 5, seen lost): identical"
else
  fail "dsana mode worker loss: rc=$RC $(head -c 400 "$T/dyn.err")"
fi

# A replacement joins a running job over tcp (slowed down by the scenario
# so that the job is still running when the replacement arrives).
printf '{"workers": [{"speed": 1}, {"speed": 1}], "time_scale": 40}' >"$T/slow.json"
port=$(free_port)
addr="tcp://127.0.0.1:$port"
"$DSANA" scheduler pagerank "$T/g.bin" --scheduler "$addr" --token-file "$T/job.token" --workers 2 --servers 1 --tol 0 --max-iter 300 \
  --out "$T/join.out" --quiet --peer-timeout 2 --metrics "$T/join.jsonl" --scenario "$T/slow.json" \
  >"$T/js.out" 2>"$T/js.err" &
spid=$!
run_to "$DSANA" server --scheduler "$addr" --token-file "$T/job.token" >"$T/jsrv.err" 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --index 0 >"$T/jw0.err" 2>&1 &
DSANA_FAULT="worker=1,iter=5,point=before-push,how=kill" run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --index 1 \
  >"$T/jw1.err" 2>&1 &
# wait (bounded) for the loss to be noticed, then start the replacement
for _ in $(seq 1 100); do grep -q "worker 1 lost" "$T/js.err" && break; sleep 0.1; done
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --register-timeout 10 >"$T/jw2.err" 2>&1 &
faults=$((faults + 1))
if wait "$spid"; then
  "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 1 --tol 0 --max-iter 300 --quiet --out "$T/join.ref"
  late=$(tasks_since_rejoin "$T/join.jsonl" "$T/js.err" 1)
  if cmp -s "$T/join.out" "$T/join.ref" && grep -q "fault injection: dying at iteration 5" "$T/jw1.err" &&
    grep -q "worker 1 lost" "$T/js.err" && grep -q "worker 1 rejoined" "$T/js.err" && [ "$late" -gt 0 ]; then
    pass "replacement worker joined mid-run and ran tasks ($late since it joined); output identical"
  else
    fail "replacement: late tasks=$late $(head -c 400 "$T/js.err") worker 1: $(head -c 200 "$T/jw1.err")"
  fi
else
  fail "scheduler with a replacement worker failed: $(head -c 400 "$T/js.err")"
fi
# A replacement that arrives before the loss is declared waits for the
# place: worker 1 is frozen (SIGSTOP), the replacement registers at once,
# and joins when worker 1 is lost after --peer-timeout.
port=$(free_port)
addr="tcp://127.0.0.1:$port"
printf '{"workers": [{"speed": 1}, {"speed": 1}], "ns_per_cost": 2000, "time_scale": 1}' >"$T/slow2.json"
"$DSANA" pagerank "$T/g.bin" --workers 2 --servers 1 --tol 0 --max-iter 100 --quiet --out "$T/wait.ref"
"$DSANA" scheduler pagerank "$T/g.bin" --scheduler "$addr" --token-file "$T/job.token" --workers 2 --servers 1 --tol 0 \
  --max-iter 100 --out "$T/wait.out" --quiet --peer-timeout 2 --metrics "$T/wait.jsonl" --scenario "$T/slow2.json" \
  >"$T/ws.out" 2>"$T/ws.err" &
spid=$!
run_to "$DSANA" server --scheduler "$addr" --token-file "$T/job.token" >"$T/wsrv.err" 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --index 0 >"$T/ww0.err" 2>&1 &
"$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --index 1 >"$T/ww1.err" 2>&1 &
frozen=$!
sleep 0.7 # registered and computing (the job takes ~3 s)
kill -STOP "$frozen" 2>/dev/null || true
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" --index 1 --register-timeout 20 >"$T/ww2.err" 2>&1 &
faults=$((faults + 1))
src=0
wait "$spid" || src=$?
kill -KILL "$frozen" 2>/dev/null || true
late=$(tasks_since_rejoin "$T/wait.jsonl" "$T/ws.err" 1)
if [ "$src" -eq 0 ] && cmp -s "$T/wait.out" "$T/wait.ref" && grep -q "waits for a lost worker's place" "$T/ws.err" &&
  grep -q "worker 1 rejoined" "$T/ws.err" && [ "${late:-0}" -gt 0 ]; then
  pass "a replacement that came before the loss waited for the place, then ran tasks ($late since it joined)"
else
  fail "waiting replacement: rc=$src late tasks=${late:-?} $(head -c 400 "$T/ws.err")"
fi
wait || true

# The only worker killed: no restart that cannot help, no tasks handed to
# workers that do not exist; the job stops saying why.
DSANA_FAULT="worker=0,iter=3,point=mid-push,how=kill" run_capture lone "$DSANA" pagerank "$T/g.bin" --workers 1 \
  --max-iter 20 --quiet --isolate processes
faults=$((faults + 1))
if [ "$RC" -eq 1 ] && grep -q "worker 0: fault injection: dying at iteration 3" "$T/lone.err" &&
  grep -q "no other worker is left: stopping the job" "$T/lone.err" &&
  ! grep -q "started again\|hands its tasks" "$T/lone.err"; then
  pass "the only worker killed: $(grep -m1 'no other worker' "$T/lone.err")"
else
  fail "the only worker killed: rc=$RC $(head -c 400 "$T/lone.err")"
fi
echo "faults injected: $faults"
finish
