#!/usr/bin/env bash
# bench/pagerank/cost.sh [--runs N] [--iters N] [--scales "18 20 22"] [--modes "dsana bsp"] [GRAPH.txt...]
#
# The COST test (McSherry, Isard, Murray 2015): dsana on this machine against
# the best single-machine PageRank on the same cores. For each Kronecker
# scale (edge factor 16, seed 1) and each SNAP edge list given, it prepares
# ONE graph both programs read: self loops dropped and duplicates collapsed
# (the GAP suite's builder does both), the vertex count kept (dsana honours
# the '# Nodes:' header of its own files; gapbs uses max id + 1).
#
# dsana runs with default options (local mode, 1 worker x every core unless
# --workers/--threads are given in DSANA_ARGS), `--tol 0 --max-iter N`; the
# figure is the median seconds per iteration of the run (metrics summary).
# gapbs runs `pr -i N -t 0`: its "Trial Time" / N. When GAPBS_DIR points to a
# built gapbs (its `pr` and `converter`), runs alternate gapbs, dsana, ...
# and the table prints the ratio pair by pair (median, min-max). This script
# never fetches or builds gapbs.
#
# Per run it also samples every role's peak resident set (VmHWM of the
# processes titled 'dsana: scheduler|server N|worker N', every 50 ms, in one
# more run per graph and mode that is not timed: sampling costs CPU; with
# the roles as threads, the default, the one process holds them all) and
# compares the largest with the memory bound: the role's share
# of the graph file plus its rank vectors (8 bytes x vertices x 3: ranks,
# contributions, a pull mirror), a ratio <= 1.3 is the target.
#
# Output: a table on stdout, progress on stderr, rows in
# bench/results/cost.csv. Every measured run holds /tmp/dsana-bench.lock.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

runs=5
iters=20
scales="18 20 22"
modes="dsana bsp"
graphs=()
while [[ $# -gt 0 ]]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --iters) iters=$2; shift 2 ;;
  --scales) scales=$2; shift 2 ;;
  --modes) modes=$2; shift 2 ;;
  -h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) die "unknown option '$1' (see --help)" ;;
  *) graphs+=("$1"); shift ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ && $iters =~ ^[1-9][0-9]*$ ]] || die "--runs and --iters want positive integers"
read -r -a dsana_args <<<"${DSANA_ARGS:-}"
bench_init
GAPBS=${GAPBS_DIR:-}
if [[ -n $GAPBS ]]; then
  [[ -x $GAPBS/pr && -x $GAPBS/converter ]] || die "GAPBS_DIR=$GAPBS has no built pr and converter (build it yourself: make -C \$GAPBS pr converter)"
fi
LOCK=/tmp/dsana-bench.lock
CSV=$RESULTS/cost.csv
threads=$(nproc)

# prepare NAME SOURCE-TEXT: NAME.txt (header + edges, no self loops), NAME.bin
# (dsana, --dedup), NAME.sg (gapbs, when GAPBS_DIR is set). Cached.
prepare() {
  local base=$GRAPHS/cost-$1 src=$2
  if [[ ! -s $base.bin ]]; then
    note "preparing $1: self loops dropped, duplicates collapsed"
    awk '/^#/ || $1 != $2' <(if [[ $src == *.gz ]]; then gzip -dc "$src"; else cat "$src"; fi) >"$base.txt"
    "$DSANA" graph convert "$base.txt" "$base.bin.tmp" --dedup >/dev/null || die "dsana graph convert $base.txt failed"
    mv "$base.bin.tmp" "$base.bin"
  fi
  if [[ -n $GAPBS && ! -s $base.sg ]]; then
    grep -v '^#' "$base.txt" >"$base.el"
    "$GAPBS/converter" -f "$base.el" -b "$base.sg" >/dev/null || die "gapbs converter $base.el failed"
    rm -f "$base.el"
  fi
  [[ -n $GAPBS ]] || rm -f "$base.txt"
  echo "$base"
}

