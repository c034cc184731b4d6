#!/usr/bin/env bash
# test_diverged_stops_loudly.sh - a run whose values leave what can be
# summed exactly (NaN, infinities, addends beyond 1.2e27) stops with exit
# 1 and one line naming the iteration and the sum or table ("diverged in
# iteration N: ... lower --lr"), and writes no model: never a NaN model
# with exit 0, never a loss that silently dropped its terms. Large but
# summable values (a loss near 4e25) are summed exactly (see the unit test
# test_xsum_full_range_and_invalid).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
require_bins
cd "$T"

"$DSANA" data gen logreg --samples 400 --features 20 --nnz-per-row 5 --seed 1 --out d.svm >/dev/null ||
  die "data gen failed"
for lr in 1e6 1e308; do
  for opt in "--batch 50" "--batch 400"; do
    name="--lr $lr $opt"
    rm -f model.txt
    # shellcheck disable=SC2086
    run_capture div "$DSANA" logreg d.svm --lr "$lr" $opt --max-iter 30 --tol 0 --model-out model.txt --quiet
    if [ "$RC" -eq 1 ] && grep -q "diverged in iteration [0-9]*: .*lower --lr" div.err && [ ! -e model.txt ]; then
      pass "$name: exit 1, '$(grep -m1 -o 'diverged in iteration [0-9]*: [^;]*' div.err)', no model"
    else
      fail "$name: exit $RC, model $( [ -e model.txt ] && echo written || echo absent), stderr: $(head -c 300 div.err)"
    fi
  done
done
# every role stops with the scheduler (told by ABORT), not after its peer timeout: with
# --peer-timeout 30 a role left waiting would take 30 s; the reason is said once
run_capture all "$DSANA" logreg d.svm --lr 1e308 --batch 50 --max-iter 30 --tol 0 --workers 2 --servers 1 \
  --peer-timeout 30 --quiet
n_said=$(grep -c "diverged in iteration" all.err || true)
if [ "$RC" -eq 1 ] && [ "$n_said" -eq 1 ] && ! grep -q "lost the scheduler\|silent for" all.err; then
  pass "2 workers, 1 server as threads: every role ended with the scheduler, the reason said once"
else
  fail "2 workers, 1 server: exit $RC (124: a role waited out its peer timeout), said $n_said times: $(head -c 400 all.err)"
fi
# (--lr is SGD's rate: --batch selects SGD; full-batch L-BFGS searches its own step)
# a sane rate still trains, and reports a finite loss
run_capture ok "$DSANA" logreg d.svm --max-iter 30 --model-out model.txt --metrics m.jsonl --quiet
if [ "$RC" -eq 0 ] && [ -s model.txt ] && ! grep -qi "nan" model.txt &&
  jq -s -e '[.[] | select(.type == "iteration") | .train_loss | type == "number"] | (length > 0 and all)' m.jsonl \
    >/dev/null; then
  pass "the default rate trains: finite losses, a model without NaN"
else
  fail "the default rate: exit $RC, $(head -c 300 ok.err)"
fi
finish
