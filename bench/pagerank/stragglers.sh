#!/usr/bin/env bash
# bench/pagerank/stragglers.sh [--quick] [--pairs N]
#
# BSP vs dsana on two emulated 4-worker clusters: bench/scenarios/heterogeneous-cloud.json
# (speeds 1 1 0.5 0.25) and bench/scenarios/homogeneous-cloud.json (4 equal workers,
# transient 4x stragglers, p=0.1). Kronecker scale 20 (--quick: 16), --workers 4
# --servers 1 --max-iter 20 --tol 0. Pairs alternate bsp, dsana; >= 5 pairs (--quick: 2).
# Scheduling only: each scenario runs with its links REMOVED (global and per-worker
# "link", via jq 'del(.link) | del(.workers[].link)' into a temp file), so transfer time
# does not mask or add to the scheduling effect (bench/overlap.sh measures links).
# Efficiency = bsp runs' median bound_s (same work, static split) / dsana median; the
# dsana runs' own median bound_s is reported beside it.
# Every run's ranks (--out) must be byte-identical to the first bsp run's; a mismatch
# exits 1. Missed speed targets are reported, not fatal. Writes
# bench/results/stragglers.csv (one row per scenario, appended) and
# bench/results/stragglers_runs.csv (every run, appended).
# The last line printed is `speedup=X efficiency=Y` for the heterogeneous scenario.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,18s/^# \{0,1\}//p' "$0"; }

quick=0
pairs=
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
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
else
  scale=20
  pairs=${pairs:-5}
fi

bench_init
ITERS=20
WORKERS=4
TARGET_HET_SPEEDUP=2.0
TARGET_HET_EFF=0.85
TARGET_HOM_SPEEDUP=1.3

graph=$(graph_kron "$scale")
read -r _ NE < <(graph_counts "$graph")
csv=$RESULTS/stragglers.csv
runs_csv=$RESULTS/stragglers_runs.csv
hdr=date,commit,scenario,graph,edges,workers,pairs,bsp_median_iter_s,bsp_min,bsp_max,dsana_median_iter_s,dsana_min,dsana_max,speedup_pair_median,speedup_pair_min,speedup_pair_max,speedup_of_medians,bound_s,efficiency,transfer_s,efficiency_vs_max_bound,bound_s_dsana,efficiency_vs_dsana_bound,links,straggler,straggler_tasks_bsp,straggler_tasks_dsana,straggler_fewer_tasks,outputs_identical,peak_rss_mb_bsp,peak_rss_mb_dsana
runs_hdr=date,commit,scenario,graph,pair,mode,median_iter_s,bound_s,total_s,transfer_s,tasks_per_worker,peak_rss_kb_largest_role

