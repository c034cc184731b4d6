#!/usr/bin/env bash
# test_servers_not_above_keys.sh - every server holds a part of every
# table: more servers than a table's keys is refused, in a real run and in
# `dsana sim` alike (exit 2, one line naming --servers and the table), and
# as many servers as keys runs to the answer of one server. Before, 16
# servers on a 15-vertex graph ran with "dropped SHARD_REPORT" lines and
# the simulator stalled; kmeans with more servers than clusters dropped
# pushes. Fifteen servers run clean, ten times (see mirror_shm_map).
# timeout: 45 s (CTest; about three times its run time)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"

# expect_refused CASE KEYWORD CMD...
expect_refused() {
  local case=$1 keyword=$2
  shift 2
  run_capture "$case" "$@"
  refusal_problems "$case.err" "" "" "$keyword"
  grep -q -- "--servers" "$case.err" || PROBLEMS+=("does not name --servers")
  if [ "${#PROBLEMS[@]}" -eq 0 ]; then
    pass "$case: exit 2: $(cat "$case.err")"
  else
    fail "$case: $(show_cmd "$@"): ${PROBLEMS[*]}; stderr: $(head -c 400 "$case.err")"
  fi
}

# expect_clean CASE CMD...: exit 0 and nothing dropped on stderr.
expect_clean() {
  local case=$1
  shift
  run_capture "$case" "$@"
  if [ "$RC" -eq 0 ] && ! grep -q "dropped\|stalled" "$case.err"; then
    pass "$case: exit 0, nothing dropped"
  else
    fail "$case: $(show_cmd "$@"): exit $RC; stderr: $(head -c 400 "$case.err")"
  fi
}

awk 'BEGIN { for (i = 0; i < 15; i++) { print i "\t" (i + 1) % 15; print i "\t" (i * 4 + 2) % 15 } }' >g.txt
expect_refused pr16 "15 keys of table 'rank'" "$DSANA" pagerank g.txt --servers 16 --out pr16.tsv
[ -e pr16.tsv ] && fail "pr16: left a file at --out"
expect_refused sim16 "15 keys of table 'rank'" "$DSANA" sim g.txt --servers 16 --quiet
expect_clean pr15 "$DSANA" pagerank g.txt --servers 15 --workers 2 --quiet --out pr15.tsv
expect_clean pr1 "$DSANA" pagerank g.txt --servers 1 --quiet --out pr1.tsv
cmp -s pr1.tsv pr15.tsv && pass "15 servers: the ranks of one server" || fail "15 servers: ranks differ from one server's"
expect_clean sim15 "$DSANA" sim g.txt --servers 15 --quiet
# One iteration converges; workers fetching iteration 2 ahead got answers
# after their servers had released the buffers ("cannot map the server's
# shared buffer" in about 7 of 30 runs before): ten runs, none may drop.
for i in 1 2 3 4 5 6 7 8 9 10; do
  expect_clean "pr15.$i" "$DSANA" pagerank g.txt --servers 15 --workers 2 --quiet --out pr15.tsv
done

"$DSANA" data gen logreg --samples 200 --features 4 --nnz-per-row 4 --classes 2 --out d.svm >/dev/null ||
  die "data gen failed"
expect_refused km3 "2 keys of table 'centroids'" "$DSANA" kmeans d.svm --k 2 --servers 3 --quiet --out km3.txt
expect_refused simkm3 "2 keys of table 'centroids'" "$DSANA" sim kmeans d.svm --k 2 --servers 3 --quiet
expect_clean km2 "$DSANA" kmeans d.svm --k 2 --servers 2 --quiet --out km2.txt
finish
