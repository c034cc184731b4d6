# common.sh - what tests/fuzz/run.sh and tests/fuzz/campaign.sh share (source
# it; bash only): the target list, how a target is built with clang, the
# toolchain check, the seeding of a working corpus and the sanitizer settings
# every run uses.
#
# Sets SRC (repository root), OUT (FUZZ_OUT, default build-fuzz), CC (default
# clang), ALL_TARGETS. Provides:
#   target_sources T        the sources fuzz_T links besides tests/fuzz/fuzz_T.c
#   ensure_toolchain        exit 77 unless CC links a fuzzer (installs it when root)
#   build_target T          link $OUT/fuzz_T from its objects (log in $OUT/logs/build_T.log)
#   target_is_fresh T       0 if $OUT/fuzz_T is newer than its sources and every header
#   build_all T...          compile each source once (objects under $OUT/obj), link the
#                           targets, FUZZ_JOBS (default 2) at a time; exit 2 on failure
#   seed_corpus T           copy the committed seeds into $OUT/corpus/T (never the other way)
#   exec_fuzzer T ARGS...   replace the shell by $OUT/fuzz_T with the sanitizer environment
#                           and the common flags (call it in a subshell or with &)
#
# Memory: a single allocation over 256 MB fails (returns NULL) instead of
# aborting, so inputs that declare huge sizes exercise the parsers' ENOMEM
# paths rather than the 2 GB RSS limit. The SNAP and Matrix Market readers
# (and the binary target, which opens any graph file and so reads SNAP text
# too) trust the vertex count a header declares (a dense-id line, a size
# line) and do O(n) work for it, as they should: a 138-byte file declaring 16.5 M
# vertices takes 1.8 s in a plain -O2 build and over 10 s under the fuzzer's
# instrumentation (a timeout). For them the cap is 24 MB (under 3 M vertices,
# about 1.3 s instrumented, so that a loaded machine does not turn one into
# a timeout: 4 M, 1.7 s alone, timed out in the campaign beside a test
# run), so such headers take the ENOMEM path too; not lower, as libFuzzer
# 14 itself allocates a 20 MB block when it starts.
# ASAN_OPTIONS and UBSAN_OPTIONS, if set, are appended to (and override) the
# defaults in exec_fuzzer.

ALL_TARGETS=(wire snap mtx binary scenario msg ckpt libsvm dataset zcodec)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${FUZZ_OUT:-$SRC/build-fuzz}
CC=${CC:-clang}
CFLAGS=(-std=c11 -g -O1 -fno-omit-frame-pointer -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
  -Wall -Wextra -Wno-unused-parameter -I "$SRC/include" -I "$SRC/src")
LIBS=(-lz -lzstd -lcjson -lm -lpthread)

is_target() {
  [[ " ${ALL_TARGETS[*]} " == *" $1 "* ]]
}

