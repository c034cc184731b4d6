#!/usr/bin/env bash
# test_pagerank_threads_identical.sh - threads inside workers change no
# byte. `dsana pagerank` with --threads 1..4 x workers {1,3} x servers
# {1,2} x --mode bsp|dsana is byte-identical to the reference layout
# (1 worker, 1 thread, bsp) and that matches the independent reference;
# also under a scenario with a modelled link (no fused contribution pass)
# and with the default layout (1 worker x all cores). The scheduler's
# summary names the workers it ran.
# timeout: 60 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 10 --edge-factor 8 --seed 4 --out k.txt >/dev/null || die "graph gen kron failed"
"$DSANA" graph gen uniform --vertices 1500 --edges 9000 --seed 2 --out u.txt >/dev/null || die "graph gen uniform failed"
cat >link.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 0.5}, {"speed": 0.25}],
 "link": {"bandwidth_mbit": 2000, "latency_ms": 0.05}, "ns_per_cost": 1, "time_scale": 1}
JSON
PR=(--tol 1e-13 --max-iter 200 --quiet)

for G in k.txt u.txt; do
  run_capture "$G.base" "$DSANA" pagerank "$G" "${PR[@]}" --workers 1 --threads 1 --mode bsp --out "$G.base.tsv"
  [ "$RC" -eq 0 ] || { fail "$G: base run failed: $(head -c 300 "$G.base.err")"; continue; }
  "$REF_PAGERANK" "$G" --tol 1e-13 --max-iter 200 >"$G.ref" || die "ref_pagerank $G failed"
  if res=$("$REF_PAGERANK" --compare "$G.base.tsv" "$G.ref" --max-diff 1e-12 2>&1); then
    pass "$G: 1 worker x 1 thread vs ref_pagerank: $res"
  else
    fail "$G: 1 worker x 1 thread vs ref_pagerank: $res"
  fi
  runs=0 bad=0
  for mode in bsp dsana; do
    for T_ in 1 2 3 4; do
      for W in 1 3; do
        for S in 1 2; do
          out="$G.$mode.$T_.$W.$S.tsv"
          run_capture "${out%.tsv}" "$DSANA" pagerank "$G" "${PR[@]}" --mode "$mode" --threads "$T_" --workers "$W" \
            --servers "$S" --out "$out"
          runs=$((runs + 1))
          if [ "$RC" -ne 0 ] || ! cmp -s "$G.base.tsv" "$out"; then
            bad=$((bad + 1))
            fail "$G --mode $mode --threads $T_ --workers $W --servers $S: rc=$RC, not byte-identical: $(head -c 300 "${out%.tsv}.err")"
          fi
        done
      done
    done
  done
  [ "$bad" -eq 0 ] && pass "$G: $runs runs (threads 1..4 x workers 1,3 x servers 1,2 x bsp/dsana) byte-identical"
  for T_ in 1 3; do
    run_capture "$G.link$T_" "$DSANA" pagerank "$G" "${PR[@]}" --scenario link.json --threads "$T_" --out "$G.link$T_.tsv"
    if [ "$RC" -eq 0 ] && cmp -s "$G.base.tsv" "$G.link$T_.tsv"; then
      pass "$G: modelled link, 3 stragglers x $T_ threads: byte-identical"
    else
      fail "$G: modelled link x $T_ threads: rc=$RC, differs: $(head -c 300 "$G.link$T_.err")"
    fi
  done
done

# the default layout on one machine: 1 worker that uses every core
run_capture dflt "$DSANA" pagerank u.txt "${PR[@]}" --out dflt.tsv --metrics dflt.jsonl
if [ "$RC" -eq 0 ] && cmp -s u.txt.base.tsv dflt.tsv && tail -n 1 dflt.jsonl | jq -e '.workers == 1' >/dev/null; then
  pass "default layout: 1 worker ($(nproc) cores), byte-identical"
else
  fail "default layout: rc=$RC workers=$(tail -n 1 dflt.jsonl | jq .workers) $(head -c 300 dflt.err)"
fi
for bad in 0 1025 two; do
  run_capture "bad$bad" "$DSANA" pagerank u.txt --threads "$bad"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "bad$bad.err")" -eq 1 ] && grep -q -- "--threads" "bad$bad.err"; then
    pass "--threads $bad: $(cat "bad$bad.err")"
  else
    fail "--threads $bad: want exit 2 and one line naming --threads, got rc=$RC: $(head -c 300 "bad$bad.err")"
  fi
done
finish
