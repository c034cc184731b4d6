#!/usr/bin/env bash
# test_kmeans.sh - `dsana kmeans` end to end:
#   - the centroid file is byte-identical for W 1..4, S 1..3, both modes, a
#     straggler scenario, --chunk 64 with --threads 2, --init random, a
#     worker SIGKILLed mid-run, and a run resumed from a checkpoint with
#     another worker count;
#   - the objective never increases from one iteration to the next, and a
#     converged run's summary gives its last iteration's objective;
#   - --out reads back as --init-centroids: a run started from its own result
#     moves no row;
#   - scikit-learn, when python3 imports sklearn and numpy (else skipped with
#     a note): KMeans(n_clusters=K, init=<the same centroids>, n_init=1,
#     algorithm='lloyd', tol=0, max_iter=N) has dsana's objective as inertia_
#     within 1e-9 relative, its iterations as n_iter_ and its centroids, on
#     generated blobs (converged, and stopped by --max-iter) and on the first
#     2000 Fashion-MNIST images (when /usr/share/datasets/fashion-mnist is there);
#   - bad input (a missing file, --k 0, --k above the rows, no --k, a
#     malformed --init-centroids line): one line naming it, exit 2.
# timeout: 100 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# 3000 rows of 8 features around 6 centres, a tenth of the values absent (0).
awk -v n=3000 -v d=8 -v k=6 'BEGIN {
  srand(7)
  for (c = 0; c < k; c++) for (j = 0; j < d; j++) m[c, j] = rand() * 20 - 10
  for (i = 0; i < n; i++) {
    c = int(rand() * k); printf "%d", c
    for (j = 0; j < d; j++) {
      v = m[c, j] + (rand() + rand() + rand() - 1.5) * 3
      if (rand() >= 0.1) printf " %d:%.6f", j + 1, v
    }
    printf "\n"
  } }' >blobs.svm
# K rows of a libsvm file as dense centroid lines: rows 1, 1 + STEP, ...
init_from() { # FILE K STEP D
  awk -v k="$2" -v step="$3" -v d="$4" '(NR - 1) % step == 0 && n < k {
    for (j = 1; j <= d; j++) v[j] = 0
    for (i = 2; i <= NF; i++) { split($i, a, ":"); v[a[1]] = a[2] }
    s = v[1]; for (j = 2; j <= d; j++) s = s " " v[j]; print s; n++ }' "$1"
}

km() { # NAME DATA ARGS...: centroids into NAME.txt, metrics NAME.jsonl, stdout NAME.out
  local name=$1 data=$2
  shift 2
  run_capture "$name" "$DSANA" kmeans "$data" --out "$name.txt" --metrics "$name.jsonl" "$@"
  [ "$RC" -eq 0 ] && [ -s "$name.txt" ]
}
objective() { sed -n 's/^kmeans: .* objective \([^ ]*\) after \([0-9]*\) iteration.*/\1/p' "$1.out"; }
iterations() { sed -n 's/^kmeans: .* objective [^ ]* after \([0-9]*\) iteration.*/\1/p' "$1.out"; }

# ------------------------------------------------------------- exactness
opts=(--k 9 --tol 0 --max-iter 12)
if km base blobs.svm "${opts[@]}" --workers 1 --servers 1 --quiet; then
  same=0 runs=0
  for W in 1 2 3 4; do
    for S in 1 2 3; do
      for mode in bsp dsana; do
        [ "$W$S$mode" = 11dsana ] && continue
        runs=$((runs + 1))
        if km "x.$W.$S.$mode" blobs.svm "${opts[@]}" --workers "$W" --servers "$S" --mode "$mode" --quiet &&
          cmp -s base.txt "x.$W.$S.$mode.txt"; then
          same=$((same + 1))
        else
          fail "W=$W S=$S --mode $mode: centroids differ from W=1 S=1 (rc=$RC $(head -c 200 "x.$W.$S.$mode.err"))"
        fi
      done
    done
  done
  [ "$same" -eq "$runs" ] && pass "$runs runs (W 1..4, S 1..3, bsp/dsana) give W=1 S=1's centroids byte for byte"
else
  fail "base run: rc=$RC $(head -c 300 base.err)"
fi

printf '{"workers": [{"speed": 1}, {"speed": 0.5}, {"speed": 0.25}],
  "transient": {"probability": 0.3, "slowdown": 4, "seed": 9}, "ns_per_cost": 30}' >strag.json
