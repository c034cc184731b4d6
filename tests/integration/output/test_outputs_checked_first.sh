#!/usr/bin/env bash
# test_outputs_checked_first.sh - every output is checked before any work,
# by asking the filesystem (root may write where access() says yes but
# /proc and /sys say no): a bad output gets one line naming the option or
# the path and the reason, and exit 2, in pagerank, graph convert, graph
# gen, data convert and data gen. The file tools refuse an output that is
# one of their inputs (the same file, through a symbolic or a hard link
# too), before any work, and the input is left as it was. And --threads
# takes every value its help allows (up to 1024).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen uniform --vertices 300 --edges 2000 --seed 2 --out e.txt >/dev/null || die "graph gen failed"
"$DSANA" data gen logreg --samples 100 --features 10 --nnz-per-row 3 --seed 1 --out d.svm >/dev/null ||
  die "data gen failed"

# expect_refused NAME PATTERN CMD...: exit 2, one line on stderr matching PATTERN, quickly
expect_refused() {
  local name=$1 pat=$2
  shift 2
  run_capture refused "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "$T/refused.err")" -eq 1 ] && grep -q -- "$pat" "$T/refused.err"; then
    pass "$name: exit 2, '$(cat "$T/refused.err")'"
  else
    fail "$name: exit $RC, stderr: $(head -c 300 "$T/refused.err")"
  fi
}

if [ "$(id -u)" = 0 ] || [ ! -w /proc ]; then
  expect_refused "pagerank --out /proc/version" "/proc/version" "$DSANA" pagerank e.txt --out /proc/version --quiet
  expect_refused "pagerank --out /proc/o.tsv" "/proc" "$DSANA" pagerank e.txt --out /proc/o.tsv --quiet
fi
if [ -d /sys ]; then
  expect_refused "pagerank --out /sys/o.tsv" "/sys" "$DSANA" pagerank e.txt --out /sys/o.tsv --quiet
  expect_refused "graph gen --out /sys/g.bin" "^dsana graph gen uniform: /sys/g.bin" \
    "$DSANA" graph gen uniform --vertices 10 --edges 20 --out /sys/g.bin
fi
expect_refused "graph convert into a missing folder" "^dsana graph convert: nowhere/x.bin: no folder" \
  "$DSANA" graph convert e.txt nowhere/x.bin
expect_refused "data convert into a missing folder" "^dsana data convert: nowhere/x.bin: no folder" \
  "$DSANA" data convert d.svm nowhere/x.bin
expect_refused "graph gen into a missing folder" "^dsana graph gen kron: nowhere/g.bin: no folder" \
  "$DSANA" graph gen kron --scale 8 --out nowhere/g.bin
expect_refused "data gen into a missing folder" "^dsana data gen logreg: nowhere/d.svm: no folder" \
  "$DSANA" data gen logreg --samples 5 --features 5 --nnz-per-row 2 --out nowhere/d.svm

cp e.txt e2.txt
cp d.svm d2.svm
ln -s e2.txt sym.txt
ln e2.txt hard.txt
expect_refused "graph convert IN IN" "refusing to overwrite an input" "$DSANA" graph convert e2.txt e2.txt
expect_refused "graph convert IN symlink-to-IN" "refusing to overwrite an input" "$DSANA" graph convert e2.txt sym.txt
expect_refused "graph convert IN hardlink-to-IN" "refusing to overwrite an input" "$DSANA" graph convert e2.txt hard.txt
expect_refused "data convert IN IN" "refusing to overwrite an input" "$DSANA" data convert d2.svm d2.svm
if cmp -s e.txt e2.txt && cmp -s d.svm d2.svm; then pass "the inputs are unchanged"; else fail "an input changed"; fi
run_capture conv "$DSANA" graph convert e2.txt e2.bin
if [ "$RC" -eq 0 ] && [ -s e2.bin ]; then pass "graph convert to another file works"; else fail "graph convert: exit $RC"; fi

"$DSANA" pagerank e.txt --quiet --out t1.tsv || die "pagerank --threads 1 failed"
for t in 257 1024; do
  run_capture "threads$t" "$DSANA" pagerank e.txt --quiet --threads "$t" --out "t$t.tsv"
  if [ "$RC" -eq 0 ] && cmp -s t1.tsv "t$t.tsv"; then
    pass "--threads $t: runs, the same bytes as 1 thread"
  else
    fail "--threads $t: exit $RC, $(head -c 300 "$T/threads$t.err")"
  fi
done
finish
