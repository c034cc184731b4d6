#!/usr/bin/env bash
# bench/scale.sh [--runs N] [--scale K] [--graph kron|uniform] [--sim-workers "8 64 256 1024"]
#                [--real-workers "4 8"] [--servers S] [--link-mbit M] [--costs FILE] [--no-real]
#                [--threads T] [--tasks-per-worker N]
#
# Efficiency against the balanced bound (bound_s / median_iter_s) as the worker count
# grows, bsp and dsana side by side, in two scenarios: uniform (every worker speed 1)
# and heterogeneous (speeds 1 1 0.5 0.25 repeated), ns_per_cost 3, time_scale 4 x W
# (each worker's share takes the same modelled time at every W), no emulated links: the
# configuration of docs/sim.md's runs. --link-mbit M gives every process a link of
# M Mbit/s and 0.5 ms (a cluster's network; the transfer bound then counts too).
# Kronecker scale K (default 16; --graph uniform: a uniform random graph of as many
# vertices and edges, whose tasks are all small: no hub's task sets a floor), S servers
# (default 2).
#
#   simulated  `dsana sim` at W in --sim-workers (default 8 64 256 1024), every role on
#              its own machine, 10 iterations; deterministic, so one run each
#   real       `dsana pagerank` on this machine's local launcher, roles as processes (as
#              on a cluster; the simulator's --local models that, not --isolate threads),
#              at W in --real-workers (default 4 8), 20 iterations --tol 0, N runs (default 3) alternating
#              bsp, dsana; each run holds /tmp/dsana-bench.lock (flock) so that no two
#              benchmarks share the cores. Beside each, `dsana sim --local` of the same
#              configuration and the ratio sim / real (the simulator's error here).
#
# --costs FILE is given to every `dsana sim` (default bench/results/sim_costs.json when
# bench/sim_calibrate.sh wrote one, else the compiled-in constants). Prints one table,
# appends every row to bench/results/scale.csv (a header when new) and, with gnuplot,
# draws bench/results/scale-GRAPH.svg from the simulated rows of this run. `dsana_vs_bsp` is
# bsp's median iteration time over dsana's at the same W and scenario (> 1: dsana faster).
#
# --threads T: every worker, real and simulated, runs T compute threads (each at the
# worker's speed) and time_scale is 4 x W x T, so that a thread's share takes the same
# modelled time as a single-threaded worker's at W x T: W workers of T threads are the
# cluster of W machines with T cores each, set beside W x T workers of one. Rows then
# go to scale-tT.csv and the plot to scale-GRAPH-tT.svg. --tasks-per-worker N is given
# to every run (default: the runtime's, which does not grow with the threads).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

