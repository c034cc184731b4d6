#!/usr/bin/env bash
# deps.sh - install the Debian packages dsana needs to build and test, when
# they are missing (as root, or through sudo). Safe to run again.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libzmq3-dev libcmocka-dev libcjson-dev libsodium-dev libzstd-dev zlib1g-dev gzip jq
  python3-dev python3-numpy python3-scipy python3-sklearn python3-networkx python3-pytest
  valgrind clang libclang-rt-14-dev clang-format-14 libopenmpi-dev openmpi-bin dataset-fashion-mnist)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
