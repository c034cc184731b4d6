#!/usr/bin/env bash
# test_mlp.sh - `dsana mlp` (a multilayer perceptron, exact mini-batch SGD) end to end:
#   - one full-batch step from the initial weights is -lr times the gradient
#     an independent reference (tests/ref/ref_mlp.c) computes, within
#     float's rounding (the tasks' precision), for ReLU and tanh and two
#     hidden layers, with 3 workers and 2 servers;
#   - the model file is byte-identical for W 1..4, S 1..3, both modes, a
#     straggler scenario and roles as processes, after a worker killed
#     mid-push and after --resume from a checkpoint; another --seed changes it;
#   - the default --lr-schedule cosine: the first step at the full rate, then another
#     model than --lr-schedule constant's; --nesterov off (classical momentum) another
#     model than the default's, unless --momentum 0; each the same in every layout;
#   - --final-eval off: the same model without the evaluation's iteration;
#   - the terminal shows one row an epoch, the metrics every iteration;
#     the run's train_accuracy is the model's (predict agrees);
#   - bad options, one-label data and a bad model: exit 2 and one line;
#   - a run whose gradients leave the fixed-point range stops as diverged.
# timeout: 30 s (CTest; runs in about 3 s)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
[ -x "${REF_MLP:-}" ] || die "REF_MLP is not set"
cd "$T"

"$DSANA" data gen logreg --samples 1200 --features 30 --nnz-per-row 10 --classes 4 --seed 5 --out multi.svm >/dev/null

mlp() { # NAME ARGS...: train multi.svm, model into NAME.model, metrics NAME.jsonl
  local name=$1
  shift
  run_capture "$name" "$DSANA" mlp multi.svm --quiet --model-out "$name.model" --metrics "$name.jsonl" "$@"
  [ "$RC" -eq 0 ] && [ -s "$name.model" ]
}

# ------------------------------------------------- one full-batch step
for act in relu tanh; do
  if mlp "zero.$act" --hidden 7,5 --activation "$act" --batch 1200 --max-iter 1 &&
    mlp "step.$act" --hidden 7,5 --activation "$act" --batch 1200 --max-iter 2 --momentum 0 --lr 0.5 --l2 0.01 \
      --workers 3 --servers 2; then
    out=$("$REF_MLP" step multi.svm "zero.$act.model" "step.$act.model" 0.5 0.01)
    # the tasks compute in float (apps/mlp/mlp.h): the step within float's
    # rounding (2^-24 relative a product) of the reference's long double
    # one, 1e-6 of it; a term of the gradient wrong or missing moves it by
    # a share of the step
    if awk -v o="$out" 'BEGIN { split(o, f, /[= ]/); exit !(f[2] <= 1e-6 * f[4] && f[4] > 0) }'; then
      pass "$act, hidden 7,5: one full-batch step is -0.5 x the reference's gradient within float's rounding ($out)"
    else
      fail "$act: one step differs from the reference: $out"
    fi
  else
    fail "$act one step: rc=$RC $(head -c 300 "step.$act.err" 2>/dev/null)"
  fi
done

# ------------------------------------------------------------- exactness
common=(--hidden 16,8 --batch 300 --epochs 4 --lr 0.05) # 5 blocks of 60 a batch: 1..5 tasks
mlp base "${common[@]}" --workers 1 --servers 1 || fail "base: rc=$RC $(head -c 300 base.err)"
same=0 runs=0
for W in 1 2 3 4; do
  for S in 1 2 3; do
    for mode in bsp dsana; do
      [ "$W$S$mode" = 11bsp ] && continue
      [ $(((W + S) % 2)) -eq 0 ] && [ "$mode" = bsp ] && continue # half the bsp runs: the suite's time
      runs=$((runs + 1))
      if mlp "x.$W.$S.$mode" "${common[@]}" --workers "$W" --servers "$S" --mode "$mode" &&
        cmp -s base.model "x.$W.$S.$mode.model"; then
        same=$((same + 1))
      else
        fail "W=$W S=$S --mode $mode: model differs from W=1 S=1 (rc=$RC $(head -c 200 "x.$W.$S.$mode.err"))"
      fi
    done
  done
done
[ "$same" -eq "$runs" ] && pass "--hidden 16,8: $runs runs (W 1..4, S 1..3, bsp/dsana) give W=1 S=1's model byte for byte"

# links: pushes leave chunk by chunk while their tasks run (--chunk 800), behind pull requests
printf '{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}, {"speed": 0.25}], "transient": {"probability": 0.3, "slowdown": 4, "seed": 9}, "ns_per_cost": 300, "link": {"bandwidth_mbit": 100, "latency_ms": 0.2}}' >strag.json
if mlp strag "${common[@]}" --workers 4 --servers 2 --mode dsana --scenario strag.json --tasks-per-worker 4 --chunk 800 &&
  cmp -s base.model strag.model && mlp procs "${common[@]}" --workers 2 --isolate processes &&
  cmp -s base.model procs.model; then
  pass "a straggler scenario (speeds 1, 1, 0.5, 0.25, transient 4x, 100 Mbit/s links; 4 workers, 2 servers) and roles as processes give the same model"
