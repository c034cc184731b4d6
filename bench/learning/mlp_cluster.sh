#!/usr/bin/env bash
# bench/learning/mlp_cluster.sh [--batch B] [--iters N] [--tasks-per-worker T] [--link-mbit M]
#
# The MLP (Fashion-MNIST, --hidden 256, --batch B default 1024) on an emulated 4-worker,
# 2-server cluster of speeds 1, 1, 0.5, 0.25 (bench/scenarios/heterogeneous-cloud.json with
# ns_per_cost raised to 200000, so a block of 64 rows takes 51.2 ms at speed 1 and the
# real computation, 4 workers sharing 2 cores, stays inside it), --tasks-per-worker T
# (default 4: B / 64 blocks in tasks of one block at B = 1024), N steps (default 15).
#   1. scheduling: the scenario without links, --mode bsp then --mode dsana. Prints the
#      median iteration of each (the first 3 and the final evaluation left out), the
#      speed-up, and dsana's efficiency: the balanced bound (summary bound_s: the
#      iteration's modelled work over the sum of the speeds) / dsana's median.
#   2. a link where the gradients' transfer is about the compute: the file's links at M
#      Mbit/s (default 500: each task pushes a whole gradient, 2 x 8 bytes a parameter,
#      3.3 MB; at B = 1024 the busiest link then carries about the compute's time), --mode
#      dsana. Prints the median iteration against max(compute bound, transfer bound).
# The bsp and dsana models of part 1 must be byte-identical (exit 1 if not). The issue's
# targets: speed-up >= 2.3, efficiency >= 0.9; with the link >= 0.85. With B = 256 (4
# blocks) the blocks are too few to balance speeds 1 : 1 : 0.5 : 0.25; the script
# prints what it measures either way.
# Holds /tmp/dsana-bench.lock. Last line:
# `mlp_het_speedup=X efficiency=Y link_efficiency=Z`.
set -euo pipefail
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  exec env DSANA_BENCH_LOCK_HELD=1 flock /tmp/dsana-bench.lock bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

batch=1024 iters=15 tpw=4 mbit=500
while [[ $# -gt 0 ]]; do
  case $1 in
  --batch) batch=${2:?}; shift ;;
  --iters) iters=${2:?}; shift ;;
  --tasks-per-worker) tpw=${2:?}; shift ;;
  --link-mbit) mbit=${2:?}; shift ;;
  -h | --help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) die "unknown option $1" ;;
  esac
  shift
done
for v in "$batch" "$iters" "$tpw" "$mbit"; do [[ $v =~ ^[1-9][0-9]*$ ]] || die "options take positive integers"; done
((iters >= 6)) || die "--iters must be at least 6 (3 warm-up steps are left out)"
bench_init
read -r train _ < <(fashion_mnist)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jq --argjson m "$mbit" '.ns_per_cost = 200000 | .link.bandwidth_mbit = $m' \
  "$BENCH_DIR/scenarios/heterogeneous-cloud.json" >"$out/link.json"
jq 'del(.link) | del(.workers[].link)' "$out/link.json" >"$out/nolink.json"

run() { # NAME SCENARIO MODE -> "median_wall mean_bound mean_transfer_bound"
  "$DSANA" mlp "$train" --hidden 256 --batch "$batch" --lr 0.05 --max-iter $((iters + 1)) --workers 4 --servers 2 \
    --tasks-per-worker "$tpw" --scenario "$2" --mode "$3" --quiet --metrics "$out/$1.jsonl" --model-out "$out/$1.model"
  jq -rs '[.[] | select(.type == "iteration")] | .[3:-1] |
    "\([.[].wall_s] | sort | .[length / 2 | floor]) \([.[].bound_s] | add / length) \([.[].transfer_bound_s] | add / length)"' \
    "$out/$1.jsonl"
}

read -r bsp_w _ < <(run bsp "$out/nolink.json" bsp)
read -r dsa_w dsa_b _ < <(run dsana "$out/nolink.json" dsana)
cmp -s "$out/bsp.model" "$out/dsana.model" || die "bsp and dsana models differ"
speedup=$(calc "$bsp_w / $dsa_w" %.2f)
eff=$(calc "$dsa_b / $dsa_w" %.2f)
printf 'speeds 1 1 0.5 0.25, batch %s, %s tasks a worker, no links: bsp %.1f ms, dsana %.1f ms an iteration\n' \
  "$batch" "$tpw" "$(calc "$bsp_w * 1000")" "$(calc "$dsa_w * 1000")"
printf '  speed-up %s (target >= 2.3); balanced bound %.1f ms: efficiency %s (target >= 0.9); models identical\n' \
  "$speedup" "$(calc "$dsa_b * 1000")" "$eff"

read -r l_w l_b l_t < <(run link "$out/link.json" dsana)
lb=$(calc "$l_b > $l_t ? $l_b : $l_t")
leff=$(calc "$lb / $l_w" %.2f)
printf '%s Mbit/s links: dsana %.1f ms an iteration; compute bound %.1f ms, transfer bound %.1f ms: efficiency %s (target >= 0.85)\n' \
  "$mbit" "$(calc "$l_w * 1000")" "$(calc "$l_b * 1000")" "$(calc "$l_t * 1000")" "$leff"
echo "mlp_het_speedup=$speedup efficiency=$eff link_efficiency=$leff"
