#!/usr/bin/env bash
# bench/paper.sh [--quick] [--pairs N] [--out DIR] [--kron "S1 S2 ..."] [--stretch K]
#
# Reproduces the DSANA paper's evaluation (Zhang, Shen, Gong, Guo 2020: PageRank on four
# data sets of different scale, two cloud scenarios, 36.6%-56.4% less time than plain BSP).
# Graphs: the four largest ../shared/data/graphs/*.txt.gz (converted once to binary in the
# bench graph cache) when that folder exists, else Kronecker scales 18 20 22 24;
# --quick: Kronecker scales 12 and 14 and 2 pairs; --kron: these Kronecker scales instead.
# Scenarios bench/scenarios/
# homogeneous-cloud.json and heterogeneous-cloud.json; --workers 4 --servers 2, tol 1e-6,
# max-iter 100 (runs go to convergence). Four modes, alternated within each pair:
# bsp (--mode bsp), dsana (--mode dsana), dynamic (--sched dynamic --chunk off),
# chunking (--sched static --chunk auto); >= 5 pairs (default 5).
# Every run's ranks (--out) must be byte-identical to the graph's first bsp run: a
# mismatch exits 1; missed targets are reported (MET/MISSED), not fatal.
# Writes DIR/results.csv (one row per graph x scenario x mode), DIR/results.md, DIR/runs.csv
# (every run), PNG plots (gnuplot) and the two traces; DIR defaults to bench/results/paper.
# Environment: DSANA (binary), PAPER_GRAPHS (graph cache, default bench/results/graphs-v3),
# SHARED_DATA (default <repo>/../shared/data), BENCH_KEEP=1 (keep the scratch directory).
# --stretch K: every modelled time of both scenarios K times longer (time_scale, 1/bandwidth
# and latency x K); the CPU that 7 roles on this machine spend then takes a smaller share
# of its cores, so the gains at K = 4 against K = 1 tell what the protocol wins from what
# running the roles here costs.
set -euo pipefail
PAPER_SH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$PAPER_SH_DIR/lib.sh"
# shellcheck source=bench/paper_lib.sh
source "$PAPER_SH_DIR/paper_lib.sh"

usage() { sed -n '2,24s/^# \{0,1\}//p' "$0"; }

quick=0
pairs=
out_dir=
kron_scales=
stretch=1
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --pairs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--pairs needs a positive integer"
    pairs=$2
    shift
    ;;
  --out)
    [[ $# -ge 2 && -n $2 ]] || die "--out needs a directory"
    out_dir=$2
    shift
    ;;
  --kron)
    [[ $# -ge 2 && $2 =~ ^[0-9]+( [0-9]+)*$ ]] || die "--kron needs scales, e.g. --kron \"16 18 20\""
    kron_scales=$2
    shift
    ;;
  --stretch)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--stretch needs a positive integer"
    stretch=$2
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
if ((quick)); then pairs=${pairs:-2}; else pairs=${pairs:-5}; fi

bench_init
OUT=${out_dir:-$RESULTS/paper}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
GRAPHS=${PAPER_GRAPHS:-$GRAPHS}
mkdir -p "$GRAPHS" || die "cannot create $GRAPHS"
SHARED_GRAPHS=${SHARED_DATA:-$REPO/../shared/data}/graphs

WORKERS=4
SERVERS=2
TOL=1e-6
MAX_ITER=100
GANTT_ITER=3
MODES=(bsp dsana dynamic chunking)
SCENARIOS=(homogeneous-cloud heterogeneous-cloud)
TARGET_HOM=$PAPER_BAND_LO # the paper's improvements: 36.6% (homogeneous) .. 56.4% (heterogeneous)
TARGET_HET=$PAPER_BAND_HI

mode_args() { # MODE -> dsana options
  case $1 in
  bsp) echo --mode bsp ;;
  dsana) echo --mode dsana ;;
  dynamic) echo --sched dynamic --chunk off ;;
  chunking) echo --sched static --chunk auto ;;
  *) die "unknown mode $1" ;;
  esac
}
mode_sched() { case $1 in bsp | chunking) echo static ;; *) echo dynamic ;; esac }

# ---- graphs -------------------------------------------------------------------------
declare -a G_LABEL G_PATH G_V G_E G_R
add_graph() { # LABEL PATH
  local v e
  read -r v e < <(graph_counts "$2")
  G_LABEL+=("$1") G_PATH+=("$2") G_V+=("$v") G_E+=("$e") G_R+=("$(graph_read_keys "$2")")
}

