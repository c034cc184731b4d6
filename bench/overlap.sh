#!/usr/bin/env bash
# bench/overlap.sh [--quick] [--pairs N] [--fixed-link]
#
# Does chunking overlap transfer with compute? One emulated cluster where the transfer
# of an iteration takes as long as its compute: bench/scenarios/overlap.json (4 workers
# of speed 1, a cost model of 3 ns per edge or vertex, time_scale 8, 0.5 ms latency on
# every process) with the link bandwidth set from the cost model (below).
# Kronecker scale 20 (--quick: 16), --workers 4 --servers 1 --max-iter 10 --tol 0.
# Pairs alternate `--sched static --chunk off` and `--sched static --chunk auto` (static in
# both, and --compress off in both: only chunking differs, and the transfer bound below
# counts uncompressed bytes; bench/pagerank/compress.sh measures compression); >= 5 pairs (--quick:
# 2). Every run's ranks (--out) must be byte-identical to the first run's (mismatch:
# exit 1). Then a sweep of chunk sizes (16K 64K 256K 1M 4M 16M; --quick: 64K 1M 16M, 1 run
# each) and an unthrottled check:
# the default local run (no scenario, no --workers), --chunk auto vs off, 20 iterations,
# 7 pairs (--quick: 2).
# Writes bench/results/overlap.csv (one row per invocation, appended),
# bench/results/overlap_runs.csv (every run, appended), bench/results/overlap_sweep.csv
# (chunk_bytes,median_iter_s; rewritten) and bench/results/overlap_sweep.png (bench/plot_overlap.sh).
# The last line printed is `speedup=X efficiency=Y` (targets 1.6 and 0.85, not fatal).
#
# Bounds (exact, from the scenario; no calibration run):
#   compute bound = (edges + vertices) x ns_per_cost x time_scale / sum(speed): PageRank's
#     cost is an in-edge or a vertex, and the cost model makes every emulated worker take
#     exactly that (the runs' bound_s must agree; real compute past the model is reported
#     as overrun, in % of the modelled compute)
#   per iteration every worker pulls the contributions of the vertices with an out-edge
#     (8 bytes each; the others are never read and never sent: 52% of them at scale 20),
#     so the server's upload (the slowest link: it carries W x what any worker receives)
#     must carry W x 8 x read keys / S bytes: the transfer bound is that over the
#     bandwidth (pushes, 1/W of the rank table per worker over its own link, are smaller)
#   bandwidth = upload bits / compute bound (1310 Mbit/s at scale 20), so that transfer =
#     compute (--fixed-link keeps the file's bandwidth_mbit instead)
# Efficiency = max(compute bound, transfer bound) / median iteration time of the auto runs.
# Speed-up = median over pairs of off/auto (the ratio of medians is printed too).
# time_scale 8 keeps the real work of 4 workers and a server streaming tables inside 2
# cores (at 4 the host saturates and its overrun, not the design, sets the pace).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() { sed -n '2,37s/^# \{0,1\}//p' "$0"; }

quick=0
fixed_link=0
pairs=
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --fixed-link) fixed_link=1 ;;
  --pairs)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--pairs needs a positive integer"
    pairs=$2
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
if ((quick)); then
  scale=16
  pairs=${pairs:-2}
  upairs=2
  sweep=(64K 1M 16M)
else
  scale=20
  pairs=${pairs:-5}
  upairs=7
  sweep=(16K 64K 256K 1M 4M 16M)
fi

bench_init
ITERS=10
UITERS=20
WORKERS=4
SERVERS=1
TARGET_SPEEDUP=1.6
TARGET_EFF=0.85
TARGET_UNTHROTTLED=1.05 # auto / off, no scenario

graph=$(graph_kron "$scale")
read -r NV NE < <(graph_counts "$graph")
NR=$(graph_read_keys "$graph")
TABLE_BYTES=$((NV * 8))
UPLOAD_BYTES=$((WORKERS * NR * 8 / SERVERS))

