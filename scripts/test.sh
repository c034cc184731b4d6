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

# CTest runs 4 tests at a time on any machine: most integration tests wait
# on timeouts and sleeps (a frozen worker, a lost role), and with 4 on 2
# cores the CPU is still idle a third of the time. The longest start first
# (tests/CMakeLists.txt gives each a COST). CTEST_JOBS overrides it.
JOBS=${CTEST_JOBS:-4}

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
  (cd "$dir" && ctest --output-on-failure -j"$JOBS" "${args[@]}")
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
