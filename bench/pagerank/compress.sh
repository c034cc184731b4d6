#!/usr/bin/env bash
# bench/pagerank/compress.sh [--quick] [--pairs N] [--mbit "LIST"] [--paper]
#
# Does compressing pulled values (--compress on: each value XOR the worker's previous
# iteration's, byte planes, zstd 1) pay over a slow link? Kronecker scale 16, 2 workers
# of speed 1, 1 server, --mode dsana (dynamic scheduling, --chunk auto), a cost model of
# 3 ns per edge or vertex, time_scale 4, 0.3 ms latency on every process, and the link
# bandwidth of each value of --mbit (default "200 800": the compute bound is ~6.5 ms,
# so at 800 Mbit/s transfer ~ compute, at 200 Mbit/s transfer ~ 4x compute).
# --max-iter 30 --tol 0 (the values converge, so later iterations compress better).
# --paper adds the paper's 1 Gbit/s clouds (bench/scenarios/homogeneous-cloud.json and
# heterogeneous-cloud.json: 4 workers, 0.5 ms, ns_per_cost 3, time_scale 4) with
# --workers 4 --servers 2 on the same graph.
# Pairs alternate --compress off and --compress on; >= 5 pairs (--quick: 2 and only the
# first case). Every run's ranks must be byte-identical to the first run's (else exit 1).
# Per case it prints the median s/iteration of each side [min-max], the per-pair
# median speed-up off/on, the bytes pulled per iteration before and after compression
# (summary pull_bytes_raw and pull_bytes over the iterations) and their ratio, and the
# bounds: compute (the runs' median bound_s: the cost model over the speeds) and transfer
# (the runs' median transfer_bound_s, which counts the bytes as sent, i.e. compressed in
# the "on" runs), with efficiency = max(compute, transfer) / median iteration.
# Writes bench/results/compress.csv (one row per case, appended) and
# bench/results/compress_runs.csv (every run, appended).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,24s/^# \{0,1\}//p' "$0"; }