# Peak RSS (KiB) per role of the job under PID (flock -> launcher -> roles),
# sampled until PID exits; writes "role kib" lines (role: launcher,
# scheduler, server0, worker1, ...) to FILE.
sample_rss() { # PID FILE
  local pid=$1 out=$2 p t h
  declare -A peak=()
  while kill -0 "$pid" 2>/dev/null; do
    for p in $(pgrep -P "$pid" || true); do
      for q in "$p" $(pgrep -P "$p" || true); do
        t=$({ tr '\0' ' ' <"/proc/$q/cmdline"; } 2>/dev/null | sed -nE 's/^dsana: ([a-z]+)( ([0-9]+))? .*/\1\3/p') || continue
        [[ $q == "$p" ]] && t=launcher
        h=$({ awk '/^VmHWM:/ {print $2}' <"/proc/$q/status"; } 2>/dev/null) || continue
        [[ -n $t && -n $h ]] || continue
        ((h > ${peak[$t]:-0})) && peak[$t]=$h
      done
    done
    sleep 0.05
  done
  for t in "${!peak[@]}"; do echo "$t ${peak[$t]}"; done | sort >"$out"
}

run_dsana() { # TAG GRAPH MODE SAMPLE -> DS_ITER, DS_WORKERS; with SAMPLE=1 also DS_ROLES ("role:MiB ..."),
  #             DS_MAX_KIB (largest role)
  local tag=$1 g=$2 mode=$3 sample=$4 m=$SCRATCH/$1.jsonl
  flock "$LOCK" "$DSANA" pagerank "$g" --quiet --tol 0 --max-iter "$iters" --mode "$mode" --metrics "$m" \
    "${dsana_args[@]}" >"$SCRATCH/$tag.out" 2>"$SCRATCH/$tag.err" &
  local job=$!
  if ((sample)); then
    sample_rss "$job" "$SCRATCH/$tag.rss"
  fi
  wait "$job" || { tail -n 5 "$SCRATCH/$tag.err" >&2; die "dsana pagerank $g failed"; }
  DS_ITER=$(summary_field "$m" median_iter_s)
  DS_WORKERS=$(summary_field "$m" workers)
  if ((sample)); then
    DS_ROLES=$(awk '{printf "%s%s:%.0f", (NR > 1 ? " " : ""), $1, $2 / 1024}' "$SCRATCH/$tag.rss")
    # the largest role process; with the roles as threads (the default), the one process
    DS_MAX_KIB=$(awk 'BEGIN {m = 0} $1 != "launcher" && $1 != "janitor" && $2 > m {m = $2} $1 == "launcher" {l = $2}
      END {print m ? m : l}' "$SCRATCH/$tag.rss")
  fi
}

run_gapbs() { # SG -> GP_ITER
  local out
  out=$(flock "$LOCK" "$GAPBS/pr" -f "$1" -i "$iters" -t 0 -n 1) || die "gapbs pr $1 failed"
  GP_ITER=$(awk -v n="$iters" '/Trial Time:/ {print $3 / n}' <<<"$out")
  [[ -n $GP_ITER ]] || die "no 'Trial Time' in gapbs pr's output"
}

declare -a names=() sources=()
for s in $scales; do
  [[ $s =~ ^[0-9]+$ ]] || die "bad scale '$s'"
  src=$GRAPHS/kron-s$s-ef16-seed1.txt
  if [[ ! -s $GRAPHS/cost-kron$s.bin || (-n $GAPBS && ! -s $GRAPHS/cost-kron$s.sg) ]]; then
    [[ -s $src ]] || "$DSANA" graph gen kron --scale "$s" --edge-factor 16 --seed 1 --out "$src" >/dev/null ||
      die "dsana graph gen kron --scale $s failed"
  fi
  names+=("kron$s")
  sources+=("$src")
done
for g in "${graphs[@]}"; do
  [[ -r $g ]] || die "$g: cannot read"
  names+=("$(basename "${g%%.*}")")
  sources+=("$g")
done

echo "# dsana $BENCH_COMMIT vs ${GAPBS:+gapbs pr in $GAPBS}${GAPBS:+;}${GAPBS:-no gapbs (set GAPBS_DIR);} $BENCH_HOST; $iters iterations, $runs runs; dsana ${dsana_args[*]:-default layout}"
printf '%-10s %9s %10s %6s %10s %9s %8s %9s %7s %-28s %8s %6s\n' graph vertices edges mode dsana_ms ns/e/thr Medge/s \
  gapbs_ms ratio "ratio min-max" rss_MiB mem/bd
csv_head="date,commit,graph,vertices,edges,mode,workers,threads,runs,iters,dsana_s_iter,ns_edge_thread,gapbs_s_iter,ratio_median,ratio_min,ratio_max,rss_roles_mib,rss_largest_kib,mem_bound_kib"
for i in "${!names[@]}"; do
  base=$(prepare "${names[$i]}" "${sources[$i]}")
  g=$base.bin
  read -r V E < <(graph_counts "$g")
  gbytes=$(stat -c %s "$g")
  for mode in $modes; do
    max_kib=0
    ds=() gp=() ratios=() rss=""
    for ((r = 1; r <= runs; r++)); do
      if [[ -n $GAPBS && $mode == dsana ]]; then
        run_gapbs "$base.sg"
        gp+=("$GP_ITER")
      fi
      run_dsana "${names[$i]}.$mode.$r" "$g" "$mode" 0
      ds+=("$DS_ITER")
      [[ ${#gp[@]} -gt 0 && $mode == dsana ]] && ratios+=("$(awk -v a="$DS_ITER" -v b="$GP_ITER" 'BEGIN {print a / b}')")
      note "${names[$i]} $mode run $r: dsana $(awk -v x="$DS_ITER" 'BEGIN {printf "%.1f", x * 1e3}') ms/iter${GP_ITER:+, gapbs $(awk -v x="$GP_ITER" 'BEGIN {printf "%.1f", x * 1e3}') ms}"
    done
    run_dsana "${names[$i]}.$mode.mem" "$g" "$mode" 1 # memory, not timed
    max_kib=$DS_MAX_KIB rss=$DS_ROLES
    read -r dmed _ _ < <(stats "${ds[@]}")
    gmed="" rmed="" rmin="" rmax=""
    if [[ ${#ratios[@]} -gt 0 ]]; then
      read -r gmed _ _ < <(stats "${gp[@]}")
      read -r rmed rmin rmax < <(stats "${ratios[@]}")
    fi
    # memory bound: the largest role's share of the graph + 3 rank vectors
    bound_kib=$(awk -v g="$gbytes" -v w="$DS_WORKERS" -v v="$V" 'BEGIN {printf "%d", (g / w + 24 * v) / 1024}')
    nse=$(awk -v t="$dmed" -v e="$E" -v th="$threads" 'BEGIN {printf "%.2f", t * th / e * 1e9}')
    printf '%-10s %9d %10d %6s %10.2f %9s %8.0f %9s %7s %-28s %8s %6.2f\n' "${names[$i]}" "$V" "$E" "$mode" \
      "$(awk -v x="$dmed" 'BEGIN {print x * 1e3}')" "$nse" "$(awk -v t="$dmed" -v e="$E" 'BEGIN {print e / t / 1e6}')" \
      "${gmed:+$(awk -v x="$gmed" 'BEGIN {printf "%.2f", x * 1e3}')}" "${rmed:+$(printf '%.2f' "$rmed")}" \
      "${rmin:+$(printf '%.2f-%.2f' "$rmin" "$rmax")}" "$(awk -v k="$max_kib" 'BEGIN {printf "%.0f", k / 1024}')" \
      "$(awk -v k="$max_kib" -v b="$bound_kib" 'BEGIN {print k / b}')"
    note "  roles' peak RSS (MiB): $rss; bound for the largest: $((bound_kib / 1024)) MiB"
    csv_row "$CSV" "$csv_head" "$BENCH_DATE,$BENCH_COMMIT,${names[$i]},$V,$E,$mode,$DS_WORKERS,$threads,$runs,$iters,$dmed,$nse,${gmed},${rmed},${rmin},${rmax},$rss,$max_kib,$bound_kib"
  done
done
echo "# ratio: dsana's s/iteration over gapbs's in the same pair (target <= 1.5); mem/bd: the largest role's peak RSS"
echo "# over its graph share + 3 rank vectors (target <= 1.3); Medge/s = edges / s per iteration."
