#!/usr/bin/env bash
# tests/chaos/run.sh TRIALS [SEED] - a seeded chaos campaign against dsana.
#
# Each trial runs `dsana pagerank` (3 workers, 2 servers, a compute cost
# model so the job lasts ~1.5 s, checkpoints every 3 iterations) and, at a
# random moment, does one random thing to one random role, found by its
# process title among the launcher's children:
#   kill-worker     SIGKILL a worker: the job must finish by itself
#   stop-worker     SIGSTOP a worker for 0.2-5 s, then SIGCONT (beyond
#                   --peer-timeout it is lost; the job must finish by itself)
#   kill-server     SIGKILL a server, and
#   kill-scheduler  SIGKILL the scheduler: the launcher must roll every role
#                   back to the last complete checkpoint (or the start) and
#                   the job finish by itself
#   kill-server-alone  the same job with every role started on its own over
#                   tcp (dsana scheduler / server / worker): SIGKILL a
#                   server; the scheduler rolls every role back and a new
#                   `dsana server`, started when the scheduler asks for it,
#                   takes the lost place
# Every trial's ranks are compared byte for byte with a fault-free run; no
# job may hang (each is bounded by `timeout`). Prints one line per trial and
# the table: trials per fault kind, identical outputs, mean time over the
# fault-free run. Exit 1 when any trial went wrong.
# Environment: DSANA (the binary; default build/dsana), CHAOS_DIR (scratch).
set -uo pipefail
trials=${1:?usage: tests/chaos/run.sh TRIALS [SEED]}
seed=${2:-1}
[[ $trials =~ ^[1-9][0-9]*$ && $seed =~ ^[0-9]+$ ]] || { echo "usage: tests/chaos/run.sh TRIALS [SEED]" >&2; exit 2; }
DSANA=${DSANA:-$(cd "$(dirname "$0")/../.." && pwd)/build/dsana}
[[ -x $DSANA ]] || { echo "chaos: DSANA=$DSANA is not executable" >&2; exit 2; }
dir=${CHAOS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/dsana-chaos.XXXXXX")}
[[ -n ${CHAOS_DIR:-} ]] || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir" && cd "$dir" || exit 2
RANDOM=$seed

"$DSANA" graph gen kron --scale 11 --edge-factor 8 --seed 7 --out g.bin >/dev/null || exit 2
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}], "ns_per_cost": 2000, "time_scale": 1}
JSON
JOB=(pagerank g.bin --workers 3 --servers 2 --scenario slow.json --tol 0 --max-iter 40 --peer-timeout 3 --quiet)
now() { date +%s.%N; }
t0=$(now)
timeout 60 "$DSANA" "${JOB[@]}" --out ref.tsv 2>ref.err || { echo "chaos: the fault-free run failed: $(head -c 300 ref.err)" >&2; exit 2; }
base=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {print b - a}')
echo "fault-free run: ${base} s"

# The pid of the role titled 'dsana: ROLE' under launcher LPID (waits up to 2 s).
role_pid() { # LPID ROLE
  for _ in $(seq 1 40); do
    for p in $(pgrep -P "$1"); do
      if tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q "^dsana: $2 "; then echo "$p"; return 0; fi
    done
    sleep 0.05
  done
  return 1
}

# A trial of roles started on their own: scheduler, 2 servers, 3 workers
# over tcp; server $1 (its nth start, 0 or 1) is SIGKILLed at $2 s; a new
# server joins when the scheduler asks for one. Sets rc (the scheduler's).
alone_trial() { # VICTIM AT
  local port=$((20000 + RANDOM % 20000)) pids=() spid p
  local addr="tcp://127.0.0.1:$port"
  [[ -s job.token ]] || head -c 32 /dev/urandom | base64 >job.token
  timeout 60 "$DSANA" scheduler "${JOB[@]}" --scheduler "$addr" --token-file job.token --checkpoint ck \
    --checkpoint-every 3 --out out.tsv 2>run.err &
  spid=$!
  # (no timeout wrapper: the kill must reach dsana; roles end by themselves
  # at most --peer-timeout after the scheduler)
  for p in 0 1; do
    "$DSANA" server --scheduler "$addr" --token-file job.token 2>>roles.err &
    pids+=($!)
  done
  for p in 0 1 2; do "$DSANA" worker --scheduler "$addr" --token-file job.token 2>>roles.err & done
  # the fault is a server lost from a running job: wait (2 s at most) until
  # the victim has its cluster map (its title names its index). One killed
  # before it registered was never part of the job: the scheduler then
  # times out on the registration and names the missing server, by design.
  for _ in $(seq 1 100); do
    tr '\0' ' ' <"/proc/${pids[$1]}/cmdline" 2>/dev/null | grep -q "^dsana: server [0-9]" && break
    sleep 0.02
  done
  sleep "$2"
  kill -KILL "${pids[$1]}" 2>/dev/null
  for _ in $(seq 1 200); do
    grep -q "start a replacement" run.err && break
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.05
  done
  grep -q "start a replacement" run.err &&
    { "$DSANA" server --scheduler "$addr" --token-file job.token 2>>roles.err & }
  wait "$spid" 2>/dev/null # (bash reports the killed server here)
  rc=$?
  wait 2>/dev/null # (bash's "Killed" line for the victim)
}

