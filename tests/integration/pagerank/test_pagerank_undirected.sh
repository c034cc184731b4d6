#!/usr/bin/env bash
# test_pagerank_undirected.sh - `dsana pagerank --undirected` reads each
# edge u v as u->v and v->u (a self loop once), as igraph and networkx's
# undirected graphs do; checked against the independent reference at tol
# 1e-14 (< 1e-12), weighted too, byte-identical for any workers, servers
# and mode. A binary graph is already arcs: refused.
# timeout: 80 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

printf '1 2\n2 3\n3 3\n4 1\n5 6\n1 2\n' >g.txt
check_pagerank undirected g.txt --undirected
check_pagerank undirected-dedup g.txt --undirected --dedup
printf '1 2 0.5\n2 3 2\n3 3 1\n4 1 4\n5 6 1\n' >gw.txt
check_pagerank undirected-weighted gw.txt --undirected --weighted
"$DSANA" graph gen uniform --vertices 100 --edges 400 --seed 4 --out u.txt >/dev/null || die "graph gen failed"
check_pagerank undirected-uniform u.txt --undirected

"$DSANA" graph convert g.txt g.bin >/dev/null || die "graph convert failed"
run_capture bin "$DSANA" pagerank g.bin --undirected --quiet
[ "$RC" -eq 2 ] && grep -q "undirected" bin.err && pass "--undirected on a binary graph: $(cat bin.err)" ||
  fail "--undirected on binary: rc=$RC $(head -c 300 bin.err)"
finish
