#!/usr/bin/env bash
# test_idle_connections_closed.sh - unauthenticated peers cannot exhaust a
# role's descriptors. A scheduler started with a soft descriptor limit of
# 128 (dsana raises it to the hard limit) gets 300 idle TCP connections
# that never complete ZeroMQ's handshake: within 7 s the scheduler has
# closed them all (handshake timeout 5 s), and the job, whose server and
# worker join after that, runs to the reference bytes.
# timeout: 40 s (CTest; 9-10 s under nice on a busy 2-core machine, 7 s of it waiting)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
PY=/usr/bin/python3
[ -x "$PY" ] || skip "$PY is missing"
cd "$T"
head -c 32 /dev/urandom | base64 >job.token
"$DSANA" graph gen uniform --vertices 2000 --edges 16000 --seed 8 --out g.bin >/dev/null
"$DSANA" pagerank g.bin --workers 1 --tol 1e-12 --quiet --out ref.out

port=$(free_port)
addr="tcp://127.0.0.1:$port"
(ulimit -S -n 128 && exec "$DSANA" scheduler pagerank g.bin --scheduler "$addr" --token-file job.token --workers 1 \
  --servers 1 --tol 1e-12 --quiet --out out --register-timeout 30) >s.out 2>s.err &
spid=$!
# 300 idle connections, held 7 s; then count those the scheduler closed
"$PY" - "$port" >idle.out 2>idle.err <<'PYEOF' &
import socket, sys, time
port = int(sys.argv[1])
socks, deadline = [], time.time() + 5
while len(socks) < 300 and time.time() < deadline:
    try:
        socks.append(socket.create_connection(("127.0.0.1", port), timeout=1))
    except OSError:
        time.sleep(0.05)
time.sleep(7)
closed = 0
for s in socks:
    s.setblocking(False)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                closed += 1
                break
    except (BlockingIOError, ConnectionResetError) as e:
        closed += isinstance(e, ConnectionResetError)
print(len(socks), closed)
PYEOF
wait $! || true  # the roles join once the idle connections had their 7 s
run_to "$DSANA" server --scheduler "$addr" --token-file job.token >srv.err 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file job.token >w.err 2>&1 &
src=0
wait "$spid" || src=$?
wait || true
if [ "$src" -eq 0 ] && cmp -s ref.out out; then
  pass "job with 300 idle connections at a soft limit of 128 descriptors: the reference bytes"
else
  fail "job with idle connections: rc=$src $(head -c 300 s.err)"
fi
read -r opened closed <idle.out || true
if [ "${opened:-0}" -ge 250 ] && [ "${closed:-0}" -eq "$opened" ]; then
  pass "the scheduler closed all $opened idle connections after its handshake timeout"
else
  fail "idle connections: opened ${opened:-?}, closed by the scheduler ${closed:-?} $(head -c 200 idle.err)"
fi
finish
