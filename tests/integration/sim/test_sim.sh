#!/usr/bin/env bash
# test_sim.sh - `dsana sim` end to end from the command line: --help; a
# --tasks job at W = 64 and W = 1024 simulated workers (metrics lines: one
# per iteration and per worker, every task once per iteration, a summary
# with median_iter_s and bound_s, efficiency in (0, 1]); the same command
# twice writes the same metrics file; a generated graph as the job, named
# with its app or not, and another app's (logreg) job; dynamic
# scheduling ahead of bsp under a straggler (simulated time, not the
# host's), and 64 equal workers on long iterations stealing nothing (the
# roles' CPU as this machine's profile says); and bad input: exit 2 and
# exactly one line on stderr naming the file (and line) or the option, and
# a projection larger than the memory available refused with what it needs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
[ -x "${DSANA:-}" ] || die "DSANA is not set to an executable"
command -v jq >/dev/null || skip "jq is not installed"
cd "$T"

# ---- --help ----------------------------------------------------------------
run_capture help "$DSANA" sim --help
if [ "$RC" -eq 0 ] && grep -q -- '--tasks FILE' help.out && grep -q -- '--profile FILE' help.out &&
  grep -q -- '--costs FILE' help.out && grep -q 'docs/sim.md' help.out; then
  pass "--help: usage with --tasks, --profile (--costs) and docs/sim.md"
else
  fail "--help: exit $RC; $(head -c 300 help.out)"
fi

# tasks N FILE [UNIT]: N tasks of costs UNIT..2 x UNIT (fixed pseudo-random; default
# 1e5), 4 keys each
tasks() {
  awk -v n="$1" -v u="${3:-100000}" 'BEGIN { x = 7; for (i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648; printf "%d 4\n", u + (x % 100000) * u / 100000 } }' >"$2"
}
# speeds W FILE [SLOW]: a scenario of W workers, every 8th at speed SLOW (default 1)
speeds() {
  jq -n --argjson w "$1" --argjson slow "${3:-1}" \
    '{workers: [range($w) | {speed: (if . % 8 == 7 then $slow else 1 end)}],
      link: {bandwidth_mbit: 10000, latency_ms: 0.1}, ns_per_cost: 3, time_scale: 1}' >"$2"
}

# check_metrics NAME W TASKS ITERS: the metrics file NAME.jsonl of a run
check_metrics() {
  local name=$1 w=$2 n=$3 iters=$4 m=$1.jsonl why=
  [ -s "$m" ] || why="no metrics file"
  [ -n "$why" ] || [ "$(jq -s '[.[] | select(.type == "iteration")] | length' "$m")" -eq "$iters" ] ||
    why="not $iters iteration lines"
  [ -n "$why" ] || [ "$(jq -s '[.[] | select(.type == "worker")] | length' "$m")" -eq $((iters * w)) ] ||
    why="not $((iters * w)) worker lines"
  [ -n "$why" ] || jq -se --argjson n "$n" '[.[] | select(.type == "worker")] | group_by(.iter)
      | all(map(.tasks) | add == $n)' "$m" >/dev/null || why="an iteration did not run every task once"
  [ -n "$why" ] || jq -se '[.[] | select(.type == "summary")] | length == 1 and (.[0].median_iter_s > 0)
      and (.[0].bound_s > 0) and (.[0].bound_s <= .[0].median_iter_s * 1.000001)' "$m" >/dev/null ||
    why="summary without a median_iter_s >= bound_s > 0"
  if [ -z "$why" ]; then
    pass "$name: W=$w, $n tasks, $iters iterations: metrics complete, efficiency $(jq -rs \
      '.[] | select(.type == "summary") | .bound_s / .median_iter_s * 1000 | round / 1000' "$m")"
  else
    fail "$name: $why"
  fi
}