else
  fail "stragglers / processes: rc=$RC, model differs or missing $(head -c 200 strag.err) $(head -c 200 procs.err 2>/dev/null)"
fi

# a worker killed mid-push (chunks of 100 keys: half of its chunks final at the servers before it
# dies): its tasks go to the others, which send those chunks again; the model is the same
if DSANA_FAULT="worker=1,iter=4,point=mid-push,how=kill" mlp killed "${common[@]}" --workers 3 --servers 2 --chunk 800 &&
  grep -q "worker 1 lost" killed.err && cmp -s base.model killed.model; then
  pass "a worker killed mid-push in iteration 4: $(grep -m1 -o 'worker 1 lost[^:]*' killed.err); the same model"
else
  fail "killed worker: rc=$RC, model differs or missing: $(tr '\n' ' ' <killed.err | tail -c 900)"
fi
# a server killed: the job stops naming its checkpoint; --resume (with other workers) gives the same model
DSANA_FAULT="server=1,iter=9,point=commit,how=kill" run_capture stopped "$DSANA" mlp multi.svm "${common[@]}" --quiet \
  --workers 3 --servers 2 --checkpoint ck --checkpoint-every 4 --max-restarts 0 --model-out stopped.model
if [ "$RC" -eq 1 ] && grep -q "continue with --resume ck" stopped.err && [ ! -e stopped.model ] &&
  mlp resumed "${common[@]}" --workers 2 --servers 2 --resume ck && cmp -s base.model resumed.model; then
  pass "a server killed after iteration 9, --resume from iteration 8 with 2 workers: the same model"
else
  fail "resume: rc=$RC, model differs or missing $(head -c 300 stopped.err) $(head -c 300 resumed.err 2>/dev/null)"
fi

# --lr-schedule cosine (the default): its first step is at the full rate (one step: the
# constant rate's model), later ones lower (--lr-schedule constant: another model); the
# constant rate is the same in every layout too
if mlp cos1 "${common[@]}" --max-iter 2 && mlp const1 "${common[@]}" --max-iter 2 --lr-schedule constant &&
  cmp -s cos1.model const1.model && mlp const "${common[@]}" --lr-schedule constant && ! cmp -s base.model const.model &&
  mlp const.w3 "${common[@]}" --lr-schedule constant --workers 3 --servers 2 --mode dsana &&
  cmp -s const.model const.w3.model; then
  pass "--lr-schedule cosine (default): one step as the constant rate's, then another model; constant the same with 3 workers x 2 servers"
else
  fail "--lr-schedule cosine/constant: rc=$RC $(head -c 300 const.err 2>/dev/null)"
fi

# --nesterov on (the default) and off (classical momentum) give other models, each the
# same in every layout; with --momentum 0 they are one rule
if mlp classic "${common[@]}" --nesterov off && ! cmp -s base.model classic.model &&
  mlp classic.w3 "${common[@]}" --nesterov off --workers 3 --servers 2 && cmp -s classic.model classic.w3.model &&
  mlp on.m0 "${common[@]}" --momentum 0 --nesterov on && mlp off.m0 "${common[@]}" --momentum 0 --nesterov off &&
  cmp -s on.m0.model off.m0.model; then
  pass "--nesterov off: another model than the default's, the same with 3 workers x 2 servers; at --momentum 0 the same as on"
else
  fail "--nesterov on/off: rc=$RC $(head -c 300 classic.err 2>/dev/null)"
fi

# --final-eval off: no evaluation after the last step (scikit-learn's fit has none; the
# Python estimator asks for none): the same model, one iteration fewer, whose metrics
# close the last epoch with the means the evaluation's iteration reports (and its row shows)
iters() { grep -c '"type":"iteration"' "$1"; }
last_epoch() { grep '"type":"iteration"' "$1" | tail -1 | grep -o '"epoch_loss":[^,]*,"epoch_accuracy":[^,}]*'; }
if mlp evoff "${common[@]}" --final-eval off --workers 2 --servers 2 && cmp -s base.model evoff.model &&
  [ "$(iters evoff.jsonl)" -eq $(($(iters base.jsonl) - 1)) ] && [ -n "$(last_epoch base.jsonl)" ] &&
  [ "$(last_epoch evoff.jsonl)" = "$(last_epoch base.jsonl)" ] && ! grep -q '"epoch_loss":null' <(last_epoch evoff.jsonl); then
  pass "--final-eval off: the same model in $(iters evoff.jsonl) iterations, not $(iters base.jsonl); the last epoch's $(last_epoch evoff.jsonl)"
else
  fail "--final-eval off: rc=$RC, $(iters evoff.jsonl 2>/dev/null) iterations, '$(last_epoch evoff.jsonl 2>/dev/null)' against '$(last_epoch base.jsonl)'"
fi

if mlp seed2 "${common[@]}" --seed 2 && ! cmp -s base.model seed2.model; then
  pass "--seed 2 gives another model"
else
  fail "--seed 2: rc=$RC, should differ from the default"
fi

