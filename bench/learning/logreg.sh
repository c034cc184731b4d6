#!/usr/bin/env bash
# bench/learning/logreg.sh [--quick] [--install] [--pairs N] [--sk-max-iter N] [--only a|b|c]
#
# Logistic regression (dsana logreg, default options: L-BFGS, l2 1 = scikit-learn's C=1),
# three parts; the whole script holds /tmp/dsana-bench.lock (it re-runs itself under flock).
#  (a) Fashion-MNIST (/usr/share/datasets/fashion-mnist, package dataset-fashion-mnist):
#      the IDX files converted once to dsana's binary format (bench/results/data/), then
#      `dsana logreg fm-train.bin --test fm-test.bin` (defaults: 100 iterations) and
#      scikit-learn's LogisticRegression(C=1, solver='lbfgs', max_iter=--sk-max-iter,
#      default 200) on the same pixels/255 with /usr/bin/python3, if it imports sklearn
#      (--install: apt-get install python3-sklearn when it does not), same machine, all
#      cores for both. Prints both test accuracies and times (dsana: the whole command,
#      start-up included; scikit-learn: fit() alone) and dsana's time to scikit-learn's
#      test accuracy (start-up + the iterations up to the first that reaches it; else to
#      its final accuracy) over scikit-learn's fit time. numpy's BLAS is named.
#  (b) and (c) run the roles as processes (an emulated cluster; memory per role), (a) with
#      the defaults (one process, the roles its threads).
#  (b) The heterogeneous scenario (bench/scenarios/heterogeneous-cloud.json: speeds 1, 1,
#      0.5, 0.25, cost model ns_per_cost 3 x time_scale 4; links removed, scheduling only),
#      Fashion-MNIST train set, --workers 4 --servers 1 --max-iter 6 --tol 0, N pairs
#      (default 3) of --mode bsp then --mode dsana: median iteration time of each, the
#      speed-up (median of per-pair ratios), efficiency = balanced bound (bound_s: the
#      modelled work / sum of speeds) / dsana's median, and cmp of every run's model.
#  (c) Synthetic sparse `dsana data gen logreg --samples 1000000 --features 1000000
#      --nnz-per-row 20` (cached): --max-iter 5 --tol 0 with 1, 2, 4 workers (1 server):
#      s/iteration (median), bytes per iteration (median over iterations of the sum over
#      workers of bytes_in + bytes_out, from --metrics) and the peak resident set of every
#      role (VmHWM of each process, sampled from /proc every 0.2 s). The default
#      --peer-timeout: servers heartbeat between pieces of a long finish()/update().
# --only PART runs that part alone ((b) still converts Fashion-MNIST when needed).
# --quick: a smoke test (FM --max-iter 20, scikit-learn max_iter 20, 2 pairs of 3
# iterations, sparse 100000 x 100000). Writes bench/results/logreg.csv (one row per
# figure, appended). The last line is `fm_acc=A time_ratio=R het_speedup=S het_eff=E`.
set -euo pipefail
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  exec env DSANA_BENCH_LOCK_HELD=1 flock /tmp/dsana-bench.lock bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,30s/^# \{0,1\}//p' "$0"; }

