#!/usr/bin/env bash
# test_logreg_sgd.sh - `dsana logreg --batch N` (mini-batch SGD) end to end:
#   - one step over the whole set is -lr times the gradient an independent
#     reference (tests/ref/ref_logreg.c) computes at w = 0;
#   - the model file is byte-identical for W 1..4, S 1..3, both modes and a
#     straggler scenario (binary and multinomial; a sparse model for a few
#     configurations), another --seed changes it, and a run resumed after
#     a killed server reaches it too;
#   - the metrics: every iteration's JSON line has train_loss, grad_norm,
#     step and batch_rows (jq); the test set is scored once an epoch (null
#     in between); the run's train_accuracy is the model's (predict agrees);
#     L-BFGS lines carry train_loss and grad_norm too;
#   - bad --batch/--seed/--lr values: exit 2 and one line.
# timeout: 80 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
[ -x "${REF_LOGREG:-}" ] || die "REF_LOGREG is not set"
cd "$T"

"$DSANA" data gen logreg --samples 1500 --features 40 --nnz-per-row 8 --classes 2 --seed 3 --out bin.svm >/dev/null
"$DSANA" data gen logreg --samples 1500 --features 30 --nnz-per-row 10 --classes 4 --seed 5 --out multi.svm >/dev/null
# above 65536 features the model is sparse: tasks pull and push key lists
"$DSANA" data gen logreg --samples 3000 --features 100000 --nnz-per-row 10 --classes 3 --seed 7 --out sparse.svm >/dev/null

lr() { # NAME DATA ARGS...: train, model into NAME.model, metrics NAME.jsonl
  local name=$1 data=$2
  shift 2
  run_capture "$name" "$DSANA" logreg "$data" --quiet --model-out "$name.model" --metrics "$name.jsonl" "$@"
  [ "$RC" -eq 0 ] && [ -s "$name.model" ]
}
weights() { grep -v '^#' "$1"; } # a model file's weights, one a line

# ------------------------------------------------- one full-batch step
# --batch 1500 = every row: iteration 1 evaluates w = 0 and steps by
# -lr * grad f(0); iteration 2 (the last) takes no step.
if lr zero multi.svm --batch 1500 --max-iter 1 && lr step multi.svm --batch 1500 --max-iter 2 --lr 0.5; then
  ref0=$("$REF_LOGREG" check multi.svm zero.model)
  g0=$(echo "$ref0" | sed 's/.*gnorm=\([^ ]*\).*/\1/')
  f0=$(echo "$ref0" | sed 's/f=\([^ ]*\).*/\1/')
  f1=$("$REF_LOGREG" check multi.svm step.model | sed 's/f=\([^ ]*\).*/\1/')
  steplen=$(weights step.model | awk '{ s += $1 * $1 } END { printf "%.9g", sqrt(s) }')
  if [ "$(weights zero.model | sort -u)" = 0 ] &&
    awk -v s="$steplen" -v g="$g0" -v a="$f0" -v b="$f1" 'BEGIN { d = s / 0.5 - g; if (d < 0) d = -d; exit !(d <= 1e-5 * g && b < a) }'; then
    pass "one step of --batch 1500 --lr 0.5 has length 0.5 x the reference's |grad f(0)| = $g0 and lowers f from $f0 to $f1"
  else
    fail "one SGD step: length $steplen, expected 0.5 x $g0; reference f $f0 -> $f1"
  fi
else
  fail "SGD over the whole set: rc=$RC $(head -c 300 step.err 2>/dev/null)"
fi

