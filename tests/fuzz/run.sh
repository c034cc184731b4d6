#!/usr/bin/env bash
# run.sh - build the libFuzzer targets of tests/fuzz/ with clang and run each
# for a while on a copy of its seed corpus.
#
#   bash tests/fuzz/run.sh SECONDS [TARGET...]     (default: every target)
#
# Targets: wire snap mtx binary scenario msg ckpt libsvm dataset zcodec
# (tests/fuzz/fuzz_<target>.c, seeds in tests/fuzz/corpus/<target>/).
# Everything it writes goes under build-fuzz/ at the repository root: the binaries, the working corpora
# (build-fuzz/corpus/<target>, seeded from the committed corpus and kept
# between runs: delete it to start over), logs and crash files
# (build-fuzz/artifacts/<target>/). The committed corpus is never written.
#
# Prints per target: executions, executions per second, and 0 or the crash
# file. Exit status: 0 no crash, 1 a target crashed (or leaked, timed out,
# ran out of memory), 2 usage or build error, 77 clang or its fuzzer runtime
# missing and not installable (not root).
#
# Memory and sanitizer settings: see tests/fuzz/common.sh (shared with
# tests/fuzz/campaign.sh, the long resumable campaign).
#
# Environment: CC (default clang), FUZZ_OUT (default build-fuzz), FUZZ_JOBS
# (targets built in parallel, default 2), FUZZ_FLAGS (extra libFuzzer flags).
# ASAN_OPTIONS and UBSAN_OPTIONS, if set, are appended to (and override) the defaults in common.sh.
set -u

# shellcheck source=tests/fuzz/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
  echo "usage: $0 SECONDS [TARGET...]   targets: ${ALL_TARGETS[*]}" >&2
  exit 2
}

[ $# -ge 1 ] || usage
SECONDS_PER_TARGET=$1
shift
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] && [ "$SECONDS_PER_TARGET" -ge 1 ] || usage
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  is_target "$t" || { echo "$0: unknown target '$t'" >&2; usage; }
done

# Run one target; prints its summary line, returns 1 if it crashed.
run_target() {
  local t=$1 corpus="$OUT/corpus/$t" art="$OUT/artifacts/$t" log="$OUT/logs/run_$t.log"
  rm -rf "$art"
  mkdir -p "$art"
  # Seed the working corpus; never write into the committed one.
  seed_corpus "$t"
  # shellcheck disable=SC2086
  (exec_fuzzer "$t" -max_total_time="$SECONDS_PER_TARGET" -artifact_prefix="$art/" ${FUZZ_FLAGS:-} "$corpus") >"$log" 2>&1
  local rc=$?
  local execs rate crash
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crash=$(find "$art" -type f | head -1)
  if [ $rc -ne 0 ] && [ -z "$crash" ]; then
    crash="(exit $rc without a crash file, see $log)"
  fi
  printf '%-9s %12s %10s   %s\n' "$t" "${execs:-?}" "${rate:-?}" "${crash:-0}"
  if [ -n "$crash" ]; then
    grep -m2 -E '^==[0-9]+==ERROR|runtime error|^==[0-9]+== ERROR|Test unit written|deadly signal|semantic mismatch' "$log" | sed 's/^/          /'
    return 1
  fi
  return 0
}

ensure_toolchain
build_all "${TARGETS[@]}"
printf '%-9s %12s %10s   %s\n' target executions exec/s crashes
status=0
for t in "${TARGETS[@]}"; do
  run_target "$t" || status=1
done
[ $status = 0 ] || echo "fuzz: a target crashed; logs in $OUT/logs, reproduce with $OUT/fuzz_TARGET CRASHFILE" >&2
exit $status
