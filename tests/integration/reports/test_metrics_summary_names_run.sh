#!/usr/bin/env bash
# test_metrics_summary_names_run.sh - the metrics summary names the input
# (path, vertices and edges; rows and features for logreg), every app
# option's value (defaults included) and dsana's version; the trace's
# timestamps start at 0; --out ranks.gz is gzip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
"$DSANA" graph gen kron --scale 9 --seed 3 --out g.bin >/dev/null || die "graph gen failed"

run_capture pr "$DSANA" pagerank g.bin --workers 2 --quiet --damping 0.8 --metrics m.jsonl --trace t.json --out r.gz
s=$(tail -n 1 m.jsonl)
if [ "$RC" -eq 0 ] && jq -e '.type == "summary" and .input.path == "g.bin" and .input.vertices == 512 and
  .input.edges == 8192 and .options.damping == 0.8 and .options.tol == 1e-6 and .options["max-iter"] == 100 and
  .options.weighted == false and (.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$"))' <<<"$s" >/dev/null; then
  pass "pagerank summary: $(jq -c '{input, options, version}' <<<"$s")"
else
  fail "pagerank summary: rc=$RC $s"
fi
t0=$(jq '[.traceEvents[] | select(.ts != null) | .ts] | min' t.json)
[ "$t0" = 0 ] && pass "the trace starts at 0" || fail "the trace's first timestamp is $t0"
gzip -t r.gz 2>/dev/null && [ "$(gzip -dc r.gz | wc -l)" -eq 512 ] && pass "--out r.gz is gzip, 512 lines" ||
  fail "--out r.gz: $(head -c 20 r.gz | od -c | head -n 1)"

printf '1 1:0.5\n-1 2:1\n1 1:1 2:0.5\n-1 2:0.25\n' >d.svm
run_capture lr "$DSANA" logreg d.svm --quiet --metrics lm.jsonl --max-iter 5
[ "$RC" -eq 0 ] && tail -n 1 lm.jsonl | jq -e '.input.path == "d.svm" and .input.rows == 4 and .input.features == 2 and
  .options.l2 == 1' >/dev/null && pass "logreg summary: $(tail -n 1 lm.jsonl | jq -c '{input, options}')" ||
  fail "logreg summary: rc=$RC $(tail -n 1 lm.jsonl)"
finish