runs=3
scale=16
sim_ws="8 64 256 1024"
real_ws="4 8"
servers=2
link_mbit=0
costs=
gkind=kron
threads=1
tpw=
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs | --scale | --servers | --link-mbit | --threads | --tasks-per-worker)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
    case $1 in
    --runs) runs=$2 ;; --scale) scale=$2 ;; --servers) servers=$2 ;; --threads) threads=$2 ;;
    --tasks-per-worker) tpw=$2 ;; *) link_mbit=$2 ;;
    esac
    shift
    ;;
  --sim-workers | --real-workers)
    [[ $# -ge 2 && $2 =~ ^[0-9\ ]*$ ]] || die "$1 needs a list of worker counts"
    if [[ $1 == --sim-workers ]]; then sim_ws=$2; else real_ws=$2; fi
    shift
    ;;
  --no-real) real_ws= ;;
  --graph)
    [[ $# -ge 2 && $2 =~ ^(kron|uniform)$ ]] || die "--graph needs kron or uniform"
    gkind=$2
    shift
    ;;
  --costs)
    [[ $# -ge 2 && -r $2 ]] || die "--costs needs a readable file"
    costs=$2
    shift
    ;;
  -h | --help)
    sed -n '2,36s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
bench_init
[[ -n $costs || ! -r $RESULTS/sim_costs.json ]] || costs=$RESULTS/sim_costs.json
COSTS_ARGS=()
[[ -z $costs ]] || COSTS_ARGS=(--profile "$costs")
# what every run, real or simulated, is given beside its own options
RUN_ARGS=(--threads "$threads")
[[ -z $tpw ]] || RUN_ARGS+=(--tasks-per-worker "$tpw")
suffix=
[[ $threads == 1 ]] || suffix=-t$threads
# graph_uniform SCALE -> path: 2^SCALE vertices, 16 x as many edges (cached)
graph_uniform() {
  local f=$GRAPHS/uniform-s$1-ef16-seed1.bin
  if [[ ! -s $f ]]; then
    "$DSANA" graph gen uniform --vertices $((1 << $1)) --edges $((16 << $1)) --seed 1 --out "$f.tmp.$$" >/dev/null ||
      { rm -f "$f.tmp.$$"; die "dsana graph gen uniform failed"; }
    mv "$f.tmp.$$" "$f"
  fi
  echo "$f"
}
if [[ $gkind == kron ]]; then graph=$(graph_kron "$scale"); else graph=$(graph_uniform "$scale"); fi
csv=$RESULTS/scale$suffix.csv
HEADER="date,commit,host,kind,scenario,link_mbit,graph,scale,workers,servers,mode,runs,median_iter_s,min_s,max_s,bound_s,efficiency,dsana_vs_bsp,sim_median_iter_s,sim_over_real,costs"

# scenario NAME W -> path of its file
scenario() {
  local f=$SCRATCH/$1-$2.json
  jq -n --arg name "$1" --argjson w "$2" --argjson t "$threads" --argjson mbit "$link_mbit" '{workers: [range($w) | {speed:
      (if $name == "uniform" then 1 else [1, 1, 0.5, 0.25][. % 4] end)}], ns_per_cost: 3, time_scale: (4 * $w * $t)}
      + (if $mbit > 0 then {link: {bandwidth_mbit: $mbit, latency_ms: 0.5}} else {} end)' >"$f"
  echo "$f"
}

# sim_once TAG SCENARIO W MODE [sim options...] -> "median bound"
sim_once() {
  local tag=$1 sc=$2 w=$3 mode=$4 m=$SCRATCH/$1.jsonl
  shift 4
  "$DSANA" sim "$graph" --workers "$w" --servers "$servers" --mode "$mode" --scenario "$sc" --quiet \
    --metrics "$m" "${COSTS_ARGS[@]}" "${RUN_ARGS[@]}" "$@" >/dev/null 2>"$SCRATCH/$tag.err" ||
    { tail -n 3 "$SCRATCH/$tag.err" >&2; die "dsana sim ($tag) failed"; }
  echo "$(summary_field "$m" median_iter_s) $(summary_field "$m" bound_s)"
}

declare -A MED MIN MAX BOUND SIMMED
printf '%-6s %-13s %5s %-5s %4s %12s %12s %6s %8s %10s\n' kind scenario W mode runs median_s bound_s eff vs_bsp sim/real

for name in uniform heterogeneous; do
  for w in $sim_ws; do
    sc=$(scenario "$name" "$w")
    for mode in bsp dsana; do
      read -r MED[$mode] BOUND[$mode] < <(sim_once "sim-$name-$w-$mode" "$sc" "$w" "$mode" --max-iter 10)
      MIN[$mode]=${MED[$mode]} MAX[$mode]=${MED[$mode]} SIMMED[$mode]=
    done
    for mode in bsp dsana; do
      eff=$(calc "${BOUND[$mode]} / ${MED[$mode]}" %.3f)
      vs=$(calc "${MED[bsp]} / ${MED[$mode]}" %.3f)
      printf '%-6s %-13s %5s %-5s %4s %12.6f %12.6f %6s %8s %10s\n' sim "$name" "$w" "$mode" 1 "${MED[$mode]}" \
        "${BOUND[$mode]}" "$eff" "$vs" -
      csv_row "$csv" "$HEADER" "$BENCH_DATE,$BENCH_COMMIT,\"$BENCH_HOST\",sim,$name,$link_mbit,$gkind,$scale,$w,$servers,$mode,1,${MED[$mode]},${MED[$mode]},${MED[$mode]},${BOUND[$mode]},$eff,$vs,,,${costs:-default}"
      echo "$name $w $mode $eff" >>"$SCRATCH/plot.dat"
    done
  done
