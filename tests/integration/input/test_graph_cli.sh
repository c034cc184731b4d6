#!/usr/bin/env bash
# test_graph_cli.sh - `dsana graph convert|info|gen` end to end: generated
# text and binary graphs are the same graph (converting the text gives the
# generator's binary file byte for byte, weighted too); --weighted,
# --undirected, --dedup and --reorder; the one warning line for ignored
# columns; bad weights and Matrix Market index 0 named by file and line;
# usage errors naming the option and its valid range; -h.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# expect_exit NAME CODE LINES PATTERN CMD...: exit CODE, LINES lines on stderr, stderr matching
# PATTERN (an empty PATTERN: not checked).
expect_exit() {
  local name=$1 code=$2 lines=$3 pattern=$4
  shift 4
  run_capture "$name" "$@"
  local nl
  nl=$(stderr_lines "$name.err")
  if [ "$RC" -eq "$code" ] && [ "$nl" -eq "$lines" ] && { [ -z "$pattern" ] || grep -qE -- "$pattern" "$name.err"; }; then
    pass "$name: exit $RC, $nl stderr lines${pattern:+: $(head -n 1 "$name.err")}"
  else
    fail "$name: $(show_cmd "$@"): want exit $code, $lines stderr lines matching '$pattern'; got exit $RC, $nl lines: $(head -c 400 "$name.err")"
  fi
}

note "gen: text and binary are the same graph"
for w in "" --weighted; do
  "$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 3 $w --out "k$w.txt" >/dev/null
  "$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 3 $w --out "k$w.bin" >/dev/null
  expect_exit "convert_gen_text$w" 0 0 '' "$DSANA" graph convert "k$w.txt" "conv$w.bin" $w
  if cmp -s "k$w.bin" "conv$w.bin"; then
    pass "gen $w: convert(text) is byte-identical to the generated binary"
  else
    fail "gen $w: convert(k$w.txt) differs from k$w.bin: $(cmp "k$w.bin" "conv$w.bin" 2>&1 | head -n 1)"
  fi
done
if [ "$(head -n 1 k.txt)" = "# dsana graph: dense ids 0..1023" ] && grep -q '^vertices: 1024$' <("$DSANA" graph info k.txt); then
  pass "k.txt starts with the dense-id line and keeps all 1024 vertices"
else
  fail "k.txt: want first line '# dsana graph: dense ids 0..1023' and 1024 vertices, got '$(head -n 1 k.txt)'"
fi

note "flags"
printf '1 2 0.5\n2 3 2\n2 3 0.25\n3 3 1\n' >w.txt
"$DSANA" graph convert w.txt w.bin --weighted --undirected --dedup --reorder degree >/dev/null 2>conv.err
info=$("$DSANA" graph info w.bin --weighted | tr '\n' ' ')
# undirected + dedup (last weight wins): 1-2 0.5, 2-3 0.25 (both ways), 3-3 1: 5 arcs weighing 2.5
if [[ $info == *" edges: 5 "* && $info == *"total_weight: 2.5 "* && $info == *"duplicate_edges: 0 "* ]]; then
  pass "convert --weighted --undirected --dedup --reorder degree: $info"
else
  fail "convert --weighted --undirected --dedup --reorder degree w.txt: want 5 arcs, no duplicates; info: $info $(cat conv.err)"
fi
expect_exit weights_hidden_warning 0 1 "w.txt: extra columns after the first two ignored \(use --weighted" \
  "$DSANA" graph info w.txt
printf '1 2 0.5\n2 3 -1\n' >bad.txt
expect_exit bad_weight 2 1 "bad.txt:2: edge weight '-1' is not a positive finite number" \
  "$DSANA" graph convert bad.txt bad.bin --weighted
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 3\n' >m.mtx
expect_exit mtx_index0 2 1 "m.mtx:4: index 0 \(Matrix Market indices start at 1\)" "$DSANA" graph info m.mtx
expect_exit binary_undirected 2 1 "k.bin: .*undirected" "$DSANA" graph info k.bin --undirected
expect_exit binary_no_weights 2 1 "k.bin: no edge weights" "$DSANA" graph info k.bin --weighted

note "usage errors name the option and its range"
expect_exit bad_reorder 2 1 "--reorder \(want none or degree\)" "$DSANA" graph convert w.txt x.bin --reorder hubs
expect_exit bad_scale 2 1 "--scale \(want an integer in 1..31\)" "$DSANA" graph gen kron --scale 0 --out x.bin
expect_exit bad_ef 2 1 "--edge-factor \(want an integer in 1..4294967295\)" \
  "$DSANA" graph gen kron --scale 4 --edge-factor x --out x.bin
expect_exit bad_vertices 2 1 "--vertices \(want an integer in 1..4294967295\)" \
  "$DSANA" graph gen uniform --vertices 0 --edges 3 --out x.bin
expect_exit reorder_text 2 1 "--reorder degree needs a binary --out" \
  "$DSANA" graph gen kron --scale 4 --reorder degree --out x.txt
expect_exit unknown_opt 2 1 "unknown option '--weigthed'" "$DSANA" graph convert w.txt x.bin --weigthed
for sub in convert info gen; do
  expect_exit "help_$sub" 0 0 '' "$DSANA" graph "$sub" -h
  grep -q "^usage: dsana graph $sub" "help_$sub.out" || fail "dsana graph $sub -h: no usage on stdout"
done
finish
