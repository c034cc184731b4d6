#!/usr/bin/env bash
# bench/learning/kmeans.sh [--quick] [--pairs N] [--iters N] [--only a|b]
#
# k-means (dsana kmeans), two parts; the whole script holds /tmp/dsana-bench.lock (it
# re-runs itself under flock).
#  (a) Fashion-MNIST (/usr/share/datasets/fashion-mnist, package dataset-fashion-mnist;
#      the training images converted once to bench/results/data/fm-train.bin, 60000 x 784),
#      K = 10, the same initial centroids for both (images 0, 6000, ..., 54000, given to
#      dsana with --init-centroids and to scikit-learn as init=), --tol 0, --iters N Lloyd
#      iterations (default 50). dsana with its default local layout (1 worker, every core);
#      scikit-learn's KMeans(n_clusters=10, init=C, n_init=1, algorithm='lloyd', tol=0)
#      on the same values (pixel / 255 as float, widened to double) with the first python3
#      of python3, /usr/bin/python3 that imports sklearn and threadpoolctl, as its users run
#      it: OpenMP threads over every core, the BLAS threadpoolctl reports (Debian's
#      libopenblas0-pthread when installed). Per Lloyd iteration: dsana's median iteration
#      (summary median_iter_s); scikit-learn's (fit(max_iter=N) - fit(max_iter=1)) /
#      (n_iter_ difference), which leaves out its input checks and copies. N pairs (default
#      3) alternating dsana, scikit-learn; the ratio dsana / scikit-learn per pair, its
#      median. Also: whole dsana command vs fit(max_iter=N), and the two objectives
#      (dsana's summary line, scikit-learn's inertia_) with their relative difference.
#  (b) The heterogeneous scenario (bench/scenarios/heterogeneous-cloud.json: speeds 1, 1,
#      0.5, 0.25, cost model ns_per_cost 3 x time_scale 4; links removed, scheduling only,
#      as bench/learning/logreg.sh does), the same data and centroids, --workers 4 --servers 1 --tol 0
#      --max-iter 6, N pairs of --mode bsp then --mode dsana: the median s/iteration of each,
#      the speed-up (median of per-pair bsp/dsana ratios), efficiency = balanced bound
#      (bound_s) / dsana's median, the overrun, and cmp of every run's centroids.
# --only PART runs that part alone. --quick: a smoke test (10 iterations, 2 pairs, (b) with
# 3 iterations). Writes bench/results/kmeans.csv (one row per figure, appended). The last
# line is `fm_dsana_s=D fm_sklearn_s=S fm_ratio=R het_speedup=H het_eff=E`.
set -euo pipefail
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  exec env DSANA_BENCH_LOCK_HELD=1 flock /tmp/dsana-bench.lock bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,30s/^# \{0,1\}//p' "$0"; }

