# shellcheck shell=bash disable=SC2034
# bench/lib.sh — shared helpers for the dsana benchmarks (source it; do not run it).
#
#   bench_init            set BENCH_DIR, REPO, RESULTS, GRAPHS; check tools; find/build dsana
#   graph_kron SCALE      print the path of a cached Kronecker graph (edge factor 16, seed 1)
#   graph_real SRC.txt.gz print the path of a real graph's binary conversion, cached
#   graph_counts FILE     print "VERTICES EDGES" of a graph (dsana graph info)
#   graph_read_keys FILE  print how many vertices have an out-edge (the keys pulls carry)
#   run_pagerank TAG G .. run one `dsana pagerank G ..` with metrics and peak RSS, the roles as
#                         processes (the emulated cluster's nodes; peak RSS per role; RUN_ISOLATE=threads:
#                         as threads of one process, dsana's default); sets
#                         RUN_METRICS, RUN_RSS_KB, RUN_OUT (see below)
#   summary_field M KEY   a field of the metrics file's summary line
#   stats N...            print "median min max" of the numbers (sort -g + awk)
#   csv_row FILE HEADER ROW   append ROW, writing HEADER first when FILE is new/empty
#   build_tool TARGET         build one of the tree's helper programs; prints its path
#
# Environment:
#   DSANA=/path/to/dsana  use this binary instead of build-bench/dsana
#   BENCH_REBUILD=1       run `cmake --build` on build-bench even when the binary exists
#                         (do it after others commit; it builds the current work tree)
#   BENCH_KEEP=1          keep the per-run scratch directory (metrics, outputs)

set -euo pipefail

die() {
  echo "error: $*" >&2
  exit 1
}
note() { echo "# $*" >&2; }

# Install a Debian package when its command is missing (root only), else fail clearly.
need_cmd() { # CMD PACKAGE
  local cmd=$1 pkg=$2
  if command -v "$cmd" >/dev/null 2>&1 || [[ -x $cmd ]]; then return 0; fi
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    note "installing $pkg (for $cmd)"
    apt-get install -y -qq "$pkg" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$pkg" >/dev/null 2>&1; } ||
      die "could not install $pkg; install it and retry"
  fi
  command -v "$cmd" >/dev/null 2>&1 || [[ -x $cmd ]] || die "$cmd is missing (apt-get install $pkg)"
}

bench_init() {
  BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  REPO=$(cd "$BENCH_DIR/.." && pwd)
  RESULTS=$BENCH_DIR/results
  GRAPHS=$RESULTS/graphs-v3 # by binary graph format version: files of an older one are refused
  mkdir -p "$GRAPHS"
  need_cmd jq jq
  need_cmd /usr/bin/time time
  need_cmd awk gawk
  if [[ -n ${DSANA:-} ]]; then
    [[ -x $DSANA ]] || die "DSANA=$DSANA is not an executable"
  else
    DSANA=$REPO/build-bench/dsana
    if [[ ! -x $DSANA || ${BENCH_REBUILD:-0} == 1 ]]; then
      need_cmd cmake cmake
      note "building Release dsana in $REPO/build-bench"
      cmake -S "$REPO" -B "$REPO/build-bench" -DCMAKE_BUILD_TYPE=Release -DDSANA_TESTS=OFF >/dev/null ||
        die "cmake configure failed"
      cmake --build "$REPO/build-bench" -j2 >/dev/null || die "build failed (cmake --build $REPO/build-bench)"
    fi
    [[ -x $DSANA ]] || die "no binary at $DSANA"
  fi
  SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/dsana-bench.XXXXXX")
  if [[ ${BENCH_KEEP:-0} == 1 ]]; then
    note "scratch kept in $SCRATCH"
  else
    trap 'rm -rf "$SCRATCH"' EXIT
  fi
  BENCH_COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ -n $(git -C "$REPO" status --porcelain -- src apps cli include 2>/dev/null) ]]; then
    BENCH_COMMIT="$BENCH_COMMIT+dirty"
  fi
  # BENCH_COMMIT is the work tree's HEAD, not necessarily what the binary was built from.
  local head_t bin_t
  head_t=$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 0)
  bin_t=$(stat -c %Y "$DSANA")
  if ((bin_t < head_t)); then
    note "warning: $DSANA is older than HEAD ($BENCH_COMMIT); BENCH_REBUILD=1 rebuilds it"
    BENCH_COMMIT="$BENCH_COMMIT(stale-binary)"
  fi
  BENCH_HOST="$(nproc) cores, $(uname -r)"
  BENCH_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
}

