#!/usr/bin/env bash
# campaign.sh - a long, resumable libFuzzer campaign over the targets of
# tests/fuzz/: each target runs until its executions, summed over every run
# of the campaign, reach a goal (default 10^7). One libFuzzer process at a
# time, at nice 19, in the background; tests/fuzz/run.sh is the short run.
#
#   bash tests/fuzz/campaign.sh start [OPTIONS] [TARGET...]   build, then fuzz in the background
#   bash tests/fuzz/campaign.sh run   [OPTIONS] [TARGET...]   the same in the foreground
#   bash tests/fuzz/campaign.sh status                        per target: executions, goal, exec/s,
#                                                             coverage, corpus size, crashes
#   bash tests/fuzz/campaign.sh stop                          stop it (the running chunk's count is kept)
#   bash tests/fuzz/campaign.sh wait                          block until the background campaign ends
#   bash tests/fuzz/campaign.sh merge [TARGET...]             add the working inputs that bring new
#                                                             coverage to the committed seed corpus
# Options:
#   --goal N      executions per target (default 10000000)
#   --chunk S     seconds per libFuzzer run (default 600): the state is saved after each
#   --for S       stop after S seconds of wall-clock time (default: no limit)
# Targets default to every one, decoders that read from the network or from
# a checkpoint first: msg wire zcodec snap ckpt mtx binary scenario libsvm dataset.
#
# Files, under FUZZ_OUT (default build-fuzz/): the binaries (built as run.sh
# builds them, rebuilt when a source is newer), the working corpora
# corpus/<target> (seeded from tests/fuzz/corpus/<target>, kept between runs
# and shared with run.sh), and campaign/: state (one line per target:
# executions, seconds, crashes, cov, ft, result), pid, campaign.log, the
# libFuzzer logs (logs/<target>.log) and the crash, leak and timeout inputs
# found (crashes/<target>/). A stopped or finished campaign resumes from the
# state: a target already at its goal is not run again. Delete campaign/ to
# start the counts over.
#
# A target that crashes stops there (its crash input kept, result
# "crashed") and the campaign goes on with the next; after the fix, start
# again and it resumes. A timeout (or slow unit) that takes under 10 s of
# CPU when run again alone is the machine's load, not a crash: it is kept
# in slow/<target>/ and the target goes on. Exit status of run: 0 every target reached its goal,
# 1 a target crashed, 3 stopped or out of time first; 2 usage or build error,
# 77 no libFuzzer toolchain.
set -u

# shellcheck source=tests/fuzz/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CDIR=$OUT/campaign
STATE=$CDIR/state
PIDFILE=$CDIR/pid
ORDER=(msg wire zcodec snap ckpt mtx binary scenario libsvm dataset)
GOAL=10000000
CHUNK=600
FOR=0
TARGETS=()

usage() {
  sed -n '7,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

parse_options() {
  while [ $# -gt 0 ]; do
    case $1 in
    --goal | --chunk | --for)
      [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] || usage
      case $1 in --goal) GOAL=$2 ;; --chunk) CHUNK=$2 ;; --for) FOR=$2 ;; esac
      shift 2
      ;;
    -*) usage ;;
    *)
      is_target "$1" || { echo "campaign: unknown target '$1'" >&2; usage; }
      TARGETS+=("$1")
      shift
      ;;
    esac
  done
  [ "$GOAL" -ge 1 ] && [ "$CHUNK" -ge 1 ] || usage
  [ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ORDER[@]}")
}

# The runner's pid if a campaign is running.
running_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# state_get T: "execs seconds crashes cov ft result" (zeros if never run).
state_get() {
  local line
  line=$(awk -v t="$1" '$1 == t { print $2, $3, $4, $5, $6, $7 }' "$STATE" 2>/dev/null)
  echo "${line:-0 0 0 - - pending}"
}

# state_put T EXECS SECONDS CRASHES COV FT RESULT, atomically.
state_put() {
  mkdir -p "$CDIR"
  { awk -v t="$1" '$1 != t && $1 !~ /^#/' "$STATE" 2>/dev/null
    echo "$*"; } | sort >"$STATE.tmp"
  { echo "# target executions seconds crashes cov ft result"; cat "$STATE.tmp"; } >"$STATE.new"
  rm -f "$STATE.tmp"
  mv "$STATE.new" "$STATE"
}

