#!/usr/bin/env bash
# test.sh - build and run the whole test suite (unit + integration, CTest).
#   scripts/test.sh              regular build in build-test/
#   scripts/test.sh --sanitize   address + undefined-behaviour sanitizers in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
dir=build-test
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DDSANA_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  flags+=(-DDSANA_SANITIZE=ON)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j2 --timeout 600