# ------------------------------------------------------------- exactness
for d in bin multi; do
  lr "base.$d" "$d.svm" --batch 64 --max-iter 40 --workers 1 --servers 1 ||
    { fail "$d base: rc=$RC $(head -c 300 "base.$d.err")"; continue; }
  same=0 runs=0
  for W in 1 2 3 4; do
    for S in 1 2 3; do
      for mode in bsp dsana; do
        [ "$W$S$mode" = 11bsp ] && continue
        runs=$((runs + 1))
        if lr "x.$d.$W.$S.$mode" "$d.svm" --batch 64 --max-iter 40 --workers "$W" --servers "$S" --mode "$mode" &&
          cmp -s "base.$d.model" "x.$d.$W.$S.$mode.model"; then
          same=$((same + 1))
        else
          fail "$d --batch 64 W=$W S=$S --mode $mode: model differs from W=1 S=1 (rc=$RC $(head -c 200 "x.$d.$W.$S.$mode.err"))"
        fi
      done
    done
  done
  [ "$same" -eq "$runs" ] && pass "$d --batch 64: $runs runs (W 1..4, S 1..3, bsp/dsana) give W=1 S=1's model byte for byte"
done

lr base.sparse sparse.svm --batch 100 --max-iter 30 || fail "sparse base: rc=$RC $(head -c 300 base.sparse.err)"
same=0
for cfg in "2 1 bsp" "3 2 dsana" "4 3 bsp"; do
  read -r W S mode <<<"$cfg"
  lr "x.sparse.$W" sparse.svm --batch 100 --max-iter 30 --workers "$W" --servers "$S" --mode "$mode" &&
    cmp -s base.sparse.model "x.sparse.$W.model" && same=$((same + 1))
done
if [ "$same" -eq 3 ]; then
  pass "sparse model (100000 features) --batch 100: W/S/mode 2/1/bsp, 3/2/dsana, 4/3/bsp give W=1 S=1's model"
else
  fail "sparse model --batch 100: $same of 3 runs gave W=1 S=1's model (rc=$RC)"
fi

printf '{"workers": [{"speed": 1}, {"speed": 0.5}, {"speed": 0.25}], "transient": {"probability": 0.3, "slowdown": 4, "seed": 9}, "ns_per_cost": 30}' >strag.json
if lr strag multi.svm --batch 64 --max-iter 40 --workers 3 --servers 2 --mode dsana --scenario strag.json &&
  cmp -s base.multi.model strag.model; then
  pass "multi --batch 64: a straggler scenario (speeds 1, 0.5, 0.25, transient 4x) gives the same model"
else
  fail "multi --batch 64 under stragglers: rc=$RC, model differs or missing $(head -c 200 strag.err)"
fi

if lr seed2 multi.svm --batch 64 --max-iter 40 --seed 2 && ! cmp -s base.multi.model seed2.model &&
  lr seed1 multi.svm --batch 64 --max-iter 40 --seed 1 --workers 2 && cmp -s base.multi.model seed1.model; then
  pass "multi --batch 64: --seed 2 gives another model, an explicit --seed 1 the default's"
else
  fail "--seed: rc=$RC, --seed 2 should differ from the default and --seed 1 equal it $(head -c 200 seed2.err)"
fi

# A server killed after a checkpoint: --resume continues the same batches.
DSANA_FAULT="server=1,iter=13,point=commit,how=kill" run_capture ckill "$DSANA" logreg multi.svm --batch 64 \
  --workers 2 --servers 2 --max-iter 40 --quiet --model-out ck.model --checkpoint ck --checkpoint-every 5 --max-restarts 0 \
  --isolate processes
if [ "$RC" -eq 1 ] && grep -q "server 1: fault injection: dying after committing iteration 13" ckill.err &&
  grep -q "last complete checkpoint: iteration 10" ckill.err && [ ! -e ck.model ] &&
  lr resumed multi.svm --batch 64 --max-iter 40 --workers 3 --servers 2 --resume ck && cmp -s base.multi.model resumed.model; then
  pass "multi --batch 64: a server killed in iteration 13, resumed from iteration 10 with 3 workers: the same model"
else
  fail "--batch resume: rc=$RC $(head -c 300 ckill.err) $(head -c 300 resumed.err 2>/dev/null)"
fi

# --------------------------------------------------------------- metrics
# 1500 rows in batches of 64: 24 batches an epoch (the last of 28 rows).
m=base.multi.jsonl
iters=$(jq -s '[.[] | select(.type == "iteration")] | length' "$m")
fields=$(jq -s '[.[] | select(.type == "iteration") | (.train_loss | type) + (.grad_norm | type) + (.step | type) +
  (.batch_rows | type)] | unique | join(",")' -r "$m")