say() {
  echo "$(date -u +%FT%TZ) $*"
}

build_stale() {
  local stale=() t
  ensure_toolchain
  for t in "$@"; do
    target_is_fresh "$t" || stale+=("$t")
  done
  [ ${#stale[@]} -eq 0 ] && return 0
  say "building ${stale[*]}"
  FUZZ_JOBS=${FUZZ_JOBS:-1} build_all "${stale[@]}"
}

STOP=0
FPID=
on_signal() {
  STOP=1
  [ -n "$FPID" ] && kill -TERM "$FPID" 2>/dev/null
}

# A timeout or slow unit of T that takes under 10 s of CPU when FILE runs
# again alone: the machine was busy (the campaign runs at nice 19, and
# libFuzzer's -timeout counts wall time), not a finding. Says so.
is_load() {
  local t=$1 f=$2 out cpu
  case $(basename "$f") in timeout-* | slow-unit-*) ;; *) return 1 ;; esac
  # `times` in a subshell: its second line is the CPU time of its children
  out=$( (exec_fuzzer "$t" -timeout=600 -runs=1 "$f" >/dev/null 2>&1); rc=$?; times; echo "$rc")
  [ "$(tail -n 1 <<<"$out")" = 0 ] || return 1
  cpu=$(sed -n 2p <<<"$out" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); n += p[1] * 60 + p[2] } printf "%.2f", n }')
  awk -v c="$cpu" 'BEGIN { exit !(c < 10) }' || return 1
  say "$t: $(basename "$f") took $cpu s of CPU when run again alone: the machine was busy, not a finding (kept in slow/$t/)"
}