quick=0
pairs=
paper=0
mbits="200 800"
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --paper) paper=1 ;;
  --pairs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--pairs needs a positive integer"
    pairs=$2
    shift
    ;;
  --mbit)
    [[ $# -ge 2 && $2 =~ ^[0-9\ ]+$ ]] || die "--mbit needs a list of integers"
    mbits=$2
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
read -r -a mbit_list <<<"$mbits"
bench_init
SCALE=16
ITERS=30
NS_PER_COST=3
TIME_SCALE=4
LAT_MS=0.3

# cases: LABEL SCENARIO WORKERS SERVERS
declare -a cases
for mbit in "${mbit_list[@]}"; do
  printf '{"workers": [{"speed": 1}, {"speed": 1}], "link": {"bandwidth_mbit": %s, "latency_ms": %s}, "ns_per_cost": %s, "time_scale": %s}\n' \
    "$mbit" "$LAT_MS" "$NS_PER_COST" "$TIME_SCALE" >"$SCRATCH/sc.$mbit.json"
  cases+=("${mbit}Mbit/s $SCRATCH/sc.$mbit.json 2 1")
done
if ((paper)); then
  for sc in homogeneous-cloud heterogeneous-cloud; do
    f=$BENCH_DIR/scenarios/$sc.json
    [[ -r $f ]] || die "scenario $f is missing"
    cases+=("$sc $f $(jq '.workers | length' "$f") 2")
  done
fi
if ((quick)); then
  pairs=${pairs:-2}
  cases=("${cases[0]}")
else
  pairs=${pairs:-5}
fi

graph=$(graph_kron "$SCALE")
read -r NV NE < <(graph_counts "$graph")

csv=$RESULTS/compress.csv
runs_csv=$RESULTS/compress_runs.csv
hdr=date,commit,graph,vertices,edges,case,scenario,workers,servers,iterations,pairs,off_median_iter_s,off_min,off_max,on_median_iter_s,on_min,on_max,speedup_pair_median,speedup_pair_min,speedup_pair_max,bytes_per_iter_raw,bytes_per_iter_sent,compress_ratio,compute_bound_s,off_transfer_bound_s,on_transfer_bound_s,off_efficiency,on_efficiency,outputs_identical
runs_hdr=date,commit,graph,case,pair,compress,median_iter_s,bound_s,transfer_bound_s,pull_bytes,pull_bytes_raw,overrun_s,peak_rss_kb_largest_role

mismatch=0
ref=$SCRATCH/ref.txt
check_out() { # OUT LABEL
  if [[ ! -e $ref ]]; then
    mv "$1" "$ref"
  elif ! cmp -s "$ref" "$1"; then
    echo "!!!!! MISMATCH: $2 output differs from the first run's (cmp $ref $1)" >&2
    cp "$1" "$RESULTS/mismatch-compress-${2//[ \/]/-}.txt"
    mismatch=1
  else
    rm -f "$1"
  fi
}

# run1 LABEL SCENARIO WORKERS SERVERS PAIR off|on -> sets T B TB PB PR
run1() {
  local label=$1 sc=$2 w=$3 s=$4 i=$5 c=$6 tag out
  tag=${label//\//}-$c-$i
  out=$SCRATCH/out.$tag.txt
  run_pagerank "$tag" "$graph" --workers "$w" --servers "$s" --mode dsana --compress "$c" \
    --scenario "$sc" --max-iter $ITERS --tol 0 --top 0 --out "$out"
  [[ $(summary_field "$RUN_METRICS" iterations) == "$ITERS" ]] || die "$c, $label: wrong iteration count"
  [[ $(summary_field "$RUN_METRICS" compress) == "$([[ $c == on ]] && echo true || echo false)" ]] ||
    die "$c, $label: the summary's compress disagrees"
  T=$(summary_field "$RUN_METRICS" median_iter_s)
  B=$(summary_field "$RUN_METRICS" bound_s)
  TB=$(summary_field "$RUN_METRICS" transfer_bound_s)
  PB=$(summary_field "$RUN_METRICS" pull_bytes)
  PR=$(summary_field "$RUN_METRICS" pull_bytes_raw)
  check_out "$out" "$label $c $i"
  note "$label pair $i compress=$c: median_iter_s=$T bound_s=$B transfer_bound_s=$TB pull_bytes=$PB raw=$PR rss_kb=$RUN_RSS_KB"
  csv_row "$runs_csv" "$runs_hdr" "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$label,$i,$c,$T,$B,$TB,$PB,$PR,$(summary_field "$RUN_METRICS" overrun_s),$RUN_RSS_KB"
}

echo "dsana compress — $DSANA ($BENCH_COMMIT), $BENCH_HOST" >&2
declare -a rows
for cs in "${cases[@]}"; do
  read -r label sc w s <<<"$cs"
  declare -a toff=() ton=() rat=() tboff=() tbon=() bnd=()
  for ((i = 1; i <= pairs; i++)); do
    run1 "$label" "$sc" "$w" "$s" "$i" off
    toff+=("$T") tboff+=("$TB") bnd+=("$B")
    run1 "$label" "$sc" "$w" "$s" "$i" on
    ton+=("$T") tbon+=("$TB") bnd+=("$B")
    rat+=("$(calc "${toff[$((i - 1))]} / $T" %.6f)")
    sent=$PB raw=$PR
  done
  read -r om omin omax < <(stats "${toff[@]}")
  read -r nm nmin nmax < <(stats "${ton[@]}")
  read -r sm smin smax < <(stats "${rat[@]}")
  read -r tbo _ _ < <(stats "${tboff[@]}")
  read -r tbn _ _ < <(stats "${tbon[@]}")
  read -r cb _ _ < <(stats "${bnd[@]}")
  bpi_raw=$(calc "$raw / $ITERS" %.0f)
  bpi_sent=$(calc "$sent / $ITERS" %.0f)
  cratio=$(calc "$raw / $sent" %.2f)
  effo=$(calc "($cb > $tbo ? $cb : $tbo) / $om" %.2f)
  effn=$(calc "($cb > $tbn ? $cb : $tbn) / $nm" %.2f)
  rows+=("$(printf '  %-19s W=%s S=%s  off %.4f [%.4f-%.4f]  on %.4f [%.4f-%.4f]  speed-up %.2f [%.2f-%.2f]\n      bytes/iteration %s -> %s (ratio %s)  bounds: compute %.4f, transfer off %.4f / on %.4f  efficiency off %s / on %s' \
    "$label" "$w" "$s" "$om" "$omin" "$omax" "$nm" "$nmin" "$nmax" "$sm" "$smin" "$smax" "$bpi_raw" "$bpi_sent" \
    "$cratio" "$cb" "$tbo" "$tbn" "$effo" "$effn")")
  ident=yes
  ((mismatch)) && ident=NO
  csv_row "$csv" "$hdr" "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$NV,$NE,$label,$(basename "$sc"),$w,$s,$ITERS,$pairs,$om,$omin,$omax,$nm,$nmin,$nmax,$sm,$smin,$smax,$bpi_raw,$bpi_sent,$cratio,$cb,$tbo,$tbn,$effo,$effn,$ident"
done

ident=yes
((mismatch)) && ident=NO
echo
echo "== compress: $(basename "$graph") ($NV vertices, $NE edges), --mode dsana, $ITERS iterations, $pairs pairs (--compress off, on alternating)"
echo "  links: ${mbit_list[*]} Mbit/s with $LAT_MS ms, ns_per_cost $NS_PER_COST, time_scale $TIME_SCALE$( ((paper)) && echo "; the paper's clouds: 1000 Mbit/s, 0.5 ms")"
echo "  median s/iteration [min-max]; speed-up = per-pair median off/on"
echo "  bytes/iteration: pulled by all workers, before -> after compression (the transfer bounds count bytes as sent)"
printf '%s\n' "${rows[@]}"
echo "  outputs byte-identical across all runs: $ident"
echo "wrote $csv, $runs_csv" >&2
if ((mismatch)); then
  echo "!!!!! OUTPUT MISMATCH between runs: compression changed the result" >&2
  exit 1
fi
