#!/usr/bin/env bash
# test_graph_gen_text_binary_same.sh - a graph generated as text (dsana
# graph gen --out g.txt) and as binary (--out g.bin) is the same graph -
# isolated vertices included - so their ranks are identical.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
for kind in "kron --scale 12" "uniform --vertices 5000 --edges 3000"; do
  # shellcheck disable=SC2086
  "$DSANA" graph gen $kind --seed 4 --out g.txt >/dev/null && "$DSANA" graph gen $kind --seed 4 --out g.bin >/dev/null ||
    die "graph gen $kind failed"
  nt=$("$DSANA" graph info g.txt | awk '/^vertices:/ { print $2 }')
  nb=$("$DSANA" graph info g.bin | awk '/^vertices:/ { print $2 }')
  "$DSANA" pagerank g.txt --quiet --out t.tsv --workers 2 && "$DSANA" pagerank g.bin --quiet --out b.tsv --workers 2 ||
    die "pagerank failed"
  if [ "$nt" = "$nb" ] && cmp -s t.tsv b.tsv; then
    pass "gen $kind: text and binary have $nt vertices and identical ranks"
  else
    fail "gen $kind: text $nt vertices, binary $nb; ranks $(cmp -s t.tsv b.tsv && echo identical || echo differ)"
  fi
done
finish