fashion_mnist() { # -> "TRAIN TEST": Fashion-MNIST as dsana datasets, converted once into results/data
  local fm=/usr/share/datasets/fashion-mnist data=$BENCH_DIR/results/data
  [[ -r $fm/train-images-idx3-ubyte.gz ]] || die "Fashion-MNIST missing: apt-get install dataset-fashion-mnist"
  mkdir -p "$data"
  [[ -s $data/fm-train.bin ]] || "$DSANA" data convert --idx "$fm/train-images-idx3-ubyte.gz" \
    "$fm/train-labels-idx1-ubyte.gz" "$data/fm-train.bin" >/dev/null
  [[ -s $data/fm-test.bin ]] || "$DSANA" data convert --idx "$fm/t10k-images-idx3-ubyte.gz" \
    "$fm/t10k-labels-idx1-ubyte.gz" "$data/fm-test.bin" >/dev/null
  echo "$data/fm-train.bin $data/fm-test.bin"
}

graph_kron() { # SCALE -> path
  local s=$1 f
  [[ $s =~ ^[0-9]+$ ]] || die "bad scale '$s'"
  f=$GRAPHS/kron-s$s-ef16-seed1.bin
  if [[ ! -s $f ]]; then
    note "generating Kronecker scale $s -> $f"
    "$DSANA" graph gen kron --scale "$s" --edge-factor 16 --seed 1 --out "$f.tmp.$$" >/dev/null ||
      { rm -f "$f.tmp.$$"; die "dsana graph gen kron --scale $s failed"; }
    mv "$f.tmp.$$" "$f"
  fi
  echo "$f"
}

graph_real() { # SRC.txt.gz -> path of its binary conversion in the graph cache (real-NAME.bin)
  local src=$1 name f
  name=$(basename "$src" .txt.gz)
  f=$GRAPHS/real-$name.bin
  if [[ ! -s $f || $src -nt $f ]]; then
    note "converting $src -> $f"
    "$DSANA" graph convert "$src" "$f.tmp.$$" >/dev/null ||
      { rm -f "$f.tmp.$$"; die "dsana graph convert $src failed"; }
    mv "$f.tmp.$$" "$f"
  fi
  echo "$f"
}

graph_counts() { # FILE -> "V E"
  local info
  info=$("$DSANA" graph info "$1" 2>&1) || die "dsana graph info $1 failed: $info"
  awk '/^vertices:/ {v=$2} /^edges:/ {e=$2} END {if (v=="" || e=="") exit 1; print v, e}' <<<"$info" ||
    die "cannot read vertices/edges from 'dsana graph info $1'"
}

# Keys of PageRank's contribution table that some task reads: the vertices with an
# out-edge. Pulls carry only those (dsana_job_set_unread), so they set the bytes a
# table transfer takes: 8 x this.
graph_read_keys() { # FILE -> N
  local info
  info=$("$DSANA" graph info "$1" 2>&1) || die "dsana graph info $1 failed: $info"
  awk '/^vertices:/ {v=$2} /^dangling_vertices:/ {d=$2} END {if (v=="" || d=="") exit 1; print v - d}' <<<"$info" ||
    die "cannot read vertices/dangling_vertices from 'dsana graph info $1'"
}