if km strag blobs.svm "${opts[@]}" --servers 2 --mode dsana --scenario strag.json --quiet && cmp -s base.txt strag.txt; then
  pass "a straggler scenario (speeds 1, 0.5, 0.25, transient 4x) gives the same centroids"
else
  fail "under stragglers: rc=$RC, centroids differ or missing $(head -c 200 strag.err)"
fi
if km chunk blobs.svm "${opts[@]}" --workers 3 --servers 2 --chunk 64 --threads 2 --quiet && cmp -s base.txt chunk.txt; then
  pass "--chunk 64 --threads 2 gives the same centroids"
else
  fail "--chunk 64 --threads 2: rc=$RC $(head -c 200 chunk.err)"
fi
if km rnd1 blobs.svm "${opts[@]}" --init random --seed 5 --quiet && km rnd4 blobs.svm "${opts[@]}" --init random --seed 5 \
  --workers 4 --servers 3 --quiet && cmp -s rnd1.txt rnd4.txt && ! cmp -s rnd1.txt base.txt; then
  pass "--init random: W=1 S=1 and W=4 S=3 agree (and differ from k-means++)"
else
  fail "--init random: rc=$RC $(head -c 200 rnd4.err)"
fi
# (static: dynamic scheduling may give a worker it measured slow no task in
# iteration 4, and the fault would not fire)
if DSANA_FAULT="worker=1,iter=4,point=mid-push,how=kill" km killed blobs.svm "${opts[@]}" --workers 3 --servers 2 \
  --sched static --peer-timeout 2 --quiet && cmp -s base.txt killed.txt && grep -q "worker 1 lost" killed.err; then
  pass "worker 1 SIGKILLed in the middle of its push in iteration 4: the centroids are unchanged"
else
  fail "killed worker: rc=$RC $(head -c 300 killed.err)"
fi
# a checkpoint every 3 iterations, stopped at 5; resumed with 3 workers to 12
if km ck blobs.svm --k 9 --tol 0 --max-iter 5 --servers 2 --checkpoint ck --checkpoint-every 3 --quiet &&
  km resumed blobs.svm --max-iter 12 --workers 3 --resume ck --quiet && cmp -s base.txt resumed.txt; then
  pass "resumed from the checkpoint of iteration 3 (3 workers instead of 1): the same centroids"
else
  fail "resume: rc=$RC $(head -c 300 resumed.err)"
fi

