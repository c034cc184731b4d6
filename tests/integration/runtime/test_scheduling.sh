#!/usr/bin/env bash
# test_scheduling.sh - dynamic scheduling against stragglers: with a worker
# 4x slower the result is byte-identical to --mode bsp and the straggler
# runs fewer tasks; bad scenario files are refused naming the key.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins

awk 'BEGIN { s = 777; for (i = 0; i < 40000; i++) {
  s = (s * 1103515245 + 12345) % 2147483648; u = s % 5000
  s = (s * 1103515245 + 12345) % 2147483648; v = s % 5000
  print u "\t" v } }' >"$T/g.txt"
"$DSANA" graph convert "$T/g.txt" "$T/g.bin" >/dev/null

# tasks must be long enough for the emulated speeds to show (sleeps have a
# granularity of tens of microseconds): a larger graph for this part
"$DSANA" graph gen kron --scale 14 --edge-factor 16 --seed 3 --out "$T/k.bin" >/dev/null
cat >"$T/straggler.json" <<'J'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}, {"speed": 0.25}], "time_scale": 40}
J
common=(--workers 4 --servers 2 --tol 1e-12 --max-iter 30 --quiet --scenario "$T/straggler.json")
run_capture bsp "$DSANA" pagerank "$T/k.bin" "${common[@]}" --mode bsp --out "$T/bsp.out" --metrics "$T/bsp.jsonl"
[ "$RC" -eq 0 ] || die "bsp run failed: $(cat "$T/bsp.err")"
run_capture dsana "$DSANA" pagerank "$T/k.bin" "${common[@]}" --mode dsana --out "$T/dsana.out" \
  --metrics "$T/dsana.jsonl"
[ "$RC" -eq 0 ] || die "dsana run failed: $(cat "$T/dsana.err")"
if cmp -s "$T/bsp.out" "$T/dsana.out"; then
  pass "--mode dsana with a 4x straggler is byte-identical to --mode bsp"
else
  fail "--mode dsana output differs from --mode bsp"
fi

# tasks per worker summed over iterations (after the first, which has no
# speed estimates yet)
tasks_of() { # file worker
  awk -v w="$2" -F'[,:}]' '/"type":"worker"/ {
    for (i = 1; i < NF; i++) { if ($i ~ /"worker"$/) wk = $(i+1); if ($i ~ /"tasks"$/) t = $(i+1); if ($i ~ /"iter"$/) it = $(i+1) }
    if (wk == w && it > 1) sum += t } END { print sum + 0 }' "$1"
}
# time_scale keeps the emulated time well above the real compute, so that
# a busy host (tests run in parallel) cannot make a fast worker look slow
slow=$(tasks_of "$T/dsana.jsonl" 3)
fast=$(( ($(tasks_of "$T/dsana.jsonl" 0) + $(tasks_of "$T/dsana.jsonl" 1) + $(tasks_of "$T/dsana.jsonl" 2)) / 3 ))
slow_bsp=$(tasks_of "$T/bsp.jsonl" 3)
fast_bsp=$(tasks_of "$T/bsp.jsonl" 0)
if [ "$slow" -lt "$fast" ] && [ "$slow_bsp" -eq "$fast_bsp" ]; then
  pass "the straggler ran fewer tasks under dsana ($slow vs $fast on average for a fast worker; bsp: $slow_bsp vs $fast_bsp)"
else
  fail "task counts: dsana straggler $slow fast $fast, bsp straggler $slow_bsp fast $fast_bsp"
fi
if grep -q '"stolen"' "$T/dsana.jsonl" && grep -q '"speed_est"' "$T/dsana.jsonl" && grep -q '"bound_s"' "$T/dsana.jsonl"; then
  pass "metrics carry stolen, speed_est and bound_s"
else
  fail "metrics lack stolen/speed_est/bound_s"
fi

# Transient stragglers change timing only.
cat >"$T/transient.json" <<'J'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}],
 "transient": {"probability": 0.3, "slowdown": 4, "seed": 3}}
J
run_capture tr "$DSANA" pagerank "$T/k.bin" --workers 3 --servers 1 --tol 1e-12 --max-iter 30 --quiet \
  --scenario "$T/transient.json" --mode dsana --out "$T/tr.out"
if [ "$RC" -eq 0 ] && cmp -s "$T/bsp.out" "$T/tr.out"; then
  pass "transient stragglers under dsana, 3 workers: byte-identical"
else
  fail "transient run: rc=$RC $(head -c 300 "$T/tr.err")"
fi

# Many tasks per worker: under static scheduling a worker is handed all of
# its tasks at once (and with chunks runs them all together, then the next
# iteration's provisionally): 1500 of them once overflowed a fixed
# 1024-entry queue, dropped tasks and hung. Same answer in every mode.
run_capture many_ref "$DSANA" pagerank "$T/g.bin" --workers 1 --servers 1 --max-iter 3 --quiet --mode bsp \
  --out "$T/many_ref.out"
[ "$RC" -eq 0 ] || die "reference run failed: $(cat "$T/many_ref.err")"
for args in "--sched static --chunk off" "--sched static --chunk 4K" "--sched dynamic --chunk 4K"; do
  # shellcheck disable=SC2086
  run_capture many "$DSANA" pagerank "$T/g.bin" --workers 1 --servers 1 --max-iter 3 --quiet --tasks-per-worker 1500 \
    $args --out "$T/many.out"
  if [ "$RC" -eq 0 ] && cmp -s "$T/many_ref.out" "$T/many.out" && ! grep -q "dropped TASK" "$T/many.err"; then
    pass "1500 tasks on one worker ($args): byte-identical, no task dropped"
  else
    fail "1500 tasks on one worker ($args): rc=$RC $(head -c 300 "$T/many.err")"
  fi
done

# Bad scenario files: exit 2, one line naming the key.
check_bad() { # name json expected-substring
  printf '%s' "$2" >"$T/$1.json"
  run_capture "bad_$1" "$DSANA" pagerank "$T/g.bin" --workers 2 --quiet --scenario "$T/$1.json"
  local lines
  lines=$(stderr_lines "$T/bad_$1.err")
  if [ "$RC" -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$3" "$T/bad_$1.err"; then
    pass "scenario $1 refused: $(cat "$T/bad_$1.err")"
  else
    fail "scenario $1: rc=$RC lines=$lines: $(cat "$T/bad_$1.err")"
  fi
}
check_bad badkey '{"workers": [{"sped": 1}, {"speed": 1}]}' "sped"
check_bad negative '{"workers": [{"speed": -1}, {"speed": 1}]}' "workers\[0\].speed"
check_bad json '{"workers": [{"speed": 1},' "invalid JSON"
check_bad short '{"workers": [{"speed": 1}]}' "1 entr"
finish
