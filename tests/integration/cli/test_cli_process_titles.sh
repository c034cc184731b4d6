#!/usr/bin/env bash
# test_cli_process_titles.sh - the roles of a local job are told apart in
# ps and top: each process's title (/proc/PID/cmdline) reads
# "dsana: scheduler (job DIR)", "dsana: server 0 (job DIR)", "dsana:
# worker 1 (job DIR)" with the job's folder, and its kernel name
# (/proc/PID/comm) "dsana-sched", "dsana-srv-0", "dsana-wrk-1". Roles
# started on their own (dsana scheduler|server|worker) name the scheduler's
# address instead, and a server or worker its index once it has joined.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" graph gen kron --scale 12 --seed 1 --out g.bin >/dev/null || die "graph gen failed"
"$DSANA" pagerank g.bin --isolate processes --workers 2 --max-iter 1000000 --tol 0 --quiet >run.out 2>run.err &
launcher=$!
trap 'kill -KILL $launcher 2>/dev/null || true; lib_cleanup' EXIT

# wait (up to 60 s) until the scheduler, a server and two workers run
titles=""
for _ in $(seq 600); do
  titles=""
  for pid in $(pgrep -P "$launcher" || true); do
    titles+="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)|$(cat "/proc/$pid/comm" 2>/dev/null)"$'\n'
  done
  [ "$(grep -c '(job ' <<<"$titles")" -ge 4 ] && break
  sleep 0.1
done
dir=$(ls -d tmp/dsana-* 2>/dev/null | head -n 1)
dir=$T/$dir
for want in "dsana: scheduler (job $dir)|dsana-sched" "dsana: server 0 (job $dir)|dsana-srv-0" \
  "dsana: worker 0 (job $dir)|dsana-wrk-0" "dsana: worker 1 (job $dir)|dsana-wrk-1"; do
  if grep -qF -- "$want" <<<"$(sed 's/ *|/|/' <<<"$titles")"; then
    pass "a role titled '$want'"
  else
    fail "no role titled '$want'; titles: $(tr '\n' ';' <<<"$titles")"
  fi
done
kill -TERM "$launcher"
wait "$launcher" || true

# roles started on their own: the scheduler names its address; a server or
# worker, whose index the scheduler hands out, names it once it joined
# (they showed "dsana: worker (scheduler ...)" however many ran on a machine)
head -c 32 /dev/urandom | base64 >job.token
port=$(free_port)
addr="tcp://127.0.0.1:$port"
common=(--scheduler "$addr" --token-file job.token --peer-timeout 60)
"$DSANA" scheduler pagerank g.bin "${common[@]}" --workers 2 --servers 1 --max-iter 1000000 --tol 0 \
  --quiet >sched.out 2>sched.err &
sched=$!
"$DSANA" server "${common[@]}" >server.out 2>server.err &
server=$!
"$DSANA" worker "${common[@]}" >worker0.out 2>worker0.err &
worker0=$!
"$DSANA" worker "${common[@]}" >worker1.out 2>worker1.err &
worker1=$!
trap 'kill -KILL $launcher $sched $server $worker0 $worker1 2>/dev/null || true; lib_cleanup' EXIT
# title PID: "title|kernel name" of process PID
title() {
  echo "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | sed 's/ *$//')|$(cat "/proc/$1/comm" 2>/dev/null)"
}
titles=""
for _ in $(seq 600); do
  titles="$(title $sched)"$'\n'"$(title $server)"$'\n'"$(title $worker0)"$'\n'"$(title $worker1)"
  [ "$(grep -Ec '^dsana: (scheduler|server [0-9]|worker [0-9])' <<<"$titles")" -ge 4 ] && break
  sleep 0.1
done
for want in "dsana: scheduler (listening on $addr)|dsana-sched" "dsana: server 0 (scheduler $addr)|dsana-srv-0" \
  "dsana: worker 0 (scheduler $addr)|dsana-wrk-0" "dsana: worker 1 (scheduler $addr)|dsana-wrk-1"; do
  if grep -qxF -- "$want" <<<"$titles"; then
    pass "a role started on its own titled '$want'"
  else
    fail "no role started on its own titled '$want'; titles: $(tr '\n' ';' <<<"$titles")"
  fi
done
kill -TERM "$sched" "$server" "$worker0" "$worker1" 2>/dev/null || true
wait "$sched" "$server" "$worker0" "$worker1" || true
finish
