# shellcheck shell=bash
# bench/paper_lib.sh — helpers for bench/paper.sh (source it after bench/lib.sh; do not run it).
#
#   paper_transfer_bound SC R W S  seconds one iteration's bytes need on the busiest emulated
#                                  link: max(W*8R/S (a server's upload), 8R (a worker's pull))
#                                  / bandwidth of scenario SC (0 when the link is unlimited);
#                                  R = the contributions pulls carry (graph_read_keys)
#   paper_col CSV COLUMN FILTER..  values of COLUMN in the rows of CSV whose named columns
#                                  match: paper_col runs.csv total_s graph=g scenario=s mode=m
#   paper_gantt TRACE ITER PREFIX  per-worker spans of iteration ITER from a --trace file into
#                                  PREFIX.compute (task/block spans) and PREFIX.wait (the
#                                  trace's "wait" spans, else the gaps between a worker's
#                                  compute spans), rows "worker start_ms end_ms" relative to
#                                  the iteration's start; prints the iteration's duration in ms
#   paper_have_gnuplot             0 when gnuplot (with png) is there, installing gnuplot-nox
#                                  with apt-get when missing and root; 1 otherwise
#   paper_plot_improvement DAT_HOM DAT_HET PNG   bars per graph next to the paper's band
#   paper_plot_itertime DAT_HOM DAT_HET PNG      s/iteration against edges (log-log)
#   paper_plot_gantt BSP_PREFIX DSANA_PREFIX TITLE YTICS PNG   per-worker Gantt chart of one iteration
#                                  (YTICS: gnuplot tic list, one 'label' N per worker)

PAPER_BAND_LO=36.6
PAPER_BAND_HI=56.4

paper_transfer_bound() { # SCENARIO READ_KEYS WORKERS SERVERS
  local mbit
  mbit=$(jq -r '.link.bandwidth_mbit // 0' "$1")
  awk -v mbit="$mbit" -v v="$2" -v w="$3" -v s="$4" 'BEGIN {
    if (mbit <= 0) { print 0; exit }
    tb = 8 * v; up = w * tb / s; b = up > tb ? up : tb
    printf "%.9g\n", b / (mbit * 1e6 / 8) }'
}

paper_col() { # CSV COLUMN [NAME=VALUE...]
  local csv=$1 col=$2
  shift 2
  awk -F, -v col="$col" -v filt="$*" '
    NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i
              if (!(col in idx)) { print "paper_col: no column " col > "/dev/stderr"; exit 2 }
              n = split(filt, f, " ")
              for (k = 1; k <= n; k++) { split(f[k], kv, "="); fk[k] = idx[kv[1]]; fv[k] = kv[2] }
              next }
    { for (k = 1; k <= n; k++) if ($(fk[k]) != fv[k]) next; print $(idx[col]) }' "$csv"
}

paper_gantt() { # TRACE ITER PREFIX
  local trace=$1 it=$2 prefix=$3
  jq -r --argjson it "$it" '
    (.traceEvents | map(select(.ph == "X" and .pid == 1 and .name == "iteration" and .args.iter == $it)) | first) as $i
    | if $i == null then error("no iteration \($it) in the trace") else . end
    | .traceEvents[]
    | select(.ph == "X" and .pid == 3 and .args.iter == $it and (.name == "task" or .name == "block" or .name == "wait"))
    | [(if .name == "wait" then "wait" else "compute" end), .tid, ((.ts - $i.ts) / 1000), ((.ts + .dur - $i.ts) / 1000)]
    | @tsv' "$trace" >"$prefix.all"
  awk -F'\t' -v c="$prefix.compute" -v w="$prefix.wait" '
    { print $2, $3, $4 > ($1 == "wait" ? w : c) }' "$prefix.all"
  touch "$prefix.compute" "$prefix.wait"
  local dur
  dur=$(jq -r --argjson it "$it" '.traceEvents[] | select(.ph == "X" and .pid == 1 and .name == "iteration" and .args.iter == $it)
    | .dur / 1000' "$trace" | head -n 1)
  if [[ ! -s $prefix.wait ]]; then
    # the runtime traces no "wait" spans (it used to): a worker waits whenever none of
    # its spans runs, from the iteration's start to its end (gaps under 1 us ignored)
    sort -k1,1n -k2,2g "$prefix.compute" | awk -v dur="$dur" '
      function gap(a, b) { if (b > dur + 0) b = dur + 0; if (b - a >= 0.001) print w, a, b }
      have && $1 != w { gap(end, dur); have = 0 }
      !have { w = $1; end = 0; have = 1 }
      { if ($2 > end) gap(end, $2); if ($3 > end) end = $3 }
      END { if (have) gap(end, dur) }' >"$prefix.wait"
  fi
  # the panel shows the iteration: waiting is clipped to its end
  awk -v dur="$dur" '{ if ($3 > dur + 0) $3 = dur + 0; if ($3 - $2 >= 0.001) print }' "$prefix.wait" >"$prefix.wait.tmp" &&
    mv "$prefix.wait.tmp" "$prefix.wait"
  echo "$dur"
}

paper_have_gnuplot() {
  if ! command -v gnuplot >/dev/null 2>&1 && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    note "installing gnuplot-nox (plots)"
    apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 &&
        apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1; } || true
  fi
  command -v gnuplot >/dev/null 2>&1 || return 1
  gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 || gnuplot -e 'set terminal png' >/dev/null 2>&1
}

