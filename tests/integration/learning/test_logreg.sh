#!/usr/bin/env bash
# test_logreg.sh - `dsana logreg` end to end:
#   - optimality against an independent reference (tests/ref/ref_logreg.c):
#     at dsana's model the reference's gradient vanishes and its objective
#     is dsana's reported train_loss; binary and multinomial;
#   - the model file is byte-identical for W 1..4, S 1..3, both modes, a
#     straggler scenario and a worker SIGKILLed mid-run;
#   - heart_scale (../shared/data/libsvm) trains to the reference's accuracy;
#   - predict scores data with the model;
#   - bad input: one line naming the file and line, exit 2.
# timeout: 50 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
[ -x "${REF_LOGREG:-}" ] || die "REF_LOGREG is not set"
cd "$T"

"$DSANA" data gen logreg --samples 1500 --features 40 --nnz-per-row 8 --classes 2 --seed 3 --out bin.svm >/dev/null
"$DSANA" data gen logreg --samples 1500 --features 30 --nnz-per-row 10 --classes 4 --seed 5 --out multi.svm >/dev/null

lr() { # NAME DATA ARGS...: train, model into NAME.model, metrics NAME.jsonl
  local name=$1 data=$2
  shift 2
  run_capture "$name" "$DSANA" logreg "$data" --quiet --model-out "$name.model" --metrics "$name.jsonl" "$@"
  [ "$RC" -eq 0 ] && [ -s "$name.model" ]
}

# ------------------------------------------------------------ optimality
for d in bin multi; do
  if lr "opt.$d" "$d.svm" --workers 2 --tol 1e-9 --max-iter 400; then
    ref=$("$REF_LOGREG" check "$d.svm" "opt.$d.model")
    gnorm=$(echo "$ref" | sed 's/.*gnorm=\([^ ]*\).*/\1/')
    fref=$(echo "$ref" | sed 's/f=\([^ ]*\).*/\1/')
    fds=$(grep '"type":"summary"' "opt.$d.jsonl" | jq -r .train_loss)
    if awk -v g="$gnorm" -v a="$fref" -v b="$fds" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(g < 1e-6 && d < 1e-9) }'; then
      pass "$d: at dsana's model the reference gradient is $gnorm and the objective $fref (dsana $fds)"
    else
      fail "$d: reference at dsana's model: $ref; dsana's train_loss $fds (expected gradient < 1e-6, same objective)"
    fi
  else
    fail "$d: dsana logreg failed: rc=$RC $(head -c 300 "opt.$d.err")"
  fi
done

# ------------------------------------------------------------- exactness
for d in bin multi; do
  lr "base.$d" "$d.svm" --workers 1 --servers 1 --max-iter 25 || { fail "$d base: rc=$RC $(head -c 300 "base.$d.err")"; continue; }
  same=0 runs=0
  for W in 1 2 3 4; do
    for S in 1 2 3; do
      for mode in bsp dsana; do
        [ "$W$S$mode" = 11bsp ] && continue
        runs=$((runs + 1))
        if lr "x.$d.$W.$S.$mode" "$d.svm" --workers "$W" --servers "$S" --mode "$mode" --max-iter 25 &&
          cmp -s "base.$d.model" "x.$d.$W.$S.$mode.model"; then
          same=$((same + 1))
        else
          fail "$d W=$W S=$S --mode $mode: model differs from W=1 S=1 (rc=$RC $(head -c 200 "x.$d.$W.$S.$mode.err"))"
        fi
      done
    done
  done
  [ "$same" -eq "$runs" ] && pass "$d: $runs runs (W 1..4, S 1..3, bsp/dsana) give W=1 S=1's model byte for byte"
done

printf '{"workers": [{"speed": 1}, {"speed": 0.5}, {"speed": 0.25}], "transient": {"probability": 0.3, "slowdown": 4, "seed": 9}, "ns_per_cost": 30}' >strag.json
if lr strag multi.svm --workers 3 --servers 2 --mode dsana --max-iter 25 --scenario strag.json && cmp -s base.multi.model strag.model; then
  pass "multi: a straggler scenario (speeds 1, 0.5, 0.25, transient 4x) gives the same model"
else
  fail "multi under stragglers: rc=$RC, model differs or missing $(head -c 200 strag.err)"
fi

# (static: dynamic scheduling may give a worker it measured slow no task in
# iteration 4, and the fault would not fire)
if DSANA_FAULT="worker=1,iter=4,point=mid-push,how=kill" lr killed multi.svm --workers 3 --servers 2 --max-iter 25 \
  --sched static --peer-timeout 2 --isolate processes && cmp -s base.multi.model killed.model &&
  grep -q "worker 1: fault injection: dying at iteration 4" killed.err && grep -q "worker 1 lost" killed.err; then
  pass "multi: worker 1 SIGKILLed in the middle of its push in iteration 4: the model is unchanged"