quick=0 install=0 pairs='' sk_iter='' only=abc
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --install) install=1 ;;
  --pairs | --sk-max-iter)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
    if [[ $1 == --pairs ]]; then pairs=$2; else sk_iter=$2; fi
    shift
    ;;
  --only)
    [[ $# -ge 2 && $2 =~ ^[abc]$ ]] || die "--only needs a, b or c"
    only=$2
    shift
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
if ((quick)); then
  pairs=${pairs:-2} sk_iter=${sk_iter:-20} FM_ITERS=20 HET_ITERS=3 SPARSE_N=100000
else
  pairs=${pairs:-3} sk_iter=${sk_iter:-100} FM_ITERS=100 HET_ITERS=6 SPARSE_N=1000000
fi

bench_init
FMDIR=${FMDIR:-/usr/share/datasets/fashion-mnist}
DATA=$RESULTS/data
mkdir -p "$DATA"
csv=$RESULTS/logreg.csv
hdr=date,commit,part,figure,value
row() { csv_row "$csv" "$hdr" "$BENCH_DATE,$BENCH_COMMIT,$1,$2,$3"; }
PY=/usr/bin/python3

# ---------------------------------------------------------------- helpers
# lr_run TAG ARGS...: `dsana logreg ARGS --quiet --metrics M`, wall time into RUN_WALL,
# the peak resident set of each role into $SCRATCH/TAG.rss ("role kB" lines).
lr_run() {
  local tag=$1
  shift
  RUN_METRICS=$SCRATCH/$tag.jsonl
  local samples=$SCRATCH/$tag.samples t0 t1 pid
  rm -f "$RUN_METRICS" "$samples"
  t0=$(date +%s.%N)
  "$DSANA" logreg "$@" --quiet --metrics "$RUN_METRICS" >"$SCRATCH/$tag.out" 2>"$SCRATCH/$tag.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do # every role's VmHWM (peak RSS so far) and title
    local p
    for p in $pid $(pgrep -P "$pid" || true); do
      { printf '%s|' "$(tr '\0' ' ' <"/proc/$p/cmdline")"; awk '/^VmHWM/ {print $2}' "/proc/$p/status"; } 2>/dev/null || true
    done >>"$samples"
    sleep 0.2
  done
  if ! wait "$pid"; then
    echo "error: run '$tag' failed: $DSANA logreg $*" >&2
    tail -n 20 "$SCRATCH/$tag.err" >&2
    exit 1
  fi
  t1=$(date +%s.%N)
  RUN_WALL=$(calc "$t1 - $t0" %.3f)
  awk -F'|' 'NF == 2 && $2 != "" {
      r = "launcher"
      if (match($1, /^dsana: (scheduler|server [0-9]+|worker [0-9]+)/)) { r = substr($1, 8, RLENGTH - 7) }
      else if ($1 !~ /logreg/) next
      if ($2 + 0 > m[r]) m[r] = $2 + 0 }
    END { for (r in m) print r, m[r] }' "$samples" | sort >"$SCRATCH/$tag.rss"
  grep -q '"type":"summary"' "$RUN_METRICS" || die "run '$tag': no summary line in $RUN_METRICS"
}

# Peak RSS in MiB of the roles matching a pattern (max over them), from lr_run's file.
rss_mib() { awk -v re="$2" '$0 ~ re { v = $NF > v ? $NF : v } END { printf "%.0f", v / 1024 }' "$1"; }

# fm_ceilings S: dsana's GFLOP/s and GB/s at S s/iteration on Fashion-MNIST, and the
# machine's ceilings (bench/learning/peak.c, built as the `peak` target next to dsana's build).
fm_ceilings() {
  local s=$1 info_tr info_te nnz_tr nnz_te rows k peak dir
  info_tr=$("$DSANA" data info "$fm_train")
  info_te=$("$DSANA" data info "$fm_test")
  nnz_tr=$(awk '$1 == "nnz:" {print $2}' <<<"$info_tr")
  nnz_te=$(awk '$1 == "nnz:" {print $2}' <<<"$info_te")
  k=$(awk '$1 == "classes:" {print $2}' <<<"$info_tr")
  rows=$(printf '%s\n%s\n' "$info_tr" "$info_te" | awk '$1 == "rows:" {n += $2} END {print n}')
  local gf gb
  gf=$(calc "(4 * $nnz_tr + 2 * $nnz_te) * $k / $s / 1e9" %.2f)
  gb=$(calc "(($nnz_tr + $nnz_te) * 8 + $rows * 16) / $s / 1e9" %.2f)
  dir=$(dirname "$DSANA")
  if [[ -f $dir/CMakeCache.txt ]] && cmake --build "$dir" --target peak >"$SCRATCH/peak.build" 2>&1; then
    peak=$("$dir/peak")
    local pf pb
    pf=$(sed -n 's/.*gflops=\([0-9.]*\).*/\1/p' <<<"$peak")
    pb=$(sed -n 's/.*gbs=\([0-9.]*\).*/\1/p' <<<"$peak")
    printf '  dsana reached %s GFLOP/s (%.0f%% of the measured peak %s) and %s GB/s of rows read (%.0f%% of %s GB/s); peak: %s\n' \
      "$gf" "$(calc "100 * $gf / $pf")" "$pf" "$gb" "$(calc "100 * $gb / $pb")" "$pb" "$peak"
    row fm peak_gflops "$pf"
    row fm peak_gbs "$pb"
  else
    printf '  dsana reached %s GFLOP/s and %s GB/s of rows read (no peak: %s has no CMake build to build bench/learning/peak.c in)\n' "$gf" "$gb" "$DSANA"
  fi
  row fm dsana_gflops "$gf"
  row fm dsana_gbs "$gb"
}

# fm_identity: the model of 10 iterations, 1 worker x 1 thread x 1 server against
# 4 workers x 2 threads x 2 servers (dynamic scheduling): byte-identical or not.
fm_identity() {
  note "(a) model identity: 1x1x1 and 4x2x2, 10 iterations"
  lr_run id1 "$fm_train" --workers 1 --threads 1 --servers 1 --max-iter 10 --tol 0 --model-out "$SCRATCH/id1.model"
  lr_run id4 "$fm_train" --workers 4 --threads 2 --servers 2 --max-iter 10 --tol 0 --model-out "$SCRATCH/id4.model"
  local same=NO
  cmp -s "$SCRATCH/id1.model" "$SCRATCH/id4.model" && same=yes
  echo "  model byte-identical for 1 worker x 1 thread x 1 server and 4 workers x 2 threads x 2 servers: $same"
  row fm models_identical_1x1x1_4x2x2 "$same"
}

# ------------------------------------------------- (a) Fashion-MNIST vs scikit-learn
fm_train=$DATA/fm-train.bin fm_test=$DATA/fm-test.bin
for set in train:train t10k:test; do
  src=${set%%:*} dst=$DATA/fm-${set##*:}.bin
  if [[ ! -s $dst ]]; then
    [[ -r $FMDIR/$src-images-idx3-ubyte.gz ]] || die "$FMDIR/$src-images-idx3-ubyte.gz is missing (apt-get install dataset-fashion-mnist)"
    note "converting Fashion-MNIST $src -> $dst"
    "$DSANA" data convert --idx "$FMDIR/$src-images-idx3-ubyte.gz" "$FMDIR/$src-labels-idx1-ubyte.gz" "$dst" >/dev/null
  fi
done

fm_acc=n/a time_ratio=n/a sm=0 eff=n/a
echo
echo "== logistic regression, commit $BENCH_COMMIT, $BENCH_DATE, $BENCH_HOST"
if [[ $only == *a* ]]; then
note "(a) dsana logreg on Fashion-MNIST, $FM_ITERS iterations"
lr_run fm "$fm_train" --test "$fm_test" --max-iter "$FM_ITERS" --model-out "$SCRATCH/fm.model"
fm_acc=$(summary_field "$RUN_METRICS" test_accuracy)
fm_wall=$RUN_WALL
fm_iters=$(summary_field "$RUN_METRICS" iterations)
fm_iter_s=$(summary_field "$RUN_METRICS" median_iter_s)
fm_m=$RUN_METRICS
fm_rss=$(rss_mib "$SCRATCH/fm.rss" .)
row fm dsana_test_accuracy "$fm_acc"
row fm dsana_wall_s "$fm_wall"
row fm dsana_median_iter_s "$fm_iter_s"

have_sk=0
if $PY -c 'import sklearn' 2>/dev/null; then
  have_sk=1
elif ((install)) && [[ $(id -u) -eq 0 ]]; then
  sk_pkgs="python3-sklearn python3-threadpoolctl libopenblas0-pthread"
  note "installing $sk_pkgs"
  # shellcheck disable=SC2086
  { apt-get install -y -qq --no-install-recommends $sk_pkgs >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $sk_pkgs >/dev/null 2>&1; }; } &&
    $PY -c 'import sklearn' 2>/dev/null && have_sk=1
fi
sk_line=
if ((have_sk)); then
  note "(a) scikit-learn LogisticRegression(C=1, solver='lbfgs', max_iter=$sk_iter)"
  sk_line=$(FMDIR=$FMDIR $PY - "$sk_iter" <<'EOF' 2>"$SCRATCH/sk.err"
import gzip, os, sys, time, warnings
import numpy as np
from sklearn.linear_model import LogisticRegression
d = os.environ["FMDIR"] + "/"
def images(p):
    with gzip.open(d + p) as f: b = f.read()
    n, r, c = np.frombuffer(b, ">u4", 3, 4)
    return np.frombuffer(b, np.uint8, n * r * c, 16).reshape(n, r * c).astype(np.float64) / 255.0
def labels(p):
    with gzip.open(d + p) as f: b = f.read()
    return np.frombuffer(b, np.uint8, -1, 8)
Xtr, ytr = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
Xte, yte = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
warnings.simplefilter("ignore")
t = time.perf_counter()
m = LogisticRegression(C=1.0, solver="lbfgs", max_iter=int(sys.argv[1])).fit(Xtr, ytr)
el = time.perf_counter() - t
try:
    from threadpoolctl import threadpool_info
    blas = ",".join("%s:%s:%d-threads" % (i["internal_api"], i.get("version") or "?", i["num_threads"])
                    for i in threadpool_info() if i["user_api"] == "blas") or "none-found"
except ImportError:
    blas = "unknown(no-threadpoolctl)"
print("%.3f %.4f %d %s" % (el, m.score(Xte, yte), m.n_iter_[0], blas))
EOF
  ) || die "scikit-learn failed: $(tail -n 5 "$SCRATCH/sk.err")"
else
  note "scikit-learn is not importable by $PY (bench/learning/logreg.sh --install installs python3-sklearn): skipped"
fi

echo "(a) Fashion-MNIST (60000 x 784, 10 classes; test 10000), default options (L-BFGS, l2 1)"
printf '  dsana    test accuracy %.4f  %s iterations  wall %.1f s (start-up included)  %.3f s/iteration  peak RSS %s MiB (largest role)\n' \
  "$fm_acc" "$fm_iters" "$fm_wall" "$fm_iter_s" "$fm_rss"
time_ratio=n/a
if [[ -n $sk_line ]]; then
  read -r sk_s sk_acc sk_n blas <<<"$sk_line"
  # dsana's time to scikit-learn's accuracy: start-up (wall - sum of iterations) + the
  # iterations up to the first whose test accuracy reaches it
  reach=$(jq -s -r --argjson acc "$sk_acc" --argjson wall "$fm_wall" '
    [.[] | select(.type == "iteration")] as $it | ($wall - ([$it[].wall_s] | add)) as $start
    | ([$it | to_entries[] | select(.value.test_accuracy >= $acc) | .key] | first) as $k
    | if $k == null then "none \($start + ([$it[].wall_s] | add))"
      else "\($it[$k].iter) \($start + ([$it[0:$k + 1][].wall_s] | add))" end' "$fm_m")
  read -r reach_iter reach_s <<<"$reach"
  time_ratio=$(calc "$reach_s / $sk_s" %.2f)
  sk_iter_s=$(calc "$sk_s / $sk_n" %.4f)
  iter_ratio=$(calc "$fm_iter_s / $sk_iter_s" %.2f)
  printf '  sklearn  test accuracy %.4f  %s iterations  fit %.1f s  %.3f s/iteration  (numpy BLAS, threadpoolctl: %s)\n' \
    "$sk_acc" "$sk_n" "$sk_s" "$sk_iter_s" "$blas"
  awk -v r="$iter_ratio" 'BEGIN { exit !(r <= 0.5) }' && met=met || met=MISSED
  printf '  time per iteration dsana/sklearn %s (target <= 0.5: %s); test accuracy dsana %.4f vs sklearn %.4f at %s vs %s iterations\n' \
    "$iter_ratio" "$met" "$fm_acc" "$sk_acc" "$fm_iters" "$sk_n"
  row fm sklearn_iter_s "$sk_iter_s"
  row fm iter_ratio "$iter_ratio"
  row fm sklearn_blas "$blas"
  if [[ $reach_iter == none ]]; then
    printf '  dsana never reached %.4f: its whole run %.1f s / sklearn %.1f s = %s\n' "$sk_acc" "$reach_s" "$sk_s" "$time_ratio"
  else
    printf '  dsana reached %.4f at iteration %s: %.1f s / sklearn %.1f s = %s (goal <= 1.0, then <= 0.5)\n' \
      "$sk_acc" "$reach_iter" "$reach_s" "$sk_s" "$time_ratio"
  fi
  row fm sklearn_test_accuracy "$sk_acc"
  row fm sklearn_fit_s "$sk_s"
  row fm sklearn_iterations "$sk_n"
  row fm dsana_time_to_sklearn_accuracy_s "$reach_s"
  row fm time_ratio "$time_ratio"
fi
awk -v a="$fm_acc" 'BEGIN { exit !(a >= 0.84) }' && met=met || met=MISSED
echo "  target test accuracy >= 0.84: $met"
fm_ceilings "$fm_iter_s"
fm_identity
fi

# --------------------------------------------------- (b) heterogeneous scenario
if [[ $only == *b* ]]; then
sc=$SCRATCH/het.json
jq 'del(.link) | del(.workers[].link)' "$BENCH_DIR/scenarios/heterogeneous-cloud.json" >"$sc"
speeds=$(jq -r '[.workers[].speed] | map(tostring) | join(",")' "$sc")
declare -a tb td rat bnd ovr
ident=yes
ref=
for ((i = 1; i <= pairs; i++)); do
  for mode in bsp dsana; do
    note "(b) heterogeneous pair $i --mode $mode"
    lr_run "het-$mode-$i" "$fm_train" --isolate processes --workers 4 --servers 1 --mode "$mode" --scenario "$sc" \
      --max-iter "$HET_ITERS" --tol 0 --model-out "$SCRATCH/het-$mode-$i.model"
    t=$(summary_field "$RUN_METRICS" median_iter_s)
    if [[ -z $ref ]]; then ref=$SCRATCH/het-$mode-$i.model; elif ! cmp -s "$ref" "$SCRATCH/het-$mode-$i.model"; then ident=NO; fi
    if [[ $mode == bsp ]]; then tb+=("$t"); else
      td+=("$t") bnd+=("$(summary_field "$RUN_METRICS" bound_s)") ovr+=("$(summary_field "$RUN_METRICS" overrun_s)")
    fi
  done
  rat+=("$(calc "${tb[$((i - 1))]} / ${td[$((i - 1))]}" %.6f)")
done
read -r bm bmin bmax < <(stats "${tb[@]}")
read -r dm dmin dmax < <(stats "${td[@]}")
read -r sm smin smax < <(stats "${rat[@]}")
read -r bound _ _ < <(stats "${bnd[@]}")
read -r overrun _ _ < <(stats "${ovr[@]}")
eff=$(calc "$bound / $dm" %.2f)
echo "(b) heterogeneous scenario (speeds $speeds; links removed), Fashion-MNIST train, 4 workers, 1 server,"
echo "    $HET_ITERS iterations, $pairs pairs (bsp, dsana alternating)"
printf '  bsp    median s/iteration %.3f [%.3f-%.3f]\n' "$bm" "$bmin" "$bmax"
printf '  dsana  median s/iteration %.3f [%.3f-%.3f]\n' "$dm" "$dmin" "$dmax"
printf '  speed-up bsp/dsana %.2f per-pair median [%.2f-%.2f] (target >= 2.3)\n' "$sm" "$smin" "$smax"
printf '  balanced bound (work / sum of speeds) %.3f s -> efficiency %s (target >= 0.9); overrun %s s\n' "$bound" "$eff" "$overrun"
echo "  models byte-identical across all $((2 * pairs)) runs: $ident"
row het bsp_median_iter_s "$bm"
row het dsana_median_iter_s "$dm"
row het speedup "$sm"
row het bound_s "$bound"
row het efficiency "$eff"
row het models_identical "$ident"
fi

# --------------------------------------------------------- (c) sparse scaling
if [[ $only == *c* ]]; then
sp=$DATA/sparse-$SPARSE_N.bin
if [[ ! -s $sp ]]; then
  note "generating $SPARSE_N x $SPARSE_N, 20 non-zeros a row -> $sp"
  "$DSANA" data gen logreg --samples "$SPARSE_N" --features "$SPARSE_N" --nnz-per-row 20 --seed 1 --out "$sp.tmp.$$" >/dev/null
  mv "$sp.tmp.$$" "$sp"
fi
echo "(c) synthetic sparse $SPARSE_N rows x $SPARSE_N features, 20 non-zeros a row, 1 server, 5 iterations"
printf '  %-8s %10s %14s %14s %12s %12s %12s\n' workers s/iter MiB/iter "scheduler MiB" "server MiB" "worker MiB" "launcher MiB"
for W in 1 2 4; do
  note "(c) sparse, $W workers"
  lr_run "sparse-$W" "$sp" --isolate processes --workers "$W" --servers 1 --max-iter 5 --tol 0
  s=$(summary_field "$RUN_METRICS" median_iter_s)
  bytes=$(jq -s -r '[.[] | select(.type == "worker")] | group_by(.iter) | map(map(.bytes_in + .bytes_out) | add) | sort |
    .[(length / 2 | floor)]' "$RUN_METRICS")
  f=$SCRATCH/sparse-$W.rss
  printf '  %-8s %10.3f %14.1f %14s %12s %12s %12s\n' "$W" "$s" "$(calc "$bytes / 1048576")" "$(rss_mib "$f" '^scheduler')" \
    "$(rss_mib "$f" '^server')" "$(rss_mib "$f" '^worker')" "$(rss_mib "$f" '^launcher')"
  [[ $W == 1 ]] || echo "           (per worker: $(awk '/^worker/ {printf "%s%.0f", s, $NF / 1024; s = "/"}' "$f") MiB)"
  row "sparse-w$W" median_iter_s "$s"
  row "sparse-w$W" bytes_per_iter "$bytes"
  for r in scheduler server worker launcher; do row "sparse-w$W" "peak_rss_mib_$r" "$(rss_mib "$f" "^$r")"; done
done
fi
echo "fm_acc=$fm_acc time_ratio=$time_ratio het_speedup=$(printf %.2f "$sm") het_eff=$eff"
