#!/usr/bin/env bash
# test_pipes_and_signals.sh - dsana follows the shell's conventions:
#  - a reader that closes the pipe early (`dsana pagerank ... | head`)
#    ends the job quietly: no message, no automatic recovery, the command
#    dies of SIGPIPE (status 141, as `yes | head` gives), nothing left in
#    $TMPDIR (within 5 s: the folder of a process killed by the signal goes
#    with its janitor);
#  - when stdout carries data (--out -, --model-out -, logreg predict
#    --out -), it carries the data alone: the iteration table, summary,
#    top-K list and accuracy go to stderr;
#  - a stop signal ignored when dsana starts stays ignored: under nohup a
#    SIGHUP does not stop the job, which finishes with its result.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" graph gen kron --scale 12 --seed 1 --out g.bin >/dev/null || die "graph gen failed"
"$DSANA" data gen logreg --samples 400 --features 20 --nnz-per-row 5 --seed 1 --out d.svm >/dev/null ||
  die "data gen failed"

# A job that runs a while after its first line: 60 iterations over a link of
# 20 ms.  `head -n 1` has long closed the pipe when the second line comes, so
# the run below is not a race with the reader.
echo '{"workers": [{"speed": 1}, {"speed": 1}], "link": {"latency_ms": 20}}' >slow.json

# ---- a closed stdout: mid-run (the iteration table, one line an iteration),
# and mid-output (4096 rank lines, more than a pipe holds)
for args in "--top 20 --workers 2 --scenario slow.json --tol 0 --max-iter 60" "--out - --quiet"; do
  # shellcheck disable=SC2086
  set +e
  timeout 120 "$DSANA" pagerank g.bin $args 2>head.err | head -n 1 >/dev/null
  st=("${PIPESTATUS[@]}")
  set -e
  what="pagerank ${args%% --workers*} | head -1"
  if [ "${st[0]}" -eq 141 ]; then pass "$what: dies of SIGPIPE (141)"; else fail "$what: exit ${st[0]}, want 141"; fi
  if [ ! -s head.err ]; then pass "$what: nothing on stderr"; else fail "$what: stderr: $(head -c 300 head.err)"; fi
  if grep -q "recovery" head.err; then fail "$what: started a recovery"; fi
  # a process killed by SIGPIPE cannot remove its folder: its janitor does,
  # once the process is gone (launch_dir.c), so give it a few seconds
  for _ in $(seq 50); do [ -z "$(ls -A tmp)" ] && break; sleep 0.1; done
  if [ -z "$(ls -A tmp)" ]; then pass "$what: nothing left in TMPDIR"; else fail "$what: left $(ls -A tmp)"; fi
done

# ---- stdout carries the data alone
only_rank_lines() { ! grep -qv $'^[0-9]*\t[0-9.e+-]*$' "$1"; }
run_capture pr "$DSANA" pagerank g.bin --out - --top 3
if [ "$RC" -eq 0 ] && only_rank_lines pr.out && [ "$(wc -l <pr.out)" -eq 4096 ]; then
  pass "pagerank --out -: stdout has the 4096 rank lines alone"
else
  fail "pagerank --out -: exit $RC, $(wc -l <pr.out) lines, first non-data: $(grep -m1 -v $'^[0-9]*\t' pr.out || true)"
fi
if grep -q "top 3 vertices" pr.err && grep -q "^iterations:" pr.err; then
  pass "pagerank --out -: the table, summary and top-K go to stderr"
else
  fail "pagerank --out -: the reports are not on stderr: $(head -c 300 pr.err)"
fi
run_capture lr "$DSANA" logreg d.svm --model-out - --max-iter 5
if [ "$RC" -eq 0 ] && head -n 1 lr.out | grep -q "^# dsana logreg model" && ! grep -q "^logreg:\|iter " lr.out; then
  pass "logreg --model-out -: stdout has the model alone"
else
  fail "logreg --model-out -: exit $RC; stdout starts: $(head -c 200 lr.out)"
fi
"$DSANA" logreg d.svm --model-out m.txt --max-iter 5 --quiet 2>/dev/null || die "logreg training failed"
run_capture pred "$DSANA" logreg predict m.txt d.svm --out -
if [ "$RC" -eq 0 ] && ! grep -q "accuracy" pred.out && grep -q "^accuracy: " pred.err; then
  pass "logreg predict --out -: the accuracy goes to stderr"
else
  fail "logreg predict --out -: exit $RC; stdout has: $(grep -m1 accuracy pred.out || true)"
fi

# ---- nohup: an ignored SIGHUP stays ignored
nohup "$DSANA" pagerank g.bin --isolate processes --workers 2 --scenario slow.json --tol 0 --max-iter 60 --out hup.tsv --quiet \
  >nohup.log 2>&1 &
job=$!
for _ in $(seq 200); do
  [ "$(pgrep -c -P "$job")" -ge 3 ] && break
  sleep 0.05
done
kill -HUP "$job"
pkill -HUP -P "$job" || true
st=0
wait "$job" || st=$?
if [ "$st" -eq 0 ] && [ "$(wc -l <hup.tsv)" -eq 4096 ]; then
  pass "nohup + SIGHUP: the job finished with its result"
else
  fail "nohup + SIGHUP: exit $st; $(head -c 300 nohup.log)"
fi
# and one not ignored still stops it
"$DSANA" pagerank g.bin --isolate processes --workers 2 --scenario slow.json --tol 0 --max-iter 60 --out int.tsv --quiet \
  >int.log 2>&1 &
job=$!
for _ in $(seq 200); do
  [ "$(pgrep -c -P "$job")" -ge 3 ] && break
  sleep 0.05
done
kill -TERM "$job"
st=0
wait "$job" || st=$?
if [ "$st" -eq 143 ] && [ ! -e int.tsv ]; then pass "SIGTERM (not ignored): the job stops, exit 143"; else
  fail "SIGTERM: exit $st, want 143"
fi
finish
