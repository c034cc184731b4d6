#!/usr/bin/env bash
# test_issue18_06_titles.sh - issue 18.6: the roles of a local job are told
# apart in ps and top: each process's title (/proc/PID/cmdline) reads
# "dsana: scheduler (job DIR)", "dsana: server 0 (job DIR)", "dsana:
# worker 1 (job DIR)" with the job's folder, and its kernel name
# (/proc/PID/comm) "dsana sched", "dsana srv 0", "dsana wrk 1".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" graph gen kron --scale 12 --seed 1 --out g.bin >/dev/null || die "graph gen failed"
"$DSANA" pagerank g.bin --workers 2 --max-iter 1000000 --tol 0 --quiet >run.out 2>run.err &
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
for want in "dsana: scheduler (job $dir)|dsana sched" "dsana: server 0 (job $dir)|dsana srv 0" \
  "dsana: worker 0 (job $dir)|dsana wrk 0" "dsana: worker 1 (job $dir)|dsana wrk 1"; do
  if grep -qF -- "$want" <<<"$(sed 's/ *|/|/' <<<"$titles")"; then
    pass "a role titled '$want'"
  else
    fail "no role titled '$want'; titles: $(tr '\n' ';' <<<"$titles")"
  fi
done
kill -TERM "$launcher"
wait "$launcher" || true
finish
