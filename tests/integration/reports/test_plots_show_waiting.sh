#!/usr/bin/env bash
# test_plots_show_waiting.sh - the plots: the Gantt chart's spans
# (bench/paper_lib.sh paper_gantt) give each worker's waiting as its own
# rows - the trace's "wait" spans, else the gaps between its compute spans
# up to the iteration's end (the runtime traces no waits, so the chart had
# none) - and the chart and the overlap sweep (bench/plot_overlap.sh, from
# the stored docs/data/overlap-sweep.csv) are drawn without new runs. How
# they look was checked by eye; here: the spans exactly, and a PNG each.
# Skips (77) without jq; the PNGs are skipped without gnuplot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$T"
command -v jq >/dev/null 2>&1 || skip "jq is missing"

# iteration 3 from 1 ms to 6 ms; worker 0 computes 1-2 and 3-4 ms, worker 1 all of it
cat >nowait.json <<'J'
{"traceEvents": [
 {"ph": "X", "pid": 1, "tid": 0, "name": "iteration", "ts": 1000, "dur": 5000, "args": {"iter": 3}},
 {"ph": "X", "pid": 3, "tid": 0, "name": "task", "ts": 2000, "dur": 1000, "args": {"iter": 3, "task": 0}},
 {"ph": "X", "pid": 3, "tid": 0, "name": "task", "ts": 4000, "dur": 1000, "args": {"iter": 3, "task": 1}},
 {"ph": "X", "pid": 3, "tid": 1, "name": "task", "ts": 1000, "dur": 5000, "args": {"iter": 3, "task": 2}},
 {"ph": "X", "pid": 3, "tid": 0, "name": "task", "ts": 7000, "dur": 1000, "args": {"iter": 4, "task": 0}}
]}
J
jq '.traceEvents += [{"ph": "X", "pid": 3, "tid": 1, "name": "wait", "ts": 1500, "dur": 500, "args": {"iter": 3}}]' \
  nowait.json >wait.json

# spans TRACE PREFIX: paper_gantt in a subshell (bench/lib.sh has its own die and set -e)
spans() {
  (source "$DSANA_SRC/bench/lib.sh" && source "$DSANA_SRC/bench/paper_lib.sh" && paper_gantt "$1" 3 "$2" >"$2.dur")
}
norm() { awk '{ printf "%d %g %g\n", $1, $2, $3 }' "$1"; }

spans nowait.json nw || die "paper_gantt failed on nowait.json"
if [ "$(norm nw.wait)" = "$(printf '0 0 1\n0 2 3\n0 4 5')" ] && [ "$(cat nw.dur)" = 5 ] &&
  [ "$(norm nw.compute | sort)" = "$(printf '0 1 2\n0 3 4\n1 0 5')" ]; then
  pass "no wait spans in the trace: waiting = the gaps between a worker's spans up to the iteration's end"
else
  fail "derived waiting: wait '$(norm nw.wait | tr '\n' ';')' compute '$(norm nw.compute | tr '\n' ';')' dur $(cat nw.dur)"
fi
spans wait.json w || die "paper_gantt failed on wait.json"
[ "$(norm w.wait)" = "1 0.5 1" ] && pass "the trace's own wait spans are kept" ||
  fail "traced waiting: '$(norm w.wait | tr '\n' ';')'"

command -v gnuplot >/dev/null 2>&1 || { note "gnuplot is missing: no PNGs drawn"; finish; }
png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
if (source "$DSANA_SRC/bench/lib.sh" && source "$DSANA_SRC/bench/paper_lib.sh" &&
  paper_plot_gantt nw w "test" "'w0' 0, 'w1' 1" gantt.png) 2>gantt.err && png gantt.png; then
  pass "paper_plot_gantt draws a PNG"
else
  fail "paper_plot_gantt: $(head -c 300 gantt.err)"
fi
if "$DSANA_SRC/bench/plot_overlap.sh" "$DSANA_SRC/docs/data/overlap-sweep.csv" sweep.png "test" 0.107 0.2139 0.2197 \
  2>sweep.err && png sweep.png; then
  pass "plot_overlap.sh redraws the stored sweep (docs/data/overlap-sweep.csv)"
else
  fail "plot_overlap.sh: $(head -c 300 sweep.err)"
fi
finish
