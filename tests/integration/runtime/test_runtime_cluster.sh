#!/usr/bin/env bash
# test_runtime_cluster.sh - real processes: local clusters of several
# shapes, separately started roles over tcp, a worker dying mid-run, and a
# registration timeout that names who did not arrive.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins
head -c 32 /dev/urandom | base64 >"$T/job.token"

# A deterministic graph with dangling vertices and self loops (awk LCG).
awk 'BEGIN { s = 12345; for (i = 0; i < 6000; i++) {
  s = (s * 1103515245 + 12345) % 2147483648; u = s % 800
  s = (s * 1103515245 + 12345) % 2147483648; v = s % 900
  print u "\t" v } }' >"$T/g.txt"
"$REF_PAGERANK" "$T/g.txt" --tol 1e-12 --max-iter 300 >"$T/ref.out"

run_shape() { # workers servers
  run_capture "c$1x$2" "$DSANA" pagerank "$T/g.txt" --workers "$1" --servers "$2" --tol 1e-12 --max-iter 300 \
    --out "$T/out.$1.$2" --quiet
  if [ "$RC" -eq 0 ] && "$REF_PAGERANK" --compare "$T/out.$1.$2" "$T/ref.out" --max-diff 1e-9 >/dev/null; then
    pass "$1 worker(s) + $2 server(s) match the reference"
  else
    fail "$1 worker(s) + $2 server(s): rc=$RC $(head -c 300 "$T/c$1x$2.err")"
  fi
}
run_shape 1 1
run_shape 3 2

# Separately started roles over tcp (as on several machines).
port=$(free_port)
addr="tcp://127.0.0.1:$port"
"$DSANA" scheduler pagerank "$T/g.txt" --scheduler "$addr" --token-file "$T/job.token" --workers 2 --servers 1 --tol 1e-12 --max-iter 300 \
  --out "$T/out.tcp" --quiet --register-timeout 20 >"$T/sched.out" 2>"$T/sched.err" &
spid=$!
run_to "$DSANA" server --scheduler "$addr" --token-file "$T/job.token" >"$T/srv.err" 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" >"$T/w0.err" 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" >"$T/w1.err" 2>&1 &
if wait "$spid" && wait && cmp -s "$T/out.tcp" "$T/out.1.1"; then
  pass "scheduler, server and workers started separately over tcp give the same bytes"
else
  fail "separate roles over tcp: $(cat "$T/sched.err" "$T/srv.err" "$T/w0.err" | head -c 400)"
fi

# A worker that dies mid-run with --on-worker-loss fail: the job fails fast
# and names it.
start=$(date +%s)
DSANA_FAULT="worker=1,iter=3,point=before-push,how=kill" run_capture crash "$DSANA" pagerank "$T/g.txt" \
  --workers 3 --servers 2 --tol 1e-12 --quiet --out "$T/out.crash" --on-worker-loss fail --sched static
took=$(($(date +%s) - start))
if [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] && grep -q "worker 1 (pid [0-9]*) was killed by signal 9" "$T/crash.err" &&
  [ ! -e "$T/out.crash" ] && [ "$took" -le 20 ]; then
  pass "killed worker reported within ${took}s: $(grep -m1 'worker 1' "$T/crash.err")"
else
  fail "killed worker: rc=$RC took=${took}s stderr: $(head -c 400 "$T/crash.err")"
fi
DSANA_FAULT="worker=0,iter=2,point=before-task,how=exit" run_capture exit "$DSANA" pagerank "$T/g.txt" \
  --workers 2 --quiet --on-worker-loss fail
if [ "$RC" -eq 1 ] && grep -q "worker 0 (pid [0-9]*) exited with code 5" "$T/exit.err"; then
  pass "worker exiting with an error is reported with its exit code"
else
  fail "exiting worker: rc=$RC $(head -c 300 "$T/exit.err")"
fi

# Nobody joins: the scheduler times out and names the missing roles.
port=$(free_port)
run_capture regto "$DSANA" scheduler pagerank "$T/g.txt" --scheduler "tcp://127.0.0.1:$port" --token-file "$T/job.token" --workers 2 \
  --servers 1 --register-timeout 1 --quiet
if [ "$RC" -ne 0 ] && grep -q "missing: server 0, worker 0, worker 1" "$T/regto.err"; then
  pass "registration timeout names the missing roles"
else
  fail "registration timeout: rc=$RC $(head -c 300 "$T/regto.err")"
fi

# A server or worker whose scheduler never answers gives up with a message.
run_capture noshed "$DSANA" worker --scheduler "tcp://127.0.0.1:$port" --token-file "$T/job.token" --register-timeout 1
if [ "$RC" -ne 0 ] && grep -q "timed out" "$T/noshed.err"; then
  pass "worker without a scheduler times out with a message"
else
  fail "worker without scheduler: rc=$RC $(head -c 300 "$T/noshed.err")"
fi
finish