else
  fail "multi with a killed worker: rc=$RC $(head -c 300 killed.err)"
fi

# A server killed after a checkpoint: --resume reaches the same model (the
# optimiser's history is in the servers' STATE table and the globals).
DSANA_FAULT="server=1,iter=13,point=commit,how=kill" run_capture ckill "$DSANA" logreg multi.svm --workers 2 \
  --servers 2 --max-iter 25 --quiet --model-out ck.model --checkpoint ck --checkpoint-every 5 --max-restarts 0 \
  --isolate processes
if [ "$RC" -eq 1 ] && grep -q "server 1: fault injection: dying after committing iteration 13" ckill.err &&
  grep -q "last complete checkpoint: iteration 10" ckill.err && [ ! -e ck.model ]; then
  lr resumed multi.svm --workers 3 --servers 2 --max-iter 25 --resume ck
  if [ "$RC" -eq 0 ] && cmp -s base.multi.model resumed.model; then
    pass "multi: resumed from the checkpoint of iteration 10 (with 3 workers instead of 2): the same model"
  else
    fail "multi resume: rc=$RC $(head -c 300 resumed.err)"
  fi
else
  fail "multi: killed server: rc=$RC $(head -c 300 ckill.err)"
fi

# ------------------------------------------------------------ heart_scale
heart="${SHARED_DATA:-$DSANA_SRC/../shared/data}/libsvm/heart_scale"
if [ -f "$heart" ]; then
  if lr heart "$heart" --workers 2 --tol 1e-10 --max-iter 300; then
    ref=$("$REF_LOGREG" train "$heart")
    racc=$(echo "$ref" | sed 's/.*accuracy=\([^ ]*\).*/\1/')
    dacc=$(grep '"type":"summary"' heart.jsonl | jq -r .train_accuracy)
    if awk -v a="$racc" -v b="$dacc" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-6) }'; then
      pass "heart_scale: training accuracy $dacc, the reference's $racc"
    else
      fail "heart_scale: dsana's training accuracy $dacc, the reference's $racc ($ref)"
    fi
  else
    fail "heart_scale: rc=$RC $(head -c 300 heart.err)"
  fi
else
  note "SKIP heart_scale: $heart absent"
fi

# --------------------------------------------------------------- predict
if [ -s base.multi.model ]; then
  run_capture pred "$DSANA" logreg predict base.multi.model multi.svm --out pred.txt
  acc=$(grep '"type":"summary"' base.multi.jsonl | jq -r .train_accuracy)
  got=$(sed -n 's/accuracy: //p' pred.out)
  if [ "$RC" -eq 0 ] && [ "$(wc -l <pred.txt)" -eq 1500 ] && awk -v a="$acc" -v b="$got" 'BEGIN { exit !((a - b) < 1e-6 && (b - a) < 1e-6) }'; then
    pass "predict: 1500 lines, accuracy $got as in training"
  else
    fail "predict: rc=$RC lines=$(wc -l <pred.txt 2>/dev/null) accuracy '$got' vs training '$acc' $(cat pred.err)"
  fi
fi

# ------------------------------------------------------------- bad input
bad() { # NAME CONTENT EXPECTED-REGEX
  printf '%b' "$2" >"$1.svm"
  run_capture "bad.$1" "$DSANA" logreg "$1.svm" --quiet
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "bad.$1.err")" -eq 1 ] && grep -qE "$3" "bad.$1.err"; then
    pass "bad input $1: $(cat "bad.$1.err")"
  else
    fail "bad input $1: expected exit 2 and one line matching '$3', got rc=$RC: $(head -c 300 "bad.$1.err")"
  fi
}
bad nolabel '1 1:0.5\n 2:1\n' 'nolabel.svm:2'
bad index0 '1 1:0.5\n-1 0:1\n' 'index0.svm:2:.*index 0'
bad descending '1 3:0.5 2:1\n' 'descending.svm:1'
bad duplicate '1 2:0.5 2:1\n' 'duplicate.svm:1'
bad nonnumeric '1 2:abc\n' 'nonnumeric.svm:1'
bad nonfinite '1 2:inf\n' 'nonfinite.svm:1'
bad empty '' 'empty.svm'
bad oneclass '1 1:0.5\n1 2:1\n' 'oneclass.svm: 1 distinct label'
printf '1 1:0.5 50:1\n-1 2:1 60:2\n' >wide.svm
run_capture wide "$DSANA" logreg bin.svm --test wide.svm --quiet --max-iter 3
if [ "$RC" -eq 0 ] && grep -q "wide.svm has features up to 60, the model 40: the others are ignored" wide.err; then
  pass "a test set with more features than the model: trained, one warning naming it"
else
  fail "wide test set: rc=$RC $(head -c 300 wide.err)"
fi
finish
