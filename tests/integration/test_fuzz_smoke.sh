#!/usr/bin/env bash
# test_fuzz_smoke.sh - every libFuzzer target of tests/fuzz/ for 5 seconds
# (tests/fuzz/run.sh 5): the parsers and decoders must survive their seed
# corpora and a few thousand mutations without a crash, a leak, a
# sanitizer report or a broken invariant. About 50 s in all.
#
# Skipped (77) when clang's libFuzzer is missing and cannot be installed.
# Its build and working corpora live in build-fuzz/ctest (FUZZ_OUT), apart
# from those of a run.sh started by hand.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -n "${DSANA_SRC:-}" ] || die "DSANA_SRC is not set"
RUN="$DSANA_SRC/tests/fuzz/run.sh"
[ -f "$RUN" ] || die "$RUN is missing"

RC=0
FUZZ_OUT="$DSANA_SRC/build-fuzz/ctest" timeout 270 bash "$RUN" 5 || RC=$?
case $RC in
0) pass "every fuzz target ran 5 s without a crash" ;;
77) skip "libFuzzer unavailable (see the message above)" ;;
124) fail "tests/fuzz/run.sh 5 did not finish within 270 s" ;;
1) fail "a fuzz target crashed (crash files and logs under build-fuzz/ctest)" ;;
*) fail "tests/fuzz/run.sh 5 failed with exit code $RC (build error?)" ;;
esac
finish
