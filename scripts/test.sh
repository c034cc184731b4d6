#!/usr/bin/env bash
# test.sh - build and run the whole test suite (unit + integration, CTest),
# then again under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# unit tests and a real multi-process job under valgrind.
#   scripts/test.sh              all three (what CI runs)
#   scripts/test.sh --quick      the regular build only (build-test/), all but the
#                                fuzz smoke: under 5 minutes on a quiet 2-core machine
#   scripts/test.sh --sanitize   the sanitizer build only (build-asan/), with the fuzz smoke
# Each phase says how long it took. Test timeouts: tests/CMakeLists.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
what=${1:-all}
case $what in all | --quick | --sanitize) ;; *) echo "usage: scripts/test.sh [--quick|--sanitize]" >&2; exit 2 ;; esac

# CTest runs two tests per free CPU: most integration tests wait on
# timeouts and sleeps (a frozen worker, a lost role), and with 4 on 2 quiet
# cores the CPU is still idle a third of the time. A CPU that other work
# keeps busy is not free: with one CPU-bound process beside the suite on 2
# cores, 2 at a time, so that each test gets the CPU share its timeout was
# set for (tests/CMakeLists.txt; the longest start first by COST).
# CTEST_JOBS overrides it.
free_cpus() { # the CPUs left free over 2 s (/proc/stat: idle, iowait and niced time)
  local a b
  read -ra a </proc/stat
  sleep 2
  read -ra b </proc/stat
  local total=0 free=0 i
  for i in 1 2 3 4 5 6 7 8; do total=$((total + b[i] - a[i])); done
  free=$((b[2] - a[2] + b[4] - a[4] + b[5] - a[5]))
  [ "$total" -gt 0 ] || total=1
  echo $(((free * $(nproc) + total / 2) / total))
}
ctest_jobs() {
  if [ -n "${CTEST_JOBS:-}" ]; then
    echo "$CTEST_JOBS"
    return
  fi
  local free
  free=$(free_cpus)
  [ "$free" -ge 1 ] || free=1
  echo $((2 * free))
}

run_suite() { # DIR CTEST-ARGS -- CMAKE-FLAGS...
  local dir=$1 args=()
  shift
  while [ "$1" != -- ]; do
    args+=("$1")
    shift
  done
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDSANA_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
  local jobs
  jobs=$(ctest_jobs)
  echo "-- $jobs tests at a time (CTEST_JOBS overrides)"
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "${args[@]}")
}

# phase NAME COMMAND...: run it, then say how long it took.
phase() {
  local name=$1 t0=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - t0)) s"
}

# The regular build runs every test but the fuzz smoke (it builds its own
# sanitizer binaries: it runs once, with the sanitizer build); the
# sanitizer build every test but those that read only the source tree
# (layers, style: the same in every build).
if [ "$what" != --sanitize ]; then
  phase "regular build (build-test)" run_suite build-test -LE fuzz -- -DDSANA_SANITIZE=OFF
fi
if [ "$what" != --quick ]; then
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  phase "address + undefined-behaviour sanitizers (build-asan)" run_suite build-asan -LE source -- -DDSANA_SANITIZE=ON
  unset ASAN_OPTIONS UBSAN_OPTIONS
fi
if [ "$what" = all ]; then
  phase "valgrind (unit tests and one real job)" env BUILD="$PWD/build-test" NO_BUILD=1 bash scripts/check-memory.sh
fi
echo "== scripts/test.sh ${1:-}: $SECONDS s in all"
