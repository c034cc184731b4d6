#!/usr/bin/env bash
# test_kernels_same_bits.sh - the apps' vector kernels (apps/common/cpu.h)
# change speed only: small mlp, kmeans and logreg jobs write byte-identical
# outputs under DSANA_CPU=scalar, avx2 and this CPU's default (avx512 where
# it has it), and the runs really took different kernels (the summary's
# input.kernel_level: 0, 1, 2); a DSANA_CPU it does not know leaves the
# default. Skips (77) on a CPU without AVX2: there is only one kernel.
# timeout: 60 s (CTest; runs in about 5 s)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
command -v jq >/dev/null || skip "jq missing"
cd "$T"

"$DSANA" data gen logreg --samples 600 --features 70 --nnz-per-row 30 --classes 4 --seed 3 --out d.svm >/dev/null

level() { jq -r 'select(.type == "summary") | .input.kernel_level' "$1"; }

# run APP TAG DSANA_CPU ARGS...: output into TAG.APP.out.txt, metrics TAG.APP.jsonl
run() {
  local app=$1 tag=$2 cpu=$3 out
  shift 3
  out=$tag.$app.out.txt
  case $app in
  mlp) set -- "$@" --model-out "$out" ;;
  kmeans) set -- "$@" --out "$out" ;;
  logreg) set -- "$@" --model-out "$out" ;;
  esac
  run_capture "$tag.$app" env DSANA_CPU="$cpu" "$DSANA" "$app" d.svm --quiet --metrics "$tag.$app.jsonl" "$@"
  [ "$RC" -eq 0 ] && [ -s "$out" ] || fail "$app under DSANA_CPU=$cpu: rc=$RC $(head -c 300 "$tag.$app.err")"
}

run mlp def "" --hidden 40 --batch 200 --epochs 2 --workers 2 --servers 2
top=$(level def.mlp.jsonl)
[ "$top" = 0 ] && skip "this CPU has no AVX2: one kernel only"

check() { # APP ARGS...
  local app=$1 cpu l
  shift
  [ "$app" = mlp ] || run "$app" def "" "$@"
  for cpu in scalar avx2 avx512 bogus; do
    run "$app" "$cpu" "$cpu" "$@"
    l=$(level "$cpu.$app.jsonl")
    case $cpu in
    scalar) want=0 ;;
    avx2) want=1 ;;
    avx512) want=$((top < 2 ? top : 2)) ;;
    bogus) want=$top ;;
    esac
    if [ "$l" != "$want" ]; then
      fail "$app: DSANA_CPU=$cpu ran kernel level '$l', expected $want"
    elif cmp -s "def.$app.out.txt" "$cpu.$app.out.txt"; then
      pass "$app: DSANA_CPU=$cpu (level $l) writes the default's (level $top) bytes"
    else
      fail "$app: DSANA_CPU=$cpu (level $l) writes other bytes than the default (level $top)"
    fi
  done
}
check mlp --hidden 40 --batch 200 --epochs 2 --workers 2 --servers 2
check kmeans --k 10 --seed 2 --workers 2
check logreg --max-iter 20
finish
