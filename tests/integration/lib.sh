# lib.sh - shared helpers for the integration tests (source it; bash only).
#
# Environment (set by CTest, see tests/CMakeLists.txt):
#   DSANA         path of the dsana binary
#   REF_PAGERANK  path of the reference PageRank (tests/ref/ref_pagerank.c)
#   DSANA_SRC     repository root
#   SHARED_DATA   <repo>/../shared/data (real graphs under graphs/)
#
# Exit codes: 0 all checks passed, 1 a check failed, 77 skipped.
#
# Provides:
#   T                    a fresh temporary directory, removed on exit
#   die MSG...           print "FAIL: MSG" and exit 1
#   skip MSG...          print "SKIP: MSG" and exit 77
#   note MSG...          print a progress line
#   pass MSG... / fail MSG...   record one check (fail does not exit)
#   finish               print the tally; exit 1 if any check failed
#   run_to CMD...        run CMD under `timeout 120` (exit 124 on timeout)
#   run_capture NAME CMD...  run CMD under run_to, stdout to $T/NAME.out,
#                        stderr to $T/NAME.err, exit code in RC; never exits
#   show_cmd CMD...      the command quoted for a message
#   stderr_lines FILE    number of lines in FILE (a last line without \n counts)
#   require_bins         die unless $DSANA and $REF_PAGERANK are executable
#   check_pagerank NAME GRAPH OPTS...  dsana against ref_pagerank (< 1e-12) and
#                        byte-identical over workers, servers and modes

LIB_TEST_NAME=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
LIB_PASSED=0
LIB_FAILED=0

die() {
  echo "FAIL: $LIB_TEST_NAME: $*" >&2
  exit 1
}

skip() {
  echo "SKIP: $LIB_TEST_NAME: $*"
  exit 77
}

note() {
  echo "-- $*"
}

pass() {
  LIB_PASSED=$((LIB_PASSED + 1))
  echo "ok   $*"
}

fail() {
  LIB_FAILED=$((LIB_FAILED + 1))
  echo "FAIL $*"
}

finish() {
  echo "$LIB_TEST_NAME: $LIB_PASSED passed, $LIB_FAILED failed"
  if [ "$LIB_FAILED" -ne 0 ]; then
    exit 1
  fi
  exit 0
}

T=$(mktemp -d "${TMPDIR:-/tmp}/dsana-${LIB_TEST_NAME}.XXXXXX")
lib_cleanup() {
  if [ -n "${KEEP_TMP:-}" ]; then
    echo "(kept $T)" >&2
  else
    rm -rf -- "$T"
  fi
}
trap lib_cleanup EXIT

run_to() {
  timeout 120 "$@"
}

RC=0
run_capture() {
  local name=$1
  shift
  RC=0
  run_to "$@" >"$T/$name.out" 2>"$T/$name.err" || RC=$?
  if [ "$RC" -eq 124 ]; then
    echo "   (timed out after 120 s: $(show_cmd "$@"))" >&2
  fi
  return 0
}

show_cmd() {
  local out="" a
  for a in "$@"; do
    out+="$(printf '%q' "$a") "
  done
  printf '%s' "${out% }"
}

# tasks_since_rejoin METRICS LOG W: the tasks worker W ran from the
# iteration the scheduler's LOG says it rejoined at (every iteration
# after, not only the last: dynamic scheduling may hand a worker it
# measures slow nothing in a given iteration); 0 if it never rejoined.
tasks_since_rejoin() {
  local from
  from=$(grep -m1 -o "worker $3 rejoined; it takes part from iteration [0-9]*" "$2" | grep -o '[0-9]*$' || true)
  [ -n "$from" ] || { echo 0; return; }
  jq -s --argjson w "$3" --argjson f "$from" \
    '[.[] | select(.type == "worker" and .worker == $w and .iter >= $f) | .tasks] | add // 0' "$1" 2>/dev/null || echo 0
}

