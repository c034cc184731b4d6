#!/usr/bin/env bash
# tests/chaos/run.sh TRIALS [SEED] - a seeded chaos campaign against dsana.
#
# Each trial runs `dsana pagerank` (3 workers, 2 servers, a compute cost
# model so the job lasts ~1.5 s, checkpoints every 3 iterations) and, at a
# random moment while it runs, does one random thing to one random role:
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
# Local trials run the job with `--isolate processes` (the default,
# threads, has no role process to signal): the victim is the launcher's
# child whose kernel name is dsana-wrk-N / dsana-srv-N / dsana-sched (or
# whose title is 'dsana: worker N (...)' ...). The moment is drawn
# uniformly in 20%-70% of the fault-free run's own measured duration (a
# fault-free run of each configuration: local, and roles on their own).
# A trial whose fault found no live target (the role not found, or gone,
# or the job over) is "missed": it proves nothing and is counted apart.
# Every trial's ranks are compared byte for byte with the fault-free run;
# no job may hang (each is bounded by `timeout`). Prints one line per
# trial and a table per fault kind: trials, injected, missed, identical
# (injected and byte-identical), failed (went wrong: exit, hang, other
# ranks; a missed trial too), mean time over the fault-free run.
# Exit 1 when any trial failed, or when more trials missed than allowed:
# CHAOS_MAX_MISSED, default min(2, TRIALS / 10) (a campaign that injects
# nothing must not pass).
# Environment: DSANA (the binary; default build/dsana), CHAOS_DIR (scratch),
# CHAOS_MAX_MISSED.
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

max_missed=${CHAOS_MAX_MISSED:-$((trials / 10 < 2 ? trials / 10 : 2))}
[[ $max_missed =~ ^[0-9]+$ ]] || { echo "chaos: CHAOS_MAX_MISSED=$max_missed is not a count" >&2; exit 2; }

"$DSANA" graph gen kron --scale 11 --edge-factor 8 --seed 7 --out g.bin >/dev/null || exit 2
cat >slow.json <<'JSON'
{"workers": [{"speed": 1}, {"speed": 1}, {"speed": 0.5}], "ns_per_cost": 2000, "time_scale": 1}
JSON
JOB=(pagerank g.bin --workers 3 --servers 2 --scenario slow.json --tol 0 --max-iter 40 --peer-timeout 3 --quiet)
# a local run: its roles are processes (the default, threads, has none to signal)
LOCAL=("${JOB[@]}" --isolate processes --checkpoint ck --checkpoint-every 3)
# (a trial's timing forks as little as it can: on a busy machine a fork
# costs tens of milliseconds, and a job lasts ~1.5 s)
now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}'; }
# sleep until AT s after START (at once when that is past)
sleep_until() { # START AT
  local left
  left=$(awk -v a="$1" -v at="$2" -v b="$EPOCHREALTIME" 'BEGIN {d = a + at - b; printf "%.3f", (d > 0 ? d : 0)}')
  sleep "$left"
}
# true when PID is a live process (not gone, not a zombie waiting for its
# parent); no fork
alive() { # PID
  local st
  read -r st 2>/dev/null <"/proc/$1/stat" || return 1
  st=${st##*) }
  st=${st%% *}
  [[ -n $st && $st != Z && $st != X ]]
}

# The kernel name (comm) of a role process: role_thread_name() in
# src/runtime/role/role_title.c.
role_comm() { # ROLE ("worker 2", "server 0", "scheduler")
  case $1 in
  worker*) echo "dsana-wrk-${1#worker }" ;;
  server*) echo "dsana-srv-${1#server }" ;;
  *) echo dsana-sched ;;
  esac
}

# The pid of the live role ROLE among launcher LPID's children, by its
# kernel name or its title 'dsana: ROLE (job ...)' (waits up to 5 s, while
# the launcher lives).
role_pid() { # LPID ROLE
  local comm p c
  comm=$(role_comm "$2")
  for _ in $(seq 1 100); do
    for p in $(pgrep -P "$1"); do
      c=""
      read -r c 2>/dev/null <"/proc/$p/comm"
      if [[ $c == "$comm" ]] || tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" | grep -q "^dsana: $2 "; then
        alive "$p" && { echo "$p"; return 0; }
      fi
    done
    alive "$1" || return 1 # the job is over
    sleep 0.05
  done
  return 1
}

