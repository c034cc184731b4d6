#!/usr/bin/env bash
# test_timeline_picture.sh - bench/tools/timeline.py draws one iteration of a real
# run's --trace as an SVG: a lane per role thread (scheduler, servers,
# workers), the workers' compute and the server's chunks sent and pushes taken
# in, on the iteration's clock; an iteration the trace lacks or a file that is
# not a trace is refused with one line and exit 2.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$T"
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 is missing"
tl=$DSANA_SRC/bench/tools/timeline.py

run_to "$DSANA" graph gen kron --scale 12 --edge-factor 8 --seed 5 --out g.bin >/dev/null ||
  die "graph gen failed"
printf '%s' '{"workers":[{"speed":1},{"speed":0.5}],"ns_per_cost":3,"link":{"bandwidth_mbit":400,"latency_ms":0.1}}' >sc.json
run_to "$DSANA" pagerank g.bin --workers 2 --servers 1 --scenario sc.json --max-iter 6 --tol 0 --quiet \
  --trace t.json >/dev/null || die "the traced run failed"

run_capture pic /usr/bin/python3 "$tl" t.json --out pic.svg
[[ $RC -eq 0 ]] && pass "drawn: $(cat "$T/pic.out")" || fail "timeline.py exit $RC: $(cat "$T/pic.err")"
grep -q '^<svg ' pic.svg && pass "an SVG" || fail "no <svg> element"
for lane in "scheduler 0" "server 0" "worker 0" "worker 1"; do
  grep -q ">$lane</text>" pic.svg && pass "lane $lane" || fail "no lane '$lane'"
done
n_compute=$(grep -c 'fill="#4C78A8" fill-opacity="1"' pic.svg || true)
n_chunks=$(grep -c 'fill="#F58518"' pic.svg || true)
n_pushes=$(grep -c 'fill="#72B7B2"' pic.svg || true)
((n_compute > 0)) && pass "$n_compute compute spans of the iteration" || fail "no compute span drawn"
((n_chunks > 0)) && pass "$n_chunks chunks sent" || fail "no chunk sent drawn"
((n_pushes > 0)) && pass "$n_pushes pushes taken in" || fail "no push taken in drawn"

run_capture noiter /usr/bin/python3 "$tl" t.json --iter 99
[[ $RC -eq 2 && $(stderr_lines "$T/noiter.err") -eq 1 ]] && grep -q "no iteration 99" "$T/noiter.err" &&
  pass "a missing iteration refused: $(cat "$T/noiter.err")" || fail "missing iteration: exit $RC, $(cat "$T/noiter.err")"
echo '{"not": "a trace"}' >bad.json
run_capture bad /usr/bin/python3 "$tl" bad.json
[[ $RC -eq 2 && $(stderr_lines "$T/bad.err") -eq 1 ]] && grep -q "bad.json" "$T/bad.err" &&
  pass "not a trace refused: $(cat "$T/bad.err")" || fail "not a trace: exit $RC, $(cat "$T/bad.err")"
finish