SC_FILE=$BENCH_DIR/scenarios/overlap.json
[[ -r $SC_FILE ]] || die "scenario $SC_FILE is missing"
jq -e . "$SC_FILE" >/dev/null || die "$SC_FILE is not valid JSON"
[[ $(jq '.workers | length' "$SC_FILE") == "$WORKERS" ]] || die "$SC_FILE must have $WORKERS workers"
NS_PER_COST=$(jq -r '.ns_per_cost // 0' "$SC_FILE")
TIME_SCALE=$(jq -r '.time_scale // 1' "$SC_FILE")
SUM_SPEED=$(jq -r '[.workers[].speed] | add' "$SC_FILE")
[[ $NS_PER_COST != 0 ]] || die "$SC_FILE needs ns_per_cost (the bounds come from the cost model)"
CBOUND=$(calc "($NE + $NV) * $NS_PER_COST * 1e-9 * $TIME_SCALE / $SUM_SPEED" %.6f)

csv=$RESULTS/overlap.csv
runs_csv=$RESULTS/overlap_runs.csv
sweep_csv=$RESULTS/overlap_sweep.csv
sweep_png=$RESULTS/overlap_sweep.png
hdr=date,commit,graph,vertices,edges,workers,servers,pairs,bandwidth_mbit,latency_ms,off_median_iter_s,off_min,off_max,auto_median_iter_s,auto_min,auto_max,auto_chunk_bytes,speedup_pair_median,speedup_pair_min,speedup_pair_max,speedup_of_medians,bound_s,transfer_bound_s,efficiency,auto_overrun_pct,unthrottled_auto_over_off,outputs_identical
runs_hdr=date,commit,phase,graph,pair,chunk,chunk_bytes,median_iter_s,bound_s,transfer_bound_s,overrun_s,total_s,peak_rss_kb_largest_role

mismatch=0
# Every run's ranks must equal the first run's with the same iteration count.
check_out() { # OUT ITERS LABEL
  local ref=$SCRATCH/ref.$2.txt
  if [[ ! -e $ref ]]; then
    mv "$1" "$ref"
  elif ! cmp -s "$ref" "$1"; then
    echo "!!!!! MISMATCH: $3 output differs from the first $2-iteration run's (cmp $ref $1)" >&2
    cmp "$ref" "$1" >&2 || true
    cp "$1" "$RESULTS/mismatch-overlap-${3// /-}.txt"
    mismatch=1
  else
    rm -f "$1"
  fi
}

# run1 PHASE PAIR CHUNK ITERS [options...] -> sets T B TB CB OVR RSS
run1() {
  local phase=$1 i=$2 chunk=$3 iters=$4 out
  shift 4
  out=$SCRATCH/$phase.$chunk.$i.txt
  run_pagerank "$phase-$chunk-$i" "$graph" --sched static --chunk "$chunk" --compress off \
    --max-iter "$iters" --tol 0 --top 0 --out "$out" "$@"
  [[ $(summary_field "$RUN_METRICS" iterations) == "$iters" ]] || die "$phase $chunk: wrong iteration count"
  [[ $(summary_field "$RUN_METRICS" sched) == static ]] || die "$phase $chunk: summary sched is not static"
  T=$(summary_field "$RUN_METRICS" median_iter_s)
  B=$(summary_field "$RUN_METRICS" bound_s)
  TB=$(summary_field "$RUN_METRICS" transfer_bound_s)
  CB=$(summary_field "$RUN_METRICS" chunk_bytes)
  OVR=$(summary_field "$RUN_METRICS" overrun_s)
  RSS=$RUN_RSS_KB
  check_out "$out" "$iters" "$phase $chunk $i"
  note "$phase pair $i chunk=$chunk: median_iter_s=$T bound_s=$B transfer_bound_s=$TB chunk_bytes=$CB overrun_s=$OVR rss_kb=$RSS"
  csv_row "$runs_csv" "$runs_hdr" "$BENCH_DATE,$BENCH_COMMIT,$phase,$(basename "$graph"),$i,$chunk,$CB,$T,$B,$TB,$OVR,$(summary_field "$RUN_METRICS" total_s),$RSS"
}
# A run of the emulated cluster.
run_sc() { # PHASE PAIR CHUNK
  run1 "$1" "$2" "$3" "$ITERS" --workers $WORKERS --servers $SERVERS --scenario "$sc"
}

echo "dsana overlap — $DSANA ($BENCH_COMMIT), $BENCH_HOST" >&2

