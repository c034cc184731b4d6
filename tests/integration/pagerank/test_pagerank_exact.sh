#!/usr/bin/env bash
# test_pagerank_exact.sh - BSP-exactness and correctness of `dsana pagerank`.
#
# For small graphs (hand-written with dangling vertices, self loops, duplicate
# edges, separate components, sparse ids; generated uniform and Kronecker),
# runs dsana for every workers x servers in 1..4 x 1..3 in the default mode
# (dsana), --mode dsana in three of them and --mode bsp in six that hold
# every worker and every server count, and checks that
#   - every output is byte-identical to the default-mode W=1 S=1 output, and
#   - that output matches the independent reference within 1e-9 (max abs).
# Also: a gzip copy of the hand graph gives the same bytes, and --dedup
# matches the reference's --dedup.
# timeout: 120 s (CTest; 32 s under nice on a busy 2-core machine)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

TOL=1e-12
MAXIT=200
MAXDIFF=1e-9

# ------------------------------------------------------------------ graphs
# hand.txt: ids sparse (0 .. 1000000); 50 and 7 are dangling (destination
# only); 30->30, 20->20 (twice) are self loops; 10->20 three times; 60 has
# only a self loop; 61<->62 and 1000000->7 are separate components; CRLF
# lines, tabs, runs of blanks, a blank line, a comment in the middle and no
# newline after the last line.
cat >hand.txt <<'EOF'
# hand-written test graph for test_pagerank_exact.sh
# FromNodeId	ToNodeId
10 20
10	30
20 30
30 10
30 30
20 20
20   20
10 20
10 20
40 10

# a comment between edges
40 50
1000000 7
60 60
61 62
62 61
0 61
0 10
EOF
# CRLF on a few lines and no final newline.
sed -i -e '3s/$/\r/' -e '5s/$/\r/' -e '12s/$/\r/' hand.txt
printf '%s' "20 40" >>hand.txt

# bigid.txt: ids beyond 2^32 (original ids are 64-bit; n is small).
cat >bigid.txt <<'EOF'
4294967296 5000000000
5000000000 4294967296
5000000000 9223372036854775807
3 4294967296
3 3
EOF

GRAPHS=(hand.txt bigid.txt)

note "generating graphs with dsana graph gen"
run_capture gen_uniform "$DSANA" graph gen uniform --vertices 3000 --edges 20000 --seed 5 --out g.txt
if [ "$RC" -eq 0 ] && [ -s g.txt ]; then
  pass "graph gen uniform -> g.txt ($(grep -vc '^#' g.txt) edge lines)"
  GRAPHS+=(g.txt)
else
  fail "graph gen uniform: $(show_cmd "$DSANA" graph gen uniform --vertices 3000 --edges 20000 --seed 5 --out g.txt): expected exit 0 and a non-empty g.txt, got exit $RC; stderr: $(head -c 500 gen_uniform.err)"
fi
run_capture gen_kron "$DSANA" graph gen kron --scale 12 --edge-factor 8 --seed 3 --out k.txt
if [ "$RC" -eq 0 ] && [ -s k.txt ]; then
  pass "graph gen kron -> k.txt ($(grep -vc '^#' k.txt) edge lines)"
  GRAPHS+=(k.txt)
else
  fail "graph gen kron: $(show_cmd "$DSANA" graph gen kron --scale 12 --edge-factor 8 --seed 3 --out k.txt): expected exit 0 and a non-empty k.txt, got exit $RC; stderr: $(head -c 500 gen_kron.err)"
fi

# ------------------------------------------------------------- helpers
# pr NAME GRAPH ARGS...: runs dsana pagerank with --out NAME.tsv; sets RC;
# returns 0 when it succeeded and wrote the file, 1 otherwise with the
# failure described in PR_MSG.
LAST_CMD=""
PR_MSG=""
pr() {
  local name=$1 graph=$2
  shift 2
  rm -f "$name.tsv"
  local cmd=("$DSANA" pagerank "$graph" "$@" --tol "$TOL" --max-iter "$MAXIT" --out "$name.tsv" --quiet)
  LAST_CMD=$(show_cmd "${cmd[@]}")
  run_capture "$name" "${cmd[@]}"
  if [ "$RC" -ne 0 ]; then
    PR_MSG="$LAST_CMD: expected exit 0, got exit $RC; stderr: $(head -c 500 "$name.err")"
    return 1
  fi
  if [ ! -s "$name.tsv" ]; then
    PR_MSG="$LAST_CMD: expected an output file $name.tsv, got exit 0 and no (or an empty) file"
    return 1
  fi
  return 0
}