quick=0 pairs='' iters='' only=ab
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --pairs | --iters)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
    if [[ $1 == --pairs ]]; then pairs=$2; else iters=$2; fi
    shift
    ;;
  --only)
    [[ $# -ge 2 && $2 =~ ^[ab]$ ]] || die "--only needs a or b"
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
  pairs=${pairs:-2} iters=${iters:-10} HET_ITERS=3
else
  pairs=${pairs:-3} iters=${iters:-50} HET_ITERS=6
fi
((iters >= 2)) || die "--iters needs at least 2 (scikit-learn's time per iteration is a difference)"

bench_init
FMDIR=${FMDIR:-/usr/share/datasets/fashion-mnist}
DATA=$RESULTS/data
mkdir -p "$DATA"
csv=$RESULTS/kmeans.csv
hdr=date,commit,part,figure,value
row() { csv_row "$csv" "$hdr" "$BENCH_DATE,$BENCH_COMMIT,$1,$2,$3"; }

PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sklearn, numpy, threadpoolctl' 2>/dev/null; then
    PY=$p
    break
  fi
done

# ---------------------------------------------------------------- the data
fm=$DATA/fm-train.bin
if [[ ! -s $fm ]]; then
  [[ -r $FMDIR/train-images-idx3-ubyte.gz ]] ||
    die "$FMDIR/train-images-idx3-ubyte.gz is missing (apt-get install dataset-fashion-mnist)"
  note "converting Fashion-MNIST train -> $fm"
  "$DSANA" data convert --idx "$FMDIR/train-images-idx3-ubyte.gz" "$FMDIR/train-labels-idx1-ubyte.gz" "$fm.tmp.$$" >/dev/null
  mv "$fm.tmp.$$" "$fm"
fi
# The initial centroids: images 0, 6000, ..., 54000 as dsana reads them (its IDX reader
# computes (float)p / 255.0f), written with repr so that the doubles read back exactly.
# Without scikit-learn there is nothing to compare with: dsana alone, --init random.
init_args=(--init random --seed 1)
if [[ -n $PY ]]; then
  FMDIR=$FMDIR $PY - "$SCRATCH/init.txt" <<'EOF2' || die "could not write the initial centroids"
import gzip, os, sys
import numpy as np
with gzip.open(os.environ["FMDIR"] + "/train-images-idx3-ubyte.gz") as f:
    b = f.read()
X = np.frombuffer(b, np.uint8, 60000 * 784, 16).reshape(60000, 784)[::6000]
C = (X.astype(np.float32) / np.float32(255)).astype(np.float64)
with open(sys.argv[1], "w") as f:
    for c in C:
        f.write(" ".join(repr(v) for v in c) + "\n")
EOF2
  init_args=(--init-centroids "$SCRATCH/init.txt")
fi

km_run() { # TAG ARGS...: dsana kmeans on fm, metrics in $SCRATCH/TAG.jsonl; RUN_WALL, RUN_METRICS, RUN_OUT
  local tag=$1 t0 t1
  shift
  RUN_METRICS=$SCRATCH/$tag.jsonl RUN_OUT=$SCRATCH/$tag.out
  t0=$(date +%s.%N)
  "$DSANA" kmeans "$fm" --k 10 "${init_args[@]}" --tol 0 --out "$SCRATCH/$tag.txt" \
    --metrics "$RUN_METRICS" "$@" >"$RUN_OUT" 2>"$SCRATCH/$tag.err" ||
    { tail -n 20 "$SCRATCH/$tag.err" >&2; die "run '$tag' failed: dsana kmeans $fm $*"; }
  t1=$(date +%s.%N)
  RUN_WALL=$(calc "$t1 - $t0" %.3f)
  grep -q '"type":"summary"' "$RUN_METRICS" || die "run '$tag': no summary line in $RUN_METRICS"
}

# sk_fit N: "fit_s(N) n_iter(N) inertia(N) fit_s(1) n_iter(1)" of scikit-learn on the same data
sk_fit() {
  FMDIR=$FMDIR $PY - "$SCRATCH/init.txt" "$1" <<'EOF2' 2>"$SCRATCH/sk.err"
import gzip, os, sys, time, warnings
import numpy as np
from sklearn.cluster import KMeans
with gzip.open(os.environ["FMDIR"] + "/train-images-idx3-ubyte.gz") as f:
    b = f.read()
X = (np.frombuffer(b, np.uint8, 60000 * 784, 16).reshape(60000, 784).astype(np.float32) / np.float32(255)).astype(np.float64)
C = np.loadtxt(sys.argv[1], ndmin=2)
warnings.simplefilter("ignore")
out = []
for it in (int(sys.argv[2]), 1):
    t = time.perf_counter()
    km = KMeans(n_clusters=10, init=C, n_init=1, algorithm="lloyd", tol=0, max_iter=it).fit(X)
    el = time.perf_counter() - t
    out += [el, km.n_iter_] + ([km.inertia_] if it > 1 else [])
print("%.4f %d %r %.4f %d" % tuple(out))
EOF2
}

fm_ratio=n/a dsana_s=n/a sk_s=n/a sh=0 eff=n/a
echo
echo "== k-means, commit $BENCH_COMMIT, $BENCH_DATE, $BENCH_HOST"
# ------------------------------------------------- (a) Fashion-MNIST vs scikit-learn
if [[ $only == *a* ]]; then
  if [[ -z $PY ]]; then
    note "(a) skipped: neither python3 nor /usr/bin/python3 imports sklearn, numpy and threadpoolctl"
  else
    blas=$($PY -c 'import numpy, sklearn
from threadpoolctl import threadpool_info
numpy.ones((2, 2)) @ numpy.ones((2, 2))
print("; ".join("%s %s (%s, %s threads)" % (i["internal_api"], i.get("version") or "", i.get("threading_layer", i["user_api"]), i["num_threads"]) for i in threadpool_info()))')
    declare -a ds_it sk_it rat ds_wall sk_wall
    for ((i = 1; i <= pairs; i++)); do
      note "(a) pair $i: dsana kmeans, $iters iterations"
      km_run "fm-$i" --max-iter "$iters"
      ds_it+=("$(summary_field "$RUN_METRICS" median_iter_s)") ds_wall+=("$RUN_WALL")
      ds_line=$(grep '^kmeans:' "$RUN_OUT")
      ds_iters=$(summary_field "$RUN_METRICS" iterations)
      note "(a) pair $i: scikit-learn KMeans, max_iter $iters and 1"
      read -r skN nN inN sk1 n1 < <(sk_fit "$iters") || die "scikit-learn failed: $(tail -n 5 "$SCRATCH/sk.err")"
      ((nN > n1)) || die "scikit-learn ran $nN iterations for max_iter $iters: no per-iteration time"
      sk_it+=("$(calc "($skN - $sk1) / ($nN - $n1)" %.6f)") sk_wall+=("$skN")
      rat+=("$(calc "${ds_it[$((i - 1))]} / ${sk_it[$((i - 1))]}" %.6f)")
    done
    read -r dm dmin dmax < <(stats "${ds_it[@]}")
    read -r sm smin smax < <(stats "${sk_it[@]}")
    read -r rm rmin rmax < <(stats "${rat[@]}")
    read -r dw _ _ < <(stats "${ds_wall[@]}")
    read -r sw _ _ < <(stats "${sk_wall[@]}")
    ds_obj=$(sed -n 's/.* objective \([^ ]*\) after.*/\1/p' <<<"$ds_line")
    odiff=$(calc "($ds_obj - $inN) / $inN" %.2e)
    echo "(a) Fashion-MNIST train (60000 x 784), K 10, the same initial centroids, --tol 0, $iters iterations, $pairs pairs"
    printf '  dsana    median s/iteration %.4f [%.4f-%.4f]  whole command %.2f s  (%s iterations; default layout: 1 worker, every core)\n' \
      "$dm" "$dmin" "$dmax" "$dw" "$ds_iters"
    printf '  sklearn  s/iteration %.4f [%.4f-%.4f]  fit(max_iter=%s) %.2f s  (%s iterations; %s)\n' \
      "$sm" "$smin" "$smax" "$iters" "$sw" "$nN" "$blas"
    printf '  dsana / sklearn per iteration: %.2f (median of per-pair ratios) [%.2f-%.2f]\n' "$rm" "$rmin" "$rmax"
    printf '  objective: dsana %s, sklearn inertia_ %s (relative difference %s)\n' "$ds_obj" "$inN" "$odiff"
    row fm dsana_median_iter_s "$dm"
    row fm dsana_wall_s "$dw"
    row fm sklearn_iter_s "$sm"
    row fm sklearn_fit_s "$sw"
    row fm iter_ratio "$rm"
    row fm objective_rel_diff "$odiff"
    fm_ratio=$rm dsana_s=$dm sk_s=$sm
  fi
fi

# --------------------------------------------------- (b) heterogeneous scenario
if [[ $only == *b* ]]; then
  sc=$SCRATCH/het.json
  jq 'del(.link) | del(.workers[].link)' "$BENCH_DIR/scenarios/heterogeneous-cloud.json" >"$sc"
  speeds=$(jq -r '[.workers[].speed] | map(tostring) | join(",")' "$sc")
  declare -a tb td hr bnd ovr
  ident=yes ref=
  for ((i = 1; i <= pairs; i++)); do
    for mode in bsp dsana; do
      note "(b) heterogeneous pair $i --mode $mode"
      km_run "het-$mode-$i" --workers 4 --servers 1 --mode "$mode" --scenario "$sc" --max-iter "$HET_ITERS" --quiet
      t=$(summary_field "$RUN_METRICS" median_iter_s)
      if [[ -z $ref ]]; then ref=$SCRATCH/het-$mode-$i.txt; elif ! cmp -s "$ref" "$SCRATCH/het-$mode-$i.txt"; then ident=NO; fi
      if [[ $mode == bsp ]]; then tb+=("$t"); else
        td+=("$t") bnd+=("$(summary_field "$RUN_METRICS" bound_s)") ovr+=("$(summary_field "$RUN_METRICS" overrun_s)")
      fi
    done
    hr+=("$(calc "${tb[$((i - 1))]} / ${td[$((i - 1))]}" %.6f)")
  done
  read -r bm bmin bmax < <(stats "${tb[@]}")
  read -r dm2 dmin2 dmax2 < <(stats "${td[@]}")
  read -r sh shmin shmax < <(stats "${hr[@]}")
  read -r bound _ _ < <(stats "${bnd[@]}")
  read -r overrun _ _ < <(stats "${ovr[@]}")
  eff=$(calc "$bound / $dm2" %.2f)
  echo "(b) heterogeneous scenario (speeds $speeds; links removed), Fashion-MNIST train, K 10, 4 workers,"
  echo "    1 server, $HET_ITERS iterations, $pairs pairs (bsp, dsana alternating)"
  printf '  bsp    median s/iteration %.3f [%.3f-%.3f]\n' "$bm" "$bmin" "$bmax"
  printf '  dsana  median s/iteration %.3f [%.3f-%.3f]\n' "$dm2" "$dmin2" "$dmax2"
  printf '  speed-up bsp/dsana %.2f per-pair median [%.2f-%.2f]\n' "$sh" "$shmin" "$shmax"
  printf '  balanced bound (work / sum of speeds) %.3f s -> efficiency %s; overrun %s s\n' "$bound" "$eff" "$overrun"
  echo "  centroids byte-identical across all $((2 * pairs)) runs: $ident"
  row het bsp_median_iter_s "$bm"
  row het dsana_median_iter_s "$dm2"
  row het speedup "$sh"
  row het bound_s "$bound"
  row het efficiency "$eff"
  row het centroids_identical "$ident"
fi
echo "fm_dsana_s=$dsana_s fm_sklearn_s=$sk_s fm_ratio=$fm_ratio het_speedup=$(printf %.2f "$sh") het_eff=$eff"
