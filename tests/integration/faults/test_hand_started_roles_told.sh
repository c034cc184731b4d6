#!/usr/bin/env bash
# test_hand_started_roles_told.sh - roles started by hand hear what
# happens: Ctrl-C on `dsana scheduler` tells every server and worker, which
# end with success within a second saying the scheduler ended the job (the
# scheduler dies of its signal); a worker with the wrong token says within
# 2 s that no answer came and what the likely causes are (address, token),
# not only after --register-timeout (the test waits up to 6 s, its start
# included, which a sanitizer build on a busy machine stretches).
# timeout: 40 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
"$DSANA" graph gen kron --scale 10 --seed 3 --out g.bin >/dev/null || die "graph gen failed"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >tok
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >bad
addr="tcp://127.0.0.1:$(free_port)"
now() { date +%s%N; }

# (a background job of a script starts with SIGINT ignored: give it back)
env --default-signal=INT "$DSANA" scheduler pagerank g.bin --scheduler "$addr" --token-file tok --workers 1 --servers 1 \
  --max-iter 1000000 --tol 0 --quiet 2>sched.err &
s=$!
"$DSANA" server --scheduler "$addr" --token-file tok 2>server.err &
v=$!
"$DSANA" worker --scheduler "$addr" --token-file tok 2>worker.err &
w=$!
for _ in $(seq 1 100); do
  grep -q "iteration\|joined\|registered" sched.err server.err worker.err 2>/dev/null && break
  [ -s sched.err ] && break
  sleep 0.05
done
sleep 1.5
kill -INT "$s"
t0=$(now)
rs=0; wait "$s" || rs=$?
rv=0; wait "$v" || rv=$?
rw=0; wait "$w" || rw=$?
ms=$((($(now) - t0) / 1000000))
if [ "$rs" -eq 130 ] && [ "$rv" -eq 0 ] && [ "$rw" -eq 0 ] && [ "$ms" -lt 2000 ] &&
  grep -q "server 0: the scheduler ended the job" server.err && grep -q "worker 0: the scheduler ended the job" worker.err; then
  pass "Ctrl-C on the scheduler: server and worker end with 0 after ${ms} ms: $(tail -n1 worker.err)"
else
  fail "Ctrl-C: scheduler rc=$rs server rc=$rv worker rc=$rw after ${ms} ms: $(tail -n2 sched.err server.err worker.err)"
fi

# A wrong token: no answer, said within 2 s (the scheduler is up).
env --default-signal=INT "$DSANA" scheduler pagerank g.bin --scheduler "$addr" --token-file tok --workers 1 --servers 1 \
  --max-iter 5 --tol 0 --quiet --register-timeout 8 2>sched2.err &
s=$!
sleep 0.3
"$DSANA" worker --scheduler "$addr" --token-file bad 2>wrong.err &
w=$!
for _ in $(seq 1 60); do
  grep -q "no answer yet" wrong.err 2>/dev/null && break
  sleep 0.1
done
kill "$w" "$s" 2>/dev/null || true
wait "$w" 2>/dev/null || true
wait "$s" 2>/dev/null || true
if grep -q "no answer yet from the scheduler at $addr: is it running there, and is --token-file the job's" wrong.err; then
  pass "wrong token, said before --register-timeout: $(head -n1 wrong.err)"
else
  fail "wrong token: nothing said within 6 s (before --register-timeout 8): $(head -c 300 wrong.err)"
fi
finish
