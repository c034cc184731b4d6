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
# Memory: a single allocation over 256 MB fails (returns NULL) instead of
# aborting, so inputs that declare huge sizes exercise the parsers' ENOMEM
# paths rather than the 2 GB RSS limit.
#
# Environment: CC (default clang), FUZZ_OUT (default build-fuzz), FUZZ_JOBS
# (targets built in parallel, default 2), FUZZ_FLAGS (extra libFuzzer flags).
# ASAN_OPTIONS and UBSAN_OPTIONS, if set, are appended to (and override) the defaults below.
set -u

usage() {
  echo "usage: $0 SECONDS [TARGET...]   targets: ${ALL_TARGETS[*]}" >&2
  exit 2
}

ALL_TARGETS=(wire snap mtx binary scenario msg ckpt libsvm dataset zcodec)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${FUZZ_OUT:-$SRC/build-fuzz}
CC=${CC:-clang}
CFLAGS=(-std=c11 -g -O1 -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
  -Wall -Wextra -Wno-unused-parameter -I "$SRC/include" -I "$SRC/src")
LIBS=(-lz -lzstd -lcjson -lm -lpthread)

[ $# -ge 1 ] || usage
SECONDS_PER_TARGET=$1
shift
[[ $SECONDS_PER_TARGET =~ ^[0-9]+$ ]] && [ "$SECONDS_PER_TARGET" -ge 1 ] || usage
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $t "* ]] || { echo "$0: unknown target '$t'" >&2; usage; }
done

# The sources each target links (besides tests/fuzz/fuzz_<target>.c).
target_sources() {
  local util=("$SRC"/src/util/*.c)
  case $1 in
  wire) echo "$SRC/src/net/wire.c" "${util[@]}" ;;
  snap | mtx | binary) echo "$SRC"/src/io/graph_*.c "$SRC"/src/io/outfile*.c "${util[@]}" ;;
  libsvm | dataset) echo "$SRC"/src/io/dataset_*.c "$SRC"/src/io/graph_*.c "$SRC"/src/io/outfile*.c "${util[@]}" ;;
  scenario) echo "$SRC/src/io/scenario.c" "${util[@]}" ;;
  msg) echo "$SRC/src/runtime/msg.c" "$SRC/src/runtime/codec.c" "$SRC/src/net/wire.c" "${util[@]}" ;;
  ckpt) echo "$SRC/src/runtime/checkpoint.c" "$SRC/src/runtime/job.c" "$SRC/src/net/wire.c" "$SRC"/src/io/outfile*.c \
    "${util[@]}" ;;
  zcodec) echo "$SRC/src/net/zcodec.c" "${util[@]}" ;;
  esac
}

# Can CC link a fuzzer? Installs clang and its runtime when root.
fuzzer_works() {
  local probe="$OUT/logs/probe"
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe.c"
  "$CC" -fsanitize=fuzzer,address,undefined "$probe.c" -o "$probe" >/dev/null 2>&1
}

ensure_toolchain() {
  mkdir -p "$OUT/logs"
  fuzzer_works && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "fuzz: $CC cannot build libFuzzer targets; installing clang libclang-rt-14-dev" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y clang libclang-rt-14-dev >"$OUT/apt.log" 2>&1 ||
      echo "fuzz: apt-get install failed (see $OUT/apt.log)" >&2
    fuzzer_works && return 0
  fi
  echo "SKIP: fuzz: '$CC -fsanitize=fuzzer' does not work; install clang and libclang-rt-14-dev" \
    "(apt-get install -y clang libclang-rt-14-dev) or set CC" >&2
  exit 77
}

build_target() {
  local t=$1
  # shellcheck disable=SC2046
  "$CC" "${CFLAGS[@]}" "$SRC/tests/fuzz/fuzz_$t.c" $(target_sources "$t") "${LIBS[@]}" \
    -o "$OUT/fuzz_$t" >"$OUT/logs/build_$t.log" 2>&1
}

build_all() {
  local jobs=${FUZZ_JOBS:-2} pids=() names=() failed=0 i
  mkdir -p "$OUT/logs"
  for t in "${TARGETS[@]}"; do
    build_target "$t" &
    pids+=($!)
    names+=("$t")
    if [ ${#pids[@]} -ge "$jobs" ]; then
      wait "${pids[0]}" || { echo "fuzz: build of ${names[0]} failed:" >&2; cat "$OUT/logs/build_${names[0]}.log" >&2; failed=1; }
      pids=("${pids[@]:1}")
      names=("${names[@]:1}")
    fi
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { echo "fuzz: build of ${names[$i]} failed:" >&2; cat "$OUT/logs/build_${names[$i]}.log" >&2; failed=1; }
  done
  [ $failed = 0 ] || exit 2
}

# Run one target; prints its summary line, returns 1 if it crashed.
run_target() {
  local t=$1 corpus="$OUT/corpus/$t" art="$OUT/artifacts/$t" log="$OUT/logs/run_$t.log"
  mkdir -p "$corpus"
  rm -rf "$art"
  mkdir -p "$art"
  # Seed the working corpus; never write into the committed one.
  if [ -d "$SRC/tests/fuzz/corpus/$t" ]; then
    cp -n "$SRC/tests/fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
  fi
  # shellcheck disable=SC2086
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=256${ASAN_OPTIONS:+:$ASAN_OPTIONS} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$OUT/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_FLAGS:-} "$corpus" >"$log" 2>&1
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
    grep -m1 -E '^==[0-9]+==ERROR|runtime error|^==[0-9]+== ERROR|Test unit written|deadly signal' "$log" | sed 's/^/          /'
    return 1
  fi
  return 0
}

ensure_toolchain
build_all
printf '%-9s %12s %10s   %s\n' target executions exec/s crashes
status=0
for t in "${TARGETS[@]}"; do
  run_target "$t" || status=1
done
[ $status = 0 ] || echo "fuzz: a target crashed; logs in $OUT/logs, reproduce with $OUT/fuzz_TARGET CRASHFILE" >&2
exit $status
