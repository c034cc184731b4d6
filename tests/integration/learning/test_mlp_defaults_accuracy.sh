#!/usr/bin/env bash
# test_mlp_defaults_accuracy.sh - `dsana mlp` with no option but --test is a
# good recipe: on the first 6000 training and 2000 test images of
# Fashion-MNIST (package dataset-fashion-mnist), 10 epochs of the defaults
# (Nesterov momentum 0.9, lr 0.1 annealed by cosine, batch 256, l2 1e-4, one
# hidden layer of 256) reach test accuracy 0.856, above the floor 0.85; the
# defaults before them (a constant rate, classical momentum) reached 0.8185.
# Also: --help says the defaults. Skipped (77) without the dataset.
# timeout: 60 s (CTest; runs in 5-10 s on a 2-core machine at load 10-14)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
FM=${FASHION_MNIST_DIR:-/usr/share/datasets/fashion-mnist}
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  [ -r "$FM/$f" ] || skip "$FM/$f absent: apt-get install dataset-fashion-mnist (scripts/deps.sh does)"
done
cd "$T"

# idx_head IN.gz N ITEM_BYTES OUT: the first N items of an IDX file (the
# magic, the count N, the other dimensions as they were, N items)
idx_head() {
  local in=$1 n=$2 item=$3 out=$4 hdr=8
  [ "$item" -eq 1 ] || hdr=16
  {
    head -c 4 < <(gzip -dc "$in")
    printf '%b' "$(printf '\\x%02x' $((n >> 24 & 255)) $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))"
    head -c $((hdr + n * item)) < <(gzip -dc "$in") | tail -c +9
  } >"$out"
}
idx_head "$FM/train-images-idx3-ubyte.gz" 6000 784 train.img
idx_head "$FM/train-labels-idx1-ubyte.gz" 6000 1 train.lbl
idx_head "$FM/t10k-images-idx3-ubyte.gz" 2000 784 test.img
idx_head "$FM/t10k-labels-idx1-ubyte.gz" 2000 1 test.lbl
"$DSANA" data convert --idx train.img train.lbl train.bin >/dev/null || die "data convert of the training subset failed"
"$DSANA" data convert --idx test.img test.lbl test.bin >/dev/null || die "data convert of the test subset failed"

# ------------------------------------------------- the defaults' accuracy
floor=0.85
run_capture defaults "$DSANA" mlp train.bin --test test.bin --quiet --metrics m.jsonl
acc=$(jq -rs '[.[] | select(.type == "iteration")] | last | .test_accuracy' m.jsonl 2>/dev/null || echo none)
epochs=$(jq -rs '[.[] | select(.type == "iteration")] | last | .epochs_done' m.jsonl 2>/dev/null || echo none)
if [ "$RC" -eq 0 ] && [ "$epochs" = 10 ] && awk -v a="$acc" -v f="$floor" 'BEGIN { exit !(a + 0 >= f) }'; then
  pass "the defaults, 10 epochs on 6000 Fashion-MNIST images: test accuracy $acc on 2000 (floor $floor)"
else
  fail "the defaults: rc=$RC, $epochs epochs, test accuracy $acc (floor $floor) $(head -c 300 defaults.err)"
fi

# ------------------------------------------------- --help names them
"$DSANA" mlp --help >help.txt 2>&1 || true
missing=""
for want in "lr-schedule cosine" "nesterov on" "momentum 0.9" "lr 0.1" "epochs 10" "hidden 256" "batch 256" "l2 1e-4"; do
  grep -E -- "^  --${want% *} " help.txt | grep -qF "(default ${want#* })" || missing+=" --$want"
done
if [ -z "$missing" ]; then
  pass "dsana mlp --help gives each default (--lr-schedule cosine, --nesterov on, --momentum 0.9, --lr 0.1, ...)"
else
  fail "dsana mlp --help does not give the default of$missing"
fi
finish
