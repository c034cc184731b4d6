#!/usr/bin/env bash
# test_output_replaces_only_files.sh - --out replaces only what is a
# regular file (atomically, keeping its mode, leaving no temporary);
# a symbolic link is followed (the link stays, its target gets the ranks);
# a FIFO and "-" (stdout) are written in place, never replaced; a name
# ending in .gz gets gzip; the same for logreg --model-out and predict
# --out.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

printf '1 2\n2 3\n3 1\n3 4\n4 1\n' >g.txt
"$DSANA" pagerank g.txt --quiet --out ref.tsv >/dev/null 2>&1 || die "reference run failed"

# a regular file: replaced, mode kept, nothing else left in the folder
mkdir d && echo old >d/r.tsv && chmod 640 d/r.tsv
run_capture reg "$DSANA" pagerank g.txt --quiet --out d/r.tsv
if [ "$RC" -eq 0 ] && cmp -s d/r.tsv ref.tsv && [ "$(stat -c %a d/r.tsv)" = 640 ] && [ "$(ls -A d)" = r.tsv ]; then
  pass "a regular file is replaced whole, its mode kept, no temporary left"
else
  fail "regular file: rc=$RC mode $(stat -c %a d/r.tsv) entries: $(ls -A d | tr '\n' ' ')"
fi

# a symbolic link: followed
echo old >target.tsv
ln -s target.tsv link.tsv
run_capture link "$DSANA" pagerank g.txt --quiet --out link.tsv
if [ "$RC" -eq 0 ] && [ -L link.tsv ] && cmp -s target.tsv ref.tsv; then
  pass "--out LINK writes the link's target and keeps the link"
else
  fail "--out LINK: rc=$RC link kept: $([ -L link.tsv ] && echo yes || echo no)"
fi

# a FIFO: written in place, stays a FIFO
mkfifo fifo
cat fifo >from_fifo.tsv &
reader=$!
run_capture fifo "$DSANA" pagerank g.txt --quiet --out fifo
[ -p fifo ] || kill "$reader" 2>/dev/null # replaced: the reader waits for nobody
wait "$reader" || true
if [ "$RC" -eq 0 ] && [ -p fifo ] && cmp -s from_fifo.tsv ref.tsv; then
  pass "--out FIFO is written in place and stays a FIFO"
else
  fail "--out FIFO: rc=$RC fifo kept: $([ -p fifo ] && echo yes || echo no)"
fi

# "-": standard output
run_capture stdout "$DSANA" pagerank g.txt --quiet --out -
cmp -s stdout.out ref.tsv && pass "--out - writes the ranks to stdout" || fail "--out -: rc=$RC"

# .gz: gzip
run_capture gz "$DSANA" pagerank g.txt --quiet --out r.gz
if [ "$RC" -eq 0 ] && gzip -t r.gz 2>/dev/null && cmp -s <(gzip -dc r.gz) ref.tsv; then
  pass "--out ranks.gz writes gzip"
else
  fail "--out r.gz: rc=$RC, $(file r.gz 2>/dev/null)"
fi

# logreg: the model through a link, predictions to a FIFO
printf '1 1:0.5\n-1 2:1\n1 1:1 2:0.5\n-1 2:0.25\n' >d.svm
echo old >model.target
ln -s model.target model.link
run_capture lr "$DSANA" logreg d.svm --quiet --model-out model.link --max-iter 5
mkfifo pfifo
cat pfifo >pred.txt &
reader=$!
run_capture pred "$DSANA" logreg predict model.link d.svm --out pfifo --quiet
[ -p pfifo ] || kill "$reader" 2>/dev/null
wait "$reader" || true
if [ -L model.link ] && grep -q "dsana logreg model" model.target && [ -p pfifo ] && [ "$(wc -l <pred.txt)" -eq 4 ]; then
  pass "logreg --model-out follows a link; predict --out writes a FIFO in place"
else
  fail "logreg outputs: rc=$RC $(head -c 200 lr.err pred.err)"
fi
finish
