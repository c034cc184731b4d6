#!/usr/bin/env bash
# test_pagerank_weighted.sh - `dsana pagerank --weighted` follows
# networkx's weighted PageRank (out-weight-normalised transitions;
# multi-edges add up; --dedup keeps the last weight, a DiGraph), checked
# against the independent reference at tol 1e-14 (max abs difference
# < 1e-12) and byte-identical for any workers, servers and mode. Without
# --weighted, extra columns are one warning naming the file, never an
# error; with it, a non-numeric weight is an error naming the line.
# timeout: 40 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# dangling (5, 6), a self loop (4), multi-edges (1->2), isolated in-degree (7)
cat >w.txt <<'G'
# weighted, SNAP-style
1 2 100
1 2 3
1 3 1
2 3 2.5
3 1 1
4 1 0.5
4 4 3
4 5 0.25
7 1 2
7 6 1e-3
G
check_pagerank weighted w.txt --weighted
check_pagerank weighted-dedup w.txt --weighted --dedup
"$DSANA" graph gen kron --scale 7 --edge-factor 8 --seed 5 --weighted --out kw.txt >/dev/null || die "graph gen failed"
check_pagerank weighted-kron kw.txt --weighted
"$DSANA" graph convert kw.txt kw.bin --weighted >/dev/null || die "graph convert failed"
run_capture bin "$DSANA" pagerank kw.bin --weighted --tol 1e-14 --max-iter 1000 --quiet --out kwbin.tsv
[ "$RC" -eq 0 ] && cmp -s kwbin.tsv weighted-kron.1.1.modebsp.tsv && pass "a weighted binary graph gives the same bytes" ||
  fail "weighted binary: rc=$RC $(head -c 200 bin.err)"

# without --weighted: the weights are ignored with one warning naming the file
cut -d' ' -f1,2 w.txt >u.txt
"$REF_PAGERANK" u.txt --tol 1e-14 --max-iter 1000 >u.ref
printf '1 2 foo bar\n' >>w.txt
run_capture unw "$DSANA" pagerank w.txt --tol 1e-14 --max-iter 1000 --quiet --out unw.tsv
if [ "$RC" -eq 0 ] && [ "$(stderr_lines unw.err)" -eq 1 ] && grep -q "w.txt: extra columns" unw.err &&
  "$REF_PAGERANK" --compare unw.tsv <("$REF_PAGERANK" <(cat u.txt; echo "1 2") --tol 1e-14 --max-iter 1000) \
    --max-diff 1e-12 >/dev/null; then
  pass "extra columns without --weighted: one warning ($(cat unw.err)), unweighted ranks"
else
  fail "extra columns without --weighted: rc=$RC $(head -c 300 unw.err)"
fi

# with --weighted: a non-numeric weight names the line
run_capture bad "$DSANA" pagerank w.txt --weighted --quiet
if [ "$RC" -eq 2 ] && grep -q "w.txt:12:.*foo" bad.err; then
  pass "a non-numeric weight under --weighted: $(cat bad.err)"
else
  fail "non-numeric weight: rc=$RC $(head -c 300 bad.err)"
fi
finish