target_sources() {
  local util=("$SRC"/src/util/*/*.c) # every room of util
  local io_file=("$SRC"/src/io/file/*.c) # the io rooms the readers stand on: file, graph
  local io_graph=("$SRC"/src/io/graph/*.c)
  case $1 in
  wire) echo "$SRC/src/net/wire/wire.c" "${util[@]}" ;;
  snap | mtx | binary) echo "$SRC"/src/io/graphfile/*.c "${io_graph[@]}" "${io_file[@]}" "${util[@]}" ;;
  libsvm | dataset) echo "$SRC"/src/io/dataset/*.c "${io_graph[@]}" "${io_file[@]}" "${util[@]}" ;;
  scenario) echo "$SRC/src/io/scenario/scenario.c" "${util[@]}" ;;
  msg) echo "$SRC/src/runtime/msg/msg.c" "$SRC/src/runtime/msg/codec.c" "$SRC/src/net/wire/wire.c" "${util[@]}" ;;
  ckpt) echo "$SRC/src/runtime/record/checkpoint.c" "$SRC/src/runtime/core/job.c" "$SRC/src/net/wire/wire.c" \
    "$SRC"/src/io/file/outfile*.c "${util[@]}" ;;
  zcodec) echo "$SRC/src/net/wire/zcodec.c" "${util[@]}" ;;
  esac
}

# Can CC link a fuzzer?
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

# The object of one source under $OUT/obj/, compiled once for every target
# that links it (util/ goes into all ten).
obj_of() {
  local rel=${1#"$SRC"/}
  echo "$OUT/obj/${rel%.c}.o"
}

# Compile SRC-FILE into its object unless the object is newer than it and
# than every header (log in $OUT/logs/obj.log on failure).
compile_obj() {
  local o
  o=$(obj_of "$1")
  [ -f "$o" ] && [ "$o" -nt "$1" ] && [ -z "$(find "$SRC/src" "$SRC/include" -name '*.h' -newer "$o" -print -quit)" ] &&
    return 0
  mkdir -p "$(dirname "$o")"
  "$CC" "${CFLAGS[@]}" -c "$1" -o "$o.tmp.$$" >"$o.log" 2>&1 && mv "$o.tmp.$$" "$o" && rm -f "$o.log"
}

# Link $OUT/fuzz_T from its harness and the objects of its sources.
build_target() {
  local t=$1 objs=() f
  mkdir -p "$OUT/logs"
  for f in $(target_sources "$t"); do
    objs+=("$(obj_of "$f")")
  done
  "$CC" "${CFLAGS[@]}" "$SRC/tests/fuzz/fuzz_$t.c" "${objs[@]}" "${LIBS[@]}" \
    -o "$OUT/fuzz_$t" >"$OUT/logs/build_$t.log" 2>&1
}

# The binary is newer than its sources and every header under src/,
# include/ and tests/fuzz/.
target_is_fresh() {
  local bin="$OUT/fuzz_$1" f
  [ -x "$bin" ] || return 1
  for f in "$SRC/tests/fuzz/fuzz_$1.c" $(target_sources "$1"); do
    [ "$f" -nt "$bin" ] && return 1
  done
  [ -z "$(find "$SRC/src" "$SRC/include" "$SRC/tests/fuzz" -name '*.h' -newer "$bin" -print -quit)" ]
}

# Run "FN ARG" for every ARG, FUZZ_JOBS (default 2) at a time; the ARGs
# whose FN failed are printed, one a line.
each_parallel() {
  local fn=$1 jobs=${FUZZ_JOBS:-2} pids=() args=() i
  shift
  for a in "$@"; do
    "$fn" "$a" &
    pids+=($!)
    args+=("$a")
    if [ ${#pids[@]} -ge "$jobs" ]; then
      wait "${pids[0]}" || echo "${args[0]}"
      pids=("${pids[@]:1}")
      args=("${args[@]:1}")
    fi
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || echo "${args[$i]}"
  done
}

# Build the targets: every source they need compiled once, then each
# target linked. Exit 2 on failure, with the compiler's words.
build_all() {
  local t f failed
  mkdir -p "$OUT/logs"
  # shellcheck disable=SC2046
  failed=$(each_parallel compile_obj $(for t in "$@"; do target_sources "$t"; done | sort -u))
  for f in $failed; do
    echo "fuzz: cannot compile $f:" >&2
    cat "$(obj_of "$f").log" >&2
  done
  [ -z "$failed" ] || exit 2
  failed=$(each_parallel build_target "$@")
  for t in $failed; do
    echo "fuzz: build of $t failed:" >&2
    cat "$OUT/logs/build_$t.log" >&2
  done
  [ -z "$failed" ] || exit 2
}

seed_corpus() {
  local t=$1
  mkdir -p "$OUT/corpus/$t"
  if [ -d "$SRC/tests/fuzz/corpus/$t" ]; then
    cp -n "$SRC/tests/fuzz/corpus/$t"/* "$OUT/corpus/$t"/ 2>/dev/null || true
  fi
}

# The largest single allocation of target T, in MB (see Memory above).
max_allocation_mb() {
  case $1 in
  snap | mtx | binary) echo 24 ;;
  *) echo 256 ;;
  esac
}

exec_fuzzer() {
  local t=$1
  shift
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=$(max_allocation_mb "$t")${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    exec "$OUT/fuzz_$t" -rss_limit_mb=2048 -max_len=65536 -timeout=10 -print_final_stats=1 "$@"
}