# ref_check GRAPH OUT [REF_ARGS...]: compare OUT with the reference.
ref_check() {
  local graph=$1 out=$2
  shift 2
  local refout="ref.$(basename "$graph").$(echo "$*" | tr -c 'a-z0-9' '_').tsv"
  if [ ! -s "$refout" ]; then
    if ! run_to "$REF_PAGERANK" "$graph" --tol "$TOL" --max-iter "$MAXIT" "$@" >"$refout" 2>ref.err; then
      fail "reference failed: $(show_cmd "$REF_PAGERANK" "$graph" --tol "$TOL" --max-iter "$MAXIT" "$@"): $(head -c 500 ref.err)"
      rm -f "$refout"
      return 0
    fi
  fi
  local res rc=0
  res=$("$REF_PAGERANK" --compare "$refout" "$out" --max-diff "$MAXDIFF" 2>cmp.err) || rc=$?
  if [ "$rc" -eq 0 ]; then
    pass "$graph $*: dsana vs reference: $res"
  else
    fail "$graph $*: dsana output $out vs reference (expected max abs diff <= $MAXDIFF): got exit $rc: $res $(head -c 500 cmp.err | tr '\n' ' ')"
  fi
}

# ------------------------------------------------------------------ tests
for G in "${GRAPHS[@]}"; do
  note "graph $G: workers 1..4 x servers 1..3 (default mode), 3 of them with --mode dsana, 6 with --mode bsp"
  base="$G.base"
  if ! pr "$base" "$G" --workers 1 --servers 1; then
    fail "$PR_MSG"
    continue
  fi
  ref_check "$G" "$base.tsv"

  for mode in default dsana bsp; do
    modeargs=()
    [ "$mode" = default ] || modeargs=(--mode "$mode")
    nsame=0
    nruns=0
    for W in 1 2 3 4; do
      for S in 1 2 3; do
        if [ "$mode" = default ] && [ "$W" -eq 1 ] && [ "$S" -eq 1 ]; then
          continue # this is the base run
        fi
        # the default mode is dsana: every layout there; --mode dsana on
        # three (the option means the default), --mode bsp on six that hold
        # every W and every S
        case "$mode $W$S" in
        "dsana 11" | "dsana 23" | "dsana 42") ;;
        "bsp 11" | "bsp 13" | "bsp 22" | "bsp 31" | "bsp 42" | "bsp 43") ;;
        "default "*) ;;
        *) continue ;;
        esac
        name="$G.$mode.$W.$S"
        if ! pr "$name" "$G" --workers "$W" --servers "$S" "${modeargs[@]}"; then
          fail "$PR_MSG"
          continue
        fi
        nruns=$((nruns + 1))
        if cmp -s "$base.tsv" "$name.tsv"; then
          nsame=$((nsame + 1))
        else
          first=$(cmp "$base.tsv" "$name.tsv" 2>&1 | head -n 1 || true)
          res=$("$REF_PAGERANK" --compare "$base.tsv" "$name.tsv" --max-diff 0 2>/dev/null || true)
          fail "$LAST_CMD: expected output byte-identical to W=1 S=1 default mode ($base.tsv), got a difference ($first; $res)"
        fi
      done
    done
    if [ "$nruns" -gt 0 ] && [ "$nsame" -eq "$nruns" ]; then
      pass "$G mode=$mode: $nruns runs byte-identical to W=1 S=1"
    fi
  done
done

# gzip input gives the same result as the plain text file.
note "hand.txt.gz vs hand.txt"
gzip -n -c hand.txt >hand.txt.gz
if [ -s hand.txt.base.tsv ]; then
  for WS in "1 1" "2 2"; do
    set -- $WS
    if pr "gz.$1.$2" hand.txt.gz --workers "$1" --servers "$2"; then
      if cmp -s hand.txt.base.tsv "gz.$1.$2.tsv"; then
        pass "hand.txt.gz W=$1 S=$2: byte-identical to hand.txt"
      else
        fail "$LAST_CMD: expected output byte-identical to hand.txt's, got a difference"
      fi
    else
      fail "$PR_MSG"
    fi
  done
fi

# --dedup collapses the duplicate edges, like the reference's --dedup.
note "--dedup on hand.txt"
if pr dedup.1.1 hand.txt --workers 1 --servers 1 --dedup; then
  ref_check hand.txt dedup.1.1.tsv --dedup
  if cmp -s hand.txt.base.tsv dedup.1.1.tsv; then
    fail "$LAST_CMD: expected --dedup to change the ranks of hand.txt (it has duplicate edges), got the same bytes"
  fi
  if pr dedup.3.2 hand.txt --workers 3 --servers 2 --dedup; then
    if cmp -s dedup.1.1.tsv dedup.3.2.tsv; then
      pass "hand.txt --dedup W=3 S=2: byte-identical to W=1 S=1"
    else
      fail "$LAST_CMD: expected output byte-identical to --dedup W=1 S=1, got a difference"
    fi
  else
    fail "$PR_MSG"
  fi
else
  fail "$PR_MSG"
fi

finish
