#!/usr/bin/env bash
# test_python_install.sh - `cmake --install BUILD --component python` gives
# a tree where `import dsana` works with nothing else installed: the
# extension is a client of libdsana's public API (it needs
# libdsana.so.MAJOR, found through its run path in the same tree, and
# holds none of the library's internals), and a PageRank run from the
# installed package gives what the dsana command writes for the same graph.
# timeout: 120 s
set -euo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/../lib.sh"
B=${DSANA_BUILD:-$(dirname "${DSANA:?}")}
PY=/usr/bin/python3
mod=$(find "$B/python/dsana" -maxdepth 1 -name '_dsana*.so' 2>/dev/null | head -1)
[ -n "$mod" ] || skip "the build has no Python package (DSANA_PYTHON off: python3-dev or python3-numpy missing)"
[ -x $PY ] && $PY -c 'import numpy' 2>/dev/null || skip "Debian's $PY has no numpy (python3-numpy)"
for tool in readelf nm; do
  command -v $tool >/dev/null || skip "no $tool"
done
cd "$T"
P=$T/prefix
cmake --install "$B" --prefix "$P" --component python >install.log 2>&1 ||
  die "cmake --install --component python failed: $(tail -3 install.log)"
imod=$(find "$P" -name '_dsana*.so' | head -1)
pkg=$(dirname "$(dirname "$imod")")
[ -n "$imod" ] && [ ! -e "$P/bin/dsana" ] || die "no extension under $P, or more than the python component"
major=$("$DSANA" --version | awk '{ split($2, v, "."); print v[1] }')
if readelf -d "$imod" | grep -q "NEEDED.*\[libdsana.so.$major\]" &&
  [ "$(readlink -f "$(env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd "$imod" | awk '/libdsana/ { print $3 }')")" = \
    "$(readlink -f "$(find "$P" -name "libdsana.so.$major" | head -1)")" ]; then
  pass "the installed extension loads the installed libdsana.so.$major (run path, no LD_LIBRARY_PATH)"
else
  fail "extension: $(readelf -d "$imod" | grep -E 'NEEDED|RUNPATH|RPATH' | tr -s ' ' | tr '\n' ';')"
fi
internal=$(nm --defined-only "$imod" | awk '{ print $3 }' | grep -xE 'cmd_app_job|cli_parse_run|job_init|log_msg|runtime_run_role' || true)
public=$(nm -D --undefined-only "$imod" | awk '{ print $2 }' | grep -c '^dsana_' || true)
if [ -z "$internal" ] && [ "$public" -ge 5 ]; then
  pass "the extension takes $public dsana_* calls from the library and holds none of its internals"
else
  fail "the extension holds internals ($internal) or calls $public dsana_* functions"
fi

# A ring with a chord and a dangling vertex, through the installed package
# and through the command: the same ranks, bit for bit.
printf '0 1\n1 2\n2 3\n3 0\n0 2\n4 1\n1 5\n' >g.txt
"$DSANA" pagerank g.txt --workers 1 --tol 6.000000000000001e-09 --quiet --top 0 --out cli.tsv >/dev/null 2>cli.err || die "dsana pagerank: $(head -3 cli.err)"
san_env=()
if readelf -d "$imod" "$(find "$P" -name "libdsana.so.$major" | head -1)" | grep -q 'NEEDED.*libasan'; then
  san_env=("LD_PRELOAD=$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)" ASAN_OPTIONS=detect_leaks=0)
fi
env -u LD_LIBRARY_PATH "${san_env[@]}" PYTHONPATH="$pkg" $PY - >py.tsv 2>py.err <<'PYEOF' || die "import dsana from the installed tree: $(tail -3 py.err)"
import numpy as np, dsana, os
assert os.path.dirname(dsana.__file__).startswith(os.environ["PYTHONPATH"]), dsana.__file__
src = np.array([0, 1, 2, 3, 0, 4, 1]); dst = np.array([1, 2, 3, 0, 2, 1, 5])
r = dsana.pagerank((src, dst), tol=1e-9, workers=1)
for v, x in enumerate(r):
    print(f"{v}\t{x:.12g}")
PYEOF
if [ -s py.tsv ] && cmp -s py.tsv cli.tsv; then
  pass "dsana.pagerank from the installed package prints the command's ranks ($(wc -l <py.tsv) vertices)"
else
  fail "installed package vs command: $(diff py.tsv cli.tsv | head -4 | tr '\n' ' ')"
fi
finish
