#!/usr/bin/env bash
# demo.sh - quick start: install what is missing, build a Release binary, and
# run PageRank on a generated Kronecker graph on a local cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDSANA_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p out
[ -f out/kron16.bin ] || build/dsana graph gen kron --scale 16 --edge-factor 16 --seed 1 --out out/kron16.bin
build/dsana pagerank out/kron16.bin --workers 2 --servers 1 --top 10 --out out/kron16.ranks "$@"
echo "ranks written to out/kron16.ranks"
