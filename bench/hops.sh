#!/usr/bin/env bash
# bench/hops.sh [--quick] [--runs N] [--graph FILE] [--latencies "L1 L2 ..."] [--modes "M1 M2"]
#              [--isolate threads|processes] [--stretch K] [--check]
#
# Link latencies on an iteration's critical path. Sweeps the emulated link latency L
# (default 0.05 0.5 1 2 ms) at a fixed bandwidth (1 Gbit/s) on a heterogeneous cluster
# (speeds 1, 1, 0.5, 0.25; --workers 4 --servers 2; time_scale 4, ns_per_cost 3),
# PageRank on p2p-Gnutella31 (../shared/data/graphs; Kronecker 16 when it is absent,
# or --graph FILE), 30 iterations --tol 0, each mode (bsp and dsana by default) run
# --runs times (default 3; --quick: 1 and 15 iterations) per latency, modes and
# latencies alternated, the roles as threads of one process (dsana's default; --isolate
# processes: one process each). Per mode it fits ms per iteration = intercept + slope * L
# (least squares over the latencies, on the median of the runs' steady medians):
#   slope      link latencies per iteration (pull-and-barrier BSP ~4, a dataflow 2);
#   intercept  the zero-latency iteration; over max(compute bound, transfer bound) it
#              says whether compute and transfer overlap (1.0) or add up (~2);
#   iter1      iteration 1 over the steady median (at the smallest latency), iter2 the
#              same for iteration 2 (it should be within 10 % of the median).
# Writes bench/results/hops.csv (every run), bench/results/hops-fit.csv (one row per
# mode) and a table on stdout. --stretch K makes every modelled time K times longer
# (time_scale 4K, bandwidth 1000/K Mbit/s, each latency K x): the host's own CPU then
# takes a smaller share of its cores, so the intercept / bound at K = 4 against K = 1 tells the
# protocol's overlap from the cost of running 7 roles on this machine (files
# hops-xK.csv and hops-xK-fit.csv). --check exits 1 when dsana's slope is above 2.2 or its
# intercept above 1.25 x max(compute, transfer) (the dataflow targets): bench/guard.sh
# reads the fit instead. Environment as bench/lib.sh (DSANA, BENCH_KEEP).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

