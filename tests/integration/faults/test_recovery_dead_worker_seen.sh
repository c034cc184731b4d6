#!/usr/bin/env bash
# test_recovery_dead_worker_seen.sh - a worker whose process dies is lost
# at once, not after --peer-timeout of silence: the launcher sees the
# child exit (SIGCHLD) and tells the scheduler. With --peer-timeout 120
# a SIGKILLed worker's tasks go to the others in the same iteration, the
# log says why in one line, and the ranks are the fault-free run's bytes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 12 --seed 3 --out k.bin >/dev/null || die "graph gen failed"
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "ns_per_cost": 2000, "time_scale": 1}
JSON
# static: dynamic scheduling may give a worker it measured slow (a loaded
# host) no task in iteration 4, and the fault would not fire
JOB=(pagerank k.bin --workers 3 --scenario slow.json --max-iter 20 --tol 0 --quiet --peer-timeout 120 --sched static)
"$DSANA" "${JOB[@]}" --out ref.tsv || die "fault-free run failed"
DSANA_FAULT="worker=1,iter=4,point=mid-push,how=kill" run_capture kill timeout 100 "$DSANA" "${JOB[@]}" --out kill.tsv
if [ "$RC" -eq 0 ] && cmp -s ref.tsv kill.tsv && [ "$(grep -c "worker 1 lost (its process exited)" kill.err)" -eq 1 ]; then
  pass "$(grep "worker 1 lost" kill.err)"
else
  fail "killed worker at --peer-timeout 120: rc=$RC $(head -c 400 kill.err)"
fi
finish