mbit=$(jq -r '.link.bandwidth_mbit // 0' "$SC_FILE")
lat=$(jq -r '.link.latency_ms // 0' "$SC_FILE")
sc=$SC_FILE
if ((!fixed_link)); then
  mbit=$(calc "$UPLOAD_BYTES * 8 / $CBOUND / 1e6" %.0f)
  sc=$SCRATCH/overlap-link.json
  jq ".link.bandwidth_mbit = $mbit" "$SC_FILE" >"$sc"
fi
[[ $mbit != 0 ]] || die "$SC_FILE has no link bandwidth"
tbound=$(calc "$UPLOAD_BYTES * 8 / ($mbit * 1e6)" %.6f)
ratio=$(calc "$tbound / $CBOUND" %.2f)
note "compute bound $CBOUND s (cost model); transfer bound at $mbit Mbit/s = $tbound s (x$ratio)"

# --- pairs: off, auto
declare -a toff tauto rat bnd ovr rss_off rss_auto
auto_cb=
for ((i = 1; i <= pairs; i++)); do
  run_sc pair "$i" off
  toff+=("$T") rss_off+=("$RSS")
  run_sc pair "$i" auto
  tauto+=("$T") bnd+=("$B") rss_auto+=("$RSS")
  ovr+=("$(calc "$OVR / ($ITERS * $WORKERS * $CBOUND) * 100" %.3f)")
  auto_cb=$CB
  rat+=("$(calc "${toff[$((i - 1))]} / $T" %.6f)")
done
read -r om omin omax < <(stats "${toff[@]}")
read -r am amin amax < <(stats "${tauto[@]}")
read -r sm smin smax < <(stats "${rat[@]}")
read -r rbound _ _ < <(stats "${bnd[@]}")
read -r ovm _ ovmax < <(stats "${ovr[@]}")
read -r _ _ ro < <(stats "${rss_off[@]}")
read -r _ _ ra < <(stats "${rss_auto[@]}")
som=$(calc "$om / $am" %.2f)
maxb=$(calc "$CBOUND > $tbound ? $CBOUND : $tbound" %.6f)
eff=$(calc "$maxb / $am" %.2f)
serial=$(calc "$CBOUND + $tbound" %.6f)

# --- sweep: one run per chunk size
rm -f "$sweep_csv"
echo "chunk_bytes,median_iter_s" >"$sweep_csv"
declare -a sweep_rows
for c in "${sweep[@]}"; do
  run_sc sweep 1 "$c"
  echo "$CB,$T" >>"$sweep_csv"
  sweep_rows+=("$(printf '  %-6s chunk_bytes %9s  median_iter_s %.4f' "$c" "$CB" "$T")")
done

# --- unthrottled: the default local run (no scenario, default workers)
declare -a uoff uauto urat
for ((i = 1; i <= upairs; i++)); do
  run1 unthrottled "$i" off $UITERS
  uoff+=("$T")
  run1 unthrottled "$i" auto $UITERS
  uauto+=("$T")
  ucb=$CB
  urat+=("$(calc "$T / ${uoff[$((i - 1))]}" %.6f)")
done
read -r uom uomin uomax < <(stats "${uoff[@]}")
read -r uam uamin uamax < <(stats "${uauto[@]}")
read -r urm urmin urmax < <(stats "${urat[@]}")
usame=
((ucb == TABLE_BYTES)) && usame=" (auto chose whole tables: the same configuration as off, so the ratio is host noise)"

ident=yes
((mismatch)) && ident=NO
met() { calc "$1" %d | sed 's/1/met/;s/0/MISSED/'; }

echo
echo "== overlap: $(basename "$graph") ($NV vertices, $NE edges), $WORKERS workers, $SERVERS server, $ITERS iterations, $pairs pairs (static; chunk off, auto alternating)"
echo "  scenario $(basename "$SC_FILE")$( ((fixed_link)) || echo " with bandwidth_mbit=$mbit (transfer = compute)"): link $mbit Mbit/s, $lat ms on every process, ns_per_cost $NS_PER_COST, time_scale $TIME_SCALE"
printf '  bounds: compute %.4f = (%d edges + %d vertices) x %s ns x %s / %s; runs report %.4f (median bound_s of the auto runs)\n' \
  "$CBOUND" "$NE" "$NV" "$NS_PER_COST" "$TIME_SCALE" "$SUM_SPEED" "$rbound"
