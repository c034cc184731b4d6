#!/usr/bin/env bash
# test_ref_networkx.sh - the reference PageRank (tests/ref/) against networkx,
# for the features the reference has networkx's semantics for: edge weights
# (multi-edges summed, or --dedup's last weight = a DiGraph), undirected
# input (Graph / MultiGraph), personalization (teleport and dangling mass
# both follow it), dangling and isolated vertices, and dsana's dense-id
# edge lists (`dsana graph gen --weighted --out g.txt`).
#
# networkx runs with tol=1e-14, max_iter=1000: nx.pagerank when scipy is
# installed, else networkx's own pure-Python power iteration
# (pagerank_alg._pagerank_python, the same method and semantics). Graphs are
# read with networkx's own readers (read_weighted_edgelist / read_edgelist).
# Skips (exit 77) when /usr/bin/python3 cannot import networkx
# (apt-get install python3-networkx).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

PY=/usr/bin/python3
[ -x "$PY" ] && "$PY" -c 'import networkx' 2>/dev/null ||
  skip "$PY cannot import networkx (apt-get install -y --no-install-recommends python3-networkx)"

TOL=1e-14
MAXIT=1000
MAXDIFF=1e-10

cat >nx_pagerank.py <<'EOF'
# nx_pagerank.py GRAPH KIND WEIGHTED PERS NODES: networkx's PageRank of GRAPH
# read as KIND (DiGraph, MultiDiGraph, Graph, MultiGraph), weighted or not,
# personalization file PERS or '-', vertices 0..NODES-1 added (0: none);
# prints "vertex<TAB>rank" (%.12g) in ascending vertex id.
import sys
import networkx as nx
from networkx.algorithms.link_analysis import pagerank_alg

path, kind, weighted, pers_path, nodes = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4], int(sys.argv[5])
cls = getattr(nx, kind)
if weighted:
    G = nx.read_weighted_edgelist(path, create_using=cls, nodetype=int)
else:
    G = nx.read_edgelist(path, create_using=cls, nodetype=int, data=False)
G.add_nodes_from(range(nodes))
pers = None
if pers_path != "-":
    pers = {}
    for line in open(pers_path):
        f = line.split()
        if f and not f[0].startswith("#"):
            pers[int(f[0])] = float(f[1])
args = dict(alpha=0.85, personalization=pers, max_iter=1000, tol=1e-14, weight="weight" if weighted else None)
try:
    import scipy  # noqa: F401  nx.pagerank needs it
    pr = nx.pagerank(G, **args)
    how = "nx.pagerank"
except ImportError:
    pr = pagerank_alg._pagerank_python(G, **args)
    how = "pagerank_alg._pagerank_python (no scipy)"
for v in sorted(pr):
    print("%d\t%.12g" % (v, pr[v]))
print(how, file=sys.stderr)
EOF

# check NAME GRAPH KIND WEIGHTED PERS NODES -- REF_ARGS...
check() {
  local name=$1 graph=$2 kind=$3 weighted=$4 pers=$5 nodes=$6
  shift 7
  if ! "$PY" nx_pagerank.py "$graph" "$kind" "$weighted" "$pers" "$nodes" >"$name.nx.tsv" 2>"$name.nx.err"; then
    fail "$name: networkx failed: $(tail -n 3 "$name.nx.err" | tr '\n' ' ')"
    return
  fi
  local ref=("$REF_PAGERANK" "$graph" --tol "$TOL" --max-iter "$MAXIT" "$@")
  if ! run_to "${ref[@]}" >"$name.ref.tsv" 2>"$name.ref.err"; then
    fail "$name: $(show_cmd "${ref[@]}"): $(head -c 300 "$name.ref.err")"
    return
  fi
  local res rc=0
  res=$("$REF_PAGERANK" --compare "$name.nx.tsv" "$name.ref.tsv" --max-diff "$MAXDIFF" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ]; then
    pass "$name: ref_pagerank $* vs networkx $kind ($(tail -n 1 "$name.nx.err")): $res"
  else
    fail "$name: $(show_cmd "${ref[@]}") vs networkx $kind: expected max abs diff <= $MAXDIFF, got: $res"
  fi
}

# w.txt: weighted, a duplicate pair (1->2 0.5 then 0.25), a self loop, 5 and 6 dangling.
printf '# weighted\n1 2 0.5\n1 3 2\n2 3 1.5\n3 1 4\n1 2 0.25\n4 4 1\n4 5 3\n2 6 1\n3 4 0.125\n' >w.txt
# p.txt: directed, unweighted, 7 and 9 dangling; pers.txt teleports to three vertices (one weight 0).
printf '0 1\n1 2\n2 0\n2 3\n3 4\n4 2\n4 7\n5 6\n6 5\n6 9\n8 0\n' >p.txt
printf '# personalization\n2 3\n5 1\n9 0\n' >pers.txt
printf '0 1 2\n1 2 0.5\n2 0 1\n2 3 4\n3 4 1\n4 2 1\n4 7 0.25\n5 6 1\n6 5 3\n6 9 1\n8 0 1\n' >pw.txt
# u.txt: undirected, weighted, a self loop, 1-2 listed both ways (parallel edges in a MultiGraph).
printf '1 2 1.5\n2 3 2\n3 1 1\n3 4 0.5\n4 4 2\n2 1 0.5\n5 4 1\n' >u.txt

note "weighted"
check weighted w.txt MultiDiGraph 1 - 0 -- --weighted
check weighted_dedup w.txt DiGraph 1 - 0 -- --weighted --dedup
note "personalized (with dangling vertices)"
check personalized p.txt DiGraph 0 pers.txt 0 -- --personalization pers.txt
check personalized_weighted pw.txt DiGraph 1 pers.txt 0 -- --weighted --personalization pers.txt
note "undirected"
check undirected u.txt MultiGraph 1 - 0 -- --undirected --weighted
check undirected_dedup u.txt Graph 1 - 0 -- --undirected --weighted --dedup
cut -d' ' -f1,2 u.txt >u2.txt
check undirected_unweighted u2.txt MultiGraph 0 - 0 -- --undirected
note "dsana graph gen --weighted: dense ids, isolated vertices"
if "$DSANA" graph gen uniform --vertices 300 --edges 600 --seed 9 --weighted --out g.txt >gen.out 2>gen.err; then
  check gen_weighted g.txt MultiDiGraph 1 - 300 -- --weighted
  printf '0 1\n17 2.5\n299 0.5\n' >gpers.txt
  check gen_personalized g.txt MultiDiGraph 1 gpers.txt 300 -- --weighted --personalization gpers.txt
else
  fail "dsana graph gen --weighted: $(head -c 300 gen.err)"
fi
finish
