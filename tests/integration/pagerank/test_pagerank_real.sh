#!/usr/bin/env bash
# test_pagerank_real.sh - `dsana pagerank` on the real SNAP graphs in
# $SHARED_DATA/graphs (*.txt.gz) against the independent reference:
#   - the ranks of each output sum to 1 within 1e-9,
#   - the top-ranked vertex is the same,
#   - the max abs difference per vertex is <= 1e-9.
# dsana runs with --workers 3 --servers 2; both use --tol 1e-10 --max-iter 100
# and the default damping. Skipped (77) when the folder is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

GDIR=${SHARED_DATA:-}/graphs
if [ -z "${SHARED_DATA:-}" ] || [ ! -d "$GDIR" ]; then
  skip "no real graphs: ${GDIR} does not exist (set SHARED_DATA)"
fi
require_bins

TOL=1e-10
MAXIT=100
MAXDIFF=1e-9

shopt -s nullglob
graphs=("$GDIR"/*.txt.gz)
shopt -u nullglob
[ "${#graphs[@]}" -gt 0 ] || skip "no *.txt.gz in $GDIR"

# within1 SUM: |SUM - 1| <= 1e-9
within1() {
  awk -v s="$1" 'BEGIN { d = s - 1; if (d < 0) d = -d; exit !(d <= 1e-9) }'
}

for G in "${graphs[@]}"; do
  name=$(basename "$G" .txt.gz)
  note "$name"
  cmd=("$DSANA" pagerank "$G" --workers 3 --servers 2 --tol "$TOL" --max-iter "$MAXIT" --out "$T/$name.dsana" --quiet)
  run_capture "$name.run" "${cmd[@]}"
  if [ "$RC" -ne 0 ]; then
    fail "$(show_cmd "${cmd[@]}"): expected exit 0, got exit $RC; stderr: $(head -c 500 "$T/$name.run.err")"
    continue
  fi
  if [ ! -s "$T/$name.dsana" ]; then
    fail "$(show_cmd "${cmd[@]}"): expected an output file, got exit 0 and no (or an empty) $T/$name.dsana"
    continue
  fi
  refcmd=("$REF_PAGERANK" "$G" --tol "$TOL" --max-iter "$MAXIT")
  if ! run_to "${refcmd[@]}" >"$T/$name.ref" 2>"$T/$name.ref.err"; then
    fail "reference failed: $(show_cmd "${refcmd[@]}"): $(head -c 500 "$T/$name.ref.err")"
    continue
  fi

  rc=0
  res=$("$REF_PAGERANK" --compare "$T/$name.ref" "$T/$name.dsana" --max-diff "$MAXDIFF" 2>"$T/$name.cmp.err") || rc=$?
  if [ "$rc" -eq 2 ] || [ -z "$res" ]; then
    fail "$name: $(show_cmd "${cmd[@]}"): output not comparable with the reference (exit $rc): $(head -c 500 "$T/$name.cmp.err" | tr '\n' ' ')"
    continue
  fi
  echo "   ref vs dsana: $res"
  if [ "$rc" -eq 0 ]; then
    pass "$name: max abs diff <= $MAXDIFF"
  else
    fail "$name: $(show_cmd "${cmd[@]}"): expected max abs diff <= $MAXDIFF vs reference, got: $res $(head -c 500 "$T/$name.cmp.err" | tr '\n' ' ')"
  fi

  sum_a=$(sed -n 's/.* sum_a=\([^ ]*\) .*/\1/p' <<<"$res")
  sum_b=$(sed -n 's/.* sum_b=\([^ ]*\) .*/\1/p' <<<"$res")
  top_a=$(sed -n 's/.* top_a=\([^ ]*\) .*/\1/p' <<<"$res")
  top_b=$(sed -n 's/.* top_b=\([^ ]*\)$/\1/p' <<<"$res")
  if within1 "$sum_b"; then
    pass "$name: dsana ranks sum to $sum_b"
  else
    fail "$name: $(show_cmd "${cmd[@]}"): expected ranks summing to 1 within 1e-9, got $sum_b"
  fi
  if ! within1 "$sum_a"; then
    fail "$name: reference ranks sum to $sum_a, not 1 within 1e-9 (reference bug)"
  fi
  if [ -n "$top_a" ] && [ "$top_a" = "$top_b" ]; then
    pass "$name: top vertex $top_b"
  else
    fail "$name: $(show_cmd "${cmd[@]}"): expected top vertex $top_a (reference), got $top_b"
  fi
done

finish