# ------------------------------------------------ report, metrics, predict
# 1200 rows in batches of 300: 4 steps an epoch, 4 epochs, then the evaluation.
run_capture table "$DSANA" mlp multi.svm "${common[@]}" --test multi.svm
rows=$(awk '$1 ~ /^[0-9]+$/ { printf "%s,", $1 }' table.out)
iters=$(jq -s '[.[] | select(.type == "iteration")] | length' base.jsonl)
scored=$(jq -s '[.[] | select(.type == "iteration" and .epoch_loss != null) | .iter] | join(",")' -r base.jsonl)
if [ "$RC" -eq 0 ] && [ "$rows" = "1,5,9,13,17," ] && [ "$iters" -eq 17 ] && [ "$scored" = 5,9,13,17 ]; then
  pass "one table row an epoch (iterations 1, 5, 9, 13, 17), 17 metrics lines, epoch_loss at 5, 9, 13 and 17"
else
  fail "report: rc=$RC table rows '$rows' metrics lines $iters epoch_loss at '$scored'"
fi

# the tasks score the test set between them: with the training set as the
# test set, the last iteration's test figures are its training figures
# (every row once), the same with 1 and with 3 workers x 2 servers
scored_ok=0
for layout in "--workers 1" "--workers 3 --servers 2"; do
  # shellcheck disable=SC2086
  if mlp scored "${common[@]}" --test multi.svm $layout &&
    jq -es 'map(select(.type == "iteration")) | last | .test_accuracy == .train_accuracy and
      (.test_logloss - .train_loss | fabs) < 1e-12 and .test_accuracy > 0.4' scored.jsonl >/dev/null &&
    [ "$(jq -s '[.[] | select(.type == "iteration" and .test_accuracy != null)] | length' scored.jsonl)" -eq 5 ]; then
    scored_ok=$((scored_ok + 1))
  fi
done
if [ "$scored_ok" -eq 2 ]; then
  pass "--test: scored at each epoch's start and at the end; the end's figures with the training set are its own"
else
  fail "--test scoring: rc=$RC $(jq -c 'select(.type == "iteration") | [.iter, .test_accuracy, .train_accuracy]' scored.jsonl 2>/dev/null | tail -3)"
fi

run_capture pred "$DSANA" mlp predict base.model multi.svm --out pred.txt
acc=$(jq -r 'select(.type == "summary") | .train_accuracy' base.jsonl)
got=$(sed -n 's/accuracy: //p' pred.out)
if [ "$RC" -eq 0 ] && [ "$(wc -l <pred.txt)" -eq 1200 ] &&
  awk -v a="$acc" -v b="$got" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-6 && a > 0.5) }'; then
  pass "predict: 1200 lines, accuracy $got = the run's final train_accuracy $acc"
else
  fail "predict: rc=$RC accuracy '$got' vs run's '$acc' $(head -c 200 pred.err)"
fi

# ------------------------------------------------------------- bad input
for bad in "--hidden 0" "--hidden 8,,4" "--hidden 1,2,3,4,5,6,7,8" "--activation sigmoid" "--momentum 1" \
  "--lr 0" "--batch 0" "--epochs 0" "--lr-schedule step" "--nesterov yes"; do
  # shellcheck disable=SC2086
  run_capture bad "$DSANA" mlp multi.svm $bad --quiet
  if [ "$RC" -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -q -- "${bad%% *}" bad.err; then
    pass "mlp $bad: exit 2, one line naming the option"
  else
    fail "mlp $bad: rc=$RC $(cat bad.err)"
  fi
done
printf '1 1:0.5\n1 2:0.25\n' >one.svm
run_capture one "$DSANA" mlp one.svm --quiet
if [ "$RC" -eq 2 ] && [ "$(wc -l <one.err)" -eq 1 ] && grep -q "one.svm: 1 distinct label" one.err; then
  pass "a training set of one label: exit 2, one line naming the file"
else
  fail "one label: rc=$RC $(cat one.err)"
fi
printf '# dsana mlp model\n# layers 1 widths 30 4 activation relu\n# labels 0 1 2 3\n0.5\n' >short.model
run_capture badmodel "$DSANA" mlp predict short.model multi.svm --out p2.txt
if [ "$RC" -eq 2 ] && grep -q "short.model: parameter 2 missing" badmodel.err && [ ! -e p2.txt ]; then
  pass "predict with a truncated model: exit 2 naming the file and the parameter, no output"
else
  fail "truncated model: rc=$RC $(cat badmodel.err)"
fi
# ------------------------------------------------- a diverging run
run_capture diverge "$DSANA" mlp multi.svm --quiet --hidden 16 --lr 1e6 --epochs 3 --model-out diverge.model
if [ "$RC" -eq 1 ] && grep -q "diverged in iteration [0-9]*: table 'g[hl]' key [0-9]* is nan" diverge.err &&
  [ ! -e diverge.model ]; then
  pass "--lr 1e6: exit 1, '$(grep -m1 -o "diverged in iteration [0-9]*: table 'g[hl]' key [0-9]*" diverge.err)', no model"
else
  fail "--lr 1e6: rc=$RC $(head -c 300 diverge.err)"
fi
finish