# ------------------------------------------------- objective and summary
if km conv blobs.svm --k 6 --tol 0 --workers 2; then
  mono=$(jq -s '[.[] | select(.type == "iteration") | .objective] as $o
    | [range(1; $o | length) | select($o[.] > $o[. - 1] * (1 + 1e-12))] | length' conv.jsonl)
  last=$(jq -s -r '[.[] | select(.type == "iteration")] | last | "\(.objective) \(.changed)"' conv.jsonl)
  final=$(objective conv)
  if [ "$mono" -eq 0 ] && awk -v l="${last% *}" -v f="$final" -v c="${last#* }" 'BEGIN { exit !(c == 0 && l == f) }' &&
    grep -q "converged: no row changed cluster" conv.out; then
    pass "the objective never increases; converged, the summary's objective $final is the last iteration's"
  else
    fail "objective: $mono increases, last iteration '$last', summary '$final' $(grep '^kmeans' conv.out)"
  fi
  if km again blobs.svm --k 6 --tol 0 --init-centroids conv.txt --workers 2 && cmp -s conv.txt again.txt &&
    [ "$(iterations again)" = 1 ]; then
    pass "--out read back by --init-centroids: one iteration, no row moves, the same centroids"
  else
    fail "--init-centroids from --out: rc=$RC $(grep '^kmeans' again.out) $(head -c 200 again.err)"
  fi
else
  fail "converging run: rc=$RC $(head -c 300 conv.err)"
fi

# ---------------------------------------------------------- scikit-learn
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sklearn, numpy' 2>/dev/null; then
    PY=$p
    break
  fi
done
cat >sk.py <<'EOF'
# sk.py DATA.svm INIT D MAX_ITER: "inertia n_iter" and the centres (one line each)
import sys, warnings
import numpy as np
from sklearn.cluster import KMeans
path, init, d, max_iter = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = []
for line in open(path):
    x = np.zeros(d)
    for tok in line.split()[1:]:
        j, v = tok.split(":")
        x[int(j) - 1] = float(v)
    rows.append(x)
X, C = np.array(rows), np.loadtxt(init, ndmin=2)
warnings.simplefilter("ignore")
km = KMeans(n_clusters=C.shape[0], init=C, n_init=1, algorithm="lloyd", tol=0, max_iter=max_iter).fit(X)
print(repr(km.inertia_), km.n_iter_)
for c in km.cluster_centers_:
    print(" ".join(repr(v) for v in c))
EOF
# agree NAME DATA K D MAX_ITER: dsana and scikit-learn from NAME.init
agree() {
  local name=$1 data=$2 k=$3 d=$4 it=$5
  if ! km "$name" "$data" --k "$k" --tol 0 --max-iter "$it" --init-centroids "$name.init" --workers 2 --servers 2; then
    fail "$name: dsana kmeans failed: rc=$RC $(head -c 300 "$name.err")"
    return
  fi
  if ! "$PY" sk.py "$data" "$name.init" "$d" "$it" >"$name.sk" 2>"$name.sk.err"; then
    fail "$name: scikit-learn failed: $(tail -n 3 "$name.sk.err")"
    return
  fi
  local ours iters theirs sk_iters cdiff
  ours=$(objective "$name") iters=$(iterations "$name")
  read -r theirs sk_iters <"$name.sk"
  # centroids: the largest difference relative to the largest coordinate
  cdiff=$(tail -n +2 "$name.sk" | paste -d' ' - "$name.txt" | awk '{
    h = NF / 2
    for (j = 1; j <= h; j++) {
      e = $j - $(j + h); e = e < 0 ? -e : e; if (e > m) m = e
      a = $j < 0 ? -$j : $j; if (a > s) s = a
    } } END { printf "%.3g", m / (s > 0 ? s : 1) }')
  if awk -v a="$ours" -v b="$theirs" -v c="$cdiff" 'BEGIN {
      r = (a - b) / b; r = r < 0 ? -r : r; exit !(r <= 1e-9 && c <= 1e-9) }' &&
    [ "$iters" = "$sk_iters" ]; then
    pass "$name: objective $ours, scikit-learn's inertia_ $theirs; $iters iterations both; centroids within $cdiff"
  else
    fail "$name: dsana objective $ours after $iters iterations, scikit-learn $theirs after $sk_iters; centroids $cdiff apart"
  fi
}
if [ -z "$PY" ]; then
  note "SKIP scikit-learn: neither python3 nor /usr/bin/python3 imports sklearn and numpy" \
    "(apt-get install python3-sklearn python3-numpy)"
else
  init_from blobs.svm 6 500 8 >blobs.init
  cp blobs.init blobs3.init
  agree blobs blobs.svm 6 8 300
  agree blobs3 blobs.svm 6 8 3
  fm=/usr/share/datasets/fashion-mnist
  if [ -r "$fm/train-images-idx3-ubyte.gz" ]; then
    "$PY" - "$fm/train-images-idx3-ubyte.gz" 2000 >fm.svm <<'EOF'
# the first N images, pixels / 255 (exact doubles: repr reads back the same)
import gzip, sys
import numpy as np
with gzip.open(sys.argv[1]) as f:
    b = f.read()
n = int(sys.argv[2])
X = np.frombuffer(b, np.uint8, n * 784, 16).reshape(n, 784) / 255.0
for x in X:
    print("0 " + " ".join("%d:%r" % (j + 1, v) for j, v in enumerate(x) if v != 0))
EOF
    init_from fm.svm 10 200 784 >fm.init
    agree fm fm.svm 10 784 300
  else
    note "SKIP Fashion-MNIST: $fm absent (apt-get install dataset-fashion-mnist)"
  fi
fi

# ------------------------------------------------------------- bad input
printf '1 2 3 4 5 6 7 8\n1 2 x 4 5 6 7 8\n' >bad.init
bad() { # NAME EXPECTED-REGEX ARGS...
  local name=$1 want=$2
  shift 2
  run_capture "bad.$name" "$DSANA" kmeans "$@" --quiet
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "bad.$name.err")" -eq 1 ] && grep -qE -- "$want" "bad.$name.err"; then
    pass "bad input $name: $(cat "bad.$name.err")"
  else
    fail "bad input $name: expected exit 2 and one line matching '$want', got rc=$RC: $(head -c 300 "bad.$name.err")"
  fi
}
bad missing 'nothere.svm: No such file' nothere.svm --k 3
bad k0 '--k 0: invalid value' blobs.svm --k 0
bad kbig '--k 3001: more clusters than the 3000 rows of blobs.svm' blobs.svm --k 3001
bad nok '--k K is required' blobs.svm
bad init "--init-centroids bad.init:2: value 3 'x' is not a finite number" blobs.svm --k 2 --init-centroids bad.init
finish
