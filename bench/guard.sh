#!/usr/bin/env bash
# bench/guard.sh [--runs N] [--baseline FILE] [--update [--force]]
#
# The regression guard: under a minute, alone on the machine (it holds
# /tmp/dsana-bench.lock for its whole run). Measures, on email-Eu-core
# (../shared/data/graphs, converted once into the bench graph cache), 1 server:
#  (a) rtt_us: the ZeroMQ REQ/REP round trip over ipc between two processes
#      (bench/tools/zmq_rtt.c, built as the `zmq_rtt` target; median of one 2000-trip
#      run per round): the yardstick, reported but not compared;
#  (b) fixed cost of an iteration: `dsana pagerank --mode dsana --workers W
#      --threads 1 --servers 1 --tol 0 --max-iter 200`, W = 1 and 4, median over
#      the rounds of the summary's median_iter_s, in ms and as a multiple of (a);
#  (c) per iteration of the whole job at W=4 (GNU time on the launcher, which
#      waits for every role): wake-ups (%w) and CPU ms (%U+%S), by difference of
#      a 410- and a 10-iteration run, / 400, median over the rounds; plus the
#      summary's wakeups_per_iter and cpu_ms_per_iter when the metrics have them;
#  (d) scheduler messages per iteration at W=4: the summary's
#      scheduler_messages_per_iter when present, else the median over the
#      iteration lines' scheduler_messages (median over the rounds);
#  (e) heterogeneous ratio: `--workers 4 --servers 2 --scenario
#      bench/scenarios/heterogeneous-cloud.json --tol 0 --max-iter 60`, --mode
#      bsp and dsana alternated, one pair per round: median dsana / median bsp;
#  (f) link latencies per iteration (bench/hops.sh in small): the same cluster at
#      link latency 0.05 and 2 ms, --mode dsana, 30 iterations: (ms at 2 - ms at
#      0.05) / 1.95, median over the rounds (a dataflow iteration pays 2);
#  (g) overlap: Kronecker 15, 2 workers of speed 1, 1 server, 400 Mbit/s + 0.3 ms,
#      --mode dsana, 12 iterations, the roles as threads (the default, as the
#      before-stop hook runs it): median_iter_s over max(bound_s,
#      transfer_bound_s) (1.0: compute and transfer fully overlapped).
# Rounds: --runs N (default 3). Lower is better for every figure. Each compared
# figure (every one but the absolute times and rtt_us) is checked against FILE
# (default bench/guard-baseline.txt, lines `name value`): exit 1 naming every
# figure more than 25 % above its baseline, else 0. A baseline figure that was
# not measured is reported, not fatal. FILE's rtt_us is the round trip of the
# host it was measured on: where this host's is more than 25 % away, the
# x-rtt figures are shown as "other host", not judged (the fixed cost is not
# all ZeroMQ; compare two builds on this host with DSANA= instead). --update
# rewrites FILE with the figures that got better (and new ones); --update
# --force with every figure just measured (exit 0). Prints a table on stdout, progress on stderr; appends one
# row per figure to bench/results/guard.csv. Environment: DSANA (binary, else
# build-bench/dsana), ZMQ_RTT (a built zmq_rtt, else built next to DSANA's build
# or in build-bench), BENCH_KEEP=1.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
for a in "$@"; do
  if [[ $a == -h || $a == --help ]]; then
    usage
    exit 0
  fi
done

LOCK=/tmp/dsana-bench.lock
if [[ -z ${DSANA_BENCH_LOCK_HELD:-} ]]; then
  command -v flock >/dev/null || { echo "error: flock is missing (util-linux)" >&2; exit 1; }
  if ! flock -n "$LOCK" true; then echo "# waiting for $LOCK (another benchmark is running)" >&2; fi
  exec env DSANA_BENCH_LOCK_HELD=1 flock "$LOCK" bash "$0" "$@"
fi
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

