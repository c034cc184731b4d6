#!/usr/bin/env bash
# test_emulated_items_held.sh - on an emulated cluster whose modelled task
# time dwarfs the real one, a worker runs each task's hook on its control
# thread and holds the task there until its modelled end (emulate/hold.h)
# instead of handing it to a compute thread that sleeps it out. Checks that
# the hold really ran (the trace marks held items "compute,held"), that a
# worker of one thread never runs two items at once (held or not), that real
# computation, with no model, is never held, and that the ranks are
# byte-identical to plain BSP on real threads.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 12 --seed 5 --out k.bin >/dev/null || die "graph gen failed"
cat >slow.json <<'J'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}, {"speed": 0.25}], "ns_per_cost": 3, "time_scale": 64}
J
run_capture held "$DSANA" pagerank k.bin --workers 4 --servers 2 --threads 1 --mode dsana --tol 0 --max-iter 8 \
  --quiet --scenario slow.json --trace held.json --out held.tsv
[ "$RC" -eq 0 ] || die "emulated run failed: $(head -c 300 held.err)"
run_capture plain "$DSANA" pagerank k.bin --workers 2 --servers 1 --mode bsp --tol 0 --max-iter 8 --quiet \
  --trace plain.json --out plain.tsv
[ "$RC" -eq 0 ] || die "plain run failed: $(head -c 300 plain.err)"

n_held=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "task" and .cat == "compute,held")] | length' held.json)
n_all=$(jq '[.traceEvents[] | select(.ph == "X" and .name == "task")] | length' held.json)
note "emulated run: $n_held of $n_all tasks held"
[ "$n_held" -gt 0 ] && [ "$n_held" -ge $((n_all / 2)) ] && pass "most emulated tasks were held ($n_held of $n_all)" ||
  fail "emulated tasks were not held: $n_held of $n_all"

# per worker lane: its items never overlap, held or on the pool (one thread a worker)
overlaps=$(jq '[.traceEvents[] | select(.ph == "X" and (.name == "task" or .name == "block" or .name == "task end"))]
  | group_by([.pid, .tid])
  | map(sort_by(.ts) | [range(1; length) as $i | select(.[$i].ts < .[$i - 1].ts + .[$i - 1].dur - 1)] | length) | add // 0' held.json)
[ "$overlaps" -eq 0 ] && pass "a worker's items follow one another" || fail "$overlaps items overlap the one before"

n_plain=$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "compute,held")] | length' plain.json)
[ "$n_plain" -eq 0 ] && pass "real computation is never held" || fail "$n_plain items held without a model"

cmp -s held.tsv plain.tsv && pass "ranks byte-identical to plain BSP" || fail "ranks differ from plain BSP"
finish