# free_port: a TCP port no socket of this machine uses, below the kernel's
# ephemeral range (other tests' outgoing connections take ports there, and
# a listener on one fails with "Address already in use"); random, so that
# tests running at once rarely pick the same.
free_port() {
  local lo=20000 hi p hex
  hi=$(awk '{ print $1 - 1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32767)
  for _ in $(seq 100); do
    p=$((lo + RANDOM % (hi - lo)))
    hex=$(printf ':%04X ' "$p")
    if ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q "$hex"; then
      echo "$p"
      return
    fi
  done
  echo "$p"
}

stderr_lines() {
  awk 'END { print NR }' "$1"
}

# refusal_problems ERR FILE LINE KEYWORD: what is wrong with a refusal of bad
# input whose exit status is $RC and stderr the file ERR, into the array
# PROBLEMS (empty: exit 2, one line, naming FILE, LINE and KEYWORD, each
# unchecked when ""; LINE as "FILE:LINE" or "line LINE").
refusal_problems() {
  local err=$1 file=$2 line=$3 keyword=$4 nl
  PROBLEMS=()
  nl=$(stderr_lines "$err")
  [ "$RC" -eq 2 ] || PROBLEMS+=("exit $RC (expected 2)")
  [ "$nl" -eq 1 ] || PROBLEMS+=("$nl lines on stderr (expected 1)")
  if [ -n "$file" ] && ! grep -qF -- "$file" "$err"; then
    PROBLEMS+=("stderr does not name the file '$file'")
  fi
  if [ -n "$line" ] && ! grep -qE -- "(:$line([^0-9]|\$)|line $line([^0-9]|\$))" "$err"; then
    PROBLEMS+=("stderr does not name line $line")
  fi
  if [ -n "$keyword" ] && ! grep -qF -- "$keyword" "$err"; then
    PROBLEMS+=("stderr does not mention '$keyword'")
  fi
}

require_bins() {
  [ -n "${DSANA:-}" ] || die "DSANA is not set"
  [ -n "${REF_PAGERANK:-}" ] || die "REF_PAGERANK is not set"
  [ -x "$DSANA" ] || die "DSANA=$DSANA is not an executable file"
  [ -x "$REF_PAGERANK" ] || die "REF_PAGERANK=$REF_PAGERANK is not an executable file"
}

# check_pagerank NAME GRAPH [OPTIONS...]: dsana pagerank GRAPH OPTIONS
# against the reference (ref_pagerank GRAPH OPTIONS) at tol 1e-14, max
# abs difference < 1e-12, and byte-identical for workers 1..3, servers 1..2,
# --mode bsp and --mode dsana, and once with chunks of 64 bytes (the
# block-wise kernel). Records one check.
check_pagerank() {
  local name=$1 graph=$2
  shift 2
  local prec=(--tol 1e-14 --max-iter 1000)
  if ! "$REF_PAGERANK" "$graph" "${prec[@]}" "$@" >"$name.ref" 2>"$name.ref.err"; then
    fail "$name: ref_pagerank failed: $(head -c 200 "$name.ref.err")"
    return
  fi
  local first="" runs=0 mode W S out res
  for mode in "--mode bsp" "--mode dsana" "--mode dsana --chunk 64"; do
    for W in 1 2 3; do
      for S in 1 2; do
        out="$name.$W.$S.${mode//[ -]/}.tsv"
        [[ $mode != *chunk* ]] || [ "$W$S" = 32 ] || continue
        # shellcheck disable=SC2086
        if ! run_to "$DSANA" pagerank "$graph" "${prec[@]}" "$@" $mode --workers "$W" --servers "$S" --quiet \
          --out "$out" >/dev/null 2>"$out.err"; then
          fail "$name: dsana pagerank $* $mode -W $W -S $S failed: $(head -c 300 "$out.err")"
          return
        fi
        runs=$((runs + 1))
        if [ -z "$first" ]; then
          first=$out
          if ! res=$("$REF_PAGERANK" --compare "$out" "$name.ref" --max-diff 1e-12 2>&1); then
            fail "$name: differs from ref_pagerank $*: $res"
            return
          fi
        elif ! cmp -s "$first" "$out"; then
          fail "$name: $mode -W $W -S $S differs from $first"
          return
        fi
      done
    done
  done
  pass "$name: ref_pagerank $* within 1e-12 ($res); $runs runs byte-identical"
}
