#!/usr/bin/env bash
# bench/sim_calibrate.sh [--runs N] [--out FILE]
#
# Measures the simulator's cost constants (src/sim/sim.h, struct sim_costs) on this
# machine from real runs of the local launcher, and writes them as a costs file
# for `dsana sim --profile FILE` (default bench/results/sim_costs.json). Every real
# run holds /tmp/dsana-bench.lock (flock) so that benchmarks never overlap.
#
#   worker_ns_per_cost  real compute per unit of cost: (t(kron16) - t(kron10)) / (C16 - C10),
#                       1 worker, 1 server, bsp, no scenario (C = edges + vertices)
#   worker_task_s       per task instance: (t(tpw 128) - t(tpw 1)) / (tasks per worker added),
#                       kron10, 2 workers, bsp (tiny tasks: their pushes are batched)
#   net_msg_s,          transport delivery per message and CPU per message of every role
#   *_msg_s             (scheduler, servers, workers: one value): the pair whose simulation
#                       (--local) best matches, in squared log error, seven runs: kron10 2
#                       workers bsp (the fixed cost of an iteration), and kron16 with 8, 16
#                       and 32 workers, 2 servers, uniform speeds, ns_per_cost 3, time_scale
#                       4 x W (scale.sh's configuration), bsp and dsana (scheduler_messages
#                       per iteration from their metrics)
#   sched_handout_s,    the scheduler's CPU a task handed out and a record taken, without
#   sched_record_s      the messages: bench/tools/sched_cost.c (the `sched_cost` target;
#                       64 workers, 4096 tasks, 2 sums; median of N runs)
#   sched_plan_task_s   its plan a task for workers of several threads: sched_cost with 16
#                       workers of 64 threads, 4096 tasks (median of N runs)
# The other constants keep their compiled-in defaults (docs/sim.md says why).
# Prints every measurement, the fit and its error per run; N runs per configuration
# (default 3, alternating), medians of each run's median_iter_s.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

runs=3
out=
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
    runs=$2
    shift
    ;;
  --out)
    [[ $# -ge 2 ]] || die "--out needs a file"
    out=$2
    shift
    ;;
  -h | --help)
    sed -n '2,22s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
bench_init
out=${out:-$RESULTS/sim_costs.json}
SCHED_COST=$(build_tool sched_cost)
[[ -x $SCHED_COST ]] || die "no sched_cost at $SCHED_COST"
declare -A PER
for ((r = 1; r <= runs; r++)); do
  while read -r key value; do PER[$key]+="$value "; done < <(flock /tmp/dsana-bench.lock "$SCHED_COST" 64 4096 2)
  while read -r key value; do
    [[ $key != sched_plan_task_s ]] || PER[$key]+="$value "
  done < <(flock /tmp/dsana-bench.lock "$SCHED_COST" 16 4096 2 64)
done
# shellcheck disable=SC2086
handout=$(stats ${PER[sched_handout_s]} | cut -d" " -f1)
# shellcheck disable=SC2086
record=$(stats ${PER[sched_record_s]} | cut -d" " -f1)
# shellcheck disable=SC2086
plan=$(stats ${PER[sched_plan_task_s]} | cut -d" " -f1)
echo "sched_handout_s=$handout sched_record_s=$record (sched_cost 64 4096 2), sched_plan_task_s=$plan" \
  "(sched_cost 16 4096 2 64), medians of $runs"
# profile NET MSG: the costs file of these message costs and the measured rest
profile() {
  jq -n --argjson net "$1" --argjson msg "$2" --argjson ns "$ns" --argjson task "$task" \
    --argjson handout "$handout" --argjson record "$record" --argjson plan "$plan" \
    '{profile_version: 1, net_msg_s: $net, sched_msg_s: $msg, server_msg_s: $msg, worker_msg_s: $msg,
      worker_ns_per_cost: $ns, worker_task_s: $task, sched_handout_s: $handout, sched_record_s: $record,
      sched_plan_task_s: $plan}'
}
G10=$(graph_kron 10)
G16=$(graph_kron 16)
cost_of() { read -r v e < <(graph_counts "$1") && echo $((v + e)); }
C10=$(cost_of "$G10")
C16=$(cost_of "$G16")
for w in 8 16 32; do
  jq -n --argjson w "$w" '{workers: [range($w) | {speed: 1}], ns_per_cost: 3, time_scale: (4 * $w)}' \
    >"$SCRATCH/uniform$w.json"
done

