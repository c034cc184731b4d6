#!/usr/bin/env bash
# test_pagerank_personalized.sh - `dsana pagerank --personalization FILE`
# (lines "vertex weight", original ids, normalised) follows networkx:
# teleports and dangling mass both go by the vector. Checked against the
# independent reference at tol 1e-14 (< 1e-12), with and without weights,
# byte-identical for any workers, servers and mode; an unknown vertex or a
# negative weight is an error naming the line.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

cat >g.txt <<'G'
10 20
10 30
20 30
30 10
40 10
40 40
40 50
70 10
70 60
G
printf '# teleport to three vertices\n10\t1\n30 2.5\n60 0.5\n' >p.txt
check_pagerank pers g.txt --personalization p.txt
awk '{ print $1, $2, NR }' g.txt >gw.txt
check_pagerank pers-weighted gw.txt --weighted --personalization p.txt
"$DSANA" graph gen kron --scale 7 --edge-factor 8 --seed 9 --out k.txt >/dev/null || die "graph gen failed"
awk 'BEGIN { for (v = 0; v < 128; v += 3) print v, (v % 7) + 0.5 }' >kp.txt
check_pagerank pers-kron k.txt --personalization kp.txt

printf '10 1\n99 2\n' >unknown.txt
run_capture unknown "$DSANA" pagerank g.txt --personalization unknown.txt --quiet
[ "$RC" -eq 2 ] && grep -q "unknown.txt:2" unknown.err && pass "an unknown vertex: $(cat unknown.err)" ||
  fail "unknown vertex: rc=$RC $(head -c 300 unknown.err)"
printf '10 1\n20 -2\n' >negative.txt
run_capture negative "$DSANA" pagerank g.txt --personalization negative.txt --quiet
[ "$RC" -eq 2 ] && grep -q "negative.txt:2" negative.err && pass "a negative weight: $(cat negative.err)" ||
  fail "negative weight: rc=$RC $(head -c 300 negative.err)"
finish
