#!/usr/bin/env bash
# test_text_load_not_silence.sh - loading is never silence: a libsvm text
# input that takes longer to parse than --peer-timeout runs to the end,
# and its model equals, byte for byte, the one made from the same data
# converted to dsana's binary format first:
#   - as threads of one process (the default) and as processes: the
#     launcher parses the text once (prepare) and every role maps the copy;
#   - roles started on their own (dsana scheduler, server, worker over
#     tcp), each of which parses the text itself in its setup while a
#     helper thread keeps its heartbeats going (they were lost: "server 0
#     has been silent for 1.6 s: lost").
# The text (128 MB, 200,000 rows) takes a few seconds to parse per role on
# a quiet machine, more when the roles parse it at once; --peer-timeout is
# 1.5 s (the heartbeat is 0.5 s).
# timeout: 300 s
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_bins
cd "$T"
mkdir tmp
export TMPDIR=$T/tmp

"$DSANA" data gen logreg --samples 200000 --features 1000 --nnz-per-row 40 --classes 3 --seed 7 --out x.svm \
  >/dev/null || die "data gen failed"
"$DSANA" data convert x.svm x.bin >/dev/null || die "data convert failed"
opts=(--max-iter 4 --tol 0 --quiet)

run_capture ref "$DSANA" logreg x.bin "${opts[@]}" --workers 2 --servers 2 --model-out ref.model
[ "$RC" -eq 0 ] || die "the binary run failed: $(head -c 300 ref.err)"

for iso in threads processes; do
  run_capture "$iso" "$DSANA" logreg x.svm "${opts[@]}" --workers 2 --servers 2 --isolate "$iso" --peer-timeout 1.5 \
    --model-out "$iso.model"
  if [ "$RC" -ne 0 ]; then
    fail "as $iso: the text run failed (exit $RC): $(head -c 300 "$iso.err")"
  elif ! cmp -s ref.model "$iso.model"; then
    fail "as $iso: the text run's model differs from the binary run's"
  else
    pass "as $iso: text parsed once, --peer-timeout 1.5: the binary run's model, byte for byte"
  fi
done

# roles started on their own: every one parses x.svm in its setup
head -c 32 /dev/urandom | base64 >job.token
addr="tcp://127.0.0.1:$(free_port)"
common=(--scheduler "$addr" --token-file job.token --peer-timeout 1.5)
pids=()
trap 'kill -KILL "${pids[@]}" 2>/dev/null || true; lib_cleanup' EXIT
timeout 200 "$DSANA" scheduler logreg x.svm "${opts[@]}" "${common[@]}" --workers 2 --servers 2 \
  --model-out alone.model >sched.out 2>sched.err &
sched=$!
pids+=("$sched")
for role in server server worker worker; do
  timeout 200 "$DSANA" "$role" "${common[@]}" >"$role.$((${#pids[@]})).out" 2>"$role.$((${#pids[@]})).err" &
  pids+=($!)
done
rc=0
wait "$sched" || rc=$?
for p in "${pids[@]:1}"; do wait "$p" || true; done
if [ "$rc" -ne 0 ]; then
  fail "roles started on their own: the scheduler failed (exit $rc): $(head -c 300 sched.err)"
elif ! cmp -s ref.model alone.model; then
  fail "roles started on their own: the model differs from the binary run's"
else
  pass "roles started on their own, each parsing the text, --peer-timeout 1.5: the binary run's model"
fi
if grep -h "silent for" ./*.err; then
  fail "a role was counted silent while it loaded"
else
  pass "no role counted silent"
fi
finish
