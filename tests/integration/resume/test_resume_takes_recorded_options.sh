#!/usr/bin/env bash
# test_resume_takes_recorded_options.sh - `dsana APP --resume DIR` alone
# continues a checkpointed run: the input, every parameter, the report and
# output options the run was given and its server count come from the
# checkpoint (named in one note), from any folder; what is given again
# wins where it may change (outputs, reports); another input is reported
# as another input, not as a parameter mismatch; and every way ends with
# the uninterrupted run's bytes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp sub
export TMPDIR=$T/tmp
"$DSANA" graph gen kron --scale 9 --seed 3 --out g.txt >/dev/null || die "graph gen failed"
"$DSANA" graph gen kron --scale 9 --seed 4 --out other.txt >/dev/null || die "graph gen failed"
"$DSANA" pagerank g.txt --tol 0 --damping 0.8 --quiet --top 0 --max-iter 12 --servers 2 --workers 2 --out full.tsv ||
  die "uninterrupted run failed"
"$DSANA" pagerank g.txt --tol 0 --damping 0.8 --quiet --top 0 --max-iter 7 --servers 2 --workers 2 \
  --checkpoint ck --checkpoint-every 5 --out part.tsv || die "checkpointed run failed"
[ -f ck/manifest ] || die "no checkpoint written"

# Only the checkpoint and a new cap: input, --damping, --tol, --servers, --top and --out come back.
rm -f part.tsv
(cd sub && "$DSANA" pagerank --resume ../ck --max-iter 12 >../bare.out 2>../bare.err) && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && cmp -s part.tsv full.tsv && grep -q -- "--damping 0.8" bare.err && grep -q -- "--servers 2" bare.err &&
  grep -q "$T/g.txt" bare.err; then
  pass "--resume alone, from another folder: the recorded options ($(head -c 200 bare.err)), the uninterrupted bytes"
else
  fail "--resume alone: rc=$rc $(head -c 400 bare.err)"
fi

# The iteration cap comes back too: the checkpointed run asked for 7, it is at 5.
run_capture cap "$DSANA" pagerank --resume ck --quiet --out cap.tsv
"$DSANA" pagerank g.txt --tol 0 --damping 0.8 --quiet --top 0 --max-iter 7 --out seven.tsv || die "7-iteration run failed"
[ "$RC" -eq 0 ] && cmp -s cap.tsv seven.tsv && pass "the recorded --max-iter and a new --out" ||
  fail "recorded cap: rc=$RC $(head -c 300 cap.err)"

# Another graph, no options repeated: said to be another input.
run_capture other "$DSANA" pagerank other.txt --resume ck --quiet
if [ "$RC" -eq 2 ] && grep -q "other.txt is not the checkpoint's input" other.err && ! grep -q -- "--tol" other.err; then
  pass "another graph: $(cat other.err)"
else
  fail "another graph: rc=$RC $(head -c 300 other.err)"
fi

# A moved input: the recorded path is gone, a new path with the same bytes is fine.
mv g.txt moved.txt
run_capture gone "$DSANA" pagerank --resume ck --quiet
[ "$RC" -eq 2 ] && grep -q "cannot resume from ck: its input .*g.txt: No such file or directory (give the input.s new path)" gone.err && [ "$(stderr_lines gone.err)" -eq 1 ] &&
  pass "the recorded input is gone: $(cat gone.err)" || fail "gone input: rc=$RC $(head -c 300 gone.err)"
run_capture moved "$DSANA" pagerank moved.txt --resume ck --quiet --max-iter 12 --out moved.tsv
[ "$RC" -eq 0 ] && cmp -s moved.tsv full.tsv && pass "the input under a new name" ||
  fail "moved input: rc=$RC $(head -c 300 moved.err)"

# A value given again must still agree.
run_capture damping "$DSANA" pagerank moved.txt --resume ck --quiet --damping 0.85
[ "$RC" -eq 2 ] && grep -q -- "--damping 0.85, but the checkpoint's run had --damping 0.8" damping.err &&
  pass "a parameter given again differently: refused" || fail "damping: rc=$RC $(head -c 300 damping.err)"
[ -z "$(ls -A tmp)" ] || fail "left in TMPDIR: $(ls tmp)"
finish
