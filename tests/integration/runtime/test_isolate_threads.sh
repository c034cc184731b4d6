#!/usr/bin/env bash
# test_isolate_threads.sh - `--isolate threads` (the default) runs a
# job's roles as threads of one process and changes no byte: PageRank (text input,
# converted by the launcher, and the reference) and logistic regression
# (dense, with a test set) give the same files as separate processes in
# several layouts and modes; there is one process (no child appears);
# the trace and metrics are written; SIGTERM ends the job at once with
# status 143, every role told; and what only processes can do is refused
# with one line and exit 2: DSANA_FAULT, --scheduler, --transport mpi;
# without --isolate, DSANA_FAULT selects processes. After a SIGKILL of the
# process, its janitor removes the job's folder.
# timeout: 45 s (CTest; 8-13 s under nice on a busy 2-core machine, with a 1.5 s sleep)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 11 --edge-factor 8 --seed 3 --out k.txt >/dev/null || die "graph gen kron failed"
"$DSANA" data gen logreg --samples 3000 --features 40 --nnz-per-row 30 --classes 4 --seed 2 --out d.svm >/dev/null ||
  die "data gen logreg failed"
"$DSANA" data gen logreg --samples 600 --features 40 --nnz-per-row 30 --classes 4 --seed 5 --out t.svm >/dev/null ||
  die "data gen logreg (test) failed"
"$REF_PAGERANK" k.txt --tol 1e-13 --max-iter 200 >k.ref || die "ref_pagerank failed"

# same NAME FILE_A FILE_B
same() {
  if cmp -s "$2" "$3"; then pass "$1"; else fail "$1: $2 and $3 differ"; fi
}

for layout in "1 1 dsana" "3 2 dsana" "4 1 bsp"; do
  read -r W S M <<<"$layout"
  tag="w$W-s$S-$M"
  for iso in processes threads; do
    run_capture "pr-$tag-$iso" "$DSANA" pagerank k.txt --workers "$W" --servers "$S" --mode "$M" --isolate "$iso" \
      --tol 1e-13 --max-iter 200 --quiet --out "pr-$tag-$iso.tsv"
    [ "$RC" -eq 0 ] || fail "pagerank $tag --isolate $iso: exit $RC: $(head -c 300 "pr-$tag-$iso.err")"
    run_capture "lr-$tag-$iso" "$DSANA" logreg d.svm --test t.svm --workers "$W" --servers "$S" --mode "$M" \
      --isolate "$iso" --max-iter 15 --quiet --model-out "lr-$tag-$iso.model"
    [ "$RC" -eq 0 ] || fail "logreg $tag --isolate $iso: exit $RC: $(head -c 300 "lr-$tag-$iso.err")"
  done
  same "pagerank $tag: threads == processes" "pr-$tag-processes.tsv" "pr-$tag-threads.tsv"
  same "logreg $tag: threads == processes" "lr-$tag-processes.model" "lr-$tag-threads.model"
done
if res=$("$REF_PAGERANK" --compare pr-w3-s2-dsana-threads.tsv k.ref --max-diff 1e-12 2>&1); then
  pass "threads vs ref_pagerank: $res"
else
  fail "threads vs ref_pagerank: $res"
fi

# one process: no child while a job runs (SGD: a million iterations)
"$DSANA" logreg d.svm --workers 3 --servers 2 --isolate threads --batch 64 --max-iter 1000000 --quiet \
  >long.out 2>long.err &
pid=$!
sleep 1.5
kids=$( (pgrep -P "$pid" -f '^dsana: (scheduler|server|worker)' || true) | wc -l)
if [ "$kids" -eq 0 ]; then pass "one process: no role is a child process"; else fail "$kids role processes"; fi
t0=$(date +%s%N)
kill -TERM "$pid" # (a background job of a script ignores SIGINT, and so does dsana then)
rc=0
wait "$pid" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 143 ] && [ "$ms" -lt 3000 ] && grep -q "the scheduler was stopped (Terminated)" long.err &&
  [ "$(grep -c "the scheduler ended the job" long.err)" -eq 5 ]; then
  pass "SIGTERM: status 143 in $ms ms, every role told"
else
  fail "SIGTERM: status $rc after $ms ms: $(head -c 400 long.err)"
fi

run_capture trace "$DSANA" pagerank k.txt --workers 2 --isolate threads --quiet --trace tr.json --metrics m.jsonl \
  --out tr.tsv
if [ "$RC" -eq 0 ] && jq -e '.traceEvents | length > 100' tr.json >/dev/null &&
  jq -s -e 'map(select(.type == "summary")) | length == 1' m.jsonl >/dev/null; then
  pass "trace ($(jq '.traceEvents | length' tr.json) events) and metrics written"
else
  fail "trace or metrics missing: exit $RC $(head -c 300 trace.err)"
fi

# expect_refused NAME PATTERN CMD...
expect_refused() {
  local name=$1 pat=$2
  shift 2
  run_capture refused "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines refused.err)" -eq 1 ] && grep -q -- "$pat" refused.err; then
    pass "$name: exit 2, '$(cat refused.err)'"
  else
    fail "$name: exit $RC, stderr: $(head -c 300 refused.err)"
  fi
}
expect_refused "DSANA_FAULT with threads" "use --isolate processes" \
  env DSANA_FAULT=worker=0,iter=2,point=mid-push,how=kill "$DSANA" pagerank k.txt --isolate threads --quiet
expect_refused "--scheduler with threads" "no --scheduler" \
  "$DSANA" pagerank k.txt --isolate threads --scheduler tcp://127.0.0.1:5999 --quiet
expect_refused "--isolate nonsense" "processes or threads" "$DSANA" pagerank k.txt --isolate fibers --quiet
# (no --isolate here on purpose: that DSANA_FAULT picks processes is the point;
# the fault must fire, the launcher see the kill and start the worker again)
run_capture autofault env DSANA_FAULT=worker=0,iter=2,point=mid-push,how=kill "$DSANA" pagerank k.txt --workers 2 \
  --tol 1e-13 --max-iter 200 --verbose --quiet --out af.tsv
if [ "$RC" -eq 0 ] && grep -q "started worker 1 (pid" autofault.err && cmp -s af.tsv pr-w1-s1-dsana-threads.tsv &&
  grep -q "worker 0: fault injection: dying at iteration 2" autofault.err &&
  grep -q "worker 0 (pid [0-9]*) was killed by signal 9" autofault.err &&
  grep -q "worker 0 started again (pid [0-9]*" autofault.err; then
  pass "DSANA_FAULT without --isolate: processes, the worker killed, started again and the result the same"
else
  fail "DSANA_FAULT without --isolate: exit $RC $(grep -m4 -E "started|killed|fault" autofault.err || true)"
fi

# SIGKILL: the janitor removes the folder
mkdir tmp
TMPDIR=$T/tmp "$DSANA" logreg d.svm --workers 2 --batch 64 --max-iter 1000000 --quiet >kill.out 2>kill.err &
pid=$!
for _ in $(seq 100); do [ -n "$(ls -A tmp)" ] && break; sleep 0.05; done
sleep 0.5
during=$(ls -A tmp)
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
for _ in $(seq 50); do [ -z "$(ls -A tmp)" ] && break; sleep 0.1; done
if [ -n "$during" ] && [ -z "$(ls -A tmp)" ]; then
  pass "SIGKILL: the job's folder ($during) removed by the janitor"
else
  fail "SIGKILL: during '$during', after '$(ls -A tmp)'"
fi
finish
