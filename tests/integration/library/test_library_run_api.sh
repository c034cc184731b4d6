#!/usr/bin/env bash
# test_library_run_api.sh - dsana_run (dsana/launch.h) from a program
# linked to libdsana.so alone (tests/client/run_jobs.c): five jobs in one
# process, one after another. The good ones write the ranks `dsana
# pagerank` writes, byte for byte, with 1 worker and with 3 workers, 2
# servers, --mode dsana under a straggler scenario given as JSON text; a bad
# option and a missing input come back as a status, exit code 2 and an
# error line naming them, and a good job after them still runs. Nothing
# reaches the program's stderr.
# timeout: 60 s
set -euo pipefail
# shellcheck source=tests/integration/lib.sh
source "$(dirname "$0")/../lib.sh"
[ -x "${RUN_JOBS:-}" ] || skip "RUN_JOBS (tests/client/run_jobs) is not built"
[ -x "${DSANA:-}" ] || die "DSANA is not set"
cd "$T"
"$DSANA" graph gen kron --scale 10 --seed 5 --out g.bin >/dev/null || die "graph gen failed"
"$DSANA" pagerank g.bin --workers 1 --quiet --out cli.tsv || die "dsana pagerank failed"

strag='{"workers":[{"speed":1},{"speed":0.5},{"speed":0.25}],"ns_per_cost":5}'
# the scenario's temporary file goes to $TMPDIR (a short one: dsana_run
# takes /tmp past 31 characters); this test's own, so that a file another
# test leaves there for a moment is not taken for this one's
tmpd=$(mktemp -d /tmp/dsr.XXXXXX)
trap 'rm -rf "$tmpd"; lib_cleanup' EXIT
export TMPDIR=$tmpd
run_capture jobs "$RUN_JOBS" pagerank \
  "g.bin --out a.tsv workers=1" \
  "g.bin --out b.tsv workers=3 servers=2 mode=dsana scenario_json=$strag metrics=b.jsonl" \
  "g.bin --bogus 1" \
  "missing-graph.txt --out x.tsv" \
  "g.bin --out c.tsv tol=1e-6 max_iter=100"
[ "$RC" -eq 0 ] || die "run_jobs: rc=$RC $(head -3 "$T/jobs.err")"
mapfile -t res <"$T/jobs.out"
[ "${#res[@]}" -eq 5 ] || die "expected 5 result lines: $(cat "$T/jobs.out")"
for i in 0 1 4; do
  [[ ${res[$i]} == "status=0 exit=0 summary=1 "*" log=0 error=" ]] && [[ ${res[$i]} != *iterations=0* ]] ||
    fail "job $((i + 1)): ${res[$i]}"
done
if cmp -s cli.tsv a.tsv && cmp -s cli.tsv b.tsv && cmp -s cli.tsv c.tsv; then
  pass "jobs 1, 2 and 5 write dsana pagerank's ranks byte for byte (${res[0]%% log=*})"
else
  fail "ranks differ from dsana pagerank's: $(ls -l ./*.tsv)"
fi
if tail -n 1 b.jsonl | jq -e '.workers == 3 and .servers == 2 and .mode == "dsana" and (.scenario | length > 0)' \
  >/dev/null; then
  pass "job 2 ran dsana with 3 workers and 2 servers under the scenario (JSON text)"
else
  fail "job 2's summary: $(tail -n 1 b.jsonl | jq -c '{workers, servers, mode, scenario}')"
fi
[[ ${res[2]} == "status=-12 exit=2 summary=0 iterations=0 log=1 error="*"--bogus"* ]] &&
  pass "a bad option: DSANA_EUSAGE, exit 2, ${res[2]#*error=}" || fail "bad option: ${res[2]}"
[[ ${res[3]} == *" exit=2 "*"log=1 error="*"missing-graph.txt"* ]] &&
  pass "a missing input: exit 2, ${res[3]#*error=}" || fail "missing input: ${res[3]}"
[ ! -s "$T/jobs.err" ] && pass "nothing on the program's stderr" || fail "stderr: $(head -3 "$T/jobs.err")"
[ ! -e x.tsv ] && [ -z "$(ls -A "$tmpd")" ] &&
  pass "no output of the failed job, no scenario file left" || fail "left behind: $(ls x.tsv "$tmpd" 2>&1)"
finish
