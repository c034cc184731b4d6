#!/usr/bin/env bash
# test_fuzz_smoke.sh - every libFuzzer target of tests/fuzz/ for 3 seconds
# (tests/fuzz/run.sh 3): the parsers and decoders must survive their seed
# corpora and a few thousand mutations without a crash, a leak, a
# sanitizer report or a broken invariant. About 30 s and the build. Then
# tests/fuzz/campaign.sh on one target with a goal of a few thousand
# executions: it reaches the goal, status says so, a second run resumes
# from the state and does nothing, a background start goes on to a higher
# goal and stop ends a background campaign. About 15 s more.
#
# Skipped (77) when clang's libFuzzer is missing and cannot be installed.
# Its build and working corpora live in build-fuzz/ctest (FUZZ_OUT), apart
# from those of a run.sh started by hand.
# timeout: 300 s (CTest; about three times its run time)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

[ -n "${DSANA_SRC:-}" ] || die "DSANA_SRC is not set"
RUN="$DSANA_SRC/tests/fuzz/run.sh"
CAMPAIGN="$DSANA_SRC/tests/fuzz/campaign.sh"
[ -f "$RUN" ] || die "$RUN is missing"
[ -f "$CAMPAIGN" ] || die "$CAMPAIGN is missing"
export FUZZ_OUT="$DSANA_SRC/build-fuzz/ctest"

RC=0
timeout 270 bash "$RUN" 3 || RC=$?
case $RC in
0) pass "every fuzz target ran 3 s without a crash" ;;
77) skip "libFuzzer unavailable (see the message above)" ;;
124) fail "tests/fuzz/run.sh 3 did not finish within 270 s" ;;
1) fail "a fuzz target crashed (crash files and logs under build-fuzz/ctest)" ;;
*) fail "tests/fuzz/run.sh 3 failed with exit code $RC (build error?)" ;;
esac
[ $RC = 0 ] || finish

# The campaign, on the binaries run.sh just built, from a fresh state.
rm -rf "$FUZZ_OUT/campaign"
# executions of TARGET in the state and its result, e.g. "2000 reached"
state_of() {
  awk -v t="$1" '$1 == t { print $2, $7 }' "$FUZZ_OUT/campaign/state"
}
run_capture run1 bash "$CAMPAIGN" run --goal 2000 zcodec
read -r EXECS RESULT <<<"$(state_of zcodec)"
if [ $RC = 0 ] && [ "$RESULT" = reached ] && [ "${EXECS:-0}" -ge 2000 ]; then
  pass "campaign run --goal 2000 zcodec: $EXECS executions, goal reached"
else
  fail "campaign run --goal 2000 zcodec: exit $RC, state '$EXECS $RESULT'"; cat "$T/run1.out" "$T/run1.err"
fi
run_capture status1 bash "$CAMPAIGN" status zcodec
if grep -Eq "^zcodec +$EXECS +2000 .* reached$" "$T/status1.out"; then
  pass "campaign status shows zcodec at its goal"
else
  fail "campaign status:"; cat "$T/status1.out"
fi
run_capture run2 bash "$CAMPAIGN" run --goal 2000 zcodec
if [ $RC = 0 ] && [ "$(state_of zcodec)" = "$EXECS reached" ] && ! grep -q "executions of" "$T/run2.out"; then
  pass "campaign run again: resumed from the state, nothing left to run"
else
  fail "campaign run again: exit $RC, state '$(state_of zcodec)'"; cat "$T/run2.out"
fi
run_capture start bash "$CAMPAIGN" start --goal 4000 zcodec
run_capture wait bash "$CAMPAIGN" wait
read -r EXECS2 RESULT <<<"$(state_of zcodec)"
if [ "$RESULT" = reached ] && [ "${EXECS2:-0}" -ge 4000 ] && [ ! -e "$FUZZ_OUT/campaign/pid" ]; then
  pass "campaign start --goal 4000: went on in the background from $EXECS to $EXECS2"
else
  fail "campaign start --goal 4000: state '$EXECS2 $RESULT'"; cat "$T/start.out" "$T/start.err" "$FUZZ_OUT/campaign/campaign.log"
fi
run_capture start2 bash "$CAMPAIGN" start --goal 1000000000 wire
PID=$(cat "$FUZZ_OUT/campaign/pid" 2>/dev/null)
run_capture stop bash "$CAMPAIGN" stop
read -r _ RESULT <<<"$(state_of wire)"
if [ -n "$PID" ] && ! kill -0 "$PID" 2>/dev/null && [ "$RESULT" = stopped ] &&
  ! pgrep -s "$PID" >/dev/null; then
  pass "campaign stop: the background campaign and its fuzzer ended, wire recorded as stopped"
else
  fail "campaign stop: pid '$PID', wire '$RESULT'"; cat "$T/stop.out" "$FUZZ_OUT/campaign/campaign.log"
fi
finish