# ---- W = 64 and W = 1024 ------------------------------------------------------
tasks 512 t512.txt
speeds 64 s64.json
for mode in bsp dsana; do
  run_capture "w64_$mode" "$DSANA" sim --tasks t512.txt --workers 64 --servers 4 --mode "$mode" \
    --scenario s64.json --max-iter 4 --metrics "w64_$mode.jsonl"
  if [ "$RC" -eq 0 ] && grep -q "^sim: efficiency .* largest task" "w64_$mode.out"; then
    check_metrics "w64_$mode" 64 512 4
  else
    fail "W=64 $mode: exit $RC: $(head -n 2 "w64_$mode.err")"
  fi
done

tasks 4096 t4096.txt
speeds 1024 s1024.json
for mode in bsp dsana; do
  run_capture "w1024_$mode" "$DSANA" sim --tasks t4096.txt --workers 1024 --servers 16 --mode "$mode" \
    --scenario s1024.json --max-iter 3 --metrics "w1024_$mode.jsonl" --quiet
  if [ "$RC" -eq 0 ] && [ ! -s "w1024_$mode.out" ]; then
    check_metrics "w1024_$mode" 1024 4096 3
  else
    fail "W=1024 $mode: exit $RC (--quiet: nothing on stdout): $(head -n 2 "w1024_$mode.err")"
  fi
done

# ---- deterministic -------------------------------------------------------------
for k in 1 2; do
  run_capture "det$k" "$DSANA" sim --tasks t512.txt --workers 64 --servers 4 --mode dsana --scenario s64.json \
    --max-iter 3 --noise 0.4 --seed 5 --metrics "det$k.jsonl" --quiet
done
run_capture det3 "$DSANA" sim --tasks t512.txt --workers 64 --servers 4 --mode dsana --scenario s64.json \
  --max-iter 3 --noise 0.4 --seed 6 --metrics det3.jsonl --quiet
if [ -s det1.jsonl ] && cmp -s det1.jsonl det2.jsonl && ! cmp -s det1.jsonl det3.jsonl; then
  pass "same command, same seed: identical metrics; another seed: different"
else
  fail "determinism: seed 5 twice $(cmp det1.jsonl det2.jsonl 2>&1 | head -n 1), seed 6 $(cmp -s det1.jsonl det3.jsonl &&
    echo same || echo differs)"
fi

# --opt=value, as every command takes it: the simulator's own options (--tasks,
# --seed, --noise, --costs, --host-cores) and the run's alike
printf '{"host_cores": 2}\n' >c2.json
run_capture det_eq "$DSANA" sim --tasks=t512.txt --workers=64 --servers 4 --mode=dsana --scenario=s64.json \
  --max-iter=3 --noise=0.4 --seed=5 --metrics=det_eq.jsonl --quiet
run_capture det_eq_costs "$DSANA" sim --tasks t512.txt --workers 64 --servers 4 --costs=c2.json --host-cores=3 \
  --max-iter 1 --quiet
if [ "$RC" -eq 0 ] && [ -s det_eq.jsonl ] && cmp -s det1.jsonl det_eq.jsonl; then
  pass "--opt=value: the same metrics as --opt value"
else
  fail "--opt=value: exit $RC, $(cmp det1.jsonl det_eq.jsonl 2>&1 | head -n 1) $(head -c 300 det_eq.err det_eq_costs.err)"
fi

# a machine's profile: --profile and its older name --costs read the same file
printf '{"profile_version": 1, "sched_msg_s": 2e-4, "worker_msg_s": 2e-4}\n' >prof.json
run_capture prof_default "$DSANA" sim --tasks t512.txt --workers 8 --max-iter 3 --metrics prof0.jsonl --quiet
run_capture prof_profile "$DSANA" sim --tasks t512.txt --workers 8 --max-iter 3 --profile prof.json \
  --metrics prof1.jsonl --quiet
run_capture prof_costs "$DSANA" sim --tasks t512.txt --workers 8 --max-iter 3 --costs prof.json \
  --metrics prof2.jsonl --quiet
