#!/usr/bin/env bash
# test_cli_default_mode_is_dsana.sh - `dsana pagerank G` runs DSANA itself
# (dynamic scheduling, --chunk auto), --mode bsp the baseline (static,
# whole tables), --help states both defaults, and the ranks are
# byte-identical either way.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 10 --seed 7 --out g.bin >/dev/null || die "graph gen failed"

summary() { tail -n 1 "$1" | jq -r '"\(.mode) \(.sched)"'; }

run_capture def "$DSANA" pagerank g.bin --workers 2 --quiet --out def.tsv --metrics def.jsonl
[ "$RC" -eq 0 ] || die "default run failed: $(head -c 300 def.err)"
if [ "$(summary def.jsonl)" = "dsana dynamic" ]; then
  pass "the default is --mode dsana with dynamic scheduling"
else
  fail "the default run's summary says '$(summary def.jsonl)', expected 'dsana dynamic'"
fi

run_capture bsp "$DSANA" pagerank g.bin --workers 2 --quiet --out bsp.tsv --metrics bsp.jsonl --mode bsp
if [ "$RC" -eq 0 ] && [ "$(summary bsp.jsonl)" = "bsp static" ] &&
  [ "$(tail -n 1 bsp.jsonl | jq -r .mechanisms)" = none ]; then
  pass "--mode bsp is the baseline: static scheduling, whole tables"
else
  fail "--mode bsp: rc=$RC summary '$(summary bsp.jsonl 2>/dev/null)'"
fi
cmp -s def.tsv bsp.tsv && pass "default and --mode bsp ranks are byte-identical" || fail "default and bsp ranks differ"

"$DSANA" pagerank --help >help.txt
if grep -q -- '--mode dsana|bsp .*dsana (default)' help.txt && grep -q -- '--chunk .*auto.*default.*off.*bsp' help.txt; then
  pass "--help states the defaults of --mode and --chunk"
else
  fail "--help does not state the defaults: $(grep -E -- '--(mode|chunk) ' help.txt | tr '\n' ' ')"
fi
finish