# A trial of a local run: KIND done to ROLE at AT s (a SIGSTOP lasts FREEZE
# s). Sets rc (the launcher's) and what (the trial's description).
local_trial() { # KIND ROLE AT FREEZE
  local tpid lpid pid
  timeout 60 "$DSANA" "${JOB[@]}" --checkpoint ck --checkpoint-every 3 --out out.tsv 2>run.err &
  tpid=$!
  lpid=""
  for _ in $(seq 1 40); do lpid=$(pgrep -P "$tpid" | head -n 1) && [[ -n $lpid ]] && break; sleep 0.02; done
  sleep "$3"
  pid=$(role_pid "$lpid" "$2") || pid=""
  what="$1 $2 at ${3}s"
  if [[ -n $pid ]]; then
    case $1 in
    stop-worker) kill -STOP "$pid" 2>/dev/null; sleep "$4"; kill -CONT "$pid" 2>/dev/null; what+=" for ${4}s" ;;
    *) kill -KILL "$pid" 2>/dev/null ;;
    esac
  else
    what+=" (not found: the job had ended)"
  fi
  wait "$tpid"
  rc=$?
}

kinds=(kill-worker stop-worker kill-server kill-scheduler kill-server-alone)
declare -A n ok slow
bad=0
for ((i = 1; i <= trials; i++)); do
  kind=${kinds[RANDOM % ${#kinds[@]}]}
  case $kind in
  *worker) role="worker $((RANDOM % 3))" ;;
  kill-server*) role="server $((RANDOM % 2))" ;;
  *) role=scheduler ;;
  esac
  at=$(awk -v r=$RANDOM -v b="$base" 'BEGIN {printf "%.2f", 0.15 + r / 32768 * 0.6 * b}')
  freeze=$(awk -v r=$RANDOM 'BEGIN {printf "%.2f", 0.2 + r / 32768 * 4.8}')
  rm -rf ck out.tsv roles.err
  t0=$(now)
  if [[ $kind == kill-server-alone ]]; then
    alone_trial "${role#server }" "$at"
    what="$kind (started $role) at ${at}s"
  else
    local_trial "$kind" "$role" "$at" "$freeze"
  fi
  verdict=""
  if [[ $rc -eq 124 ]]; then
    verdict="HUNG: $(tail -n 3 run.err | tr "\n" "|")"
  elif [[ $rc -ne 0 ]]; then
    verdict="exit $rc: $(tr "\n" "|" <run.err | head -c 900)"
  fi
  [[ -z $verdict ]] && ! cmp -s ref.tsv out.tsv && verdict="ranks differ from the fault-free run"
  grep -q "automatic recovery" run.err && what+=", $(grep -m1 -oE 'restarts (after iteration [0-9]+|from the start)' run.err)"
  dt=$(awk -v a="$t0" -v b="$(now)" 'BEGIN {print b - a}')
  n[$kind]=$((${n[$kind]:-0} + 1))
  slow[$kind]=$(awk -v s="${slow[$kind]:-0}" -v d="$dt" -v b="$base" 'BEGIN {print s + d / b}')
  if [[ -z $verdict ]]; then
    ok[$kind]=$((${ok[$kind]:-0} + 1))
    echo "trial $i: $what: identical, ${dt} s"
  else
    bad=$((bad + 1))
    echo "trial $i: $what: FAILED: $verdict"
    # the roles started on their own (kill-server-alone) say why they did not come back
    if [[ -s roles.err ]]; then echo "  their roles said: $(tail -c 1500 roles.err | tr "\n" "|")"; fi
  fi
done
printf '\n%-15s %7s %10s %22s\n' fault trials identical "time / fault-free"
for k in "${kinds[@]}"; do
  [[ -n ${n[$k]:-} ]] || continue
  printf '%-15s %7d %10d %22.2f\n' "$k" "${n[$k]}" "${ok[$k]:-0}" "$(awk -v s="${slow[$k]}" -v c="${n[$k]}" 'BEGIN {print s / c}')"
done
exit $((bad > 0))
