#!/usr/bin/env bash
# test_thread_names.sh - every thread of a job says its role in ps -L, top
# -H and /proc/PID/task/TID/comm: as threads of one process (the default,
# --isolate threads) the scheduler is "dsana-sched", server i
# "dsana-srv-i", worker i "dsana-wrk-i" and its compute threads
# "dsana-wrk-i.t0", "dsana-wrk-i.t1" ... (they were all "dsana"); as
# processes, a worker's compute threads are named the same way. Only the
# launcher's own thread keeps the program's name. The job runs until the
# names are read (polled, at most 60 s), then is stopped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
[ -d /proc/self/task ] || skip "no /proc/PID/task here: thread names cannot be read"
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" graph gen kron --scale 14 --seed 1 --out g.bin >/dev/null || die "graph gen failed"

job=""
trap 'if [ -n "$job" ]; then kill -KILL $job 2>/dev/null || true; fi; lib_cleanup' EXIT

# names PID...: "TID name" of every thread of the processes PID... (a
# thread that ends between the listing and the read of its name is left
# out: it is gone, and its name was never read)
names() {
  local p t n
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      n=$(cat "$t/comm" 2>/dev/null) || continue
      echo "${t##*/} $n"
    done
  done
}

# wait_names WANT... : poll (every 0.1 s, at most 60 s) until every WANT is
# the name of a thread of $job (with, as processes, its children); the
# names seen are in $seen
wait_names() {
  local missing w
  for _ in $(seq 600); do
    seen=$(names "$job" $(pgrep -P "$job" || true) 2>/dev/null || true)
    missing=0
    for w in "$@"; do
      grep -qx "[0-9]* $w" <<<"$seen" || missing=1
    done
    [ "$missing" -eq 0 ] && return 0
    kill -0 "$job" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

want=(dsana-sched dsana-srv-0 dsana-srv-1 dsana-wrk-0 dsana-wrk-1 dsana-wrk-0.t0 dsana-wrk-0.t1 dsana-wrk-1.t0
  dsana-wrk-1.t1)
"$DSANA" pagerank g.bin --isolate threads --workers 2 --servers 2 --threads 2 --max-iter 1000000 --tol 0 --quiet \
  >threads.out 2>threads.err &
job=$!
if wait_names "${want[@]}"; then
  pass "as threads: ${want[*]}"
else
  fail "as threads: not every role's thread is named (want ${want[*]}); seen: $(tr '\n' ';' <<<"$seen"); $(head -c 300 threads.err)"
fi
# every thread but the launcher's own (its id is the process's) names its role
others=$(awk -v pid="$job" '$1 != pid && $2 !~ /^dsana-/ { print }' <<<"$seen")
if [ -z "$others" ]; then
  pass "as threads: no thread but the launcher's is called plain 'dsana'"
else
  fail "as threads: threads without a role's name: $(tr '\n' ';' <<<"$others")"
fi
kill -TERM "$job"
wait "$job" || true
job=""

want=(dsana-sched dsana-srv-0 dsana-wrk-0 dsana-wrk-1 dsana-wrk-0.t0 dsana-wrk-0.t1 dsana-wrk-1.t0 dsana-wrk-1.t1)
"$DSANA" pagerank g.bin --isolate processes --workers 2 --servers 1 --threads 2 --max-iter 1000000 --tol 0 --quiet \
  >procs.out 2>procs.err &
job=$!
if wait_names "${want[@]}"; then
  pass "as processes: ${want[*]}"
else
  fail "as processes: not every role's thread is named (want ${want[*]}); seen: $(tr '\n' ';' <<<"$seen"); $(head -c 300 procs.err)"
fi
kill -TERM "$job"
wait "$job" || true
job=""
finish
