#!/usr/bin/env bash
# test_auth.sh - every job has a secret: a peer without it is refused and
# logged and cannot change a single value; roles started on their own must
# be given the token; bad token files are refused with one line.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
require_bins
head -c 32 /dev/urandom | base64 >"$T/job.token"
head -c 32 /dev/urandom | base64 >"$T/other.token"

"$DSANA" graph gen uniform --vertices 2000 --edges 16000 --seed 8 --out "$T/g.bin" >/dev/null
"$DSANA" pagerank "$T/g.bin" --workers 1 --servers 1 --tol 1e-12 --quiet --out "$T/ref.out"

port=$(free_port)
addr="tcp://127.0.0.1:$port"
"$DSANA" scheduler pagerank "$T/g.bin" --scheduler "$addr" --token-file "$T/job.token" --workers 1 --servers 1 \
  --tol 1e-12 --quiet --out "$T/out" --register-timeout 20 --metrics "$T/m.jsonl" >"$T/s.out" 2>"$T/s.err" &
spid=$!
# an intruder with the wrong token tries first, as a worker and as a server
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/other.token" --register-timeout 2 >"$T/bad.err" 2>&1 &
bad1=$!
run_to "$DSANA" server --scheduler "$addr" --token-file "$T/other.token" --register-timeout 2 >"$T/bad2.err" 2>&1 &
bad2=$!
rc1=0; wait "$bad1" || rc1=$?
rc2=0; wait "$bad2" || rc2=$?
run_to "$DSANA" server --scheduler "$addr" --token-file "$T/job.token" >"$T/srv.err" 2>&1 &
run_to "$DSANA" worker --scheduler "$addr" --token-file "$T/job.token" >"$T/w.err" 2>&1 &
src=0; wait "$spid" || src=$?
wait || true
if [ "$rc1" -ne 0 ] && [ "$rc2" -ne 0 ] && grep -q "timed out" "$T/bad.err"; then
  pass "peers with the wrong token never joined (exit $rc1, $rc2)"
else
  fail "intruders: rc=$rc1/$rc2 $(head -c 300 "$T/bad.err")"
fi
if grep -q "refused a peer on $addr: authentication failed" "$T/s.err"; then
  pass "the scheduler logged the refusal: $(grep -m1 refused "$T/s.err")"
else
  fail "no refusal logged: $(head -c 300 "$T/s.err")"
fi
refused=$(jq -s -r '[.[] | select(.type == "summary")][0].refused_peers' "$T/m.jsonl" 2>/dev/null || echo "?")
if [[ $refused =~ ^[0-9]+$ ]] && [ "$refused" -ge 1 ]; then
  pass "the metrics summary counts the refusals: refused_peers $refused"
else
  fail "refused_peers in the summary: '$refused'"
fi
if [ "$src" -eq 0 ] && cmp -s "$T/ref.out" "$T/out"; then
  pass "the job's output is unchanged"
else
  fail "job with intruders: rc=$src $(head -c 300 "$T/s.err")"
fi

run_capture notoken "$DSANA" worker --scheduler "$addr"
[ "$RC" -eq 2 ] && grep -q -- "--token-file FILE is required" "$T/notoken.err" &&
  pass "a role without --token-file is refused" || fail "no token: rc=$RC $(cat "$T/notoken.err")"
printf 'short' >"$T/short.token"
run_capture short "$DSANA" pagerank "$T/g.bin" --token-file "$T/short.token" --quiet
[ "$RC" -eq 2 ] && [ "$(stderr_lines "$T/short.err")" -eq 1 ] && grep -q "short.token: a token must be" "$T/short.err" &&
  pass "a too short token file is refused: $(cat "$T/short.err")" || fail "short token: rc=$RC $(cat "$T/short.err")"
run_capture missing "$DSANA" pagerank "$T/g.bin" --token-file "$T/nope.token" --quiet
[ "$RC" -eq 2 ] && grep -q "nope.token: No such file" "$T/missing.err" &&
  pass "a missing token file is refused" || fail "missing token: rc=$RC $(cat "$T/missing.err")"

# limits are checked before anything is allocated for them
run_capture maxkeys "$DSANA" pagerank "$T/g.bin" --max-keys 1000 --quiet
[ "$RC" -eq 2 ] && [ "$(stderr_lines "$T/maxkeys.err")" -eq 1 ] && grep -q "more than --max-keys 1000" "$T/maxkeys.err" &&
  pass "--max-keys refuses a larger table: $(cat "$T/maxkeys.err")" || fail "max-keys: rc=$RC $(cat "$T/maxkeys.err")"
run_capture maxmsg "$DSANA" pagerank "$T/g.bin" --max-message 4K --workers 2 --servers 2 --tol 1e-12 --quiet \
  --out "$T/maxmsg.ranks"
[ "$RC" -eq 0 ] && cmp -s "$T/ref.out" "$T/maxmsg.ranks" &&
  pass "--max-message 4K: tables travel in smaller pieces, same bytes" || fail "max-message: rc=$RC $(cat "$T/maxmsg.err")"
finish
