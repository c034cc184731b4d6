#!/usr/bin/env bash
# bench/pagerank/fixed_cost.sh [--runs N] [--iters N] [--workers "1 2 4"] [--isolate "processes threads"] [GRAPH]
#
# The fixed cost of an iteration: PageRank on a small graph
# (default email-Eu-core from the shared data folder, 25,571 edges, whose
# compute is ~0.05 ms), local mode, 1 server, W workers with 1 thread each,
# no emulation, --mode dsana and --mode bsp. Prints the median seconds per
# iteration (median of the runs' medians, min-max), the scheduler's messages
# per iteration (metrics), and the ratio to two loopback round trips (the
# floor: ~90 us each across vCPUs on this machine, see
# ../shared/MACHINE.md; the target is 0.25 ms for 4 workers, 0.1 ms with
# the roles as threads of one process), for each
# --isolate given (default both: the roles as processes, or as threads of
# one process). Runs alternate over the configurations and hold
# /tmp/dsana-bench.lock.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

runs=5
iters=200
workers="1 2 4"
isolates="processes threads"
graph=
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --iters) iters=$2; shift 2 ;;
  --workers) workers=$2; shift 2 ;;
  --isolate) isolates=$2; shift 2 ;;
  -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) graph=$1; shift ;;
  esac
done
bench_init
if [[ -z $graph ]]; then
  src=$REPO/../shared/data/graphs/email-Eu-core.txt.gz
  [[ -r $src ]] || die "no GRAPH given and $src is missing"
  graph=$GRAPHS/email-Eu-core.bin
  [[ -s $graph ]] || "$DSANA" graph convert "$src" "$graph" >/dev/null || die "cannot convert $src"
fi
RTT_S=0.00009
CSV=$RESULTS/fixed_cost.csv

declare -A it msgs
for ((r = 1; r <= runs; r++)); do
  for W in $workers; do
    for mode in dsana bsp; do
      for iso in $isolates; do
        m=$SCRATCH/$W.$mode.$iso.$r.jsonl
        flock /tmp/dsana-bench.lock "$DSANA" pagerank "$graph" --quiet --workers "$W" --threads 1 --servers 1 \
          --mode "$mode" --isolate "$iso" --tol 0 --max-iter "$iters" --metrics "$m" >/dev/null 2>"$SCRATCH/err" ||
          die "run failed: $(head -c 300 "$SCRATCH/err")"
        it[$W.$mode.$iso]+=" $(summary_field "$m" median_iter_s)"
        msgs[$W.$mode.$iso]+=" $(jq -s '[.[] | select(.type == "iteration") | .scheduler_messages] | sort | .[length / 2 | floor]' "$m")"
        note "run $r W=$W $mode $iso: $(summary_field "$m" median_iter_s) s/iteration"
      done
    done
  done
done
echo "# dsana $BENCH_COMMIT; $BENCH_HOST; $(basename "$graph"), $iters iterations, $runs runs, 1 server, 1 thread per worker"
printf '%-8s %-6s %-10s %10s %-20s %9s %9s\n' workers mode isolate ms/iter "min-max" sched_msgs "x 2 RTT"
for W in $workers; do
  for mode in dsana bsp; do
    for iso in $isolates; do
      k=$W.$mode.$iso
      # shellcheck disable=SC2086
      read -r med lo hi < <(stats ${it[$k]})
      # shellcheck disable=SC2086
      read -r mm _ _ < <(stats ${msgs[$k]})
      printf '%-8s %-6s %-10s %10.3f %-20s %9s %9.2f\n' "$W" "$mode" "$iso" "$(awk -v x="$med" 'BEGIN {print x * 1e3}')" \
        "$(awk -v a="$lo" -v b="$hi" 'BEGIN {printf "%.3f-%.3f", a * 1e3, b * 1e3}')" "$mm" \
        "$(awk -v x="$med" -v r="$RTT_S" 'BEGIN {print x / (2 * r)}')"
      csv_row "$CSV" "date,commit,graph,workers,mode,isolate,runs,iters,median_s,min_s,max_s,sched_msgs" \
        "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$W,$mode,$iso,$runs,$iters,$med,$lo,$hi,$mm"
    done
  done
done
echo "# x 2 RTT: the median over two loopback round trips across vCPUs (90 us each, ../shared/MACHINE.md)"