m0=$(jq -r 'select(.type == "summary") | .median_iter_s' prof0.jsonl 2>/dev/null || echo x)
m1=$(jq -r 'select(.type == "summary") | .median_iter_s' prof1.jsonl 2>/dev/null || echo y)
if [ "$RC" -eq 0 ] && cmp -s prof1.jsonl prof2.jsonl && awk -v a="$m0" -v b="$m1" 'BEGIN { exit !(b > a) }'; then
  pass "--profile: its costs taken (median $m0 -> $m1 s), the same as --costs"
else
  fail "--profile: median $m0 -> $m1 s, $(cmp prof1.jsonl prof2.jsonl 2>&1 | head -n 1) $(head -c 300 prof_profile.err)"
fi

# ---- a graph as the job --------------------------------------------------------
run_capture gen "$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 1 --out g.bin
run_capture graph "$DSANA" sim g.bin --workers 8 --servers 2 --mode dsana --max-iter 3 --metrics graph.jsonl
if [ "$RC" -eq 0 ]; then
  check_metrics graph 8 "$(jq -s '.[] | select(.type == "summary") | .tasks' graph.jsonl)" 3
else
  fail "sim GRAPH: exit $RC: $(head -n 2 graph.err)"
fi

# ---- any app's job: APP ARGS ------------------------------------------------------
# the default app named or not, the same run; another app's job simulates too
run_capture graph_named "$DSANA" sim pagerank g.bin --workers 8 --servers 2 --mode dsana --max-iter 3 \
  --metrics graph_named.jsonl
if [ "$RC" -eq 0 ] && cmp -s graph.jsonl graph_named.jsonl; then
  pass "sim pagerank GRAPH: the same metrics as sim GRAPH"
else
  fail "sim pagerank GRAPH: exit $RC, $(cmp graph.jsonl graph_named.jsonl 2>&1 | head -n 1)"
fi
run_capture gen_lr "$DSANA" data gen logreg --samples 400 --features 20 --nnz-per-row 5 --seed 1 --out lr.bin
run_capture lr "$DSANA" sim logreg lr.bin --workers 4 --servers 2 --max-iter 3 --metrics lr.jsonl
if [ "$RC" -eq 0 ]; then
  check_metrics lr 4 "$(jq -s '.[] | select(.type == "summary") | .tasks' lr.jsonl)" 3
else
  fail "sim logreg DATA: exit $RC: $(head -n 2 lr.err)"
fi

# ---- dynamic scheduling ahead of bsp under stragglers --------------------------
# tasks of 3-6 ms on a fast worker: compute, not per-message costs, sets the pace
tasks 512 t512big.txt 1000000
speeds 64 slow64.json 0.25
for mode in bsp dsana; do
  run_capture "slow_$mode" "$DSANA" sim --tasks t512big.txt --workers 64 --servers 4 --mode "$mode" \
    --scenario slow64.json --max-iter 3 --metrics "slow_$mode.jsonl" --quiet
done
med() { jq -r '.[] | select(.type == "summary") | .median_iter_s' <(jq -s . "$1"); }
if [ -s slow_bsp.jsonl ] && [ -s slow_dsana.jsonl ] &&
  awk -v b="$(med slow_bsp.jsonl)" -v d="$(med slow_dsana.jsonl)" 'BEGIN { exit !(d < 0.6 * b) }'; then
  pass "stragglers at 1/4 speed: dsana $(med slow_dsana.jsonl) s < 0.6 x bsp $(med slow_bsp.jsonl) s"
else
  fail "stragglers: dsana $(med slow_dsana.jsonl 2>/dev/null) s vs bsp $(med slow_bsp.jsonl 2>/dev/null) s"
fi

