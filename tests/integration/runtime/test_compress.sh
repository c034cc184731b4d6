#!/usr/bin/env bash
# test_compress.sh - compressed pulls (--compress) change bytes, never
# results: byte-identical PageRank output with --compress on, off and auto
# for 1 or 3 workers and 1-2 servers, over an emulated link and locally, in
# both modes and every chunk size, against plain BSP; auto turns compression on over a slow link
# under --chunk auto and leaves it off locally and under --mode bsp; the
# metrics of a converging run show fewer bytes sent than before
# compression, ever fewer as it converges; a compressed piece corrupted on
# the wire (DSANA_FAULT) is rejected and asked for again, uncompressed, and
# the result is still identical, as it is after a lost worker and after a
# resume from a checkpoint. No timing is asserted.
# timeout: 60 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins

"$DSANA" graph gen kron --scale 12 --edge-factor 8 --seed 5 --out "$T/g.bin" >/dev/null
run_capture base "$DSANA" pagerank "$T/g.bin" --workers 2 --servers 1 --mode bsp --compress off --tol 1e-12 --quiet \
  --out "$T/base.out"
[ "$RC" -eq 0 ] || die "baseline failed: $(cat "$T/base.err")"
# a slow link (auto compresses over it) at a small latency, so runs stay short
printf '{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 1}], "link": {"bandwidth_mbit": 800, "latency_ms": 0.05}}' \
  >"$T/link.json"

# compress: the summary's "compress" of a metrics file
compressed() { jq -s -r '[.[] | select(.type == "summary")][0].compress' "$1"; }

for c in on off auto; do
  for w in 1 3; do
    for s in 1 2; do
      name="l.$c.$w.$s"
      run_capture "$name" "$DSANA" pagerank "$T/g.bin" --workers "$w" --servers "$s" --mode dsana --compress "$c" \
        --scenario "$T/link.json" --tol 1e-12 --quiet --out "$T/$name.txt" --metrics "$T/$name.jsonl"
      want=true
      [ "$c" = off ] && want=false
      got=$(compressed "$T/$name.jsonl" 2>/dev/null || echo "?")
      if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/$name.txt" && [ "$got" = "$want" ] &&
        [ "$(grep -vc "runs the first $w of the 3 workers" "$T/$name.err")" -eq 0 ]; then
        pass "--compress $c, $w worker(s), $s server(s), 800 Mbit/s link: identical to bsp, compress=$got, no warnings (but the scenario's worker count)"
      else
        fail "--compress $c, $w worker(s), $s server(s) over a link: rc=$RC compress=$got $(head -c 300 "$T/$name.err")"
      fi
    done
  done
done

# locally without a link, and under --mode bsp (whole tables, static split)
for args in "--mode dsana --compress on" "--mode dsana --compress auto" "--mode bsp --compress on" \
  "--mode bsp --compress auto" "--mode dsana --chunk 4K --compress on"; do
  name="loc.${args//[ -]/}"
  # shellcheck disable=SC2086
  run_capture "$name" "$DSANA" pagerank "$T/g.bin" --workers 3 --servers 2 $args --tol 1e-12 --quiet \
    --out "$T/$name.txt" --metrics "$T/$name.jsonl"
  want=true
  [[ "$args" == *auto* ]] && want=false # locally, and bsp, leave it off
  got=$(compressed "$T/$name.jsonl" 2>/dev/null || echo "?")
  if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/$name.txt" && [ "$got" = "$want" ]; then
    pass "$args, locally: identical to bsp, compress=$got"
  else
    fail "$args, locally: rc=$RC compress=$got $(head -c 300 "$T/$name.err")"
  fi
done
# every chunk size (one key per chunk: pieces too small to shrink go plain)
for chunk in 8 5000 64K off; do
  for sched in static dynamic; do
    name="ch.$chunk.$sched"
    run_capture "$name" "$DSANA" pagerank "$T/g.bin" --workers 3 --servers 2 --sched "$sched" --chunk "$chunk" \
      --compress on --tol 1e-12 --quiet --out "$T/$name.txt"
    if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/$name.txt" && [ "$(stderr_lines "$T/$name.err")" -eq 0 ]; then
      pass "--compress on --chunk $chunk --sched $sched: identical to bsp, no warnings"
    else
      fail "--compress on --chunk $chunk --sched $sched: rc=$RC $(head -c 300 "$T/$name.err")"
    fi
  done
done
run_capture bsplink "$DSANA" pagerank "$T/g.bin" --workers 2 --mode bsp --compress auto --scenario "$T/link.json" \
  --tol 1e-12 --quiet --out "$T/bsplink.txt" --metrics "$T/bsplink.jsonl"
got=$(compressed "$T/bsplink.jsonl" 2>/dev/null || echo "?")
if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/bsplink.txt" && [ "$got" = false ]; then
  pass "--mode bsp --compress auto over the link: plain BSP stays uncompressed"
else
  fail "--mode bsp --compress auto over the link: rc=$RC compress=$got"
fi