# A job with every role started on its own: scheduler, 2 servers, 3
# workers over tcp; server VICTIM (its nth start, 0 or 1; none: "") is
# SIGKILLed AT s after the start; a new server joins when the scheduler
# asks for one. Sets rc (the scheduler's) and injected (1: the SIGKILL
# reached the live server while the scheduler ran).
alone_trial() { # VICTIM AT
  local port=$((20000 + RANDOM % 20000)) pids=() spid p start
  local addr="tcp://127.0.0.1:$port"
  injected=0
  [[ -s job.token ]] || head -c 32 /dev/urandom | base64 >job.token
  start=$(now)
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
  if [[ -n $1 ]]; then
    # the fault is a server lost from a running job: wait (2 s at most) until
    # the victim has its cluster map (its title names its index). One killed
    # before it registered was never part of the job: the scheduler then
    # times out on the registration and names the missing server, by design.
    for _ in $(seq 1 100); do
      tr '\0' ' ' 2>/dev/null <"/proc/${pids[$1]}/cmdline" | grep -q "^dsana: server [0-9]" && break
      sleep 0.02
    done
    sleep_until "$start" "$2"
    alive "${pids[$1]}" && alive "$spid" && kill -KILL "${pids[$1]}" 2>/dev/null && injected=1
    for _ in $(seq 1 200); do
      grep -q "start a replacement" run.err && break
      kill -0 "$spid" 2>/dev/null || break
      sleep 0.05
    done
    grep -q "start a replacement" run.err &&
      { "$DSANA" server --scheduler "$addr" --token-file job.token 2>>roles.err & }
  fi
  wait "$spid" 2>/dev/null # (bash reports the killed server here)
  rc=$?
  wait 2>/dev/null # (bash's "Killed" line for the victim)
}

# A local run (roles as processes): KIND done to ROLE AT s after the start
# (a SIGSTOP lasts FREEZE s); no KIND: none. The victim is looked up as
# soon as the roles start (a lookup forks, and its pid stays until the
# fault), and signalled at the moment if it still lives. Sets rc (the
# launcher's), injected (1: the signal reached the live role) and miss
# (why not).
local_trial() { # KIND ROLE AT FREEZE
  local tpid lpid="" pid="" start
  injected=0 miss=""
  start=$(now)
  timeout 60 "$DSANA" "${LOCAL[@]}" --out out.tsv 2>run.err &
  tpid=$!
  if [[ -n $1 ]]; then
    for _ in $(seq 1 100); do lpid=$(pgrep -P "$tpid" | head -n 1) && [[ -n $lpid ]] && break; sleep 0.02; done
    [[ -n $lpid ]] && pid=$(role_pid "$lpid" "$2")
    sleep_until "$start" "$3"
    if [[ -z $lpid ]]; then
      miss="no launcher under timeout"
    elif [[ -z $pid ]]; then
      miss="no live process $(role_comm "$2") (or titled 'dsana: $2') under the launcher"
      alive "$lpid" && miss+=", which was running"
    elif ! alive "$pid"; then
      miss="$2 (pid $pid) had ended"
      alive "$lpid" || miss+=", and the job"
    else
      case $1 in
      stop-worker) kill -STOP "$pid" 2>/dev/null && injected=1; sleep "$4"; kill -CONT "$pid" 2>/dev/null ;;
      *) kill -KILL "$pid" 2>/dev/null && injected=1 ;;
      esac
      ((injected)) || miss="$2 (pid $pid) had ended"
    fi
  fi
  wait "$tpid"
  rc=$?
}

# The fault-free runs, each configuration's duration measured: the moment
# of a fault is drawn from it. Local: the shorter of two runs (a busy
# machine varies; a moment past the end of a faster run is a miss).
rm -rf ck
t0=$(now)
local_trial "" "" 0 0
base=$(since "$t0")
[[ $rc -eq 0 ]] || { echo "chaos: the fault-free run failed (exit $rc): $(head -c 300 run.err)" >&2; exit 2; }
mv out.tsv ref.tsv
rm -rf ck
t0=$(now)
local_trial "" "" 0 0
base=$(awk -v a="$base" -v b="$(since "$t0")" 'BEGIN {print (a < b ? a : b)}')
[[ $rc -eq 0 ]] || { echo "chaos: the second fault-free run failed (exit $rc): $(head -c 300 run.err)" >&2; exit 2; }
cmp -s ref.tsv out.tsv || { echo "chaos: two fault-free runs differ" >&2; exit 2; }
rm -rf ck roles.err
t0=$(now)
alone_trial "" 0
base_alone=$(since "$t0")
[[ $rc -eq 0 ]] || { echo "chaos: the fault-free run of roles on their own failed (exit $rc): $(head -c 300 run.err)" >&2; exit 2; }
cmp -s ref.tsv out.tsv || { echo "chaos: the fault-free runs (local, roles on their own) differ" >&2; exit 2; }
echo "fault-free run: ${base} s (local, --isolate processes), ${base_alone} s (roles on their own)"

