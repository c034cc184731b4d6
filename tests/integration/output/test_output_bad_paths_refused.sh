#!/usr/bin/env bash
# test_output_bad_paths_refused.sh - every output (--out, --metrics,
# --trace, --checkpoint, logreg --model-out, logreg predict --out) is
# checked before any process starts: an unwritable one, one naming an
# input (also through a link) or two naming one file exit 2 with one line,
# start nothing (no job folder in $TMPDIR) and change nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

printf '1 2\n2 3\n3 1\n3 4\n' >g.txt
cp g.txt g.orig
ln -s g.txt glink
ln g.txt ghard
printf '1 1:0.5\n-1 2:1\n1 1:1 2:0.5\n-1 2:0.25\n' >d.svm

# refused NAME WHAT CMD...: exit 2, one line mentioning WHAT, nothing started or changed
refused() {
  local name=$1 what=$2
  shift 2
  run_capture "$name" "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "$name.err")" -eq 1 ] && grep -q -- "$what" "$name.err" &&
    [ -z "$(ls -A tmp)" ] && cmp -s g.txt g.orig; then
    pass "$name: refused up front: $(cat "$name.err")"
  else
    fail "$name: rc=$RC (expected 2), stderr: $(head -c 300 "$name.err"), tmp: $(ls -A tmp | tr '\n' ' ')"
  fi
}

refused out-dir "no folder /nonexistent/dir" "$DSANA" pagerank g.txt --out /nonexistent/dir/x --max-iter 1000000 --tol 0
refused metrics-dir "--metrics" "$DSANA" pagerank g.txt --metrics /nonexistent/m.jsonl
refused trace-dir "--trace" "$DSANA" pagerank g.txt --trace /nonexistent/t.json
refused ckpt-dir "--checkpoint" "$DSANA" pagerank g.txt --checkpoint /nonexistent/a/b
refused out-is-dir "is a directory" "$DSANA" pagerank g.txt --out tmp
refused out-is-input "is the input GRAPH" "$DSANA" pagerank g.txt --out g.txt
refused out-link-input "is the input GRAPH" "$DSANA" pagerank g.txt --out glink
refused out-hardlink-input "is the input GRAPH" "$DSANA" pagerank ghard --out g.txt
refused out-pers-input "is the input --personalization" "$DSANA" pagerank g.txt --personalization p.txt --out ./p.txt
refused out-metrics-same "name the same file" "$DSANA" pagerank g.txt --out r.tsv --metrics ./r.tsv
refused trace-metrics-same "name the same file" "$DSANA" pagerank g.txt --trace t.json --metrics t.json
refused model-out-dir "--model-out" "$DSANA" logreg d.svm --model-out /nonexistent/m.txt
refused model-out-input "is the input TRAIN" "$DSANA" logreg d.svm --model-out d.svm
refused predict-out-input "is the input DATA" "$DSANA" logreg predict m.txt d.svm --out d.svm

# the same outputs, writable, run
run_capture ok "$DSANA" pagerank g.txt --quiet --out r.tsv --metrics m.jsonl --trace t.json --checkpoint ck
if [ "$RC" -eq 0 ] && [ -s r.tsv ] && [ -s m.jsonl ] && [ -s t.json ] && [ -d ck ]; then
  pass "writable outputs: the run writes them all"
else
  fail "writable outputs: rc=$RC $(head -c 300 ok.err)"
fi
finish