# One libFuzzer run of T for at most SECS seconds and the executions left;
# adds what it did to the state. Returns 1 if it found a crash, 2 on another
# failure.
run_chunk() {
  local t=$1 secs=$2 execs=$3 seconds=$4 crashes=$5 cov=$6 ft=$7
  local art=$CDIR/artifacts/$t log=$CDIR/logs/$t.chunk.log rc t0 t1 n found=0 slow=0 last f
  rm -rf "$art"
  mkdir -p "$art" "$CDIR/logs" "$CDIR/crashes/$t"
  t0=$(date +%s)
  exec_fuzzer "$t" -runs=$((GOAL - execs)) -max_total_time="$secs" -artifact_prefix="$art/" \
    ${FUZZ_FLAGS:-} "$OUT/corpus/$t" >"$log" 2>&1 &
  FPID=$!
  wait "$FPID"
  rc=$?
  # A signal interrupts wait; libFuzzer still has its final stats to print.
  while kill -0 "$FPID" 2>/dev/null; do
    wait "$FPID"
    rc=$?
  done
  FPID=
  t1=$(date +%s)
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[^0-9].*/\1/p' "$log" | tail -1)
  last=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1)
  if [ -n "$last" ]; then
    cov=$(echo "$last" | awk '{ print $2 }')
    ft=$(echo "$last" | awk '{ print $4 }')
  fi
  for f in "$art"/*; do
    [ -f "$f" ] || continue
    if is_load "$t" "$f"; then
      mkdir -p "$CDIR/slow/$t"
      mv "$f" "$CDIR/slow/$t/"
      slow=$((slow + 1))
      continue
    fi
    mv "$f" "$CDIR/crashes/$t/"
    found=$((found + 1))
  done
  cat "$log" >>"$CDIR/logs/$t.log"
  execs=$((execs + ${n:-0}))
  seconds=$((seconds + t1 - t0))
  if [ $found -gt 0 ]; then
    state_put "$t" "$execs" "$seconds" $((crashes + found)) "$cov" "$ft" crashed
    say "$t: CRASH after $execs executions, input in $CDIR/crashes/$t/:"
    grep -m2 -E '^==[0-9]+== ?ERROR|runtime error|deadly signal|ALARM|semantic mismatch' "$log" | sed 's/^/    /'
    rm -f "$log"
    return 1
  fi
  # libFuzzer stops at a timeout; one that was the machine's load is no
  # error: the next chunk goes on
  if [ $rc -ne 0 ] && [ $STOP = 0 ] && [ $slow = 0 ]; then
    state_put "$t" "$execs" "$seconds" "$crashes" "$cov" "$ft" error
    say "$t: libFuzzer exited $rc without a crash input (see $CDIR/logs/$t.log)"
    rm -f "$log"
    return 2
  fi
  rm -f "$log"
  state_put "$t" "$execs" "$seconds" "$crashes" "$cov" "$ft" running
  say "$t: $execs executions of $GOAL ($seconds s), cov $cov ft $ft"
  return 0
}

# Per target of the campaign: executions, seconds, exec/s, crashes (the
# semantic mismatches of the text targets count as crashes), result.
summary() {
  local t execs seconds crashes cov ft result
  say "summary: target executions seconds exec/s crashes result"
  for t in "${TARGETS[@]}"; do
    read -r execs seconds crashes cov ft result <<<"$(state_get "$t")"
    say "summary: $t $execs $seconds $([ "$seconds" -gt 0 ] && echo $((execs / seconds)) || echo -) $crashes $result"
  done
}

# The campaign itself, in the foreground.
run_campaign() {
  local t execs seconds crashes cov ft result deadline=0 secs status=0 rc left
  [ "$FOR" -gt 0 ] && deadline=$(($(date +%s) + FOR))
  rm -f "$CDIR"/logs/*.chunk.log
  echo "$GOAL" >"$CDIR/goal"
  say "campaign: goal $GOAL executions per target; targets ${TARGETS[*]}"
  for t in "${TARGETS[@]}"; do
    seed_corpus "$t"
    while :; do
      read -r execs seconds crashes cov ft result <<<"$(state_get "$t")"
      if [ "$execs" -ge "$GOAL" ]; then
        [ "$result" = reached ] || state_put "$t" "$execs" "$seconds" "$crashes" "$cov" "$ft" reached
        say "$t: goal reached ($execs executions)"
        break
      fi
      secs=$CHUNK
      if [ "$deadline" -gt 0 ]; then
        left=$((deadline - $(date +%s)))
        [ "$left" -gt 0 ] || { STOP=1; say "campaign: out of time (--for $FOR)"; }
        [ "$left" -lt "$secs" ] && secs=$left
      fi
      if [ $STOP = 1 ]; then
        state_put "$t" "$execs" "$seconds" "$crashes" "$cov" "$ft" stopped
        break
      fi
      run_chunk "$t" "$secs" "$execs" "$seconds" "$crashes" "$cov" "$ft"
      rc=$?
      [ $rc = 0 ] || { status=1; break; }
    done
    [ $STOP = 1 ] && break
  done
  [ $STOP = 1 ] && status=3
  summary
  say "campaign: ended (status $status)"
  return $status
}

cmd_run() {
  parse_options "$@"
  [ -z "$(running_pid)" ] || { echo "campaign: already running (pid $(running_pid))" >&2; exit 2; }
  trap on_signal TERM INT HUP
  trap 'rm -f "$PIDFILE"' EXIT
  echo $$ >"$PIDFILE"
  build_stale "${TARGETS[@]}"
  run_campaign
  local status=$?
  rm -f "$PIDFILE"
  exit $status
}

cmd_start() {
  parse_options "$@"
  local pid
  pid=$(running_pid) && { echo "campaign: already running (pid $pid)" >&2; exit 2; }
  mkdir -p "$CDIR"
  renice -n 19 -p $$ >/dev/null
  build_stale "${TARGETS[@]}"
  rm -f "$PIDFILE"
  # Its own session, so the campaign outlives the shell that started it.
  # setsid gives it an autogroup of its own: where the kernel schedules by
  # autogroup, nice acts only within a group, so the group gets nice 19 too
  # (else the campaign takes a whole core from everything else)
  setsid nohup nice -n 19 bash -c '[ -w /proc/self/autogroup ] && echo 19 >/proc/self/autogroup 2>/dev/null; exec "$@"' \
    campaign bash "${BASH_SOURCE[0]}" run --goal "$GOAL" --chunk "$CHUNK" --for "$FOR" \
    "${TARGETS[@]}" >>"$CDIR/campaign.log" 2>&1 </dev/null &
  for _ in $(seq 300); do
    pid=$(running_pid) && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "campaign: did not start (see $CDIR/campaign.log)" >&2; exit 2; }
  echo "campaign: started (pid $pid); log $CDIR/campaign.log; '$0 status' to follow, '$0 stop' to stop"
}

cmd_stop() {
  local pid
  pid=$(running_pid) || { echo "campaign: not running"; return 0; }
  kill -TERM "$pid"
  for _ in $(seq 600); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "campaign: pid $pid did not stop within 60 s; killing its process group" >&2
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid"
  fi
  rm -f "$PIDFILE"
  echo "campaign: stopped"
}

cmd_wait() {
  local pid
  pid=$(running_pid) || return 0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
  done
}

# "executions cov ft exec/s" of the libFuzzer run under way for T, from the
# last progress line of its log.
live_progress() {
  grep -E '^#[0-9]+.*cov: ' "$CDIR/logs/$1.chunk.log" 2>/dev/null | tail -1 |
    sed -n 's/^#\([0-9]*\).*cov: \([0-9]*\) ft: \([0-9]*\).*exec\/s: \([0-9]*\).*/\1 \2 \3 \4/p'
}