# pngcairo when available (antialiased), else libgd png.
paper_png_term() {
  if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    echo "pngcairo size $1 font 'Sans,10'"
  else
    echo "png size $1"
  fi
}

# DAT: "graph dsana dynamic chunking" per line (improvement %, graphs in size order).
paper_plot_improvement() { # DAT_HOM DAT_HET PNG
  gnuplot <<EOF
set terminal $(paper_png_term 1100,460)
set output '$3'
set termoption noenhanced
set multiplot layout 1,2 title "Time to convergence: improvement over plain BSP, (T_bsp - T_mode) / T_bsp (median of runs)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set ylabel 'improvement over bsp (%)'
set yrange [ * < -5 : 65 < * ]
set xtics rotate by -20 scale 0
set key below horizontal
set object 1 rect from graph 0, first $PAPER_BAND_LO to graph 1, first $PAPER_BAND_HI fc rgb '#f4d58d' fs solid 0.45 noborder behind
set arrow 1 from graph 0, first 0 to graph 1, first 0 nohead lc rgb 'black'
set title 'homogeneous cloud (4 equal workers, transient 4x stragglers)'
plot '$1' using 2:xtic(1) title 'dsana' lc rgb '#1f77b4', '' using 3 title 'dynamic only' lc rgb '#2ca02c', \
     '' using 4 title 'chunking only' lc rgb '#ff7f0e', \
     NaN with boxes fs solid 0.45 lc rgb '#f4d58d' title 'paper: 36.6-56.4%'
set title 'heterogeneous cloud (speeds 1, 1, 0.5, 0.25)'
plot '$2' using 2:xtic(1) title 'dsana' lc rgb '#1f77b4', '' using 3 title 'dynamic only' lc rgb '#2ca02c', \
     '' using 4 title 'chunking only' lc rgb '#ff7f0e', \
     NaN with boxes fs solid 0.45 lc rgb '#f4d58d' title 'paper: 36.6-56.4%'
unset multiplot
EOF
}

# DAT: "edges bsp dsana dynamic chunking bound" per line, sorted by edges (s/iteration).
paper_plot_itertime() { # DAT_HOM DAT_HET PNG
  gnuplot <<EOF
set terminal $(paper_png_term 1100,460)
set output '$3'
set termoption noenhanced
set multiplot layout 1,2 title "Median time per iteration against graph size (median of runs)"
set logscale xy
set grid xtics ytics mxtics mytics
set xlabel 'edges'
set ylabel 'seconds per iteration'
set format x '10^{%T}'
set termoption enhanced
set key bottom right
set title 'homogeneous cloud'
plot '$1' using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'bsp', \
     '' using 1:3 with linespoints pt 5 lw 2 lc rgb '#1f77b4' title 'dsana', \
     '' using 1:4 with linespoints pt 9 lw 1.5 lc rgb '#2ca02c' title 'dynamic only', \
     '' using 1:5 with linespoints pt 11 lw 1.5 lc rgb '#ff7f0e' title 'chunking only', \
     '' using 1:6 with lines dt 2 lw 2 lc rgb 'black' title 'bound: max(compute, transfer)'
set title 'heterogeneous cloud'
plot '$2' using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'bsp', \
     '' using 1:3 with linespoints pt 5 lw 2 lc rgb '#1f77b4' title 'dsana', \
     '' using 1:4 with linespoints pt 9 lw 1.5 lc rgb '#2ca02c' title 'dynamic only', \
     '' using 1:5 with linespoints pt 11 lw 1.5 lc rgb '#ff7f0e' title 'chunking only', \
     '' using 1:6 with lines dt 2 lw 2 lc rgb 'black' title 'bound: max(compute, transfer)'
unset multiplot
EOF
}

