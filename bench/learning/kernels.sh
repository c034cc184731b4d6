#!/usr/bin/env bash
# bench/learning/kernels.sh [--rounds R] [--fits N] [--epochs E]
#
# The apps' kernels at each CPU level (apps/common/cpu.h: scalar, avx2,
# avx512 where the CPU has them) on Fashion-MNIST (package
# dataset-fashion-mnist, converted once to bench/results/data/):
#   1. bench/learning/kernels.c (built as the `kernels` target next to dsana's build)
#      times the MLP's forward and gradient products and k-means' nearest
#      centroid in one process, the levels in alternation, R rounds
#      (default 5); a line per kernel and level with its GFLOP/s and its
#      time relative to avx2;
#   2. the fits: `dsana mlp` (bench/learning/mlp.sh's recipe: --hidden 256 --batch 256,
#      E epochs, default 2) and `dsana kmeans --k 10` under DSANA_CPU=avx2
#      and the default, alternating, N times each (default 3); the
#      median seconds and the ratio default / avx2. Each run's output must
#      be the same bytes (else exit 1).
# Times on a shared machine are noisy: the ratios, taken in alternation,
# less so. Holds /tmp/dsana-bench.lock. Last line:
# `mlp_s=A mlp_avx2_s=B mlp_ratio=R kmeans_s=C kmeans_avx2_s=D kmeans_ratio=Q`.
set -euo pipefail
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  exec env DSANA_BENCH_LOCK_HELD=1 flock /tmp/dsana-bench.lock bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

rounds=5 fits=3 epochs=2
while [[ $# -gt 0 ]]; do
  case $1 in
  --rounds) rounds=${2:?}; shift ;;
  --fits) fits=${2:?}; shift ;;
  --epochs) epochs=${2:?}; shift ;;
  -h | --help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) die "unknown option $1" ;;
  esac
  shift
done
for v in "$rounds" "$fits" "$epochs"; do [[ $v =~ ^[1-9][0-9]*$ ]] || die "counts are positive integers"; done
bench_init
read -r train _ < <(fashion_mnist)

build=$(dirname "$DSANA")
[[ -x $build/kernels ]] || cmake --build "$build" --target kernels >/dev/null || die "could not build the kernels target in $build"
"$build/kernels" "$train" "$rounds"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fit() { # APP LEVEL I: one timed fit; its seconds
  local app=$1 cpu=$2 i=$3 t0 t1
  t0=$(date +%s.%N)
  if [[ $app == mlp ]]; then
    DSANA_CPU=$cpu "$DSANA" mlp "$train" --hidden 256 --batch 256 --momentum 0.9 --nesterov on --l2 1e-4 --lr 0.1 \
      --epochs "$epochs" --quiet --model-out "$out/$app.$cpu.$i" >/dev/null
  else
    DSANA_CPU=$cpu "$DSANA" kmeans "$train" --k 10 --seed 1 --quiet --out "$out/$app.$cpu.$i" >/dev/null
  fi
  t1=$(date +%s.%N)
  cmp -s "$out/$app.$cpu.$i" "$out/$app.avx2.1" || die "$app: DSANA_CPU=$cpu wrote other bytes than avx2"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
declare -A med
for app in mlp kmeans; do
  d=() a=()
  for i in $(seq "$fits"); do
    a+=("$(fit "$app" avx2 "$i")")
    d+=("$(fit "$app" "" "$i")")
  done
  med[$app]=$(stats "${d[@]}" | cut -d' ' -f1) med[$app.avx2]=$(stats "${a[@]}" | cut -d' ' -f1)
  echo "fit $app: default ${d[*]} s, avx2 ${a[*]} s (alternating)"
done
r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
echo "mlp_s=${med[mlp]} mlp_avx2_s=${med[mlp.avx2]} mlp_ratio=$(r "${med[mlp]}" "${med[mlp.avx2]}")" \
  "kmeans_s=${med[kmeans]} kmeans_avx2_s=${med[kmeans.avx2]} kmeans_ratio=$(r "${med[kmeans]}" "${med[kmeans.avx2]}")"
