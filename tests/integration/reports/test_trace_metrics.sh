#!/usr/bin/env bash
# test_trace_metrics.sh - --trace writes one Chrome trace-event JSON file
# with a track per role and well-formed spans; --metrics writes the JSON
# lines the README promises.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins
command -v jq >/dev/null || skip "jq is not installed (scripts/deps.sh installs it)"

"$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 2 --out "$T/g.bin" >/dev/null
run_capture run "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 2 --mode dsana --chunk 2K --tol 1e-9 --quiet \
  --trace "$T/trace.json" --metrics "$T/m.jsonl"
[ "$RC" -eq 0 ] || die "run failed: $(cat "$T/run.err")"
# with an emulated link, chunks travel as messages
printf '{"workers": [{"speed": 1}, {"speed": 1}], "link": {"bandwidth_mbit": 10000, "latency_ms": 0.1}}' >"$T/link.json"
run_capture link "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 2 --mode dsana --chunk 2K --tol 1e-9 --quiet \
  --trace "$T/link.trace.json" --scenario "$T/link.json" --metrics "$T/link.jsonl"
[ "$RC" -eq 0 ] || die "linked run failed: $(cat "$T/link.err")"
# Pulls carry the contributions of vertices with out-edges only (the others are
# read by no task): 8 bytes each, plus a 48-byte header per piece (1024 keys in
# chunks of 256 keys, 2 servers: 4 pieces, and one of the next iteration's at most).
dangling=$("$DSANA" graph info "$T/g.bin" | awk '/^dangling_vertices:/ {print $2}')
read_bytes=$(((1024 - dangling) * 8))
got=$(jq -s '[.[] | select(.type == "worker" and .iter == 2) | .bytes_in] | max' "$T/link.jsonl")
if [ "$dangling" -gt 0 ] && [ "$got" -ge "$read_bytes" ] && [ "$got" -le $((read_bytes + 10 * 48)) ]; then
  pass "a worker pulls $got bytes per iteration: 8 x $((1024 - dangling)) vertices with out-edges + headers ($dangling dangling vertices not sent)"
else
  fail "bytes pulled per iteration: $got, expected 8 x $((1024 - dangling)) = $read_bytes plus headers"
fi
n=$(jq '[.traceEvents[] | select(.name == "chunk send")] | length' "$T/link.trace.json")
[ "$n" -gt 0 ] && pass "with an emulated link: $n 'chunk send' spans" || fail "no chunk sends with a link"

if jq -e '.traceEvents | length > 0' "$T/trace.json" >/dev/null; then
  pass "trace is valid JSON with events"
else
  fail "trace is not valid JSON with events"
fi
bad=$(jq '[.traceEvents[] | select(.ph == "X") | select((.ts < 0) or (.dur < 0) or (.args.iter == null))] | length' \
  "$T/trace.json")
[ "$bad" -eq 0 ] && pass "every span has start <= end and an iteration" || fail "$bad malformed spans"
tracks=$(jq -r '[.traceEvents[] | select(.name == "thread_name") | .args.name] | sort | join(",")' "$T/trace.json")
if [ "$tracks" = "scheduler 0,server 0,server 1,worker 0,worker 1" ]; then
  pass "one track per role: $tracks"
else
  fail "tracks: $tracks"
fi
for name in iteration block push finish "shared buffer answer"; do
  n=$(jq --arg n "$name" '[.traceEvents[] | select(.name == $n)] | length' "$T/trace.json")
  [ "$n" -gt 0 ] && pass "spans named '$name': $n" || fail "no '$name' spans"
done
ls "$T"/trace.json.part.* >/dev/null 2>&1 && fail "part files left behind" || pass "part files merged and removed"

iters=$(jq -s '[.[] | select(.type == "iteration")] | length' "$T/m.jsonl")
workers=$(jq -s '[.[] | select(.type == "worker")] | length' "$T/m.jsonl")
summary=$(jq -s '[.[] | select(.type == "summary")][0]' "$T/m.jsonl")
if [ "$iters" -gt 0 ] && [ "$workers" -eq $((2 * iters)) ] &&
  jq -e '.iterations > 0 and .mode == "dsana" and .chunk_bytes == 2048 and (.bound_s | type) == "number"' \
    <<<"$summary" >/dev/null; then
  pass "metrics: $iters iteration lines, $workers worker lines, a summary"
else
  fail "metrics: iters=$iters workers=$workers summary=$summary"
fi
# A cost model (scenario ns_per_cost) fixes the emulated compute: an iteration's
# work is (edges + vertices) x ns_per_cost x time_scale, spread over the speeds,
# for whole tasks (bsp) and for tasks run block by block (chunks) alike.
printf '{"workers": [{"speed": 1}, {"speed": 0.5}], "ns_per_cost": 2500, "time_scale": 2}' >"$T/cost.json"
want=$(awk 'BEGIN { printf "%.9f", (8192 + 1024) * 2500e-9 * 2 / 1.5 }')
for args in "--mode bsp" "--mode dsana --chunk 2K"; do
  # shellcheck disable=SC2086
  run_capture cost "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 2 $args --max-iter 5 --tol 0 --quiet \
    --scenario "$T/cost.json" --metrics "$T/cost.jsonl"
  [ "$RC" -eq 0 ] || die "cost-model run ($args) failed: $(cat "$T/cost.err")"
  got=$(jq -s -r '[.[] | select(.type == "summary")][0].bound_s' "$T/cost.jsonl")
  if awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; exit !(d < 0.01 * w && -d < 0.01 * w) }'; then
    pass "cost model ($args): bound_s $got = (edges + vertices) x ns_per_cost x time_scale / sum(speed) = $want"
  else
    fail "cost model ($args): bound_s $got, want $want"
  fi
done

keys=$(jq -s -r '[.[] | select(.type == "worker")][0] | keys | join(",")' "$T/m.jsonl")
[ "$keys" = "bytes_in,bytes_in_raw,bytes_out,compute_s,iter,overlap_s,overrun_s,speed_est,stolen,tasks,type,wait_s,worker" ] &&
  pass "worker lines carry $keys" || fail "worker keys: $keys"
finish