# ---- compute threads ---------------------------------------------------------------
# A worker's --threads run its tasks side by side, each at the worker's speed: 4
# workers of 4 threads take the time of 16 workers of one (not of 4), with the
# scheduler messages of 4 workers (reports wait for the worker's last thread).
for wt in "16 1" "4 4" "4 1"; do
  set -- $wt
  jq -n --argjson w "$1" '{workers: [range($w) | {speed: 1}], link: {bandwidth_mbit: 10000, latency_ms: 0.1},
    ns_per_cost: 3, time_scale: 1}' >"threads$1.json"
  run_capture "threads_$1_$2" "$DSANA" sim --tasks t512big.txt --workers "$1" --threads "$2" --servers 4 \
    --mode dsana --scenario "threads$1.json" --max-iter 4 --metrics "threads_$1_$2.jsonl" --quiet
done
msgs() { jq -s -c '[.[] | select(.type == "iteration") | .scheduler_messages]' "$1" 2>/dev/null; }
m16=$(med threads_16_1.jsonl 2>/dev/null) m44=$(med threads_4_4.jsonl 2>/dev/null) m41=$(med threads_4_1.jsonl 2>/dev/null)
if [ -n "$m16" ] && [ -n "$m44" ] && [ -n "$m41" ] &&
  awk -v a="$m44" -v b="$m16" -v c="$m41" 'BEGIN { exit !(a < 1.1 * b && a > 0.9 * b && a < 0.3 * c) }' &&
  [ "$(msgs threads_4_4.jsonl)" = "$(msgs threads_4_1.jsonl)" ] && [ "$(msgs threads_4_1.jsonl)" != "[]" ]; then
  pass "4 workers x 4 threads: $m44 s an iteration, 16 x 1: $m16 s, 4 x 1: $m41 s; scheduler messages $(msgs threads_4_4.jsonl) as 4 x 1"
else
  fail "threads: 4 x 4 $m44 s, 16 x 1 $m16 s, 4 x 1 $m41 s (want 4 x 4 within 10 % of 16 x 1, under 0.3 x 4 x 1);" \
    "messages 4 x 4 $(msgs threads_4_4.jsonl), 4 x 1 $(msgs threads_4_1.jsonl) (want equal)"
fi

# ---- equal workers on long iterations steal nothing ------------------------------
# 64 workers of one speed, iterations of ~4 s (time_scale 1024), this machine's
# message costs and its 2 cores (--local): the scheduler may refill a worker
# four times an iteration, so each holds a quarter of its share; a worker
# whose own queue is empty may steal only to keep its thread busy and one
# task ahead. When thieves topped their whole depth up from others' queues
# they held those tasks where nobody could take them back: 90 steals in 10
# iterations, victims idle up to 0.74 s of 4.1, 0.906 of the bound.
jq -n '{workers: [range(64) | {speed: 1}], ns_per_cost: 3, time_scale: 1024}' >equal64.json
printf '{"profile_version": 1, "net_msg_s": 4e-05, "sched_msg_s": 1.4e-05, "server_msg_s": 1.4e-05,
  "worker_msg_s": 1.4e-05, "worker_ns_per_cost": 1.7822, "worker_task_s": 5.27556e-06}\n' >machine.json
run_capture equal "$DSANA" sim --tasks t512.txt --workers 64 --servers 2 --mode dsana --scenario equal64.json \
  --max-iter 10 --profile machine.json --local --host-cores 2 --metrics equal.jsonl --quiet
steals=$(jq -s '[.[] | select(.type == "worker") | .stolen] | add' equal.jsonl 2>/dev/null || echo x)
eff=$(jq -r 'select(.type == "summary") | .bound_s / .median_iter_s' equal.jsonl 2>/dev/null || echo 0)
if [ "$RC" -eq 0 ] && [ "$steals" = 0 ] && awk -v e="$eff" 'BEGIN { exit !(e >= 0.95) }'; then
  pass "64 equal workers, long iterations: no steal, $eff of the bound"
