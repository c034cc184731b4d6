#!/usr/bin/env bash
# test_remote_role_failure_reported.sh - roles started on their own, the
# server and the worker in another folder where the scheduler's relative
# graph path does not exist: the scheduler prints one line naming the role
# and why it failed ("No such file or directory") and stops - no "cannot
# send" lines, no waiting out the peer timeout (60 s here, so without the
# report the scheduler would only say "silent" much later).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir a b
head -c 32 /dev/urandom | base64 >job.token
printf '1 2\n2 3\n3 1\n' >a/wv.txt
port=$(free_port)
addr="tcp://127.0.0.1:$port"
common=(--scheduler "$addr" --token-file "$T/job.token")

(cd a && exec timeout 100 "$DSANA" scheduler pagerank wv.txt "${common[@]}" --workers 1 --servers 1 --quiet \
  --peer-timeout 60) >sched.out 2>sched.err &
sched=$!
(cd b && exec timeout 100 "$DSANA" server "${common[@]}" --peer-timeout 60) >server.out 2>server.err &
server=$!
(cd b && exec timeout 100 "$DSANA" worker "${common[@]}" --peer-timeout 60) >worker.out 2>worker.err &
worker=$!
rc=0
wait "$sched" || rc=$?
wait "$server" || true
wait "$worker" || true

if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$(stderr_lines sched.err)" -eq 1 ] &&
  grep -Eq "(server|worker) 0 failed: wv.txt: No such file or directory" sched.err; then
  pass "the scheduler names the failed role and why, in one line: $(cat sched.err)"
else
  fail "scheduler: rc=$rc (124 = timed out), stderr: $(head -c 400 sched.err)"
fi
if grep -q "cannot send" sched.err server.err worker.err; then
  fail "'cannot send' lines: $(grep -h "cannot send" sched.err server.err worker.err | head -n 3)"
else
  pass "no 'cannot send' lines"
fi
grep -q "wv.txt: No such file" server.err && pass "the server says it too: $(head -n 1 server.err)" ||
  fail "server stderr: $(head -c 200 server.err)"
finish
