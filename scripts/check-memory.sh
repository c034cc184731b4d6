#!/usr/bin/env bash
# check-memory.sh - valgrind over dsana: every unit test binary
# (build-test/tests/test_*, as many at a time as there are cores), then a real PageRank job
# (scheduler, 2 servers, 2 workers) twice: its roles as threads of one process, and forked, each
# followed by valgrind.
#
#   bash scripts/check-memory.sh         from anywhere; builds build-test first
#
# Flags: memcheck with --leak-check=full; errors and "definitely" or
# "indirectly lost" blocks fail the check. "Still reachable" and "possibly
# lost" do not (ZeroMQ's I/O threads still own their buffers when a process
# exits). scripts/valgrind.supp holds suppressions for third-party noise
# only (see that file); dsana's own code is never suppressed.
#
# Logs: build-test/memcheck/<name>.<pid>.log. Exit status: 0 clean, 1 a
# valgrind error, a leak or a failed run, 2 build failure, 77 valgrind
# missing and not installable.
# Environment: BUILD (default build-test), NO_BUILD=1 to use it as it is.
set -u

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$SRC/build-test}
LOGS="$BUILD/memcheck"
SUPP="$SRC/scripts/valgrind.supp"
VG_COMMON=(--leak-check=full --errors-for-leak-kinds=definite,indirect
  --show-leak-kinds=definite,indirect --num-callers=30 --suppressions="$SUPP")

ensure_valgrind() {
  command -v valgrind >/dev/null && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y valgrind >/dev/null 2>&1
    command -v valgrind >/dev/null && return 0
  fi
  echo "SKIP: valgrind is not installed (apt-get install -y valgrind)" >&2
  exit 77
}

build() {
  [ "${NO_BUILD:-0}" = 1 ] && return 0
  echo "== building $BUILD (RelWithDebInfo)"
  if ! { cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build "$BUILD" -j2; } \
    >"$LOGS.build.log" 2>&1; then
    tail -30 "$LOGS.build.log" >&2
    echo "check-memory: build failed (log: $LOGS.build.log)" >&2
    exit 2
  fi
}

# Sum "ERROR SUMMARY" errors and definitely/indirectly lost bytes over logs.
# Prints "errors definite_bytes indirect_bytes processes".
tally_logs() {
  awk '
    /ERROR SUMMARY:/ { for (i = 1; i <= NF; i++) if ($i == "SUMMARY:") e += $(i + 1) }
    /definitely lost:/ { gsub(",", "", $4); d += $4 }
    /indirectly lost:/ { gsub(",", "", $4); ind += $4 }
    FNR == 1 { p++ }
    END { printf "%d %d %d %d\n", e, d, ind, p }' "$@" /dev/null
}

FAILED=0
SUMMARY=()

# record NAME RC LOG...: one summary line; a failure when rc is neither 0
# nor 77 (skipped), or the logs show errors or lost blocks.
record() {
  local name=$1 rc=$2
  shift 2
  local t errors def ind procs verdict=ok
  t=$(tally_logs "$@")
  read -r errors def ind procs <<<"$t"
  if [ "$errors" -gt 0 ] || [ "$def" -gt 0 ] || [ "$ind" -gt 0 ]; then
    verdict=FAIL
  elif [ "$rc" -eq 124 ]; then
    verdict="FAIL (timed out under valgrind)"
  elif [ "$rc" -eq 77 ]; then
    verdict="skipped (exit 77: it says why in its log)"
  elif [ "$rc" -ne 0 ]; then
    verdict="FAIL (exit $rc, no valgrind error: the run itself failed)"
  fi
  case $verdict in ok | skipped*) ;; *) FAILED=1 ;; esac
  SUMMARY+=("$(printf '%-24s %5s %8s %10s %10s  %s' "$name" "$procs" "$errors" "$def" "$ind" "$verdict")")
}

