#!/usr/bin/env bash
# test_graph_reorder_keeps_ids.sh - `dsana graph convert --reorder degree`
# renumbers vertices for locality, and PageRank on the reordered graph
# reports every vertex under its original id with the plain run's rank
# (within 1e-12 per vertex, lines compared by vertex id), for workers 1
# and 3 and both modes; the reordered file differs from the plain one (the
# renumbering happened).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 11 --edge-factor 8 --seed 9 --out k.txt >/dev/null || die "graph gen kron failed"
"$DSANA" graph convert k.txt plain.bin >/dev/null || die "convert failed"
"$DSANA" graph convert k.txt re.bin --reorder degree >/dev/null 2>re.err || die "convert --reorder: $(cat re.err)"
cmp -s plain.bin re.bin && fail "--reorder degree wrote the plain file" || pass "--reorder degree renumbers"
PR=(--tol 1e-13 --max-iter 200 --quiet)
"$DSANA" pagerank plain.bin "${PR[@]}" --out plain.tsv || die "plain run failed"
sort -n -k1,1 plain.tsv >plain.sorted
for mode in bsp dsana; do
  for W in 1 3; do
    run_capture "re.$mode.$W" "$DSANA" pagerank re.bin "${PR[@]}" --mode "$mode" --workers "$W" --out "re.$mode.$W.tsv"
    sort -n -k1,1 "re.$mode.$W.tsv" >"re.$mode.$W.sorted"
    if [ "$RC" -eq 0 ] && res=$("$REF_PAGERANK" --compare plain.sorted "re.$mode.$W.sorted" --max-diff 1e-12 2>&1); then
      pass "reordered, --mode $mode -W $W: the plain run's ranks under the original ids ($res)"
    else
      fail "reordered, --mode $mode -W $W: rc=$RC ${res:-} $(head -c 300 "re.$mode.$W.err")"
    fi
  done
done
finish