cmd_status() {
  local pid t execs seconds crashes cov ft result rate corpus live lexecs lrate
  # The goal of the last campaign unless one is given.
  GOAL=$(cat "$CDIR/goal" 2>/dev/null || echo "$GOAL")
  parse_options "$@"
  if pid=$(running_pid); then
    echo "campaign: running (pid $pid)"
  else
    echo "campaign: not running"
  fi
  printf '%-9s %12s %12s %8s %6s %6s %7s %7s  %s\n' target executions goal exec/s cov ft corpus crashes result
  for t in "${TARGETS[@]}"; do
    read -r execs seconds crashes cov ft result <<<"$(state_get "$t")"
    # The run under way has not reached the state yet.
    rate=-
    [ "$seconds" -gt 0 ] && rate=$((execs / seconds))
    if [ -n "$pid" ] && live=$(live_progress "$t") && [ -n "$live" ]; then
      read -r lexecs cov ft lrate <<<"$live"
      execs=$((execs + lexecs))
      [ "$seconds" -gt 0 ] || rate=$lrate
      result=fuzzing
    fi
    corpus=$(find "$OUT/corpus/$t" -type f 2>/dev/null | wc -l)
    printf '%-9s %12s %12s %8s %6s %6s %7s %7s  %s\n' "$t" "$execs" "$GOAL" "$rate" "$cov" "$ft" "$corpus" \
      "$crashes" "$result"
  done
}

cmd_merge() {
  local t n0 n1
  parse_options "$@"
  ! running_pid >/dev/null || { echo "campaign: stop it first" >&2; exit 2; }
  build_stale "${TARGETS[@]}"
  for t in "${TARGETS[@]}"; do
    [ -d "$OUT/corpus/$t" ] || continue
    n0=$(find "$SRC/tests/fuzz/corpus/$t" -type f | wc -l)
    (exec_fuzzer "$t" -merge=1 "$SRC/tests/fuzz/corpus/$t" "$OUT/corpus/$t") >"$CDIR/logs/merge_$t.log" 2>&1 ||
      { echo "campaign: merge of $t failed (see $CDIR/logs/merge_$t.log)" >&2; exit 1; }
    n1=$(find "$SRC/tests/fuzz/corpus/$t" -type f | wc -l)
    echo "$t: $((n1 - n0)) inputs added to tests/fuzz/corpus/$t"
  done
}

[ $# -ge 1 ] || usage
mkdir -p "$CDIR/logs"
cmd=$1
shift
case $cmd in
run) cmd_run "$@" ;;
start) cmd_start "$@" ;;
stop) cmd_stop ;;
status) cmd_status "$@" ;;
wait) cmd_wait ;;
merge) cmd_merge "$@" ;;
*) usage ;;
esac