# One unit test binary under valgrind; its exit status in $LOGS/NAME.rc.
valgrind_unit() {
  local t=$1 name
  name=$(basename "$t")
  rm -f "$LOGS/$name".*.log
  # As CTest runs them: from the build's tests/ folder, test data in env.
  # A bound per binary (each takes under 2 min here): a hang fails this
  # check with its name instead of running CI out of time.
  (cd "$BUILD/tests" && DSANA_TEST_DATA="$SRC/tests/data" timeout 1200 valgrind "${VG_COMMON[@]}" --error-exitcode=1 \
    --trace-children=yes \
    --log-file="$LOGS/$name.%p.log" "$t" >"$LOGS/$name.out" 2>&1)
  echo $? >"$LOGS/$name.rc"
}

# The two that take about two minutes each under valgrind start first, so
# that the short ones fill the other core meanwhile.
LONG_FIRST=(test_runtime_cluster test_net_zcodec)

# Every unit test binary, as many at a time as there are cores (valgrind
# runs a program on one), then one summary line each in name order.

run_unit_tests() {
  local t name jobs
  local -A started=()
  jobs=$(nproc 2>/dev/null || echo 2)
  for t in "${LONG_FIRST[@]/#/$BUILD/tests/}" "$BUILD"/tests/test_*; do
    [ -z "${started[$t]:-}" ] || continue
    started[$t]=1
    [ -x "$t" ] && [ -f "$t" ] || continue
    echo "== valgrind $(basename "$t")"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
      wait -n
    done
    valgrind_unit "$t" &
  done
  wait
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    name=$(basename "$t")
    record "$name" "$(cat "$LOGS/$name.rc" 2>/dev/null || echo 1)" "$LOGS/$name".*.log
  done
}

# run_pagerank ISOLATE: one real job under valgrind, its roles as threads of
# one process or (processes) every forked role traced.
run_pagerank() {
  local iso=$1 tmp rc
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/dsana-memcheck.XXXXXX")
  echo "== valgrind dsana pagerank (2 servers, 2 workers, --isolate $iso)"
  rm -f "$LOGS"/pagerank-"$iso".*.log
  if ! "$BUILD/dsana" graph gen uniform --vertices 500 --edges 4000 --seed 7 --out "$tmp/g.txt" \
    >"$LOGS/gen.out" 2>&1; then
    cat "$LOGS/gen.out" >&2
    SUMMARY+=("dsana graph gen failed")
    FAILED=1
    rm -rf "$tmp"
    return
  fi
  # Generous timeouts: everything runs 20-50x slower under valgrind. No
  # --error-exitcode here: it would make the first leaking role exit 1, the
  # launcher would stop the job, and the other roles would die before their
  # leak check. The verdict comes from every process's log instead.
  (cd "$tmp" && TMPDIR="$tmp" timeout 900 valgrind "${VG_COMMON[@]}" --trace-children=yes \
    --child-silent-after-fork=no --log-file="$LOGS/pagerank-$iso.%p.log" \
    "$BUILD/dsana" pagerank "$tmp/g.txt" --workers 2 --servers 2 --quiet --isolate "$iso" \
    --register-timeout 300 --peer-timeout 300 >"$LOGS/pagerank-$iso.out" 2>&1)
  rc=$?
  record "pagerank $iso" "$rc" "$LOGS"/pagerank-"$iso".*.log
  rm -rf "$tmp"
}

ensure_valgrind
mkdir -p "$LOGS"
build
run_unit_tests
run_pagerank threads
run_pagerank processes

echo
printf '%-24s %5s %8s %10s %10s  %s\n' run procs errors "def.lost" "ind.lost" result
printf '%s\n' "${SUMMARY[@]}"
if [ "$FAILED" = 0 ]; then
  echo "check-memory: clean"
else
  echo "check-memory: problems found; valgrind logs in $LOGS" >&2
fi
exit $FAILED