else
  fail "64 equal workers, long iterations: exit $RC, $steals steals, $eff of the bound (want 0 and >= 0.95)"
fi

# ---- bad input -------------------------------------------------------------------
printf '1e5\n2e5 3\nabc\n' >bad_line.txt
printf '1e5\n0\n' >zero.txt
printf '# only a comment\n\n' >empty.txt
printf '1e5 0\n' >zero_keys.txt
echo '{"bogus_s": 1}' >bad_costs.json
echo '{"sched_msg_s": -1}' >neg_costs.json
echo '{"profile_version": 7, "sched_msg_s": 1e-5}' >old_profile.json
echo '{"workers": [' >trunc.json

# expect_bad CASE WORDS ARGS...: exit 2, one line on stderr containing WORDS
expect_bad() {
  local case=$1 words=$2
  shift 2
  run_capture "bad_$case" "$DSANA" sim "$@"
  local nl
  nl=$(stderr_lines "bad_$case.err")
  if [ "$RC" -eq 2 ] && [ "$nl" -eq 1 ] && grep -qF -- "$words" "bad_$case.err"; then
    pass "bad input $case: exit 2, '$(cat "bad_$case.err")'"
  else
    fail "bad input $case ($(show_cmd "$@")): exit $RC, $nl lines, expected '$words': $(head -c 300 "bad_$case.err")"
  fi
}
expect_bad missing_tasks "nosuch.txt" --tasks nosuch.txt --workers 4
expect_bad bad_line "bad_line.txt:3" --tasks bad_line.txt
expect_bad zero_cost "zero.txt:2" --tasks zero.txt
expect_bad zero_keys "zero_keys.txt:1" --tasks zero_keys.txt
expect_bad empty "empty.txt: no tasks" --tasks empty.txt
expect_bad missing_graph "nosuch.bin" nosuch.bin
expect_bad tasks_and_app "takes no app" logreg --tasks t512.txt
expect_bad no_job "GRAPH" --workers 4
expect_bad workers "--workers" --tasks t512.txt --workers 0
expect_bad mode "--mode" --tasks t512.txt --mode fastest
expect_bad noise "--noise" --tasks t512.txt --noise -1
expect_bad seed "--seed" --tasks t512.txt --seed x
expect_bad unknown "--bogus" --tasks t512.txt --bogus
expect_bad costs_value "--costs" --tasks t512.txt --costs
expect_bad costs_missing "nosuch.json" --tasks t512.txt --costs nosuch.json
expect_bad costs_key "bad_costs.json" --tasks t512.txt --costs bad_costs.json
expect_bad costs_negative "neg_costs.json" --tasks t512.txt --costs neg_costs.json
expect_bad profile_version "old_profile.json: profile_version: 7" --tasks t512.txt --profile old_profile.json
expect_bad profile_value "--profile" --tasks t512.txt --profile
expect_bad profile_and_costs "given twice" --tasks t512.txt --profile c2.json --costs c2.json
expect_bad scenario_short "s64.json: workers" --tasks t512.txt --workers 65 --scenario s64.json
expect_bad scenario_json "trunc.json" --tasks t512.txt --workers 2 --scenario trunc.json
expect_bad max_iter "--max-iter" --tasks t512.txt --max-iter 0
expect_bad seed_eq "--seed: invalid value 'x'" --tasks t512.txt --seed=x
expect_bad seed_eq_empty "missing value for '--seed'" --tasks t512.txt --seed=
expect_bad seed_eq_twice "--seed given twice" --tasks t512.txt --seed=1 --seed 2
expect_bad local_eq "--local takes no value" --tasks t512.txt --local=1
# a projection the machine cannot hold (DSANA_SIM_MEMORY stands in for a small
# machine): refused before any work, saying how much it needs
export DSANA_SIM_MEMORY=100000
expect_bad memory "the projection needs about" --tasks t512.txt --workers 1024 --servers 16
unset DSANA_SIM_MEMORY

finish