runs=3
baseline=
update=0
force=0
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive integer"
    runs=$2
    shift
    ;;
  --baseline)
    [[ $# -ge 2 && -n $2 ]] || die "--baseline needs a file"
    baseline=$2
    shift
    ;;
  --update) update=1 ;;
  --force) force=1 ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
((force == 0 || update == 1)) || die "--force goes with --update"

baseline=${baseline:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/guard-baseline.txt}
if [[ ! -r $baseline ]] && ((!update)); then
  die "no baseline $baseline (bench/guard.sh --update writes one)"
fi
t_start=$(date +%s.%N)
bench_init
CSV=$RESULTS/guard.csv
TOLERANCE_PCT=25
FIXED_ITERS=200
SHORT_ITERS=10
LONG_ITERS=410
HET_ITERS=60
HET_SCENARIO=$BENCH_DIR/scenarios/heterogeneous-cloud.json
[[ -r $HET_SCENARIO ]] || die "$HET_SCENARIO is missing"

# ---- zmq_rtt ---------------------------------------------------------------------
if [[ -n ${ZMQ_RTT:-} ]]; then
  [[ -x $ZMQ_RTT ]] || die "ZMQ_RTT=$ZMQ_RTT is not an executable"
else
  ZMQ_RTT=$(build_tool zmq_rtt)
fi
[[ -x $ZMQ_RTT ]] || die "no zmq_rtt at $ZMQ_RTT"

# ---- graph -----------------------------------------------------------------------
src=$REPO/../shared/data/graphs/email-Eu-core.txt.gz
graph=$GRAPHS/email-Eu-core.bin # the cache fixed_cost.sh uses
if [[ ! -s $graph ]]; then
  [[ -r $src ]] || die "$src is missing"
  note "converting $src -> $graph"
  "$DSANA" graph convert "$src" "$graph.tmp.$$" >/dev/null || { rm -f "$graph.tmp.$$"; die "cannot convert $src"; }
  mv "$graph.tmp.$$" "$graph"
fi

# ---- runs ------------------------------------------------------------------------
# job TAG ARGS...: `dsana pagerank GRAPH --quiet --metrics M ARGS` under GNU time;
# sets JOB_M (metrics), JOB_W (voluntary context switches), JOB_CPU (user+sys s).
# The roles run as processes (JOB_ISOLATE=threads: as threads of one process).
job() {
  local tag=$1
  shift
  JOB_M=$SCRATCH/$tag.jsonl
  local tf=$SCRATCH/$tag.time
  if ! /usr/bin/time -f '%w %U %S' -o "$tf" "$DSANA" pagerank "$graph" --isolate "${JOB_ISOLATE:-processes}" --quiet --metrics "$JOB_M" "$@" \
    >"$SCRATCH/$tag.stdout" 2>"$SCRATCH/$tag.err"; then
    echo "error: run '$tag' failed: $DSANA pagerank $graph --quiet --metrics $JOB_M $*" >&2
    tail -n 20 "$SCRATCH/$tag.err" >&2
    exit 1
  fi
  grep -q '"type":"summary"' "$JOB_M" || die "run '$tag': no summary line in $JOB_M"
  read -r JOB_W u s < <(tail -n 1 "$tf")
  [[ $JOB_W =~ ^[0-9]+$ && $u =~ ^[0-9.]+$ && $s =~ ^[0-9.]+$ ]] || die "run '$tag': cannot read GNU time's output ($(cat "$tf"))"
  JOB_CPU=$(calc "$u + $s" %.2f)
}
# opt KEY: the summary's KEY when it is there (a number), else nothing
opt() { jq -r "select(.type==\"summary\") | .$1 // empty | numbers" "$JOB_M" | tail -n 1; }

