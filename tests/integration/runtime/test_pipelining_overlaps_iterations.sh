#!/usr/bin/env bash
# test_pipelining_overlaps_iterations.sh - pipelining across iterations,
# seen in the trace. A fast and a slow worker (speeds 1 and 0.1, a modelled
# 1 Gbit/s link), static scheduling, 16 KiB chunks: the fast worker finishes
# iteration t first and fetches t+1's input chunk by chunk as the servers
# finish it, so in iterations after the first (at least 2 of 2..4: a loaded
# host may delay one), a transfer of t+1 ("chunk send" / "piece in")
# starts, and a block of t+1 is computed, before the last compute of t
# ends. The ranks stay the plain run's bytes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 13 --seed 1 --out k.bin >/dev/null || die "graph gen failed"
cat >het.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 0.1}], "link": {"bandwidth_mbit": 1000, "latency_ms": 0.2},
 "ns_per_cost": 3, "time_scale": 32}
JSON
"$DSANA" pagerank k.bin --max-iter 5 --tol 0 --quiet --out plain.tsv || die "plain run failed"
run_capture pipe "$DSANA" pagerank k.bin --mode bsp --chunk 16384 --scenario het.json --max-iter 5 --tol 0 --quiet \
  --trace t.json --out pipe.tsv
[ "$RC" -eq 0 ] || die "pipelined run failed: $(head -c 300 pipe.err)"
cmp -s plain.tsv pipe.tsv && pass "the plain run's bytes" || fail "pipelined run: ranks differ from the plain run"
# per iteration t: (end of t's last compute) - (start of t+1's first transfer), in microseconds
overlaps=$(jq -r '[.traceEvents[] | select(.ph == "X")] as $e | range(2; 5) as $t |
  ([$e[] | select((.name == "block" or .name == "task") and .args.iter == $t) | .ts + .dur] | max) -
  ([$e[] | select((.name == "chunk send" or .name == "piece in") and .args.iter == $t + 1) | .ts] | min)' t.json |
  tr '\n' ' ')
if [ -n "$overlaps" ] && awk -v o="$overlaps" 'BEGIN { n = split(o, v, " "); k = 0; for (i = 1; i <= n; i++) k += v[i] > 0; exit !(n == 3 && k >= 2) }'; then
  pass "iterations 2..4: t+1's transfers start ${overlaps}us before t's compute ends"
else
  fail "no overlap of t+1's transfers with t's compute (us, per iteration 2..4): '$overlaps'"
fi
# and computed: a block of t+1 runs before the last compute of t ends
ahead=$(jq -r '[.traceEvents[] | select(.ph == "X")] as $e | range(2; 5) as $t |
  ([$e[] | select((.name == "block" or .name == "task") and .args.iter == $t) | .ts + .dur] | max) -
  ([$e[] | select(.name == "block" and .args.iter == $t + 1) | .ts] | min)' t.json | tr '\n' ' ')
if [ -n "$ahead" ] && awk -v o="$ahead" 'BEGIN { n = split(o, v, " "); k = 0; for (i = 1; i <= n; i++) k += v[i] > 0; exit !(n == 3 && k >= 2) }'; then
  pass "iterations 2..4: a block of t+1 computed ${ahead}us before t's compute ends"
else
  fail "no block of t+1 computed before t's compute ended (us, per iteration 2..4): '$ahead'"
fi
finish
