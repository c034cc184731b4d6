#!/usr/bin/env bash
# test_pagerank_not_converged_warns.sh - a run stopped by --max-iter above
# --tol warns on stderr (and its summary says "converged": false); a
# converged run and a --tol 0 run (a fixed number of iterations asked for)
# do not warn.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
"$DSANA" graph gen kron --scale 9 --seed 3 --out g.bin >/dev/null || die "graph gen failed"

run_capture cap "$DSANA" pagerank g.bin --quiet --max-iter 3 --tol 1e-9 --metrics cap.jsonl
if [ "$RC" -eq 0 ] && grep -q "warning: not converged: --max-iter 3 stopped the run at residual .* above --tol 1e-09" cap.err &&
  [ "$(tail -n 1 cap.jsonl | jq .converged)" = false ]; then
  pass "stopped by --max-iter: $(cat cap.err)"
else
  fail "stopped by --max-iter: rc=$RC $(head -c 300 cap.err)"
fi
run_capture conv "$DSANA" pagerank g.bin --quiet --tol 1e-6 --metrics conv.jsonl
[ "$RC" -eq 0 ] && [ ! -s conv.err ] && [ "$(tail -n 1 conv.jsonl | jq .converged)" = true ] &&
  pass "a converged run: no warning" || fail "converged run: rc=$RC $(head -c 200 conv.err)"
run_capture fixed "$DSANA" pagerank g.bin --quiet --tol 0 --max-iter 3
[ "$RC" -eq 0 ] && [ ! -s fixed.err ] && pass "--tol 0 (fixed iterations): no warning" ||
  fail "--tol 0: rc=$RC $(head -c 200 fixed.err)"
finish