fixed_args=(--mode dsana --threads 1 --servers 1 --tol 0)
rtt=() fw1=() fw4=() wake=() cpu=() s_wake=() s_cpu=() s_msgs=() it_msgs=() het_bsp=() het_dsana=() hops=() ovl=()
# the heterogeneous cluster at another link latency (f), and the overlap case (g)
hops_scenario() { # LATENCY_MS -> file
  local f=$SCRATCH/hops-$1.json
  jq -c --argjson l "$1" '.link.latency_ms = $l' "$HET_SCENARIO" >"$f" || die "cannot write $f"
  echo "$f"
}
OVL_SCENARIO=$SCRATCH/overlap.json
echo '{"workers":[{"speed":1},{"speed":1}],"ns_per_cost":3,"time_scale":4,"link":{"bandwidth_mbit":400,"latency_ms":0.3}}' >"$OVL_SCENARIO"
ovl_graph=$GRAPHS/kron-s15-ef16-seed3.bin
if [[ ! -s $ovl_graph ]]; then
  "$DSANA" graph gen kron --scale 15 --edge-factor 16 --seed 3 --out "$ovl_graph.tmp.$$" >/dev/null ||
    die "dsana graph gen kron --scale 15 failed"
  mv "$ovl_graph.tmp.$$" "$ovl_graph"