rows=$(jq -s '[.[] | select(.type == "iteration" and .iter <= 24) | .batch_rows] | add' "$m")
last=$(jq -s '[.[] | select(.type == "iteration")] | last | "\(.batch_rows) \(.step)"' -r "$m")
if [ "$iters" -eq 40 ] && [ "$fields" = numbernumbernumbernumber ] && [ "$rows" -eq 1500 ] && [ "$last" = "1500 0" ]; then
  pass "metrics: 40 iteration lines with train_loss, grad_norm, step and batch_rows; epoch 0's batches hold 1500 rows; the last evaluates all and takes no step"
else
  fail "metrics: iterations=$iters field types=$fields epoch rows=$rows last='$last'"
fi

if lr tested multi.svm --batch 64 --max-iter 30 --test multi.svm; then
  scored=$(jq -s '[.[] | select(.type == "iteration" and .test_accuracy != null) | .iter] | join(",")' -r tested.jsonl)
  if [ "$scored" = 1,25,30 ] && [ "$(jq -r 'select(.type == "summary") | .test_accuracy | type' tested.jsonl)" = number ]; then
    pass "--test with --batch 64: scored at iterations 1, 25 (epoch 1) and 30 (the last), null in between; in the summary"
  else
    fail "--test with --batch: scored at '$scored' (expected 1,25,30)"
  fi
else
  fail "--test with --batch: rc=$RC $(head -c 300 tested.err)"
fi

run_capture pred "$DSANA" logreg predict base.multi.model multi.svm --out pred.txt
acc=$(jq -r 'select(.type == "summary") | .train_accuracy' base.multi.jsonl)
got=$(sed -n 's/accuracy: //p' pred.out)
if [ "$RC" -eq 0 ] && awk -v a="$acc" -v b="$got" 'BEGIN { exit !((a - b) < 1e-6 && (b - a) < 1e-6) }'; then
  pass "the run's train_accuracy $acc is the model's (predict: $got)"
else
  fail "train_accuracy $acc vs predict's '$got' (rc=$RC $(head -c 200 pred.err))"
fi

if lr lbfgs multi.svm --max-iter 10 &&
  [ "$(jq -s '[.[] | select(.type == "iteration") | (.train_loss | type) + (.grad_norm | type)] | unique | join(",")' -r lbfgs.jsonl)" = numbernumber ] &&
  [ "$(jq -s '[.[] | select(.type == "iteration") | .residual == .grad_norm] | all' lbfgs.jsonl)" = true ]; then
  pass "L-BFGS: every iteration line has train_loss and grad_norm (= the residual the progress line shows)"
else
  fail "L-BFGS metrics: rc=$RC $(head -c 300 lbfgs.jsonl)"
fi

# ------------------------------------------------------------ bad values
badopt() { # NAME EXPECTED-REGEX ARGS...
  local name=$1 re=$2
  shift 2
  run_capture "bad.$name" "$DSANA" logreg multi.svm --quiet "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "bad.$name.err")" -eq 1 ] && grep -qE -- "$re" "bad.$name.err"; then
    pass "$*: exit 2, $(cat "bad.$name.err")"
  else
    fail "$*: expected exit 2 and one line matching '$re', got rc=$RC: $(head -c 300 "bad.$name.err")"
  fi
}
badopt batch0 '--batch 0: invalid value \(an integer in 1\.\.' --batch 0
badopt batchx '--batch x: invalid value' --batch x
badopt batchfrac '--batch 1.5: invalid value' --batch 1.5
badopt batchneg '--batch -3: invalid value' --batch -3
badopt seedneg '--seed -1: invalid value \(an integer in 0\.\.' --batch 10 --seed -1
badopt seedx '--seed 1e99: invalid value' --batch 10 --seed 1e99
badopt lr0 '--lr 0: invalid value \(a finite number > 0\)' --batch 10 --lr 0
badopt lrnan '--lr nan: invalid value' --batch 10 --lr nan
finish
