#!/usr/bin/env bash
# test_compressed_outputs.sh - a name ending in ".gz" is written gzip by
# every output, as the README says: --out (pagerank ranks, logreg
# predictions), --model-out, --metrics and --trace. The compressed file
# holds what the plain one holds (metrics: the same lines and fields; the
# trace: a JSON document with the same events; a .gz model reads back in
# `logreg predict` and predicts exactly as the plain one).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 10 --seed 3 --out g.bin >/dev/null || die "graph gen failed"
"$DSANA" data gen logreg --samples 400 --features 20 --nnz-per-row 5 --seed 1 --out d.svm >/dev/null ||
  die "data gen failed"

is_gzip() { [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' ')" = 1f8b ]; }

run_capture pr "$DSANA" pagerank g.bin --quiet --max-iter 8 --tol 0 --out r.tsv.gz --metrics m.jsonl.gz --trace t.json.gz
[ "$RC" -eq 0 ] || die "pagerank with .gz outputs: exit $RC: $(head -c 300 pr.err)"
for f in r.tsv.gz m.jsonl.gz t.json.gz; do
  if is_gzip "$f"; then pass "$f is gzip"; else fail "$f is not gzip"; fi
done
"$DSANA" pagerank g.bin --quiet --max-iter 8 --tol 0 --out r.tsv --metrics m.jsonl --trace t.json 2>/dev/null ||
  die "pagerank with plain outputs failed"
if zcat r.tsv.gz | cmp -s - r.tsv; then pass "ranks: the .gz holds the plain bytes"; else fail "ranks differ"; fi
fields() { jq -c '[.type, (keys | sort)]' | sort | uniq -c; }
if [ "$(zcat m.jsonl.gz | fields)" = "$(fields <m.jsonl)" ] && [ "$(zcat m.jsonl.gz | wc -l)" = "$(wc -l <m.jsonl)" ]; then
  pass "metrics: the .gz has the same lines and fields"
else
  fail "metrics: the .gz differs in lines or fields"
fi
n_gz=$(zcat t.json.gz | jq '.traceEvents | length') || n_gz=bad
n_plain=$(jq '.traceEvents | length' t.json) || n_plain=bad
if [ "$n_gz" != bad ] && [ "$n_gz" -gt 0 ] && [ "$(zcat t.json.gz | jq -c '[.traceEvents[].name] | unique')" = \
  "$(jq -c '[.traceEvents[].name] | unique' t.json)" ]; then
  pass "trace: the .gz is one JSON document with the same kinds of events ($n_gz and $n_plain events)"
else
  fail "trace: the .gz is not the same trace ($n_gz vs $n_plain events)"
fi

"$DSANA" logreg d.svm --quiet --max-iter 20 --model-out model.txt 2>/dev/null || die "logreg (plain model) failed"
"$DSANA" logreg d.svm --quiet --max-iter 20 --model-out model.txt.gz 2>/dev/null || die "logreg (.gz model) failed"
if is_gzip model.txt.gz && zcat model.txt.gz | cmp -s - model.txt; then
  pass "--model-out model.txt.gz: gzip of the plain model"
else
  fail "--model-out model.txt.gz: not gzip of the plain model"
fi
run_capture p1 "$DSANA" logreg predict model.txt d.svm --out p1.tsv
run_capture p2 "$DSANA" logreg predict model.txt.gz d.svm --out p2.tsv.gz
if [ "$RC" -eq 0 ] && is_gzip p2.tsv.gz && zcat p2.tsv.gz | cmp -s - p1.tsv && cmp -s p1.out p2.out; then
  pass "logreg predict reads the .gz model: the same predictions and accuracy"
else
  fail "logreg predict with the .gz model: exit $RC, $(head -c 200 p2.err)"
fi

# a model asked about what it never saw says so, as training's --test does
"$DSANA" data gen logreg --samples 300 --features 30 --nnz-per-row 5 --classes 3 --seed 2 --out d3.svm >/dev/null ||
  die "data gen (3 classes) failed"
run_capture p3 "$DSANA" logreg predict model.txt d3.svm --out p3.tsv
if [ "$RC" -eq 0 ] && grep -q "rows have a label the model never saw" p3.err && grep -q "features up to 30" p3.err; then
  pass "logreg predict on unseen labels and features: warned ($(grep -c warning p3.err) lines)"
else
  fail "logreg predict on unseen labels: exit $RC, stderr: $(head -c 300 p3.err)"
fi
finish