# Median over iterations of the largest per-worker bytes_in sent at the scenario's link
# rate (seconds): the time the pulls alone take on one worker's emulated link.
transfer_s() { # METRICS MBIT
  local mbit=$1
  [[ $mbit == null || $mbit == 0 ]] && {
    echo 0
    return
  }
  jq -s -r "[.[] | select(.type==\"worker\")] | group_by(.iter) | map(map(.bytes_in) | max * 8 / ($mbit * 1e6)) | .[]" "$2" |
    sort -g | awk '{a[NR]=$1} END {if (!NR) {print 0; exit} print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}

tasks_list() { # METRICS -> "t0/t1/t2/t3"
  local w out=
  for ((w = 0; w < WORKERS; w++)); do out+="${out:+/}$(worker_tasks "$1" "$w")"; done
  echo "$out"
}

# Median per worker of "a/b/c/d" lists.
tasks_median() {
  local w col out=
  for ((w = 1; w <= WORKERS; w++)); do
    # shellcheck disable=SC2046
    col=$(stats $(printf '%s\n' "$@" | cut -d/ -f$w) | cut -d' ' -f1)
    out+="${out:+/}$(printf '%.0f' "$col")"
  done
  echo "$out"
}

mismatch=0
het_line=
summary_lines=()

bench_scenario() { # NAME
  local name=$1 orig=$BENCH_DIR/scenarios/$1.json sc=$SCRATCH/$1.nolink.json
  [[ -r $orig ]] || die "scenario $orig is missing"
  jq -e . "$orig" >/dev/null || die "scenario $orig is not valid JSON"
  # scheduling only: drop every emulated link (global and per worker)
  jq 'del(.link) | del(.workers[].link)' "$orig" >"$sc" || die "cannot strip the links of $orig"
  local nsc
  nsc=$(jq '.workers | length' "$sc")
  [[ $nsc == "$WORKERS" ]] || die "$sc has $nsc workers, expected $WORKERS"
  local mbit straggler
  mbit=$(jq -r '.link.bandwidth_mbit // 0' "$sc") # 0 after stripping: transfer_s is 0 (kept as a column)
  # The straggler is the slowest worker, when the speeds differ.
  straggler=$(jq -r '[.workers[] | (.speed // 1)] as $s | if ($s | min) == ($s | max) then "none"
                     else ($s | index($s | min)) end' "$sc")

  local -a tb td rat bnd bndb tr rssb rssd tkb tkd ratm
  local i mode ref=$SCRATCH/$name.ref.txt out t b x tk
  echo "== $name ($(basename "$graph"), $NE edges, $pairs pairs, links removed)" >&2
  for ((i = 1; i <= pairs; i++)); do
    for mode in bsp dsana; do
      out=$SCRATCH/$name.$mode.$i.txt
      run_pagerank "$name-$mode-$i" "$graph" --workers $WORKERS --servers 1 --mode $mode --scenario "$sc" \
        --max-iter $ITERS --tol 0 --top 0 --out "$out"
      [[ $(summary_field "$RUN_METRICS" iterations) == "$ITERS" ]] || die "$name $mode: wrong iteration count"
      [[ $(summary_field "$RUN_METRICS" mode) == "$mode" ]] || die "$name: summary mode is not $mode"
      t=$(summary_field "$RUN_METRICS" median_iter_s)
      # mean iteration (time for the run / iterations): what transient
      # stragglers cost; the median hides iterations that had one
      local mean
      mean=$(calc "$(summary_field "$RUN_METRICS" total_s) / $ITERS" %.6f)
      b=$(summary_field "$RUN_METRICS" bound_s)
      x=$(transfer_s "$mbit" "$RUN_METRICS")
      tk=$(tasks_list "$RUN_METRICS")
      if [[ ! -e $ref ]]; then
        mv "$out" "$ref"
      elif ! cmp -s "$ref" "$out"; then
        echo "!!!!! MISMATCH: $name $mode pair $i output differs from the first bsp run (cmp $ref $out)" >&2
        cmp "$ref" "$out" >&2 || true
        [[ ${BENCH_KEEP:-0} == 1 ]] || cp "$out" "$RESULTS/mismatch-$name-$mode-$i.txt"
        mismatch=1
      else
        rm -f "$out"
      fi
      if [[ $mode == bsp ]]; then
        local mean_b=$mean
        tb+=("$t") rssb+=("$RUN_RSS_KB") tkb+=("$tk") bndb+=("$b")
      else
        td+=("$t") rssd+=("$RUN_RSS_KB") tkd+=("$tk") bnd+=("$b") tr+=("$x")
      fi
      note "$name pair $i $mode: median_iter_s=$t bound_s=$b transfer_s=$x tasks=$tk rss_kb=$RUN_RSS_KB"
      csv_row "$runs_csv" "$runs_hdr" "$BENCH_DATE,$BENCH_COMMIT,$name,$(basename "$graph"),$i,$mode,$t,$b,$(summary_field "$RUN_METRICS" total_s),$x,$tk,$RUN_RSS_KB"
    done
    rat+=("$(calc "${tb[$((i - 1))]} / ${td[$((i - 1))]}" %.6f)")
    ratm+=("$(calc "$mean_b / $mean" %.6f)")
  done

  local bm bmin bmax dm dmin dmax sm smin smax bound boundd trm rb rd
  read -r bm bmin bmax < <(stats "${tb[@]}")
  read -r dm dmin dmax < <(stats "${td[@]}")
  read -r sm smin smax < <(stats "${rat[@]}")
  local smm smmin smmax
  read -r smm smmin smmax < <(stats "${ratm[@]}")
  read -r bound _ _ < <(stats "${bndb[@]}")
  read -r boundd _ _ < <(stats "${bnd[@]}")
  read -r trm _ _ < <(stats "${tr[@]}")
  read -r _ _ rb < <(stats "${rssb[@]}")
  read -r _ _ rd < <(stats "${rssd[@]}")
  local som eff effd effmax mtb mtd
  som=$(calc "$bm / $dm" %.2f)
  eff=$(calc "$bound / $dm" %.2f)
  effd=$(calc "$boundd / $dm" %.2f)
  effmax=$(calc "($bound > $trm ? $bound : $trm) / $dm" %.2f)
  mtb=$(tasks_median "${tkb[@]}")
  mtd=$(tasks_median "${tkd[@]}")
  local sb=- sd=- fewer=n/a
  if [[ $straggler != none ]]; then
    sb=$(cut -d/ -f$((straggler + 1)) <<<"$mtb")
    sd=$(cut -d/ -f$((straggler + 1)) <<<"$mtd")
    if ((sd < sb)); then fewer=yes; else fewer=NO; fi
  fi
  local ident=yes
  ((mismatch)) && ident=NO

  echo
  echo "== $name: $(basename "$graph") ($NE edges), $WORKERS workers, 1 server, $ITERS iterations, $pairs pairs (bsp, dsana alternating)"
  echo "  links removed from the scenario (scheduling only; $(basename "$orig") has link $(jq -r '.link.bandwidth_mbit // "none"' "$orig") Mbit/s, not applied)"
  printf '  %-7s median_iter_s %s [%s-%s]  peak_rss %s MiB (largest role)\n' bsp "$(printf %.4f "$bm")" \
    "$(printf %.4f "$bmin")" "$(printf %.4f "$bmax")" "$(calc "$rb / 1024" %.1f)"
  printf '  %-7s median_iter_s %s [%s-%s]  peak_rss %s MiB (largest role)\n' dsana "$(printf %.4f "$dm")" \
    "$(printf %.4f "$dmin")" "$(printf %.4f "$dmax")" "$(calc "$rd / 1024" %.1f)"
  printf '  speed-up bsp/dsana: %.2f per-pair median [%.2f-%.2f], %s ratio of medians\n' "$sm" "$smin" "$smax" "$som"
  printf '  speed-up of the mean iteration (time to run all %s iterations): %.2f per-pair median [%.2f-%.2f]\n' \
    "$ITERS" "$smm" "$smmin" "$smmax"
  printf '  bound_s (balanced compute, median of the bsp runs) %s -> efficiency %s\n' "$(printf %.4f "$bound")" "$eff"
  printf '  bound_s (balanced compute, median of the dsana runs) %s -> efficiency %s\n' "$(printf %.4f "$boundd")" "$effd"
  echo "  tasks per worker (sum over $ITERS iterations, median over runs): bsp $mtb, dsana $mtd"
  if [[ $straggler != none ]]; then
    echo "  straggler worker $straggler ran fewer tasks under dsana: $fewer ($sb -> $sd)"
  else
    echo "  no fixed straggler (equal speeds; transient slowdowns)"
  fi
  echo "  outputs byte-identical across all runs and modes: $ident"
  csv_row "$csv" "$hdr" "$BENCH_DATE,$BENCH_COMMIT,$name,$(basename "$graph"),$NE,$WORKERS,$pairs,$bm,$bmin,$bmax,$dm,$dmin,$dmax,$sm,$smin,$smax,$som,$bound,$eff,$trm,$effmax,$boundd,$effd,removed,$straggler,$sb,$sd,$fewer,$ident,$(calc "$rb / 1024" %.1f),$(calc "$rd / 1024" %.1f)"

  local spd
  spd=$(printf '%.2f' "$sm")
  if [[ $name == heterogeneous-cloud ]]; then
    het_line="speedup=$spd efficiency=$eff"
    summary_lines+=("heterogeneous: speed-up $spd (target >= $TARGET_HET_SPEEDUP: $(calc "$sm >= $TARGET_HET_SPEEDUP ? 1 : 0" %d | sed 's/1/met/;s/0/MISSED/')), efficiency $eff (target >= $TARGET_HET_EFF: $(calc "$eff >= $TARGET_HET_EFF ? 1 : 0" %d | sed 's/1/met/;s/0/MISSED/'))")
  else
    # transient stragglers strike about a third of the iterations: judge
    # the time for the whole run (mean iteration), not the median one
    local spdm
    spdm=$(printf '%.2f' "$smm")
    summary_lines+=("homogeneous:   speed-up of the mean iteration $spdm, of the median $spd (target >= $TARGET_HOM_SPEEDUP on the mean: $(calc "$smm >= $TARGET_HOM_SPEEDUP ? 1 : 0" %d | sed 's/1/met/;s/0/MISSED/'))")
  fi
}

echo "dsana stragglers — $DSANA ($BENCH_COMMIT), $BENCH_HOST" >&2
bench_scenario homogeneous-cloud
hom_mismatch=$mismatch
mismatch=0
bench_scenario heterogeneous-cloud
mismatch=$((mismatch | hom_mismatch))

echo
echo "targets (docs/design.md): heterogeneous speed-up >= $TARGET_HET_SPEEDUP and efficiency >= $TARGET_HET_EFF; homogeneous speed-up >= $TARGET_HOM_SPEEDUP"
printf '  %s\n' "${summary_lines[@]}"
echo "  speed-up = median of per-pair bsp/dsana; efficiency = bsp runs' median bound_s / dsana median_iter_s; links removed (scheduling only)"
echo "wrote $csv and $runs_csv" >&2
if ((mismatch)); then
  echo "!!!!! OUTPUT MISMATCH between runs/modes: dsana is not BSP-exact here (see above)" >&2
  echo "$het_line"
  exit 1
fi
echo "$het_line"
