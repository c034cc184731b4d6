#!/usr/bin/env bash
# test_stopped_job_leaves_nothing.sh - a local job stopped by SIGINT,
# SIGTERM or SIGKILL of its launcher leaves nothing in $TMPDIR: no job
# folder (sockets, shared tables, trace parts), no converted graph or
# dataset (those are anonymous files: never visible by name, even while
# the job runs). SIGINT and SIGTERM stop the roles and the command dies of
# the signal (exit status 128+N); after SIGKILL the janitor cleans up. In
# every case none of the launcher's children (the roles, the janitor)
# outlives the job.
# timeout: 40 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" graph gen kron --scale 13 --seed 1 --out g.txt >/dev/null || die "graph gen failed"
"$DSANA" data gen logreg --samples 20000 --features 200 --nnz-per-row 10 --seed 1 --out d.svm >/dev/null ||
  die "data gen failed"
echo '{"workers": [{"speed": 1}, {"speed": 1}], "link": {"latency_ms": 100}}' >slow.json
launcher=0
trap 'kill -KILL $launcher 2>/dev/null || true; lib_cleanup' EXIT

# wait_running: until the job's roles run (its folder has the scheduler's socket)
wait_running() {
  for _ in $(seq 600); do
    [ -S "$(ls -d tmp/dsana-*/ 2>/dev/null | head -n 1)scheduler" ] && [ "$(pgrep -c -P "$launcher")" -ge 4 ] && return 0
    sleep 0.1
  done
  return 1
}

# gone_within SECONDS: until $TMPDIR is empty (the janitor works after the launcher died)
gone_within() {
  for _ in $(seq $(($1 * 10))); do
    [ -z "$(ls -A tmp)" ] && return 0
    sleep 0.1
  done
  return 1
}

# alive PID...: those of PID... that still run (a zombie is not running)
alive() {
  local p left=
  for p in "$@"; do
    [ -e "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] && left+="$p "
  done
  echo "${left% }"
}

# roles_gone_within SECONDS PID...: until none of PID... runs (each polled, not timed)
roles_gone_within() {
  local s=$1
  shift
  for _ in $(seq $((s * 10))); do
    [ -z "$(alive "$@")" ] && return 0
    sleep 0.1
  done
  return 1
}

for app in pagerank logreg; do
  for sig in INT TERM KILL; do
    if [ "$app" = pagerank ]; then
      cmd=("$DSANA" pagerank g.txt --isolate processes --workers 2 --max-iter 1000000 --tol 0 --quiet --trace t.json)
    else
      # L-BFGS converges here in 38 iterations (0.3 s), even at --tol 0: 100 ms of emulated
      # latency per message keeps it running (~20 s) until the signal comes
      cmd=("$DSANA" logreg d.svm --isolate processes --workers 2 --max-iter 1000000 --tol 0 --quiet --trace t.json
        --scenario slow.json)
    fi
    # a script's background job starts with SIGINT ignored (POSIX), and dsana
    # keeps a stop signal ignored at its start ignored (nohup): give it the
    # default, as a terminal's foreground job has
    env --default-signal=INT "${cmd[@]}" >"$app.$sig.out" 2>"$app.$sig.err" &
    launcher=$!
    if ! wait_running; then
      fail "$app SIG$sig: the job did not start: $(head -c 300 "$app.$sig.err")"
      continue
    fi
    during=$(ls -A tmp | tr '\n' ' ')
    during=${during% }
    mapfile -t roles < <(pgrep -P "$launcher") # scheduler, server, workers (and the janitor)
    kill -"$sig" "$launcher"
    rc=0
    wait "$launcher" || rc=$?
    want=$((128 + $(kill -l "$sig")))
    if [ "$rc" -eq "$want" ] && gone_within 10 && [ "$(echo "$during" | wc -w)" -eq 1 ] &&
      [[ $during == dsana-?????? ]]; then
      pass "$app SIG$sig: exit $rc, nothing left in \$TMPDIR (while running only the job folder $during)"
    else
      fail "$app SIG$sig: exit $rc (expected $want), while running: $during, left: $(ls -A tmp | tr '\n' ' '), $(head -c 200 "$app.$sig.err")"
    fi
    # the signal reaches the roles: none of the ${#roles[@]} processes outlives the job
    if roles_gone_within 10 "${roles[@]}"; then
      pass "$app SIG$sig: all ${#roles[@]} role processes ended"
    else
      left=$(alive "${roles[@]}")
      fail "$app SIG$sig: still running after 10 s: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline"; echo -n '; '; done)"
      kill -KILL $left 2>/dev/null || true
    fi
    rm -rf tmp/* # whatever was left must not fail the next case
  done
done
finish
