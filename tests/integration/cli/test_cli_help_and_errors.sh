#!/usr/bin/env bash
# test_cli_help_and_errors.sh - help and messages. Every value is named
# in --help (--max-iter N, --out FILE, --top K, kmeans's --k K ..., no
# bare X); -h works on every command; dsana scheduler --help and dsana
# scheduler APP --help print the scheduler's usage; errors state the
# valid range; --verbose says something and dsana server|worker accept
# it; --chunk 4 and 1003 are refused with the reason; --scheduler
# without a scheme, or a tcp:// address without a port in 1..65535, is a
# usage error; a Matrix Market index 0 says indices start at 1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
printf '1 2\n2 3\n3 1\n' >g.txt
head -c 32 /dev/urandom | base64 >job.token

"$DSANA" kmeans --help >kh.txt
for v in "--k K" "--init kmeans++|random" "--init-centroids FILE" "--seed S" "--max-iter N" "--tol T" "--out FILE"; do
  grep -q -- "$v " kh.txt && pass "kmeans --help names '$v'" || fail "kmeans --help lacks '$v'"
done
"$DSANA" pagerank --help >ph.txt
for v in "--max-iter N" "--out FILE" "--top K" "--tol TOL" "--damping D" "--personalization FILE" "--workers W"; do
  grep -q -- "$v " ph.txt && pass "pagerank --help names '$v'" || fail "pagerank --help lacks '$v'"
done
grep -Eq -- '--[a-z-]+ X( |$)' ph.txt && fail "a bare X in --help: $(grep -E -- '--[a-z-]+ X( |$)' ph.txt)" ||
  pass "no value shown as a bare X"
grep -q "(default 100)" ph.txt && grep -q "(default 0.85)" ph.txt && pass "--help states the app's defaults" ||
  fail "--help lacks defaults"

# usage_ok NAME CMD...: exit 0, "usage:" on stdout
usage_ok() {
  local name=$1
  shift
  run_capture "$name" "$@"
  if [ "$RC" -eq 0 ] && grep -q "^usage: " "$name.out"; then
    pass "$(show_cmd "${@:2}"): usage, exit 0"
  else
    fail "$(show_cmd "${@:2}"): rc=$RC $(head -c 200 "$name.err")"
  fi
}
usage_ok h1 "$DSANA" pagerank -h
usage_ok h2 "$DSANA" logreg -h
usage_ok h3 "$DSANA" server -h
usage_ok h4 "$DSANA" worker -h
usage_ok h5 "$DSANA" scheduler -h
usage_ok h6 "$DSANA" scheduler --help
usage_ok h7 "$DSANA" graph -h
usage_ok h8 "$DSANA" data -h
usage_ok h9 "$DSANA" logreg predict -h
usage_ok h10 "$DSANA" -h
usage_ok h11 "$DSANA" kmeans -h
grep -q "^usage: dsana scheduler APP --scheduler ADDR" h6.out && pass "dsana scheduler --help is the scheduler's" ||
  fail "dsana scheduler --help: $(head -n 1 h6.out)"
run_capture sp "$DSANA" scheduler pagerank --help
grep -q "^usage: dsana scheduler pagerank --scheduler ADDR --token-file FILE" sp.out &&
  pass "dsana scheduler pagerank --help shows the scheduler's usage of pagerank" || fail "$(head -n 1 sp.out)"

# refused NAME WANT CMD...: exit 2, one line containing WANT
refused() {
  local name=$1 want=$2
  shift 2
  run_capture "$name" "$@"
  if [ "$RC" -eq 2 ] && [ "$(stderr_lines "$name.err")" -eq 1 ] && grep -qF -- "$want" "$name.err"; then
    pass "$(cat "$name.err")"
  else
    fail "$(show_cmd "${@:2}"): rc=$RC (expected 2), wanted '$want': $(head -c 300 "$name.err")"
  fi
}
refused workers "1..4096" "$DSANA" pagerank g.txt --workers 100000
refused servers "1..1024" "$DSANA" pagerank g.txt --servers 0
refused damping "(0, 1)" "$DSANA" pagerank g.txt --damping 1.5
refused chunk4 "multiple of 8" "$DSANA" pagerank g.txt --chunk 4
refused chunk1003 "multiple of 8" "$DSANA" pagerank g.txt --chunk 1003
refused noscheme "tcp://HOST:PORT" "$DSANA" scheduler pagerank g.txt --scheduler 127.0.0.1:7021 --token-file job.token
refused noscheme2 "tcp://HOST:PORT" "$DSANA" server --scheduler 127.0.0.1:7021 --token-file job.token
# a tcp address needs a port in 1..65535 (without one zmq said "Invalid argument", exit 1,
# once per role; 99999 was taken modulo 65536)
refused noport "tcp://HOST:PORT" "$DSANA" pagerank g.txt --scheduler tcp://127.0.0.1
refused noport2 "tcp://HOST:PORT" "$DSANA" worker --scheduler tcp://127.0.0.1 --token-file job.token
refused bigport "port 1..65535" "$DSANA" pagerank g.txt --scheduler tcp://127.0.0.1:99999
refused port0 "port 1..65535" "$DSANA" scheduler pagerank g.txt --scheduler tcp://127.0.0.1:0 --token-file job.token
refused portname "port 1..65535" "$DSANA" server --scheduler tcp://127.0.0.1:http --token-file job.token
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n0 1\n2 3\n' >z.mtx
refused mtx0 "start at 1" "$DSANA" pagerank z.mtx

run_capture verbose "$DSANA" pagerank g.txt --verbose --quiet --workers 2
[ "$RC" -eq 0 ] && grep -q "local job in .*2 workers" verbose.err && grep -q "started worker 1" verbose.err &&
  pass "--verbose says where the job runs and what started" || fail "--verbose: rc=$RC $(head -c 300 verbose.err)"
run_capture sverbose "$DSANA" server --verbose --scheduler tcp://127.0.0.1:9 --token-file job.token --register-timeout 1
! grep -q "unknown option" sverbose.err && grep -q "joining the scheduler at tcp://127.0.0.1:9" sverbose.err &&
  pass "dsana server --verbose: $(head -n 1 sverbose.err)" || fail "server --verbose: $(head -c 300 sverbose.err)"
finish