done

for name in uniform heterogeneous; do
  for w in $real_ws; do
    sc=$(scenario "$name" "$w")
    declare -A T=() B=()
    for ((r = 1; r <= runs; r++)); do
      for mode in bsp dsana; do
        tag=real-$name-$w-$mode-$r
        RUN_METRICS=$SCRATCH/$tag.jsonl
        flock /tmp/dsana-bench.lock "$DSANA" pagerank "$graph" --isolate processes --quiet --metrics "$RUN_METRICS" --workers "$w" \
          --servers "$servers" --mode "$mode" --scenario "$sc" --max-iter 20 --tol 0 "${RUN_ARGS[@]}" >/dev/null 2>"$SCRATCH/$tag.err" ||
          { tail -n 5 "$SCRATCH/$tag.err" >&2; die "run $tag failed"; }
        T[$mode]+="$(summary_field "$RUN_METRICS" median_iter_s) "
        B[$mode]+="$(summary_field "$RUN_METRICS" bound_s) "
      done
    done
    for mode in bsp dsana; do
      # shellcheck disable=SC2086
      read -r MED[$mode] MIN[$mode] MAX[$mode] < <(stats ${T[$mode]})
      # shellcheck disable=SC2086
      read -r BOUND[$mode] _ _ < <(stats ${B[$mode]})
      read -r SIMMED[$mode] _ < <(sim_once "simlocal-$name-$w-$mode" "$sc" "$w" "$mode" --local --max-iter 20)
    done
    for mode in bsp dsana; do
      eff=$(calc "${BOUND[$mode]} / ${MED[$mode]}" %.3f)
      vs=$(calc "${MED[bsp]} / ${MED[$mode]}" %.3f)
      ratio=$(calc "${SIMMED[$mode]} / ${MED[$mode]}" %.3f)
      printf '%-6s %-13s %5s %-5s %4s %12.6f %12.6f %6s %8s %10s\n' real "$name" "$w" "$mode" "$runs" "${MED[$mode]}" \
        "${BOUND[$mode]}" "$eff" "$vs" "$ratio"
      csv_row "$csv" "$HEADER" "$BENCH_DATE,$BENCH_COMMIT,\"$BENCH_HOST\",real,$name,$link_mbit,$gkind,$scale,$w,$servers,$mode,$runs,${MED[$mode]},${MIN[$mode]},${MAX[$mode]},${BOUND[$mode]},$eff,$vs,${SIMMED[$mode]},$ratio,${costs:-default}"
    done
  done
done
note "rows appended to $csv (real runs: median of $runs, min-max in the CSV)"

if command -v gnuplot >/dev/null && [[ -s $SCRATCH/plot.dat ]]; then
  svg=$RESULTS/scale-$gkind$suffix.svg
  for s in uniform heterogeneous; do
    for m in bsp dsana; do
      awk -v s="$s" -v m="$m" '$1 == s && $3 == m { print $2, $4 }' "$SCRATCH/plot.dat" >"$SCRATCH/$s-$m.dat"
    done
  done
  link_words="link $link_mbit Mbit/s"
  [[ $link_mbit != 0 ]] || link_words="no link limit"
  gnuplot <<EOF || note "gnuplot failed; no plot"
set terminal svg size 720,420 font "sans,12"
set output "$svg"
set title "dsana sim: efficiency vs workers ($gkind $scale, $servers servers, $threads thread(s) a worker, time_scale 4WT, $link_words)" noenhanced
set logscale x 2
set xlabel "simulated workers W"
set ylabel "bound / median iteration"
set yrange [0:1.05]
set key bottom left
set grid
plot "$SCRATCH/uniform-bsp.dat" w lp t "uniform, bsp", "$SCRATCH/uniform-dsana.dat" w lp t "uniform, dsana", \
     "$SCRATCH/heterogeneous-bsp.dat" w lp t "heterogeneous, bsp", "$SCRATCH/heterogeneous-dsana.dat" w lp t "heterogeneous, dsana"
EOF
  [[ ! -s $svg ]] || note "plot: $svg"
fi
