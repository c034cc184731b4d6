#!/usr/bin/env bash
# test_chunking.sh - chunked transfers change timing only: byte-identical
# output across chunk sizes (one key, odd sizes, larger than the table),
# server counts and modes; bad --chunk values are refused.
# timeout: 60 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins

"$DSANA" graph gen kron --scale 11 --edge-factor 8 --seed 9 --out "$T/g.bin" >/dev/null
run_capture base "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 1 --mode bsp --tol 1e-12 --quiet --out "$T/base.out"
[ "$RC" -eq 0 ] || die "baseline failed: $(cat "$T/base.err")"
for chunk in 8 24 4K 5000 64K auto 1G off; do
  for s in 1 3; do
    run_capture "c$chunk.$s" "$DSANA" pagerank "$T/g.bin" --workers 3 --servers "$s" --mode dsana --chunk "$chunk" \
      --tol 1e-12 --quiet --out "$T/c.$chunk.$s"
    if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/c.$chunk.$s"; then
      pass "--chunk $chunk with $s server(s): identical to bsp"
    else
      fail "--chunk $chunk with $s server(s): rc=$RC $(head -c 300 "$T/c$chunk.$s.err")"
    fi
  done
done
run_capture st "$DSANA" pagerank "$T/g.bin" --workers 2 --sched static --chunk 4K --tol 1e-12 --quiet --out "$T/st.out"
if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/st.out"; then
  pass "chunking alone (static scheduling): identical"
else
  fail "chunking alone: rc=$RC"
fi
# Running ahead with one task a worker: the next instance of a task starts
# as soon as it finishes, so a push still borrowing the worker's buffer
# must leave first. Every iteration's residual (the servers' finish over
# the pushed ranks) is bsp's, not only the converged ranks.
run_capture tb "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 1 --mode bsp --tol 0 --max-iter 12 --quiet \
  --metrics "$T/tb.jsonl" --out "$T/tb.out"
residuals() { jq -r 'select(.type == "iteration") | .residual' "$1" | tr '\n' ' '; }
want=$(residuals "$T/tb.jsonl")
for args in "--workers 1 --servers 1 --chunk 8" "--workers 3 --servers 2 --chunk 8" "--workers 2 --servers 1 --chunk 4K"; do
  bad=0
  for run in 1 2 3; do
    # shellcheck disable=SC2086
    run_capture "ta.$run" "$DSANA" pagerank "$T/g.bin" $args --sched static --tasks-per-worker 1 --tol 0 \
      --max-iter 12 --quiet --metrics "$T/ta.jsonl" --out "$T/ta.out"
    [ "$RC" -eq 0 ] && [ "$(residuals "$T/ta.jsonl")" = "$want" ] && cmp -s "$T/tb.out" "$T/ta.out" || bad=$((bad + 1))
  done
  [ "$bad" -eq 0 ] && pass "static, one task a worker, $args: every iteration's residual is bsp's (3 runs)" ||
    fail "static, one task a worker, $args: $bad of 3 runs strayed from bsp's residuals"
done
# With an emulated link, transfers go as messages and workers fetch the next
# iteration's input across the barrier, also with one chunk as large as the
# table (what auto picks for a small table): still identical.
printf '{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "link": {"bandwidth_mbit": 2000, "latency_ms": 0.2}}' \
  >"$T/link.json"
for chunk in auto 1G 4K; do
  for sched in static dynamic; do
    run_capture "l$chunk.$sched" "$DSANA" pagerank "$T/g.bin" --workers 3 --servers 2 --sched "$sched" --chunk "$chunk" \
      --tol 1e-12 --quiet --scenario "$T/link.json" --out "$T/l.$chunk.$sched" --metrics "$T/l.$chunk.$sched.jsonl"
    mech=$(grep -o '"mechanisms":"[a-z+]*"' "$T/l.$chunk.$sched.jsonl" 2>/dev/null || true)
    if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/l.$chunk.$sched" && grep -q chunking <<<"$mech" &&
      [ "$(stderr_lines "$T/l$chunk.$sched.err")" -eq 0 ]; then
      pass "--chunk $chunk --sched $sched over an emulated link: identical, $mech, no warnings"
    else
      fail "--chunk $chunk --sched $sched over a link: rc=$RC $mech $(head -c 300 "$T/l$chunk.$sched.err")"
    fi
  done
done
for bad in 0 abc 4X -8 3; do
  run_capture "bad$bad" "$DSANA" pagerank "$T/g.bin" --chunk "$bad" --quiet
  if [ "$RC" -eq 2 ] && grep -q -- "--chunk" "$T/bad$bad.err"; then
    pass "--chunk $bad refused"
  else
    fail "--chunk $bad: rc=$RC $(cat "$T/bad$bad.err")"
  fi
done
finish