# run_pagerank TAG GRAPH [dsana options...]
# Runs `dsana pagerank GRAPH --quiet --metrics ... OPTIONS` under GNU time. Sets
#   RUN_METRICS  the metrics file (JSON lines)
#   RUN_RSS_KB   GNU time %M of the launcher: Linux folds each reaped child's peak into
#                the parent's ru_maxrss as a max, so this is the peak resident set of the
#                largest single process (role) of the job, not a sum over roles.
# Pass --out FILE among the options to keep the ranks.
run_pagerank() {
  local tag=$1 graph=$2
  shift 2
  RUN_METRICS=$SCRATCH/$tag.jsonl
  local rss=$SCRATCH/$tag.rss err=$SCRATCH/$tag.err
  rm -f "$RUN_METRICS" "$rss"
  if ! /usr/bin/time -f %M -o "$rss" "$DSANA" pagerank "$graph" --isolate "${RUN_ISOLATE:-processes}" --quiet --metrics "$RUN_METRICS" "$@" \
    >"$SCRATCH/$tag.stdout" 2>"$err"; then
    echo "error: run '$tag' failed: $DSANA pagerank $graph --quiet --metrics $RUN_METRICS $*" >&2
    tail -n 20 "$err" >&2
    exit 1
  fi
  RUN_RSS_KB=$(tail -n 1 "$rss")
  [[ $RUN_RSS_KB =~ ^[0-9]+$ ]] || die "run '$tag': no peak RSS from /usr/bin/time ($(cat "$rss"))"
  grep -q '"type":"summary"' "$RUN_METRICS" || die "run '$tag': no summary line in $RUN_METRICS"
}

summary_field() { # METRICS KEY
  jq -r "select(.type==\"summary\") | .$2" "$1" | tail -n 1
}

# Sum of .tasks over all iterations for one worker.
worker_tasks() { # METRICS WORKER
  jq -s "[.[] | select(.type==\"worker\" and .worker==$2) | .tasks] | add // 0" "$1"
}

stats() { # numbers... -> "median min max"
  [[ $# -gt 0 ]] || die "stats: no values"
  printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {
    m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
    printf "%.9g %.9g %.9g\n", m, a[1], a[NR] }'
}

# Arithmetic on floats: calc 'EXPR' (awk syntax), printed with %.6g unless a format is given.
calc() { awk "BEGIN { printf \"${2:-%.6g}\", ($1) }"; }

# build_tool TARGET -> path: a helper program of this tree's CMake (zmq_rtt,
# sched_cost: not built by default), built in the build directory of $DSANA when
# that is a CMake build of this tree, else in build-bench (configured without
# tests when new).
build_tool() {
  local target=$1 dir cache home
  dir=$(dirname "$DSANA")
  cache=$dir/CMakeCache.txt
  home=
  [[ -r $cache ]] && home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$cache")
  if [[ -z $home || $(cd "$home" 2>/dev/null && pwd -P) != "$(cd "$REPO" && pwd -P)" ]]; then
    dir=$REPO/build-bench
  fi
  need_cmd cmake cmake
  if [[ ! -r $dir/CMakeCache.txt ]]; then
    note "configuring $dir"
    cmake -S "$REPO" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DDSANA_TESTS=OFF >/dev/null || die "cmake configure of $dir failed"
  fi
  if ! cmake --build "$dir" --target "$target" >"$SCRATCH/$target.build" 2>&1; then
    # a build tree configured before the target existed: configure again (keeps its cache)
    cmake -S "$REPO" -B "$dir" >/dev/null 2>&1 || die "cmake configure of $dir failed"
    cmake --build "$dir" --target "$target" >"$SCRATCH/$target.build" 2>&1 ||
      die "cannot build $target (cmake --build $dir --target $target): $(tail -n 5 "$SCRATCH/$target.build")"
  fi
  echo "$dir/$target"
}

csv_row() { # FILE HEADER ROW
  local f=$1
  if [[ ! -s $f ]]; then echo "$2" >"$f"; fi
  echo "$3" >>"$f"
}