# Configurations: name|graph|options (each also run by the simulator, but D16/D10).
CONFIGS=(
  "D10|$G10|--workers 1 --servers 1 --mode bsp --tasks-per-worker 1"
  "D16|$G16|--workers 1 --servers 1 --mode bsp --tasks-per-worker 1"
  "A|$G10|--workers 2 --servers 1 --mode bsp --tasks-per-worker 1"
  "B|$G10|--workers 2 --servers 1 --mode bsp --tasks-per-worker 128"
  "C|$G16|--workers 8 --servers 2 --mode bsp --scenario $SCRATCH/uniform8.json"
  "E|$G16|--workers 8 --servers 2 --mode dsana --scenario $SCRATCH/uniform8.json"
  "F|$G16|--workers 16 --servers 2 --mode bsp --scenario $SCRATCH/uniform16.json"
  "G|$G16|--workers 16 --servers 2 --mode dsana --scenario $SCRATCH/uniform16.json"
  "H|$G16|--workers 32 --servers 2 --mode bsp --scenario $SCRATCH/uniform32.json"
  "I|$G16|--workers 32 --servers 2 --mode dsana --scenario $SCRATCH/uniform32.json"
)
declare -A T MSGS
for ((r = 1; r <= runs; r++)); do
  for cfg in "${CONFIGS[@]}"; do
    IFS='|' read -r name graph opts <<<"$cfg"
    # shellcheck disable=SC2086
    RUN_METRICS=$SCRATCH/$name-$r.jsonl
    # shellcheck disable=SC2086
    flock /tmp/dsana-bench.lock "$DSANA" pagerank "$graph" --isolate processes --quiet --max-iter 20 --tol 0 --metrics "$RUN_METRICS" \
      $opts >/dev/null 2>"$SCRATCH/$name.err" || { tail -n 5 "$SCRATCH/$name.err" >&2; die "run $name failed"; }
    T[$name]+="$(summary_field "$RUN_METRICS" median_iter_s) "
    MSGS[$name]=$(jq -s '[.[] | select(.type=="iteration") | .scheduler_messages] | sort | .[length/2|floor]' "$RUN_METRICS")
    note "run $r $name: median_iter_s=$(summary_field "$RUN_METRICS" median_iter_s) scheduler_messages=${MSGS[$name]}"
  done
done
# shellcheck disable=SC2086
med() { stats ${T[$1]} | cut -d" " -f1; }

ns=$(calc "($(med D16) - $(med D10)) / ($C16 - $C10) * 1e9")
task=$(calc "($(med B) - $(med A)) / ((128 - 1) * 2 / 2)")
awk -v x="$ns" 'BEGIN { exit !(x > 0) }' || die "kron16 was not slower than kron10 (noise?): rerun"
awk -v x="$task" 'BEGIN { exit !(x >= 0) }' || task=0
echo "worker_ns_per_cost=$ns (kron16 $(med D16) s, kron10 $(med D10) s per iteration, 1 worker)"
echo "worker_task_s=$task (tpw 128 $(med B) s, tpw 1 $(med A) s, 2 workers)"

# Grid search over (net_msg_s, msg_s) through the simulator.
best=
best_err=
for net in 10e-6 20e-6 40e-6 80e-6; do
  for msg in 2e-6 4e-6 6e-6 8e-6 10e-6 12e-6 14e-6 16e-6 18e-6 20e-6 25e-6 30e-6 40e-6; do
    cf=$SCRATCH/costs.json
    profile "$net" "$msg" >"$cf"
    err=0
    for cfg in "${CONFIGS[@]}"; do
      IFS='|' read -r name graph opts <<<"$cfg"
      [[ $name != D10 && $name != D16 && $name != B ]] || continue
      # shellcheck disable=SC2086
      s=$("$DSANA" sim "$graph" --quiet --local --profile "$cf" --max-iter 10 --metrics "$SCRATCH/sim.jsonl" $opts >/dev/null &&
        summary_field "$SCRATCH/sim.jsonl" median_iter_s)
      err=$(calc "$err + log($s / $(med "$name"))^2" %.9f)
    done
    if [[ -z $best_err ]] || awk -v a="$err" -v b="$best_err" 'BEGIN { exit !(a < b) }'; then
      best_err=$err
      best="$net $msg"
    fi
  done
done
read -r net msg <<<"$best"
profile "$net" "$msg" >"$out"
echo "net_msg_s=$net msg_s=$msg (squared log error $best_err over runs A, C, E, F, G, H, I)"
for cfg in "${CONFIGS[@]}"; do
  IFS='|' read -r name graph opts <<<"$cfg"
  # shellcheck disable=SC2086
  s=$("$DSANA" sim "$graph" --quiet --local --profile "$out" --max-iter 10 --metrics "$SCRATCH/sim.jsonl" $opts >/dev/null &&
    summary_field "$SCRATCH/sim.jsonl" median_iter_s)
  printf '%-4s real %.6f s  sim %.6f s  sim/real %.3f  (scheduler_messages %s)\n' "$name" "$(med "$name")" "$s" \
    "$(calc "$s / $(med "$name")")" "${MSGS[$name]}"
done
echo "costs written to $out"
