#!/usr/bin/env bash
# test_output_full_disk_keeps_ranks.sh - a full disk (RLIMIT_FSIZE,
# `ulimit -f`, with SIGXFSZ ignored so writes fail with EFBIG) under the
# trace, the metrics or the checkpoints does not lose the result: --out is
# written, byte-identical to a healthy run's, each failure is reported
# once with its reason, and the exit status is 3 (incomplete).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

"$DSANA" graph gen kron --scale 7 --seed 2 --out small.bin >/dev/null || die "graph gen failed"
"$DSANA" graph gen kron --scale 13 --seed 2 --out big.bin >/dev/null || die "graph gen failed"
common=(--workers 2 --tol 0 --quiet --top 0)
"$DSANA" pagerank small.bin "${common[@]}" --max-iter 300 --out small.ref >/dev/null 2>&1 || die "reference run failed"
"$DSANA" pagerank big.bin "${common[@]}" --max-iter 10 --out big.ref >/dev/null 2>&1 || die "reference run failed"

# full NAME KB CMD...: CMD on a "disk" of KB kilobytes per file; stdout
# through a pipe (no size limit there) to NAME.out
full() {
  local name=$1 kb=$2
  shift 2
  set +o pipefail # the status is the first command's, from PIPESTATUS
  (trap '' XFSZ && ulimit -f "$kb" && exec timeout 120 "$@") 2>"$name.err" | cat >"$name.out"
  RC=${PIPESTATUS[0]}
  set -o pipefail
}

full trace 64 "$DSANA" pagerank small.bin "${common[@]}" --max-iter 300 --trace t.json --out small.tsv
if [ "$RC" -eq 3 ] && cmp -s small.tsv small.ref && grep -q "trace.*File too large" trace.err; then
  pass "trace on a full disk: ranks written, exit 3: $(grep -m1 trace trace.err)"
else
  fail "trace on a full disk: rc=$RC (expected 3), ranks $(cmp -s small.tsv small.ref && echo ok || echo missing), $(head -c 300 trace.err)"
fi

full metrics 64 "$DSANA" pagerank small.bin "${common[@]}" --max-iter 300 --metrics m.jsonl --out small2.tsv
if [ "$RC" -eq 3 ] && cmp -s small2.tsv small.ref && [ "$(grep -c metrics metrics.err)" -eq 1 ] &&
  grep -q "File too large" metrics.err; then
  pass "metrics on a full disk: ranks written, one line, exit 3: $(cat metrics.err)"
else
  fail "metrics on a full disk: rc=$RC (expected 3), $(head -c 300 metrics.err)"
fi

# checkpoints of 128 KiB on a 64 KiB disk, every 2 of 10 iterations; the
# ranks (150 KiB) go to the pipe
full ckpt 64 "$DSANA" pagerank big.bin "${common[@]}" --max-iter 10 --checkpoint ck --checkpoint-every 2 --out -
if [ "$RC" -eq 3 ] && cmp -s ckpt.out big.ref && [ "$(grep -c "cannot write the checkpoint" ckpt.err)" -eq 1 ] &&
  grep -q "File too large" ckpt.err && [ ! -e ck/manifest ]; then
  pass "checkpoints on a full disk: ranks written, one line, exit 3: $(cat ckpt.err)"
else
  fail "checkpoints on a full disk: rc=$RC (expected 3), $(grep -c checkpoint ckpt.err) lines: $(head -c 300 ckpt.err)"
fi
finish