printf '          transfer %.4f = %d B server upload / %s Mbit/s (x%s); max %.4f; sum (no overlap) %.4f\n' \
  "$tbound" "$UPLOAD_BYTES" "$mbit" "$ratio" "$maxb" "$serial"
printf '  %-11s median_iter_s %.4f [%.4f-%.4f]  peak_rss %s MiB (largest role)\n' "chunk off" "$om" "$omin" "$omax" "$(calc "$ro / 1024" %.1f)"
printf '  %-11s median_iter_s %.4f [%.4f-%.4f]  peak_rss %s MiB (largest role), chunk_bytes %s\n' "chunk auto" "$am" "$amin" "$amax" \
  "$(calc "$ra / 1024" %.1f)" "$auto_cb"
printf '  speed-up off/auto: %.2f per-pair median [%.2f-%.2f], %s ratio of medians\n' "$sm" "$smin" "$smax" "$som"
printf '  efficiency max(compute, transfer) / auto median: %s\n' "$eff"
printf '  overrun (real compute past the model) in the auto runs: median %s%%, max %s%% of the modelled compute%s\n' \
  "$ovm" "$ovmax" "$( (($(calc "$ovmax > 2 ? 1 : 0" %d))) && echo " (over 2%: this host did not keep up with the emulated cluster)")"
echo "  sweep (1 run each, same scenario; $sweep_csv):"
printf '%s\n' "${sweep_rows[@]}"
echo "  unthrottled (the default local run: no scenario, default workers, $UITERS iterations, $upairs pairs; auto chunk_bytes $ucb$usame):"
printf '    off %.4f [%.4f-%.4f], auto %.4f [%.4f-%.4f], auto/off per-pair median %.3f [%.3f-%.3f] (target <= %s: %s)\n' \
  "$uom" "$uomin" "$uomax" "$uam" "$uamin" "$uamax" "$urm" "$urmin" "$urmax" "$TARGET_UNTHROTTLED" \
  "$(met "$urm <= $TARGET_UNTHROTTLED")"
echo "  outputs byte-identical across all runs: $ident"

csv_row "$csv" "$hdr" "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$NV,$NE,$WORKERS,$SERVERS,$pairs,$mbit,$lat,$om,$omin,$omax,$am,$amin,$amax,$auto_cb,$sm,$smin,$smax,$som,$CBOUND,$tbound,$eff,$ovm,$urm,$ident"

# --- plot
plot_msg=
if ! command -v gnuplot >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  note "installing gnuplot-nox"
  apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1; } || true
fi
if command -v gnuplot >/dev/null 2>&1; then
  if "$BENCH_DIR/plot_overlap.sh" "$sweep_csv" "$sweep_png" \
    "overlap: $(basename "$graph"), $WORKERS workers, $mbit Mbit/s, static ($BENCH_COMMIT)" \
    "$maxb" "$serial" "$om" 2>"$SCRATCH/gnuplot.err"; then
    plot_msg="wrote $sweep_png"
  else
    plot_msg="gnuplot failed ($(head -c 200 "$SCRATCH/gnuplot.err")); no plot"
  fi
else
  plot_msg="gnuplot is missing (apt-get install gnuplot-nox); no plot"
fi
echo "$plot_msg" >&2

echo
echo "targets: speed-up >= $TARGET_SPEEDUP: $(met "$sm >= $TARGET_SPEEDUP"); efficiency >= $TARGET_EFF: $(met "$eff >= $TARGET_EFF"); unthrottled auto at most 5% slower (per-pair median): $(met "$urm <= $TARGET_UNTHROTTLED")"
echo "wrote $csv, $runs_csv, $sweep_csv" >&2
spd=$(printf '%.2f' "$sm")
if ((mismatch)); then
  echo "!!!!! OUTPUT MISMATCH between runs: chunking changed the result (see above)" >&2
  echo "speedup=$spd efficiency=$eff"
  exit 1
fi
echo "speedup=$spd efficiency=$eff"
