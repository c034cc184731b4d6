#!/usr/bin/env bash
# test_checkpoint.sh - a server or the scheduler killed mid-run: the local
# launcher rolls every role back to the last complete checkpoint and the job
# finishes by itself with the uninterrupted run's bytes; with --max-restarts
# 0 the job stops with a message naming that checkpoint, and --resume from
# it reaches the same bytes; damaged checkpoints are refused.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins

"$DSANA" graph gen uniform --vertices 3000 --edges 30000 --seed 4 --out "$T/g.bin" >/dev/null
run_capture ref "$DSANA" pagerank "$T/g.bin" --workers 3 --servers 2 --tol 1e-12 --quiet --out "$T/ref.out"
[ "$RC" -eq 0 ] || die "reference failed: $(cat "$T/ref.err")"

DSANA_FAULT="server=1,iter=17,point=commit,how=kill" run_capture kill "$DSANA" pagerank "$T/g.bin" --workers 3 \
  --servers 2 --tol 1e-12 --quiet --out "$T/out" --checkpoint "$T/ck" --checkpoint-every 5 --max-restarts 0 --isolate processes
if [ "$RC" -eq 1 ] && grep -q "server 1: fault injection: dying after committing iteration 17" "$T/kill.err" &&
  grep -q "server 1 (pid [0-9]*) was killed by signal 9" "$T/kill.err" &&
  grep -q "last complete checkpoint: iteration 15 in $T/ck; continue with --resume $T/ck" "$T/kill.err" &&
  [ ! -e "$T/out" ]; then
  pass "killed server: the job stops and names the checkpoint ($(grep -m1 'last complete' "$T/kill.err" | sed 's/.*: last/last/'))"
else
  fail "killed server: rc=$RC $(head -c 400 "$T/kill.err")"
fi
cp -r "$T/ck" "$T/ck.bak"
run_capture resume "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 2 --tol 1e-12 --quiet --out "$T/out" \
  --resume "$T/ck"
if [ "$RC" -eq 0 ] && cmp -s "$T/ref.out" "$T/out"; then
  pass "resumed from iteration 15 (with 2 workers instead of 3): byte-identical to the uninterrupted run"
else
  fail "resume: rc=$RC $(head -c 400 "$T/resume.err")"
fi
# automatic recovery: the same kill, the job goes on from iteration 15 by itself
DSANA_FAULT="server=1,iter=17,point=commit,how=kill" run_capture auto "$DSANA" pagerank "$T/g.bin" --workers 3 \
  --servers 2 --tol 1e-12 --quiet --out "$T/auto.out" --checkpoint "$T/cka" --checkpoint-every 5 --isolate processes
if [ "$RC" -eq 0 ] && cmp -s "$T/ref.out" "$T/auto.out" &&
  grep -q "server 1: fault injection: dying after committing iteration 17" "$T/auto.err" &&
  grep -q "automatic recovery 1 of 3: every role restarts after iteration 15" "$T/auto.err"; then
  pass "killed server, automatic recovery: $(grep -m1 'automatic recovery' "$T/auto.err" | sed 's/^dsana[^:]*: //'); the same bytes"
else
  fail "automatic recovery after a killed server: rc=$RC $(head -c 400 "$T/auto.err")"
fi
# the scheduler SIGKILLed mid-run (found by its process title): the same
slowjob=(pagerank "$T/g.bin" --isolate processes --workers 2 --servers 2 --tol 1e-12 --quiet --checkpoint "$T/cks" --checkpoint-every 4
  --scenario "$T/slow.json")
printf '{"workers": [{"speed": 1}, {"speed": 1}], "ns_per_cost": 3000, "time_scale": 1}\n' >"$T/slow.json"
"$DSANA" "${slowjob[@]}" --out "$T/slowref.out" || die "slow reference run failed"
"$DSANA" "${slowjob[@]}" --out "$T/sk.out" 2>"$T/sk.err" &
job=$!
sched=""
for _ in $(seq 1 100); do
  sched=$(pgrep -P "$job" -f '^dsana: scheduler' || true)
  [ -n "$sched" ] && break
  sleep 0.05
done
sleep 0.6
[ -n "$sched" ] && kill -KILL "$sched" 2>/dev/null || true
src=0
wait "$job" || src=$?
if [ -n "$sched" ] && [ "$src" -eq 0 ] && cmp -s "$T/slowref.out" "$T/sk.out" && grep -q "scheduler (pid $sched) was killed" "$T/sk.err" &&
  grep -q "automatic recovery 1 of 3" "$T/sk.err"; then
  pass "killed scheduler, automatic recovery: $(grep -m1 'automatic recovery' "$T/sk.err" | sed 's/^dsana[^:]*: //'); the same bytes"
else
  fail "killed scheduler (pid ${sched:-not found}): rc=$src $(head -c 400 "$T/sk.err")"
fi
# a failure that repeats from the same point is not retried forever
DSANA_FAULT="server=0,iter=3,point=commit,how=exit" run_capture early "$DSANA" pagerank "$T/g.bin" --workers 2 \
  --servers 2 --quiet --checkpoint "$T/ck2" --checkpoint-every 5 --isolate processes
if [ "$RC" -eq 1 ] && grep -q "server 0: fault injection: dying after committing iteration 3" "$T/early.err" &&
  grep -q "no complete checkpoint in $T/ck2" "$T/early.err"; then
  pass "a server lost before the first checkpoint: says there is none"
else
  fail "early loss: rc=$RC $(head -c 300 "$T/early.err")"
fi

check_refused() { # name expected
  run_capture "$1" "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 2 --quiet --resume "$T/ck" --out "$T/$1.ranks"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "$T/$1.err")" -eq 1 ] && grep -q -- "$2" "$T/$1.err" && [ ! -e "$T/$1.ranks" ]; then
    pass "$1 refused: $(cat "$T/$1.err")"
  else
    fail "$1: rc=$RC $(cat "$T/$1.err")"
  fi
  rm -rf "$T/ck" && cp -r "$T/ck.bak" "$T/ck"
}
head -c 1000 "$T/ck.bak/shard-1.ckpt" >"$T/ck/shard-1.ckpt"
check_refused truncated "shard-1.ckpt: truncated"
printf '\x01' | dd of="$T/ck/shard-0.ckpt" bs=1 seek=200 conv=notrunc status=none
check_refused corrupt "shard-0.ckpt: data checksum mismatch"
sed -i 's/^iter 15/iter 16/' "$T/ck/manifest"
check_refused manifest "manifest: malformed or corrupt"
rm "$T/ck/manifest"
check_refused missing "no complete checkpoint"
run_capture servers "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 3 --quiet --resume "$T/ck"
[ "$RC" -eq 2 ] && grep -q "resume with --servers 2" "$T/servers.err" && pass "server count must match" ||
  fail "server count: rc=$RC $(cat "$T/servers.err")"
finish
