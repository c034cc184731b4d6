#!/usr/bin/env bash
# test_resume_refuses_changed_options.sh - --resume refuses, with exit 2
# and one line before any process starts, what would not continue the
# checkpointed run: another value of a result-defining option (--damping,
# --tol, --dedup ...), another input (different contents; a copy under
# another name is fine), an input added or missing, another app, and a
# --max-iter at or below the checkpoint's iteration. Options that do not
# change the values (workers, mode, --top, --out ...) may change, and the
# resumed run ends with the uninterrupted run's bytes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp
"$DSANA" graph gen kron --scale 9 --seed 3 --out g.txt >/dev/null || die "graph gen failed"
"$DSANA" graph gen kron --scale 9 --seed 4 --out other.txt >/dev/null || die "graph gen failed"
printf '0 1\n5 2\n' >p.txt
run=(--tol 0 --quiet --top 0)
"$DSANA" pagerank g.txt "${run[@]}" --max-iter 12 --workers 2 --checkpoint ck --checkpoint-every 5 --out full.tsv ||
  die "checkpointed run failed"
[ -f ck/manifest ] || die "no checkpoint written"

refused() {
  local name=$1 want=$2
  shift 2
  run_capture "$name" "$DSANA" pagerank "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "$name.err")" -eq 1 ] && grep -qF -- "$want" "$name.err" && [ -z "$(ls -A tmp)" ]; then
    pass "$name: $(cat "$name.err")"
  else
    fail "$name: rc=$RC (expected 2), wanted '$want': $(head -c 300 "$name.err")"
  fi
}
refused damping "--damping 0.5, but the checkpoint's run had --damping 0.85" g.txt "${run[@]}" --max-iter 12 --resume ck --damping 0.5
refused tol "--tol 1e-3" g.txt --quiet --max-iter 12 --resume ck --tol 1e-3
refused dedup "had no --dedup" g.txt "${run[@]}" --max-iter 12 --resume ck --dedup
refused graph "other.txt is not the checkpoint's input ($T/g.txt" other.txt "${run[@]}" --max-iter 12 --resume ck
refused pers "had no --personalization" g.txt "${run[@]}" --max-iter 12 --resume ck --personalization p.txt
refused cap "--max-iter 10: the checkpoint in ck is at iteration 10" g.txt "${run[@]}" --max-iter 10 --resume ck
run_capture app "$DSANA" logreg g.txt --resume ck --quiet
[ "$RC" -eq 2 ] && grep -q "checkpoint of 'pagerank'" app.err && pass "another app: $(cat app.err)" ||
  fail "another app: rc=$RC $(head -c 200 app.err)"

cp g.txt moved.txt
run_capture ok "$DSANA" pagerank moved.txt "${run[@]}" --max-iter 12 --resume ck --workers 3 --servers 1 --mode bsp \
  --damping .85 --out resumed.tsv
[ "$RC" -eq 0 ] && cmp -s resumed.tsv full.tsv &&
  pass "the same input under another name, other workers, mode and spelling: the uninterrupted run's bytes" ||
  fail "valid resume: rc=$RC $(head -c 300 ok.err)"
finish