fi
for ((r = 1; r <= runs; r++)); do
  out=$("$ZMQ_RTT" ipc 2>"$SCRATCH/zmq_rtt.err") || die "$ZMQ_RTT failed (exit status $?): $(head -c 300 "$SCRATCH/zmq_rtt.err")"
  [[ $out =~ ^[0-9.]+$ ]] || die "zmq_rtt printed '$out', not a number"
  rtt+=("$out")

  job "w1-$r" --workers 1 "${fixed_args[@]}" --max-iter $FIXED_ITERS
  fw1+=("$(summary_field "$JOB_M" median_iter_s)")
  job "w4-$r" --workers 4 "${fixed_args[@]}" --max-iter $FIXED_ITERS
  fw4+=("$(summary_field "$JOB_M" median_iter_s)")
  v=$(opt wakeups_per_iter) && [[ -n $v ]] && s_wake+=("$v")
  v=$(opt cpu_ms_per_iter) && [[ -n $v ]] && s_cpu+=("$v")
  v=$(opt scheduler_messages_per_iter) && [[ -n $v ]] && s_msgs+=("$v")
  v=$(jq -s '[.[] | select(.type == "iteration") | .scheduler_messages | numbers] | sort |
    if length == 0 then empty elif length % 2 == 1 then .[length / 2 | floor]
    else (.[length / 2 - 1] + .[length / 2]) / 2 end' "$JOB_M")
  [[ -n $v ]] && it_msgs+=("$v")

  job "short-$r" --workers 4 "${fixed_args[@]}" --max-iter $SHORT_ITERS
  w0=$JOB_W c0=$JOB_CPU
  job "long-$r" --workers 4 "${fixed_args[@]}" --max-iter $LONG_ITERS
  n=$((LONG_ITERS - SHORT_ITERS))
  wake+=("$(calc "($JOB_W - $w0) / $n" %.2f)")
  cpu+=("$(calc "($JOB_CPU - $c0) * 1000 / $n" %.4f)")

  for mode in bsp dsana; do
    job "het-$mode-$r" --workers 4 --servers 2 --scenario "$HET_SCENARIO" --mode $mode --tol 0 --max-iter $HET_ITERS
    v=$(summary_field "$JOB_M" median_iter_s)
    if [[ $mode == bsp ]]; then het_bsp+=("$v"); else het_dsana+=("$v"); fi
  done
  job "hops-lo-$r" --workers 4 --servers 2 --scenario "$(hops_scenario 0.05)" --mode dsana --tol 0 --max-iter 30
  lo=$(summary_field "$JOB_M" median_iter_s)
  job "hops-hi-$r" --workers 4 --servers 2 --scenario "$(hops_scenario 2)" --mode dsana --tol 0 --max-iter 30
  hi=$(summary_field "$JOB_M" median_iter_s)
  hops+=("$(calc "($hi - $lo) * 1000 / 1.95" %.3f)")
  graph_saved=$graph graph=$ovl_graph
  JOB_ISOLATE=threads job "overlap-$r" --workers 2 --servers 1 --scenario "$OVL_SCENARIO" --mode dsana --tol 0 --max-iter 12
  graph=$graph_saved
  ovl+=("$(jq -r 'select(.type=="summary") | .median_iter_s / ([.bound_s, .transfer_bound_s] | max)' "$JOB_M" | tail -n 1)")
  note "round $r/$runs: hops ${hops[-1]} latencies/iteration, overlap ${ovl[-1]} x max(compute, transfer)"
  note "round $r/$runs: rtt ${rtt[-1]} us, W=1 ${fw1[-1]} s, W=4 ${fw4[-1]} s/iteration, ${wake[-1]} wake-ups and ${cpu[-1]} CPU ms per iteration, het bsp ${het_bsp[-1]} dsana ${het_dsana[-1]} s/iteration"
done

med() { stats "$@" | awk '{print $1}'; }
med4() { calc "$(med "$@")" %.4g; } # the median, 4 significant digits

# ---- figures: NAME VALUE UNIT COMPARED(1/0) [NOTE] ------------------------------
F_NAME=() F_VAL=() F_UNIT=() F_CMP=() F_NOTE=()
fig() { F_NAME+=("$1") F_VAL+=("$2") F_UNIT+=("$3") F_CMP+=("$4") F_NOTE+=("${5:-}"); }
rtt_us=$(med "${rtt[@]}")
w1_ms=$(calc "$(med "${fw1[@]}") * 1000" %.4f)
w4_ms=$(calc "$(med "${fw4[@]}") * 1000" %.4f)
fig rtt_us "$rtt_us" us 0 "ZeroMQ ipc REQ/REP, 64 B (the yardstick)"
fig fixed_w1_ms "$w1_ms" ms 0 "W=1, $FIXED_ITERS iterations"
fig fixed_w1_x_rtt "$(calc "$w1_ms * 1000 / $rtt_us" %.4g)" "x rtt" 1 "fixed_w1_ms / rtt_us"
fig fixed_w4_ms "$w4_ms" ms 0 "W=4, $FIXED_ITERS iterations"
fig fixed_w4_x_rtt "$(calc "$w4_ms * 1000 / $rtt_us" %.4g)" "x rtt" 1 "fixed_w4_ms / rtt_us"
fig wakeups_per_iter "$(med "${wake[@]}")" count 1 "W=4, GNU time %w, ($LONG_ITERS - $SHORT_ITERS iterations) / $n"
fig cpu_ms_per_iter "$(med "${cpu[@]}")" ms 1 "W=4, GNU time %U+%S, same difference"
((${#s_wake[@]})) && fig summary_wakeups_per_iter "$(med4 "${s_wake[@]}")" count 1 "W=4, metrics summary"
((${#s_cpu[@]})) && fig summary_cpu_ms_per_iter "$(med4 "${s_cpu[@]}")" ms 1 "W=4, metrics summary"
if ((${#s_msgs[@]})); then
  fig sched_msgs_per_iter "$(med4 "${s_msgs[@]}")" count 1 "W=4, summary scheduler_messages_per_iter"
  ((${#it_msgs[@]})) && fig sched_msgs_iter_median "$(med4 "${it_msgs[@]}")" count 0 "W=4, median of the iterations' scheduler_messages"
elif ((${#it_msgs[@]})); then
  fig sched_msgs_per_iter "$(med4 "${it_msgs[@]}")" count 1 "W=4, median of the iterations' scheduler_messages"
else
  note "warning: no scheduler_messages in the metrics: sched_msgs_per_iter not measured"
fi
hb=$(med "${het_bsp[@]}") hd=$(med "${het_dsana[@]}")
fig het_bsp_ms "$(calc "$hb * 1000" %.4f)" ms 0 "heterogeneous-cloud, W=4 S=2, $HET_ITERS iterations"
fig het_dsana_ms "$(calc "$hd * 1000" %.4f)" ms 0 "same, --mode dsana"
fig het_dsana_bsp "$(calc "$hd / $hb" %.4g)" ratio 1 "median dsana / median bsp"
fig hops_per_iter "$(med4 "${hops[@]}")" count 1 "heterogeneous-cloud at 0.05 and 2 ms, dsana: link latencies per iteration"
fig overlap_x_bound "$(med4 "${ovl[@]}")" ratio 1 "Kronecker 15, 2 workers, 400 Mbit/s + 0.3 ms: iteration / max(compute, transfer)"

# ---- comparison -----------------------------------------------------------------
declare -A BASE BASE_LINE
base_desc="none"
if [[ -r $baseline ]]; then
  while read -r name value rest; do
    [[ -z $name || $name == \#* ]] && continue
    [[ $value =~ ^-?[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$ ]] || die "$baseline: bad line '$name $value $rest'"
    BASE[$name]=$value
    BASE_LINE[$name]="$name $value${rest:+  $rest}"
  done <"$baseline"
  base_desc=$(sed -n 's/^# last update: //p' "$baseline" | tail -n 1)
  base_desc=${base_desc%% (*}
  base_desc=${base_desc:-$(basename "$baseline")}
fi

# The x-rtt figures hold across machines only where the round trip is like
# the baseline's: an iteration's fixed cost is not all ZeroMQ (on a host
# whose round trip is half as long, the same build measures 1.4x more round
# trips). Past 25 % apart they are shown, not judged: compare two builds on
# this host instead (DSANA=the old build, then this one).
other_host=0
if [[ -n ${BASE[rtt_us]:-} ]] && awk -v v="$rtt_us" -v b="${BASE[rtt_us]}" -v t="$TOLERANCE_PCT" \
  'BEGIN { exit !(v > b * (1 + t / 100) || v < b / (1 + t / 100)) }'; then
  other_host=1
fi

declare -a regressions=() verdicts=() changes=()
declare -A MEASURED
for ((i = 0; i < ${#F_NAME[@]}; i++)); do
  name=${F_NAME[$i]} v=${F_VAL[$i]}
  MEASURED[$name]=1
  b=${BASE[$name]:-}
  ch=- verdict=-
  if ((F_CMP[i])); then
    if [[ -z $b ]]; then
      verdict=new
    elif ((other_host)) && [[ $name == *_x_rtt ]]; then
      verdict="other host"
      ch=$(awk -v v="$v" -v b="$b" 'BEGIN { printf "%+.1f%%", (v - b) / b * 100 }')
    else
      ch=$(awk -v v="$v" -v b="$b" 'BEGIN { if (b == 0) print (v == 0 ? "+0%" : "+inf%"); else printf "%+.1f%%", (v - b) / b * 100 }')
      if awk -v v="$v" -v b="$b" -v t="$TOLERANCE_PCT" 'BEGIN { exit !(v > b * (1 + t / 100) || (b == 0 && v > 0)) }'; then
        verdict=REGRESSION
        regressions+=("$name $v vs $b ($ch)")
      elif awk -v v="$v" -v b="$b" 'BEGIN { exit !(v < b) }'; then
        verdict=better
      else
        verdict=ok
      fi
    fi
  fi
  verdicts+=("$verdict") changes+=("$ch")
done
unmeasured=()
while read -r name; do
  [[ -z $name || -n ${MEASURED[$name]:-} ]] || unmeasured+=("$name")
done < <(printf '%s\n' "${!BASE[@]}" | sort)

# ---- output ---------------------------------------------------------------------
echo "# dsana guard: $BENCH_COMMIT, $BENCH_HOST, $BENCH_DATE; $(basename "$graph"), rounds: $runs; baseline: $base_desc"
printf '%-25s %12s %-6s %12s %8s  %-10s %s\n' figure value unit baseline change verdict note
for ((i = 0; i < ${#F_NAME[@]}; i++)); do
  name=${F_NAME[$i]}
  b=-
  ((F_CMP[i])) && b=${BASE[$name]:--}
  printf '%-25s %12s %-6s %12s %8s  %-10s %s\n' "$name" "${F_VAL[$i]}" "${F_UNIT[$i]}" "$b" "${changes[$i]}" "${verdicts[$i]}" "${F_NOTE[$i]}"
  csv_row "$CSV" "date,commit,host,rounds,figure,value,unit,compared,baseline,change,verdict" \
    "$BENCH_DATE,$BENCH_COMMIT,${BENCH_HOST//,/;},$runs,$name,${F_VAL[$i]},${F_UNIT[$i]},${F_CMP[$i]},$b,${changes[$i]},${verdicts[$i]}"
done
for name in "${unmeasured[@]}"; do
  printf '%-25s %12s %-6s %12s %8s  %-10s %s\n' "$name" - - "${BASE[$name]}" - "not measured" "in the baseline, not in this run's metrics"
  note "warning: $name is in $baseline but was not measured"
done
if ((other_host)); then
  echo "# guard: this host's ZeroMQ round trip ($rtt_us us) is more than $TOLERANCE_PCT % from the baseline's (${BASE[rtt_us]} us):" \
    "the x-rtt figures are not judged; compare builds here: DSANA=<the old build> bench/guard.sh, then this one"
fi

# ---- --update -------------------------------------------------------------------
if ((update)); then
  tmp=$baseline.tmp.$$
  {
    echo "# bench/guard-baseline.txt: the reference figures of bench/guard.sh, one \`name value\` a line."
    echo "# Lower is better for every figure; the guard exits 1 when one is more than $TOLERANCE_PCT % above its value here."
    echo "# Ratios and counts only (fixed cost as a multiple of the ZeroMQ round trip measured in the same run):"
    echo "# absolute times move with the host's load. Each line's comment says when and at which commit it was measured."
    echo "# Written by \`bench/guard.sh --update$( ((force)) && echo ' --force')\`, rounds: $runs."
    echo "# last update: $BENCH_DATE, commit $BENCH_COMMIT (\`git rev-parse --short HEAD\`, +dirty: local changes)"
    if ((force)) || [[ -z ${BASE[rtt_us]:-} ]]; then
      echo "rtt_us $rtt_us  # $BENCH_DATE $BENCH_COMMIT (the host's yardstick: not judged; x-rtt figures are judged only near it)"
    else
      echo "${BASE_LINE[rtt_us]}"
    fi
    for ((i = 0; i < ${#F_NAME[@]}; i++)); do
      ((F_CMP[i])) || continue
      name=${F_NAME[$i]} b=${BASE[$name]:-}
      if ((force)) || [[ -z $b ]] || awk -v v="${F_VAL[$i]}" -v b="$b" 'BEGIN { exit !(v < b) }'; then
        echo "$name ${F_VAL[$i]}  # $BENCH_DATE $BENCH_COMMIT"
      else
        echo "${BASE_LINE[$name]}"
      fi
    done
    if ((!force)); then
      for name in "${unmeasured[@]}"; do echo "${BASE_LINE[$name]}"; done
    fi
  } >"$tmp" || die "cannot write $tmp"
  mv "$tmp" "$baseline"
  note "wrote $baseline"
fi

elapsed=$(calc "$(date +%s.%N) - $t_start" %.1f)
if ((${#regressions[@]})); then
  if ((force)); then
    echo "# guard: accepted with --force (more than $TOLERANCE_PCT % worse): ${regressions[*]}; $elapsed s"
    exit 0
  fi
  echo "# guard: REGRESSION (more than $TOLERANCE_PCT % worse than the baseline): $(printf '%s; ' "${regressions[@]}" | sed 's/; $//'); $elapsed s"
  for x in "${regressions[@]}"; do echo "error: regression: $x" >&2; done
  exit 1
fi
echo "# guard: OK (no figure more than $TOLERANCE_PCT % worse than the baseline); $elapsed s"
exit 0