# Bytes: every iteration sends fewer bytes than it would uncompressed, the
# run as a whole at least 1.3x fewer, and the converged end fewer than the
# start; uncompressed, both counts agree.
m="$T/l.on.3.1.jsonl"
read -r n fewer first last ratio < <(jq -s -r '[.[] | select(.type == "iteration")] as $it |
  [($it | length), ([$it[] | select(.pull_bytes < .pull_bytes_raw)] | length), ($it[1].pull_bytes),
   ($it[-1].pull_bytes), ([.[] | select(.type == "summary")][0].compress_ratio)] | @tsv' "$m")
if [ "$n" -gt 5 ] && [ "$fewer" -eq "$n" ] && [ "$last" -lt "$first" ] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.3) }'; then
  pass "compressed: $fewer/$n iterations sent fewer bytes, $first -> $last bytes from iteration 2 to the last, ratio $ratio"
else
  fail "compressed bytes: n=$n fewer=$fewer first=$first last=$last ratio=$ratio"
fi
same=$(jq -s -r '[.[] | select(.type == "iteration" and .pull_bytes != .pull_bytes_raw)] | length' "$T/l.off.3.1.jsonl")
if [ "$same" -eq 0 ]; then
  pass "uncompressed: bytes sent equal bytes before compression in every iteration"
else
  fail "uncompressed: $same iterations where pull_bytes != pull_bytes_raw"
fi
if grep -q 'transfer_bound_bytes":"as sent"' "$m" && grep -q "the transfer bound counts the bytes sent" \
  <("$DSANA" pagerank "$T/g.bin" --workers 2 --mode dsana --compress on --scenario "$T/link.json" --max-iter 3 2>&1); then
  pass "the summary says the transfer bound counts the bytes sent"
else
  fail "no word on what the transfer bound counts"
fi

# A corrupted compressed piece: dropped by the worker (checksum), asked for
# again uncompressed, result unchanged.
for s in 1 2; do
  DSANA_FAULT="server=0,iter=4,point=compressed,how=flip" run_capture "bad$s" "$DSANA" pagerank "$T/g.bin" \
    --workers 2 --servers "$s" --mode dsana --compress on --scenario "$T/link.json" --tol 1e-12 --quiet \
    --out "$T/bad$s.txt"
  if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/bad$s.txt" && grep -q "flipped a bit" "$T/bad$s.err" &&
    grep -q "dropped PULL_REPLY.*checksum mismatch" "$T/bad$s.err" && grep -q "uncompressed" "$T/bad$s.err"; then
    pass "a corrupted compressed piece ($s server(s)) is rejected, fetched again plainly, result identical"
  else
    fail "corrupted piece ($s server(s)): rc=$RC $(head -c 600 "$T/bad$s.err")"
  fi
done

# A worker lost mid-iteration (its tasks re-run elsewhere) and a job
# resumed from a checkpoint (servers without the version before it: pieces
# go without a base at first) stay identical too. The lost worker's run is
# scheduled statically: dynamic scheduling may hand a worker it measured
# slow (a loaded CI host) no task in iteration 3, and the fault would not fire.
common=(--servers 2 --mode dsana --compress on --tol 1e-12 --quiet)
DSANA_FAULT="worker=1,iter=3,point=mid-push,how=kill" run_capture lost "$DSANA" pagerank "$T/g.bin" --workers 3 \
  "${common[@]}" --sched static --scenario "$T/link.json" --peer-timeout 2 --out "$T/lost.txt"
if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/lost.txt" && grep -q "worker 1 lost" "$T/lost.err"; then
  pass "compressed, a worker killed mid-push in iteration 3: identical"
else
  fail "compressed, worker killed: rc=$RC $(head -c 400 "$T/lost.err")"
fi
DSANA_FAULT="server=1,iter=7,point=commit,how=kill" run_capture ckill "$DSANA" pagerank "$T/g.bin" --workers 3 \
  "${common[@]}" --checkpoint "$T/ck" --checkpoint-every 5 --max-restarts 0 --out "$T/ckill.txt"
run_capture resume "$DSANA" pagerank "$T/g.bin" --workers 2 "${common[@]}" --resume "$T/ck" --out "$T/resume.txt"
if [ "$RC" -eq 0 ] && cmp -s "$T/base.out" "$T/resume.txt" && grep -q "continue with --resume" "$T/ckill.err"; then
  pass "compressed, a server killed after iteration 7, resumed from iteration 5: identical"
else
  fail "compressed resume: rc=$RC $(head -c 400 "$T/ckill.err") $(head -c 400 "$T/resume.err")"
fi

for bad in yes ON 1 ""; do
  run_capture "badopt" "$DSANA" pagerank "$T/g.bin" --compress "$bad" --quiet
  if [ "$RC" -eq 2 ] && grep -q -- "--compress" "$T/badopt.err"; then
    pass "--compress '$bad' refused"
  else
    fail "--compress '$bad': rc=$RC $(cat "$T/badopt.err")"
  fi
done
finish