kinds=(kill-worker stop-worker kill-server kill-scheduler kill-server-alone)
declare -A n inj ok failed slow
bad=0 missed=0
for ((i = 1; i <= trials; i++)); do
  kind=${kinds[RANDOM % ${#kinds[@]}]}
  case $kind in
  *worker) role="worker $((RANDOM % 3))" ;;
  kill-server*) role="server $((RANDOM % 2))" ;;
  *) role=scheduler ;;
  esac
  b=$base
  [[ $kind == kill-server-alone ]] && b=$base_alone
  at=$(awk -v r=$RANDOM -v b="$b" 'BEGIN {printf "%.2f", (0.2 + r / 32768 * 0.5) * b}')
  freeze=$(awk -v r=$RANDOM 'BEGIN {printf "%.2f", 0.2 + r / 32768 * 4.8}')
  rm -rf ck out.tsv roles.err
  t0=$(now)
  if [[ $kind == kill-server-alone ]]; then
    alone_trial "${role#server }" "$at" 2>/dev/null # (bash's "Killed" line for the victim)
    what="$kind (started $role) at ${at}s"
    miss="the server or the scheduler had ended"
  else
    local_trial "$kind" "$role" "$at" "$freeze"
    what="$kind $role at ${at}s"
    [[ $kind == stop-worker ]] && what+=" for ${freeze}s"
  fi
  verdict=""
  if [[ $rc -eq 124 ]]; then
    verdict="HUNG: $(tail -n 3 run.err | tr "\n" "|")"
  elif [[ $rc -ne 0 ]]; then
    verdict="exit $rc: $(tr "\n" "|" <run.err | head -c 900)"
  fi
  [[ -z $verdict ]] && ! cmp -s ref.tsv out.tsv && verdict="ranks differ from the fault-free run"
  grep -q "automatic recovery" run.err && what+=", $(grep -m1 -oE 'restarts (after iteration [0-9]+|from the start)' run.err)"
  dt=$(since "$t0")
  n[$kind]=$((${n[$kind]:-0} + 1))
  slow[$kind]=$(awk -v s="${slow[$kind]:-0}" -v d="$dt" -v b="$b" 'BEGIN {print s + d / b}')
  if ((injected)); then
    inj[$kind]=$((${inj[$kind]:-0} + 1))
  else
    missed=$((missed + 1))
    what+=": MISSED ($miss)"
  fi
  if [[ -n $verdict ]]; then
    bad=$((bad + 1))
    failed[$kind]=$((${failed[$kind]:-0} + 1))
    echo "trial $i: $what: FAILED: $verdict"
    # the roles started on their own (kill-server-alone) say why they did not come back
    if [[ -s roles.err ]]; then echo "  their roles said: $(tail -c 1500 roles.err | tr "\n" "|")"; fi
  elif ((injected)); then
    ok[$kind]=$((${ok[$kind]:-0} + 1))
    echo "trial $i: $what: identical, ${dt} s"
  else
    echo "trial $i: $what, ${dt} s"
  fi
done
printf '\n%-17s %6s %8s %6s %9s %6s %18s\n' fault trials injected missed identical failed "time / fault-free"
tn=0 ti=0 to=0 tf=0
for k in "${kinds[@]}"; do
  [[ -n ${n[$k]:-} ]] || continue
  printf '%-17s %6d %8d %6d %9d %6d %18.2f\n' "$k" "${n[$k]}" "${inj[$k]:-0}" $((${n[$k]} - ${inj[$k]:-0})) \
    "${ok[$k]:-0}" "${failed[$k]:-0}" "$(awk -v s="${slow[$k]}" -v c="${n[$k]}" 'BEGIN {print s / c}')"
  tn=$((tn + ${n[$k]})) ti=$((ti + ${inj[$k]:-0})) to=$((to + ${ok[$k]:-0})) tf=$((tf + ${failed[$k]:-0}))
done
printf '%-17s %6d %8d %6d %9d %6d\n' all "$tn" "$ti" "$missed" "$to" "$tf"
status=0
if ((bad > 0)); then
  echo "chaos: $bad of $trials trials failed"
  status=1
fi
if ((missed > max_missed)); then
  echo "chaos: $missed of $trials trials missed (their fault found no live target; at most $max_missed may): the campaign tested too little"
  status=1
fi
exit $status
