#!/usr/bin/env bash
# test_library_install.sh - `cmake --install` gives a tree an app outside
# the source builds against: bin/dsana (linked to the library), libdsana.so
# with the SONAME of the major version, libdsana.a, headers that compile
# alone, dsana.pc and the CMake package. The example app (examples/power)
# is built from it three ways (pkg-config, find_package(dsana), the static
# archive), each run with 1 worker and with 3 workers, 2 servers, --mode
# dsana under a straggler scenario: all six eigenvectors are identical, and
# the metrics say the straggler runs were dsana with 3 workers.
# timeout: 180 s
set -euo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/../lib.sh"
SRC=${DSANA_SRC:-$(cd "$(dirname "$0")/../../.." && pwd)}
B=${DSANA_BUILD:-$(dirname "${DSANA:?}")}
for tool in cc cmake pkg-config readelf jq; do
  command -v $tool >/dev/null || skip "no $tool"
done
cd "$T"
P=$T/prefix

cmake --install "$B" --prefix "$P" >install.log 2>&1 || die "cmake --install failed: $(tail -3 install.log)"
ver=$("$P/bin/dsana" --version | awk '{ print $2 }') || die "the installed dsana does not run"
major=${ver%%.*}
missing=""
for f in bin/dsana lib/libdsana.a lib/pkgconfig/dsana.pc lib/cmake/dsana/dsanaConfig.cmake \
  lib/cmake/dsana/dsanaConfigVersion.cmake include/dsana/dsana.h include/dsana/launch.h; do
  [ -e "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass "the tree has bin, lib (.so, .a, pkgconfig, cmake) and include/dsana" || fail "missing:$missing"
soname=$(readelf -d "$P/lib/libdsana.so.$ver" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "libdsana.so.$major" ] && [ "$(readlink "$P/lib/libdsana.so")" = "libdsana.so.$major" ] &&
  [ "$(readlink "$P/lib/libdsana.so.$major")" = "libdsana.so.$ver" ]; then
  pass "SONAME $soname: libdsana.so -> libdsana.so.$major -> libdsana.so.$ver"
else
  fail "SONAME '$soname', links $(ls -l "$P"/lib/libdsana.so* | awk '{ print $9, $10, $11 }' | tr '\n' ' ')"
fi
if readelf -d "$P/bin/dsana" | grep -q "NEEDED.*\[libdsana.so.$major\]" &&
  [ "$(readlink -f "$(env -u LD_LIBRARY_PATH ldd "$P/bin/dsana" | awk '/libdsana/ { print $3 }')")" = \
    "$(readlink -f "$P/lib/libdsana.so.$major")" ]; then
  pass "the installed dsana links the installed libdsana.so.$major"
else
  fail "bin/dsana: $(ldd "$P/bin/dsana" | grep dsana)"
fi

bad=""
for h in "$P"/include/dsana/*.h; do
  cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$P/include" -x c "$h" 2>>headers.err || bad="$bad ${h##*/}"
done
[ -z "$bad" ] && pass "each installed header compiles alone with -I PREFIX/include" || fail "$bad: $(head -3 headers.err)"

export PKG_CONFIG_PATH=$P/lib/pkgconfig
EX=$SRC/examples/power/power.c
san=() # a sanitizer build's library loads only into a program built the same way
readelf -d "$P/lib/libdsana.so.$ver" | grep -q 'NEEDED.*libasan' && san=(-fsanitize=address,undefined)
# shellcheck disable=SC2046 # pkg-config's words are separate flags
cc -std=c11 -O2 "${san[@]}" "$EX" $(pkg-config --cflags --libs dsana) -lm -o power_pc 2>pc.err ||
  die "the example does not build with pkg-config: $(head -3 pc.err)"
cmake -S "$SRC/examples/power" -B cm -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="${san[*]}" >cm.log 2>&1 &&
  cmake --build cm >>cm.log 2>&1 || die "the example does not build with find_package(dsana): $(tail -5 cm.log)"
cp cm/dsana-power power_cm
# shellcheck disable=SC2046
cc -std=c11 -O2 "${san[@]}" "$EX" $(pkg-config --cflags dsana) "$P/lib/libdsana.a" \
  $(pkg-config --static --libs dsana | sed 's/-ldsana//') -lm -o power_st 2>st.err ||
  die "the example does not build with libdsana.a: $(head -3 st.err)"
readelf -d power_st | grep -q 'NEEDED.*libdsana' && fail "power_st needs libdsana.so" ||
  pass "the example builds with pkg-config, with find_package(dsana) and with libdsana.a"

printf '{"workers": [{"speed": 1}, {"speed": 0.5}, {"speed": 0.25}],
  "transient": {"probability": 0.3, "slowdown": 4, "seed": 9}, "ns_per_cost": 2000}' >strag.json
opts=(power --n 1200 --tol 0 --max-iter 12 --quiet)
export LD_LIBRARY_PATH=$P/lib # power_pc has no run path
for how in pc cm st; do
  run_capture "$how.1" "./power_$how" "${opts[@]}" --workers 1 --out "$how.1.txt"
  [ "$RC" -eq 0 ] || fail "power_$how, 1 worker: rc=$RC $(head -3 "$T/$how.1.err")"
  run_capture "$how.3" "./power_$how" "${opts[@]}" --workers 3 --servers 2 --mode dsana --scenario strag.json \
    --metrics "$how.jsonl" --out "$how.3.txt"
  [ "$RC" -eq 0 ] || fail "power_$how, 3 workers: rc=$RC $(head -3 "$T/$how.3.err")"
  if tail -n 1 "$how.jsonl" | jq -e '.type == "summary" and .workers == 3 and .servers == 2 and .mode == "dsana" and
      .iterations == 12 and (.scenario | length > 0)' >/dev/null 2>&1; then
    pass "power_$how: the straggler run was dsana with 3 workers and 2 servers, 12 iterations"
  else
    fail "power_$how: summary $(tail -n 1 "$how.jsonl" 2>/dev/null | jq -c '{workers, servers, mode, iterations, scenario}')"
  fi
done
same=0
for f in pc.3 cm.1 cm.3 st.1 st.3; do
  cmp -s pc.1.txt "$f.txt" && same=$((same + 1))
done
if [ "$same" -eq 5 ] && [ "$(wc -l <pc.1.txt)" -eq 1201 ]; then
  pass "six runs (3 builds x 1 worker / 3 workers 2 servers dsana stragglers) write the same eigenvector ($(head -1 pc.1.txt))"
else
  fail "$same of 5 runs match pc.1.txt ($(wc -l <pc.1.txt) lines)"
fi
finish
