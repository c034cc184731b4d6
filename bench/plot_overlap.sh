#!/usr/bin/env bash
# bench/plot_overlap.sh SWEEP_CSV PNG TITLE BOUND_S SERIAL_S OFF_S
#
# The chunk-size sweep of bench/overlap.sh as a PNG (gnuplot), drawn from its CSV
# (header, then "chunk_bytes,median_iter_s" rows) and three reference lines in
# seconds per iteration: BOUND_S = max(compute, transfer), SERIAL_S = compute +
# transfer (no overlap), OFF_S = the chunk-off median. overlap.sh calls it after
# its runs; run it alone to redraw a stored sweep: bench/results/overlap_sweep.csv with
# the last row of bench/results/overlap.csv (BOUND_S = max(bound_s, transfer_bound_s),
# SERIAL_S = their sum, OFF_S = off_median_iter_s), or docs/data/overlap-sweep.csv
# (the sweep in docs/evaluation.md; its README.md gives the command).
# The y axis starts at 0 and reaches past every line and point; the legend sits
# below the plot, outside the data.
set -euo pipefail

if [[ $# -ne 6 ]]; then
  sed -n '2,13s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
csv=$1 png=$2 title=$3 bound=$4 serial=$5 off=$6
[[ -r $csv ]] || { echo "plot_overlap.sh: cannot read $csv" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "plot_overlap.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }

# y from 0 to 10% above the largest of the points and the lines; x half a step (x2)
# beyond the smallest and largest chunk, so the lines span the plot and no point
# sits on its border
read -r ymax xmin xmax < <(awk -F, -v a="$bound" -v b="$serial" -v c="$off" '
  BEGIN { m = a; if (b > m) m = b; if (c > m) m = c }
  NR > 1 && $2 + 0 > m { m = $2 + 0 }
  NR > 1 && (lo == "" || $1 + 0 < lo) { lo = $1 + 0 }
  NR > 1 && $1 + 0 > hi { hi = $1 + 0 }
  END { if (lo == "") { print "plot_overlap.sh: no rows" > "/dev/stderr"; exit 1 }
        printf "%.6g %.6g %.6g\n", m * 1.1, lo / 2, hi * 2 }' "$csv")

gnuplot <<EOF
set terminal pngcairo size 900,560 noenhanced font 'Sans,10'
set output '$png'
set datafile separator ','
set logscale x 4
set format x '%.0b %BB'
set xlabel 'chunk size (bytes; a size above the table is capped to it)'
set ylabel 'median iteration time (s)'
set xrange [$xmin:$xmax]
set yrange [0:$ymax]
set title '$title'
set key outside below center horizontal maxcols 2 width 1
set bmargin 7
set grid
plot '$csv' every ::1 using 1:2 smooth unique with linespoints lw 2 pt 7 lc rgb '#1f77b4' \
       title 'chunked: median iteration', \
     $off with lines dt 4 lw 2 lc rgb '#d62728' title sprintf('chunk off (median) %.4f s', $off), \
     $serial with lines dt 3 lw 2 lc rgb '#7f7f7f' title sprintf('no overlap: compute + transfer %.4f s', $serial), \
     $bound with lines dt 2 lw 2 lc rgb '#2ca02c' title sprintf('bound: max(compute, transfer) %.4f s', $bound)
EOF
