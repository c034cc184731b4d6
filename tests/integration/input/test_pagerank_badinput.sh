#!/usr/bin/env bash
# test_pagerank_badinput.sh - `dsana pagerank` on bad input: each case must
# exit 2, print exactly one line on stderr that names the file (and the line,
# where there is one), and leave no file at --out.
#
# Cases: missing file; random bytes named .gz (with and without a gzip
# magic); a truncated gzip; a non-numeric field; a negative id; a one-field
# line; an empty graph (comments only); a truncated binary graph; a binary
# graph with a patched version field; bad option values.
# timeout: 20 s (CTest; about three times its run time on a busy 2-core machine)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# expect_bad CASE FILE LINE KEYWORD ARGS...
#   runs: $DSANA pagerank ARGS... --out out.CASE
#   FILE:    a string stderr must contain (the file name), or "" for none
#   LINE:    the line number stderr must name ("FILE:LINE" or "line LINE"),
#            or "" for none
#   KEYWORD: another string stderr must contain (e.g. the option), or ""
expect_bad() {
  local case=$1 file=$2 line=$3 keyword=$4
  shift 4
  local out="out.$case"
  rm -f "$out"
  local cmd=("$DSANA" pagerank "$@" --out "$out")
  local shown
  shown=$(show_cmd "${cmd[@]}")
  run_capture "$case" "${cmd[@]}"
  local err="$case.err"
  refusal_problems "$err" "$file" "$line" "$keyword"
  local problems=("${PROBLEMS[@]}")
  if [ -e "$out" ]; then
    problems+=("left a file at --out ($out, $(wc -c <"$out") bytes)")
  fi
  if [ "${#problems[@]}" -eq 0 ]; then
    pass "$case: exit 2: $(head -n 1 "$err")"
  else
    local p joined=""
    for p in "${problems[@]}"; do joined+="$p; "; done
    fail "$case: $shown: ${joined}stderr was: $(head -c 600 "$err" | sed 's/$/\\n/' | tr -d '\n')"
  fi
}

# rand_bytes N SEED: N deterministic pseudo-random bytes on stdout. Each
# byte in this shell (printf -v): a $(...) per byte forked 4096 subshells,
# which took most of this test's time, and bash reseeds RANDOM in every
# subshell, so the bytes were not the seed's.
rand_bytes() {
  local n=$1 i hex fmt=""
  RANDOM=$2
  for ((i = 0; i < n; i++)); do
    printf -v hex '\\x%02x' $((RANDOM % 256))
    fmt+=$hex
  done
  printf %b "$fmt"
}

# ------------------------------------------------------------ inputs
# A valid graph (a ring plus chords, 2000 edges) for the option cases and
# for the gzip and binary corruptions.
awk 'BEGIN { for (i = 0; i < 1000; i++) { print i "\t" (i + 1) % 1000; print i "\t" (i * 7 + 3) % 1000 } }' >good.txt
printf '0 1\n1 2\n2 0\n' >small.txt

rand_bytes 4096 12345 >random.gz
{ printf '\x1f\x8b\x08\x00'; rand_bytes 4092 777; } >badmagic.txt.gz
gzip -n -c good.txt >good.txt.gz
full=$(wc -c <good.txt.gz)
head -c $((full / 2)) good.txt.gz >truncated.txt.gz

printf '# non-numeric field on line 3\n1 2\n1 x\n2 1\n' >nonnumeric.txt
printf '1 2\n2 3\n-3 1\n' >negative.txt
printf '1 2\n3\n2 1\n' >onefield.txt
printf '# only comments\n# FromNodeId\tToNodeId\n' >empty.txt

# ------------------------------------------------------------- cases
note "text and gzip inputs"
expect_bad missing no-such-graph.txt "" "" no-such-graph.txt
expect_bad random_gz random.gz "" "" random.gz
expect_bad badmagic_gz badmagic.txt.gz "" "" badmagic.txt.gz
expect_bad truncated_gz truncated.txt.gz "" "" truncated.txt.gz
expect_bad nonnumeric nonnumeric.txt 3 "" nonnumeric.txt
expect_bad negative negative.txt 3 "" negative.txt
expect_bad onefield onefield.txt 2 "" onefield.txt
expect_bad empty empty.txt "" "" empty.txt

note "binary inputs"
run_capture convert "$DSANA" graph convert good.txt good.bin
if [ "$RC" -ne 0 ] || [ ! -s good.bin ]; then
  fail "$(show_cmd "$DSANA" graph convert good.txt good.bin): expected exit 0 and good.bin, got exit $RC; stderr: $(head -c 500 convert.err)"
else
  # The converted file itself must work, so the failures below are the
  # corruption's.
  run_capture good_bin "$DSANA" pagerank good.bin --out out.good_bin --quiet
  if [ "$RC" -eq 0 ] && [ -s out.good_bin ]; then
    pass "good.bin (from graph convert) runs"
  else
    fail "$(show_cmd "$DSANA" pagerank good.bin --out out.good_bin --quiet): expected exit 0 and an output, got exit $RC; stderr: $(head -c 500 good_bin.err)"
  fi

  size=$(wc -c <good.bin)
  if [ "$size" -le 100 ]; then
    fail "good.bin is only $size bytes; cannot truncate it to 100"
  else
    head -c 100 good.bin >truncated.bin
    expect_bad truncated_bin truncated.bin "" "" truncated.bin
  fi

  # Header: magic "DSNAGRPH" (8 bytes), then version u32 little-endian at
  # offset 8 (src/io/graphfile/graph_binary.c).
  magic=$(head -c 8 good.bin)
  if [ "$magic" != DSNAGRPH ]; then
    fail "good.bin does not start with the magic DSNAGRPH (got '$(head -c 8 good.bin | od -An -c | tr -s ' ')'); header layout changed?"
  else
    read -r b0 b1 b2 b3 < <(od -An -t u1 -j 8 -N 4 good.bin)
    version=$((b0 | b1 << 8 | b2 << 16 | b3 << 24))
    newv=$((version + 1))
    cp good.bin badversion.bin
    printf %b "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((newv & 255)) $((newv >> 8 & 255)) $((newv >> 16 & 255)) $((newv >> 24 & 255)))" |
      dd of=badversion.bin bs=1 seek=8 count=4 conv=notrunc status=none
    note "binary version field $version patched to $newv"
    expect_bad badversion_bin badversion.bin "" "" badversion.bin
  fi
fi

note "bad option values"
expect_bad opt_damping "" "" damping small.txt --damping abc
expect_bad opt_workers "" "" workers small.txt --workers 0
expect_bad opt_tol "" "" tol small.txt --tol -1
expect_bad opt_unknown "" "" --no-such-option small.txt --no-such-option

finish
