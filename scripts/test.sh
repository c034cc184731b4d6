#!/usr/bin/env bash
# test.sh - build and run the whole test suite (unit + integration, CTest),
# then again under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# unit tests and a real multi-process job under valgrind.
#   scripts/test.sh              all three (what CI runs)
#   scripts/test.sh --quick      the regular build only (build-test/)
#   scripts/test.sh --sanitize   the sanitizer build only (build-asan/)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
what=${1:-all}
case $what in all | --quick | --sanitize) ;; *) echo "usage: scripts/test.sh [--quick|--sanitize]" >&2; exit 2 ;; esac

run_suite() { # DIR CMAKE-FLAGS...
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDSANA_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
  (cd "$dir" && ctest --output-on-failure -j2 --timeout 600)
}

if [ "$what" != --sanitize ]; then
  echo "== regular build (build-test)"
  run_suite build-test -DDSANA_SANITIZE=OFF
fi
if [ "$what" != --quick ]; then
  echo "== address + undefined-behaviour sanitizers (build-asan)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_suite build-asan -DDSANA_SANITIZE=ON
fi
if [ "$what" = all ]; then
  echo "== valgrind (unit tests and one real job)"
  BUILD="$PWD/build-test" NO_BUILD=1 bash scripts/check-memory.sh
fi
