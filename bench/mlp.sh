#!/usr/bin/env bash
# bench/mlp.sh [--epochs E] [--lr ETA] [--install]
#
# The multilayer perceptron (dsana mlp) on Fashion-MNIST (/usr/share/datasets/fashion-mnist,
# package dataset-fashion-mnist; converted once to bench/results/data/) against
# scikit-learn's MLPClassifier(hidden_layer_sizes=(256,), solver='sgd', momentum=0.9,
# nesterovs_momentum=True, batch_size=256, alpha=1e-4, learning_rate_init=ETA) on the same
# pixels/255 with /usr/bin/python3 (--install: apt-get install python3-sklearn
# libopenblas0-pthread python3-threadpoolctl when it does not import), E epochs each
# (default 2, --lr default 0.05), the same hyper-parameters for both (dsana: --hidden 256
# --batch 256 --momentum 0.9 --nesterov --l2 1e-4). Prints each one's seconds per epoch
# and test accuracy after the last epoch, numpy's BLAS, and the ratio dsana / scikit-learn
# per epoch (the issue's target: <= 0.5). dsana's epoch: the wall time of its steps (the
# iterations before the final evaluation of every training row), the test set scored at
# each epoch's first; scikit-learn's: fit() over E (it scores nothing on the way). dsana
# runs with its defaults (one process, the roles its threads, every core). Holds
# /tmp/dsana-bench.lock. Last line:
# `mlp_epoch_s=D sk_epoch_s=S ratio=R dsana_acc=A sk_acc=B`.
set -euo pipefail
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  exec env DSANA_BENCH_LOCK_HELD=1 flock /tmp/dsana-bench.lock bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

epochs=2 lr=0.05 install=0
while [[ $# -gt 0 ]]; do
  case $1 in
  --epochs) epochs=${2:?}; shift ;;
  --lr) lr=${2:?}; shift ;;
  --install) install=1 ;;
  -h | --help) sed -n '2,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) die "unknown option $1" ;;
  esac
  shift
done
[[ $epochs =~ ^[1-9][0-9]*$ ]] || die "--epochs needs a positive integer"
bench_init

FM=/usr/share/datasets/fashion-mnist
[[ -r $FM/train-images-idx3-ubyte.gz ]] || die "Fashion-MNIST missing: apt-get install dataset-fashion-mnist"
data=$BENCH_DIR/results/data
mkdir -p "$data"
[[ -s $data/fm-train.bin ]] || "$DSANA" data convert --idx "$FM/train-images-idx3-ubyte.gz" "$FM/train-labels-idx1-ubyte.gz" "$data/fm-train.bin" >/dev/null
[[ -s $data/fm-test.bin ]] || "$DSANA" data convert --idx "$FM/t10k-images-idx3-ubyte.gz" "$FM/t10k-labels-idx1-ubyte.gz" "$data/fm-test.bin" >/dev/null

PY=/usr/bin/python3
if ! $PY -c 'import sklearn, threadpoolctl' 2>/dev/null; then
  [[ $install -eq 1 ]] || die "scikit-learn missing: rerun with --install"
  apt-get install -y -qq python3-sklearn libopenblas0-pthread python3-threadpoolctl >/dev/null
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$DSANA" mlp "$data/fm-train.bin" --test "$data/fm-test.bin" --hidden 256 --batch 256 --momentum 0.9 --nesterov \
  --l2 1e-4 --lr "$lr" --epochs "$epochs" --quiet --metrics "$out/m.jsonl"
read -r d_epoch d_acc < <(jq -rs --argjson e "$epochs" '[.[] | select(.type == "iteration")] as $it |
  [$it[] | select(.epochs_done < $e) | .wall_s] | add as $w |
  "\($w / $e) \($it | last | .test_accuracy)"' "$out/m.jsonl")

read -r s_epoch s_acc blas < <($PY - "$FM" "$epochs" "$lr" <<'PYEOF'
import gzip, sys, time, warnings
import numpy as np
from threadpoolctl import threadpool_info
from sklearn.neural_network import MLPClassifier
def idx(p):
    d = gzip.open(p).read()
    nd = d[3]
    dims = [int.from_bytes(d[4 + 4 * i:8 + 4 * i], 'big') for i in range(nd)]
    return np.frombuffer(d, dtype=np.uint8, offset=4 + 4 * nd).reshape(dims)
D, E, lr = sys.argv[1] + '/', int(sys.argv[2]), float(sys.argv[3])
X = idx(D + 'train-images-idx3-ubyte.gz').reshape(60000, -1) / 255.0
y = idx(D + 'train-labels-idx1-ubyte.gz')
Xt = idx(D + 't10k-images-idx3-ubyte.gz').reshape(10000, -1) / 255.0
yt = idx(D + 't10k-labels-idx1-ubyte.gz')
warnings.filterwarnings('ignore')
m = MLPClassifier(hidden_layer_sizes=(256,), solver='sgd', momentum=0.9, batch_size=256, alpha=1e-4,
                  learning_rate_init=lr, max_iter=E, tol=0, n_iter_no_change=10**6, random_state=1)
t = time.perf_counter()
m.fit(X, y)
t = time.perf_counter() - t
blas = ','.join(f"{i['internal_api']}:{i['num_threads']}" for i in threadpool_info())
print(t / E, m.score(Xt, yt), blas)
PYEOF
)
ratio=$(awk -v a="$d_epoch" -v b="$s_epoch" 'BEGIN { printf "%.2f", a / b }')
printf 'dsana mlp:    %.3f s/epoch, test accuracy %s after %d epochs (lr %s)\n' "$d_epoch" "$d_acc" "$epochs" "$lr"
printf 'scikit-learn: %.3f s/epoch, test accuracy %s (BLAS %s)\n' "$s_epoch" "$s_acc" "$blas"
echo "ratio dsana / scikit-learn per epoch: $ratio (target <= 0.5)"
echo "mlp_epoch_s=$d_epoch sk_epoch_s=$s_epoch ratio=$ratio dsana_acc=$d_acc sk_acc=$s_acc"