graph_source=
if [[ -n $kron_scales ]]; then
  graph_source="Kronecker scales ${kron_scales// /, } (--kron)"
  for s in $kron_scales; do add_graph "kron-s$s" "$(graph_kron "$s")"; done
elif ((quick)); then
  graph_source="Kronecker scales 12, 14 (--quick)"
  for s in 12 14; do add_graph "kron-s$s" "$(graph_kron "$s")"; done
elif compgen -G "$SHARED_GRAPHS/*.txt.gz" >/dev/null; then
  graph_source="the four largest real graphs in $SHARED_GRAPHS"
  declare -a cand=()
  for src in "$SHARED_GRAPHS"/*.txt.gz; do
    f=$(graph_real "$src")
    read -r v e < <(graph_counts "$f")
    cand+=("$e $(basename "$src" .txt.gz) $f")
  done
  # the four with the most edges, then in increasing size
  while read -r _ name f; do add_graph "$name" "$f"; done < <(printf '%s\n' "${cand[@]}" | sort -k1,1gr | head -n 4 | sort -k1,1g)
else
  graph_source="Kronecker scales 18, 20, 22, 24 ($SHARED_GRAPHS has no *.txt.gz)"
  for s in 18 20 22 24; do add_graph "kron-s$s" "$(graph_kron "$s")"; done
fi
NG=${#G_LABEL[@]}
((NG > 0)) || die "no graphs"

# ---- runs ---------------------------------------------------------------------------
runs_csv=$OUT/runs.csv
csv=$OUT/results.csv
md=$OUT/results.md
rm -f "$runs_csv" "$csv" "$md"
runs_hdr=graph,vertices,edges,scenario,mode,pair,iterations,total_s,median_iter_s,bound_s,chunk_bytes,peak_rss_kb_largest_role,identical
mismatch=0

SCEN_DIR=$BENCH_DIR/scenarios
if ((stretch > 1)); then # the scenarios with every modelled time K x
  SCEN_DIR=$SCRATCH/scenarios-x$stretch
  mkdir -p "$SCEN_DIR"
  for sc in "${SCENARIOS[@]}"; do
    jq --argjson k "$stretch" '.time_scale = (.time_scale // 1) * $k
      | .link.bandwidth_mbit = .link.bandwidth_mbit / $k | .link.latency_ms = .link.latency_ms * $k' \
      "$BENCH_DIR/scenarios/$sc.json" >"$SCEN_DIR/$sc.json" || die "cannot stretch $sc.json"
  done
fi
for sc in "${SCENARIOS[@]}"; do
  [[ -r $SCEN_DIR/$sc.json ]] || die "scenario $SCEN_DIR/$sc.json is missing"
  jq -e . "$SCEN_DIR/$sc.json" >/dev/null || die "$sc.json is not valid JSON"
  n=$(jq '.workers | length' "$SCEN_DIR/$sc.json")
  [[ $n == "$WORKERS" ]] || die "$sc.json has $n workers, expected $WORKERS"
done

# check_out TAG OUTFILE GI: compare with the graph's reference (the first bsp run).
check_out() {
  local tag=$1 o=$2 ref=$SCRATCH/ref-$3.txt
  if [[ ! -e $ref ]]; then
    mv "$o" "$ref"
    IDENT=yes
  elif cmp -s "$ref" "$o"; then
    rm -f "$o"
    IDENT=yes
  else
    echo "!!!!! MISMATCH: $tag: ranks differ from ${G_LABEL[$3]}'s first bsp run (cmp $ref $o)" >&2
    cmp "$ref" "$o" >&2 || true
    cp "$o" "$OUT/mismatch-$tag.txt"
    IDENT=NO
    mismatch=1
  fi
}

echo "dsana paper evaluation — $DSANA ($BENCH_COMMIT), $BENCH_HOST; $graph_source; $pairs pairs" >&2
t_start=$(date +%s)
for ((gi = 0; gi < NG; gi++)); do
  g=${G_LABEL[$gi]}
  for sc in "${SCENARIOS[@]}"; do
    scf=$SCEN_DIR/$sc.json
    echo "== $g (${G_V[$gi]} vertices, ${G_E[$gi]} edges), $sc" >&2
    for ((p = 1; p <= pairs; p++)); do
      for mode in "${MODES[@]}"; do
        tag=$g-$sc-$mode-$p
        o=$SCRATCH/$tag.out
        # shellcheck disable=SC2046
        run_pagerank "$tag" "${G_PATH[$gi]}" --workers $WORKERS --servers $SERVERS $(mode_args "$mode") \
          --scenario "$scf" --tol $TOL --max-iter $MAX_ITER --top 0 --out "$o"
        m=$RUN_METRICS
        read -r s_sched s_iters s_total s_med s_bound s_chunk < <(jq -r 'select(.type=="summary") |
          "\(.sched) \(.iterations) \(.total_s) \(.median_iter_s) \(.bound_s) \(.chunk_bytes)"' "$m" | tail -n 1)
        [[ $s_sched == "$(mode_sched "$mode")" ]] || die "$tag: summary sched is $s_sched, expected $(mode_sched "$mode")"
        if [[ $mode == bsp || $mode == dynamic ]] && ((s_chunk != 8 * G_V[gi])); then
          die "$tag: chunk_bytes $s_chunk, expected the whole table ($((8 * G_V[gi])))"
        fi
        check_out "$tag" "$o" "$gi"
        note "$tag: iterations=$s_iters total_s=$s_total median_iter_s=$s_med bound_s=$s_bound chunk=$s_chunk rss_kb=$RUN_RSS_KB identical=$IDENT"
        csv_row "$runs_csv" "$runs_hdr" "$g,${G_V[$gi]},${G_E[$gi]},$sc,$mode,$p,$s_iters,$s_total,$s_med,$s_bound,$s_chunk,$RUN_RSS_KB,$IDENT"
      done
    done
  done
done

# ---- aggregation ----------------------------------------------------------------------
hdr=graph,vertices,edges,scenario,mode,pairs,iterations,total_s_median,total_s_min,total_s_max,iter_s_median,iter_s_min,iter_s_max,improvement_pct,improvement_pair_min_pct,improvement_pair_max_pct,compute_bound_s,mode_compute_bound_s,transfer_bound_s,efficiency,ceiling_pct,chunk_bytes,peak_rss_mib_largest_role,outputs_identical,target_pct,target,date,commit
declare -a target_lines=()
declare -A IMP ITER BOUNDMAX
for sc in "${SCENARIOS[@]}"; do
  scf=$SCEN_DIR/$sc.json
  if [[ $sc == heterogeneous-cloud ]]; then target=$TARGET_HET; else target=$TARGET_HOM; fi
  for ((gi = 0; gi < NG; gi++)); do
    g=${G_LABEL[$gi]}
    sel=(graph="$g" scenario="$sc")
    mapfile -t bsp_tot < <(paper_col "$runs_csv" total_s "${sel[@]}" mode=bsp)
    read -r bsp_med _ _ < <(stats "${bsp_tot[@]}")
    read -r cbound _ _ < <(stats $(paper_col "$runs_csv" bound_s "${sel[@]}" mode=bsp))
    tbound=$(paper_transfer_bound "$scf" "${G_R[$gi]}" $WORKERS $SERVERS)
    BOUNDMAX[$sc,$gi]=$(calc "$cbound > $tbound ? $cbound : $tbound" %.9g)
    lat_s=$(jq -r '(.link.latency_ms // 0) / 1000' "$scf")
    for mode in "${MODES[@]}"; do
      mapfile -t tot < <(paper_col "$runs_csv" total_s "${sel[@]}" mode="$mode")
      read -r tmed tmin tmax < <(stats "${tot[@]}")
      read -r imed imin imax < <(stats $(paper_col "$runs_csv" median_iter_s "${sel[@]}" mode="$mode"))
      read -r iters _ _ < <(stats $(paper_col "$runs_csv" iterations "${sel[@]}" mode="$mode"))
      read -r mbound _ _ < <(stats $(paper_col "$runs_csv" bound_s "${sel[@]}" mode="$mode"))
      read -r chunk _ _ < <(stats $(paper_col "$runs_csv" chunk_bytes "${sel[@]}" mode="$mode"))
      read -r _ _ rss < <(stats $(paper_col "$runs_csv" peak_rss_kb_largest_role "${sel[@]}" mode="$mode"))
      pimp=()
      for ((k = 0; k < ${#tot[@]}; k++)); do
        pimp+=("$(calc "(${bsp_tot[$k]} - ${tot[$k]}) / ${bsp_tot[$k]} * 100" %.6f)")
      done
      read -r _ pmin pmax < <(stats "${pimp[@]}")
      imp=$(calc "($bsp_med - $tmed) / $bsp_med * 100" %.2f)
      eff=$(calc "${BOUNDMAX[$sc,$gi]} / $imed" %.3f)
      # the most any mode could gain per iteration: bsp's measured s/iteration (its
      # latencies included) down to the balanced bound plus one round trip of link latency
      ceil=$(calc "(${ITER[$sc,$gi,bsp]:-$imed} - ${BOUNDMAX[$sc,$gi]} - 2 * $lat_s) / ${ITER[$sc,$gi,bsp]:-$imed} * 100" %.1f)
      ident=yes
      paper_col "$runs_csv" identical "${sel[@]}" mode="$mode" | grep -qv '^yes$' && ident=NO
      if [[ $mode == bsp ]]; then
        met=n/a
      else
        met=$(calc "$imp >= $target ? 1 : 0" %d | sed 's/1/MET/;s/0/MISSED/')
      fi
      IMP[$sc,$gi,$mode]=$imp
      ITER[$sc,$gi,$mode]=$imed
      [[ $mode == dsana ]] && target_lines+=("$sc $g: dsana improvement $imp% of a $ceil% ceiling (target >= $target%): $met")
      csv_row "$csv" "$hdr" "$g,${G_V[$gi]},${G_E[$gi]},$sc,$mode,$pairs,$(printf %.0f "$iters"),$tmed,$tmin,$tmax,$imed,$imin,$imax,$imp,$(printf %.2f "$pmin"),$(printf %.2f "$pmax"),$cbound,$mbound,$tbound,$eff,$ceil,$(printf %.0f "$chunk"),$(calc "$rss / 1024" %.1f),$ident,$target,$met,$BENCH_DATE,$BENCH_COMMIT"
    done
  done
done

# time per iteration ~ edges^k: least-squares slope in log-log over the graphs
slope() { # SC MODE
  local gi xs=
  for ((gi = 0; gi < NG; gi++)); do xs+="${G_E[$gi]} ${ITER[$1,$gi,$2]}"$'\n'; done
  awk 'NF == 2 { x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
       END { d = n * sxx - sx * sx; if (n < 2 || d == 0) print "n/a"; else printf "%.2f", (n * sxy - sx * sy) / d }' <<<"$xs"
}

# ---- Markdown -------------------------------------------------------------------------
fmt_ms() { calc "$1 * 1000" %.2f; }
{
  echo "# dsana vs plain BSP: the DSANA paper's evaluation"
  echo
  echo "$BENCH_DATE, commit $BENCH_COMMIT, $BENCH_HOST. Graphs: $graph_source. $WORKERS workers, $SERVERS servers, tol $TOL, max-iter $MAX_ITER, $pairs pairs (modes alternated bsp, dsana, dynamic, chunking in each pair). Times are medians over the runs [min-max]; improvement = (T_bsp - T_mode) / T_bsp of the median times to convergence [range of the per-pair values]; efficiency = max(compute bound, transfer bound) / median s/iteration; ceiling = (bsp s/iteration - max(compute, transfer bound) - 2 x link latency) / bsp s/iteration, the largest improvement the scenario allows per iteration (bsp as measured, against the balanced bound plus one round trip), printed beside each mode's gain."
  for sc in "${SCENARIOS[@]}"; do
    echo
    echo "## $sc ($(jq -c '[.workers[] | .speed // 1]' "$SCEN_DIR/$sc.json" | tr -d '"') speeds, $(jq -r '.link.bandwidth_mbit // 0' "$SCEN_DIR/$sc.json") Mbit/s links, time_scale $(jq -r '.time_scale // 1' "$SCEN_DIR/$sc.json"))"
    echo
    echo "| graph | edges | mode | time to convergence s [min-max] | s/iteration [min-max] | iters | improvement % [pairs] | compute bound ms | transfer bound ms | efficiency | ceiling % | peak RSS MiB | identical | target |"
    echo "| --- | ---: | --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    while IFS=, read -r g v e s mode _ iters tmed tmin tmax imed imin imax imp pmin pmax cb _ tb eff ceil _ rss ident tgt met _; do
      [[ $s == "$sc" ]] || continue
      if [[ $mode == bsp ]]; then impc="-"; tcol="-"; else impc="$imp [$pmin, $pmax]"; tcol="$met (>= $tgt%)"; fi
      printf '| %s | %s | %s | %.3f [%.3f-%.3f] | %.4f [%.4f-%.4f] | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
        "$g" "$e" "$mode" "$tmed" "$tmin" "$tmax" "$imed" "$imin" "$imax" "$iters" "$impc" "$(fmt_ms "$cb")" "$(fmt_ms "$tb")" \
        "$eff" "$ceil" "$rss" "$ident" "$tcol"
    done < <(tail -n +2 "$csv")
  done
  echo
  echo "Time per iteration grows as edges^k (least-squares fit over the $NG graphs):"
  echo
  for sc in "${SCENARIOS[@]}"; do
    line="- $sc:"
    for mode in "${MODES[@]}"; do line+=" $mode k=$(slope "$sc" "$mode"),"; done
    echo "${line%,}"
  done
  echo
  echo "Targets (the paper's band): dsana improvement >= $TARGET_HET% in heterogeneous-cloud and >= $TARGET_HOM% in homogeneous-cloud on every graph:"
  echo
  printf -- '- %s\n' "${target_lines[@]}"
  echo
  if ((mismatch)); then
    echo "**OUTPUT MISMATCH**: some run's ranks differ from bsp's (see mismatch-*.txt)."
  else
    echo "Ranks (--out) of every run and mode byte-identical to each graph's first bsp run: yes."
  fi
} >"$md"

# ---- traces and plots -----------------------------------------------------------------
lg=$((NG - 1))
het=$SCEN_DIR/heterogeneous-cloud.json
for mode in bsp dsana; do
  tr=$OUT/trace-${G_LABEL[$lg]}-heterogeneous-$mode.json
  o=$SCRATCH/trace-$mode.out
  note "trace run: ${G_LABEL[$lg]} heterogeneous-cloud $mode -> $tr"
  # shellcheck disable=SC2046
  run_pagerank "trace-$mode" "${G_PATH[$lg]}" --workers $WORKERS --servers $SERVERS $(mode_args "$mode") \
    --scenario "$het" --tol $TOL --max-iter $MAX_ITER --top 0 --out "$o" --trace "$tr"
  check_out "trace-$mode" "$o" "$lg"
  it=$(summary_field "$RUN_METRICS" iterations)
  gi_iter=$((it < GANTT_ITER ? it : GANTT_ITER))
  paper_gantt "$tr" "$gi_iter" "$OUT/gantt-$mode" >"$OUT/gantt-$mode.dur"
done

plots=()
if paper_have_gnuplot; then
  for sc in "${SCENARIOS[@]}"; do
    : >"$OUT/improvement-$sc.dat"
    : >"$OUT/itertime-$sc.dat"
    for ((gi = 0; gi < NG; gi++)); do
      echo "${G_LABEL[$gi]} ${IMP[$sc,$gi,dsana]} ${IMP[$sc,$gi,dynamic]} ${IMP[$sc,$gi,chunking]}" >>"$OUT/improvement-$sc.dat"
      echo "${G_E[$gi]} ${ITER[$sc,$gi,bsp]} ${ITER[$sc,$gi,dsana]} ${ITER[$sc,$gi,dynamic]} ${ITER[$sc,$gi,chunking]} ${BOUNDMAX[$sc,$gi]}" >>"$OUT/itertime-$sc.dat"
    done
  done
  paper_plot_improvement "$OUT/improvement-homogeneous-cloud.dat" "$OUT/improvement-heterogeneous-cloud.dat" \
    "$OUT/improvement.png" && plots+=("$OUT/improvement.png") || note "improvement plot failed"
  paper_plot_itertime "$OUT/itertime-homogeneous-cloud.dat" "$OUT/itertime-heterogeneous-cloud.dat" \
    "$OUT/itertime.png" && plots+=("$OUT/itertime.png") || note "iteration-time plot failed"
  yt=$(jq -r '[.workers | to_entries[] | "\u0027w\(.key) (speed \(.value.speed // 1))\u0027 \(.key)"] | join(", ")' "$het")
  paper_plot_gantt "$OUT/gantt-bsp" "$OUT/gantt-dsana" \
    "${G_LABEL[$lg]}, heterogeneous-cloud, iteration $gi_iter: per-worker spans" \
    "$yt" "$OUT/gantt.png" && plots+=("$OUT/gantt.png") || note "Gantt plot failed"
else
  note "gnuplot is missing (and could not be installed): plots skipped"
fi

cat "$md"
echo
echo "wrote $csv, $md, $runs_csv${plots[*]:+, ${plots[*]}} ($(($(date +%s) - t_start)) s)" >&2
if ((mismatch)); then
  echo "!!!!! OUTPUT MISMATCH between modes: dsana is not BSP-exact here (see above)" >&2
  exit 1
fi
exit 0