# PREFIX.compute / PREFIX.wait from paper_gantt; PREFIX.dur holds the iteration's ms.
# Each worker's row: its compute spans as a bar without outlines (a span's shade
# alternates with its neighbour's, so task and block boundaries show without black
# edges swamping short spans), its waiting as a thin grey band just below the bar
# (never hidden inside it); one legend, above the first panel and outside both.
paper_plot_gantt() { # BSP_PREFIX DSANA_PREFIX TITLE YTICS PNG
  local b=$1 d=$2 xmax nw tmp p f rc=0
  nw=$(grep -o "'" <<<"$4" | awk 'END {print NR / 2}')
  xmax=$(cat "$b.dur" "$d.dur" | sort -g | tail -n 1)
  tmp=$(mktemp -d) || return 1
  # rows "worker start end rgb": per worker in start order, two blues alternating
  for p in "$b" "$d"; do
    sort -k1,1n -k2,2g "$p.compute" | awk '{ n[$1]++; print $1, $2, $3, (n[$1] % 2 ? 2062260 : 7057110) }' \
      >"$tmp/$(basename "$p").compute"
  done
  # gnuplot refuses a plot whose only file is empty: data files only when they have
  # rows; the legend comes from two empty (NaN) entries
  local legend="NaN with boxes fs solid 1.0 noborder lc rgb '#1f77b4' title 'compute of a task or block (shades alternate)', NaN with boxes fs solid 1.0 noborder lc rgb '#9a9a9a' title 'waiting: no task running (band below the row)'"
  local pb=$legend pd=$legend
  f="$tmp/$(basename "$b").compute"
  [[ -s $f ]] && pb+=", '$f' using ((\$2+\$3)/2):1:2:3:(\$1-0.08):(\$1+0.36):4 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle"
  [[ -s $b.wait ]] && pb+=", '$b.wait' using ((\$2+\$3)/2):1:2:3:(\$1-0.34):(\$1-0.16) with boxxyerror fs solid 1.0 noborder lc rgb '#9a9a9a' notitle"
  f="$tmp/$(basename "$d").compute"
  [[ -s $f ]] && pd+=", '$f' using ((\$2+\$3)/2):1:2:3:(\$1-0.08):(\$1+0.36):4 with boxxyerror fs solid 1.0 noborder lc rgb variable notitle"
  [[ -s $d.wait ]] && pd+=", '$d.wait' using ((\$2+\$3)/2):1:2:3:(\$1-0.34):(\$1-0.16) with boxxyerror fs solid 1.0 noborder lc rgb '#9a9a9a' notitle"
  gnuplot <<EOF || rc=$?
set terminal $(paper_png_term 1100,560)
set output '$5'
set termoption noenhanced
set multiplot layout 2,1 title "$3"
set xrange [0:$xmax * 1.02]
set yrange [-0.6:$nw - 0.4]
set ytics ($4)
set xlabel 'ms since the iteration started'
set grid xtics
set key outside top center horizontal samplen 3
set arrow 1 from $(cat "$b.dur"), graph 0 to $(cat "$b.dur"), graph 1 nohead lc rgb '#d62728' lw 2
set title sprintf('bsp: iteration %.1f ms (red line = end of the iteration)', $(cat "$b.dur"))
plot $pb
unset key
set arrow 1 from $(cat "$d.dur"), graph 0 to $(cat "$d.dur"), graph 1 nohead lc rgb '#d62728' lw 2
set title sprintf('dsana: iteration %.1f ms', $(cat "$d.dur"))
plot $pd
unset multiplot
EOF
  rm -rf "$tmp"
  return $rc
}