runs=
iters=
graph=
lats="0.05 0.5 1 2"
modes="bsp dsana"
check=0
quick=0
isolate=threads
stretch=1
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --runs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
    runs=$2
    shift
    ;;
  --graph)
    [[ $# -ge 2 && -r $2 ]] || die "--graph needs a readable graph file"
    graph=$2
    shift
    ;;
  --latencies)
    [[ $# -ge 2 && $2 =~ ^[0-9.]+( [0-9.]+)+$ ]] || die "--latencies needs two or more values in ms, e.g. \"0.05 1 2\""
    lats=$2
    shift
    ;;
  --modes)
    [[ $# -ge 2 && $2 =~ ^(bsp|dsana)( (bsp|dsana))*$ ]] || die "--modes takes bsp and/or dsana"
    modes=$2
    shift
    ;;
  --isolate)
    [[ $# -ge 2 && $2 =~ ^(threads|processes)$ ]] || die "--isolate takes threads or processes"
    isolate=$2
    shift
    ;;
  --stretch)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--stretch needs a positive integer"
    stretch=$2
    shift
    ;;
  --check) check=1 ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
if ((quick)); then
  runs=${runs:-1} iters=15
else
  runs=${runs:-3} iters=30
fi

bench_init
SLOPE_MAX=2.2
INTERCEPT_MAX=1.25
shared=${SHARED_DATA:-$REPO/../shared/data}/graphs/p2p-Gnutella31.txt.gz
if [[ -z $graph ]]; then
  if [[ -r $shared ]]; then
    graph=$(graph_real "$shared")
  else
    note "$shared is absent: Kronecker scale 16 instead"
    graph=$(graph_kron 16)
  fi
fi

if ((stretch > 1)); then # every latency K x (the fit is over the latencies as run)
  scaled=
  for lat in $lats; do scaled+="$(calc "$lat * $stretch" %g) "; done
  lats=${scaled% }
fi

# scenario_for L_MS -> path of a scenario file with that latency (and --stretch)
scenario_for() {
  local f=$SCRATCH/hops-$1-x$stretch.json
  [[ -s $f ]] || printf '{"workers":[{"speed":1},{"speed":1},{"speed":0.5},{"speed":0.25}],"link":{"bandwidth_mbit":%s,"latency_ms":%s},"ns_per_cost":3,"time_scale":%s}\n' \
    "$(calc "1000 / $stretch" %g)" "$1" "$((4 * stretch))" >"$f"
  echo "$f"
}

if ((stretch > 1)); then
  CSV=$RESULTS/hops-x$stretch.csv
  FIT=$RESULTS/hops-x$stretch-fit.csv
else
  CSV=$RESULTS/hops.csv
  FIT=$RESULTS/hops-fit.csv
fi
hdr=date,commit,graph,isolate,mode,latency_ms,run,median_iter_ms,iter1_ms,iter2_ms,compute_bound_ms,transfer_bound_ms
echo "dsana hops — $DSANA ($BENCH_COMMIT), $BENCH_HOST; $(basename "$graph"), $iters iterations, $runs run(s) per point, roles as $isolate, modelled times x $stretch" >&2
declare -A MED
for ((r = 1; r <= runs; r++)); do
  for lat in $lats; do
    for mode in $modes; do
      tag=$mode-$lat-$r
      RUN_ISOLATE=$isolate run_pagerank "$tag" "$graph" --workers 4 --servers 2 --mode "$mode" --scenario "$(scenario_for "$lat")" \
        --tol 0 --max-iter "$iters" --top 0
      m=$RUN_METRICS
      read -r med cb tb < <(jq -r 'select(.type=="summary") | "\(.median_iter_s) \(.bound_s) \(.transfer_bound_s)"' "$m" | tail -n 1)
      read -r i1 i2 < <(jq -rs '[.[] | select(.type=="iteration")] | "\(.[0].wall_s) \(.[1].wall_s)"' "$m")
      row="$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$isolate,$mode,$lat,$r,$(calc "$med * 1000" %.4f),$(calc "$i1 * 1000" %.4f),$(calc "$i2 * 1000" %.4f),$(calc "$cb * 1000" %.4f),$(calc "$tb * 1000" %.4f)"
      csv_row "$CSV" "$hdr" "$row"
      MED[$mode,$lat]+="$(calc "$med * 1000" %.4f) "
      MED[$mode,$lat,i1]+="$(calc "$i1 * 1000" %.4f) "
      MED[$mode,$lat,i2]+="$(calc "$i2 * 1000" %.4f) "
      MED[$mode,cb]+="$(calc "$cb * 1000" %.4f) "
      MED[$mode,tb]+="$(calc "$tb * 1000" %.4f) "
      note "$tag: median $(calc "$med * 1000" %.2f) ms, iteration 1 $(calc "$i1 * 1000" %.2f) ms"
    done
  done
done

# fit "x y" lines -> "slope intercept"
fit() {
  awk 'NF == 2 { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
       END { d = n * sxx - sx * sx; if (n < 2 || d == 0) { print "nan nan"; exit }
             b = (n * sxy - sx * sy) / d; printf "%.4f %.4f\n", b, (sy - b * sx) / n }'
}

fit_hdr=date,commit,graph,isolate,mode,runs,latencies_ms,slope_latencies_per_iter,intercept_ms,bound_ms,intercept_over_bound,iter1_over_median,iter2_over_median
lat0=${lats%% *}
fail=0
{
  echo "| mode | ms/iteration at L = ${lats// / / } ms | slope (latencies/iter) | intercept ms | max(compute, transfer) ms | intercept / bound | iter 1 / median | iter 2 / median |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for mode in $modes; do
    pts= cells=
    for lat in $lats; do
      # shellcheck disable=SC2086
      read -r y _ _ < <(stats ${MED[$mode,$lat]})
      pts+="$lat $y"$'\n'
      cells+="$(calc "$y" %.2f) / "
    done
    read -r slope icpt < <(fit <<<"$pts")
    # shellcheck disable=SC2086
    read -r cb _ _ < <(stats ${MED[$mode,cb]})
    # shellcheck disable=SC2086
    read -r tb _ _ < <(stats ${MED[$mode,tb]})
    bound=$(calc "$cb > $tb ? $cb : $tb" %.4f)
    # shellcheck disable=SC2086
    read -r m0 _ _ < <(stats ${MED[$mode,$lat0]})
    # shellcheck disable=SC2086
    read -r i1 _ _ < <(stats ${MED[$mode,$lat0,i1]})
    # shellcheck disable=SC2086
    read -r i2 _ _ < <(stats ${MED[$mode,$lat0,i2]})
    ratio=$(calc "$icpt / $bound" %.3f)
    r1=$(calc "$i1 / $m0" %.2f)
    r2=$(calc "$i2 / $m0" %.2f)
    echo "| $mode | ${cells% / } | $slope | $icpt | $bound | $ratio | $r1 | $r2 |"
    csv_row "$FIT" "$fit_hdr" "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$isolate,$mode,$runs,${lats// /;},$slope,$icpt,$bound,$ratio,$r1,$r2"
    if [[ $mode == dsana ]] && ((check)); then
      if [[ $(calc "$slope > $SLOPE_MAX || $ratio > $INTERCEPT_MAX" %d) == 1 ]]; then
        echo "dsana: slope $slope (target <= $SLOPE_MAX) or intercept/bound $ratio (target <= $INTERCEPT_MAX) missed" >&2
        fail=1
      fi
    fi
  done
}
echo "wrote $CSV, $FIT" >&2
exit $fail
