#!/usr/bin/env bash
# bench/pagerank/netns.sh [--quick] [--pairs N] [--mbit M] [--scale S]
#
# BSP vs dsana over real (shaped) links: separately started roles in Linux network
# namespaces instead of the local launcher. Root only (exit 77 otherwise); needs iproute2.
#
# Topology (everything lives in namespaces this script creates; the host's interfaces,
# addresses and routes are never touched):
#   dsana-hub            a bridge br0 and one veth end per node (h-s0, h-w0..h-w3)
#   dsana-s0  10.201.0.1   scheduler (tcp://10.201.0.1:7000) and the server (--bind 10.201.0.1)
#   dsana-w0..w3  10.201.0.10..13   one worker each
# 10.201.0.0/24 exists only inside these namespaces. Each node's own veth end (eth0) gets
#   tc qdisc add dev eth0 root tbf rate ${MBIT}mbit burst ${BURST} latency 50ms
# (BURST = 4 ms of the rate, at least 64 KiB: tbf caps a link well below its rate when
# the burst is under a timer tick of it or under a GSO segment)
# i.e. every node's upload is shaped, as the in-process emulation shapes each process's
# sends (the server's upload is the bottleneck: 4 x the table per iteration).
# This kernel has no netem, so latency cannot come from tc: the roles run with
# bench/scenarios/overlap.json minus its link bandwidth (bandwidth_mbit = 0: tc shapes
# instead) and with its latency_ms, which the transport adds in user space; speeds and
# time_scale as in that file.
# Kronecker scale 20 (--quick: 16), --workers 4 --servers 1 --max-iter 10 --tol 0,
# MBIT 1000 by default; pairs alternate --mode bsp, --mode dsana (5 pairs; --quick 1).
# Outputs (--out) must be byte-identical (mismatch: exit 1). Writes
# bench/results/netns_runs.csv (appended). Namespaces (and with them the veths) are
# removed by a trap on EXIT, also on failure or ^C.
# The roles authenticate with a job token made for the run (CURVE, as on real machines).
# The last line printed is `speedup=X` (bsp/dsana, per-pair median).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,31s/^# \{0,1\}//p' "$0"; }

quick=0
pairs=
MBIT=1000
scale=
while [[ $# -gt 0 ]]; do
  case $1 in
  --quick) quick=1 ;;
  --pairs | --mbit | --scale)
    [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
    case $1 in
    --pairs) pairs=$2 ;;
    --mbit) MBIT=$2 ;;
    --scale) scale=$2 ;;
    esac
    shift
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
  shift
done
if [[ $(id -u) -ne 0 ]]; then
  echo "netns.sh: needs root (network namespaces, veth, tc); skipped" >&2
  exit 77
fi
if ((quick)); then
  scale=${scale:-16}
  pairs=${pairs:-1}
else
  scale=${scale:-20}
  pairs=${pairs:-5}
fi

bench_init
need_cmd ip iproute2
need_cmd tc iproute2
ITERS=10
WORKERS=4
HUB=dsana-hub
SNS=dsana-s0
SIP=10.201.0.1
ADDR=tcp://$SIP:7000
WNS=()
for ((w = 0; w < WORKERS; w++)); do WNS+=("dsana-w$w"); done
ALL_NS=("$HUB" "$SNS" "${WNS[@]}")

# --- cleanup: our processes first (a namespace lives while a process is in it), then
# the namespaces we created (deleting one removes the veth ends inside it).
CREATED=()
PIDS=()
cleanup() {
  local rc=$? p ns
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  for ns in "${CREATED[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  [[ ${BENCH_KEEP:-0} == 1 ]] || rm -rf "$SCRATCH"
  return $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in "${ALL_NS[@]}"; do
  if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
    die "network namespace $ns already exists (left by another run?); remove it with: ip netns del $ns"
  fi
done

# --- build the topology
ip netns add "$HUB"
CREATED+=("$HUB")
ip -n "$HUB" link set lo up
ip -n "$HUB" link add br0 type bridge
ip -n "$HUB" link set br0 up
node() { # NS IP HUBSIDE
  local ns=$1 addr=$2 hside=$3
  ip netns add "$ns"
  CREATED+=("$ns")
  ip -n "$ns" link set lo up
  # created inside the hub namespace, peer moved straight into the node's namespace
  ip -n "$HUB" link add "$hside" type veth peer name eth0 netns "$ns"
  ip -n "$HUB" link set "$hside" master br0
  ip -n "$HUB" link set "$hside" up
  ip -n "$ns" addr add "$addr/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate "${MBIT}mbit" burst "$BURST" latency 50ms
}
# tbf needs a burst of at least one timer tick's worth of the rate, and of a
# whole GSO segment (64 KiB on veth), or it caps the link well below the rate
BURST=$(((MBIT * 1000000 / 8 / 250) > 65536 ? MBIT * 1000000 / 8 / 250 : 65536))
node "$SNS" "$SIP" h-s0
for ((w = 0; w < WORKERS; w++)); do node "${WNS[$w]}" "10.201.0.$((10 + w))" "h-w$w"; done
if command -v ping >/dev/null 2>&1; then
  for ((w = 0; w < WORKERS; w++)); do
    ip netns exec "${WNS[$w]}" ping -c 1 -W 5 "$SIP" >/dev/null 2>&1 || die "${WNS[$w]} cannot reach $SIP"
  done
fi
note "namespaces ${ALL_NS[*]} up; 10.201.0.0/24; tbf ${MBIT}mbit on every node's eth0"

# --- scenario: speeds, time_scale and latency from overlap.json; bandwidth from tc
sc=$SCRATCH/netns.json
jq '.link.bandwidth_mbit = 0 | del(.workers[].link)' "$BENCH_DIR/scenarios/overlap.json" >"$sc"
lat=$(jq -r '.link.latency_ms // 0' "$sc")

# roles started on their own authenticate each other with the job's secret
token=$SCRATCH/job.token
head -c 32 /dev/urandom | base64 >"$token"
chmod 600 "$token"

graph=$(graph_kron "$scale")
read -r NV NE < <(graph_counts "$graph")
runs_csv=$RESULTS/netns_runs.csv
runs_hdr=date,commit,graph,mbit,latency_ms,pair,mode,median_iter_s,bound_s,total_s,chunk_bytes
ref=$SCRATCH/ref.txt
mismatch=0

run_ns() { # MODE PAIR -> T B
  local mode=$1 i=$2 m=$SCRATCH/$1.$2.jsonl out=$SCRATCH/$1.$2.txt w spid rc=0 p
  PIDS=()
  ip netns exec "$SNS" "$DSANA" scheduler pagerank "$graph" --scheduler "$ADDR" --workers $WORKERS --servers 1 \
    --mode "$mode" --scenario "$sc" --max-iter $ITERS --tol 0 --top 0 --quiet --register-timeout 30 \
    --metrics "$m" --out "$out" --token-file "$token" >"$SCRATCH/$mode.$i.sched.out" 2>"$SCRATCH/$mode.$i.sched.err" &
  spid=$!
  PIDS+=("$spid")
  ip netns exec "$SNS" "$DSANA" server --scheduler "$ADDR" --bind "$SIP" --token-file "$token" \
    >"$SCRATCH/$mode.$i.srv.err" 2>&1 &
  PIDS+=("$!")
  for ((w = 0; w < WORKERS; w++)); do
    ip netns exec "${WNS[$w]}" "$DSANA" worker --scheduler "$ADDR" --token-file "$token" \
      >"$SCRATCH/$mode.$i.w$w.err" 2>&1 &
    PIDS+=("$!")
  done
  wait "$spid" || rc=$?
  for p in "${PIDS[@]:1}"; do wait "$p" || rc=$((rc ? rc : $?)); done
  PIDS=()
  if ((rc)) || ! grep -q '"type":"summary"' "$m" 2>/dev/null; then
    echo "error: $mode pair $i failed (rc=$rc)" >&2
    tail -n 5 "$SCRATCH/$mode.$i."*.err >&2 || true
    exit 1
  fi
  T=$(summary_field "$m" median_iter_s)
  B=$(summary_field "$m" bound_s)
  if [[ ! -e $ref ]]; then
    mv "$out" "$ref"
  elif ! cmp -s "$ref" "$out"; then
    echo "!!!!! MISMATCH: $mode pair $i output differs from the first run's" >&2
    mismatch=1
  fi
  note "$mode pair $i: median_iter_s=$T bound_s=$B chunk_bytes=$(summary_field "$m" chunk_bytes)"
  csv_row "$runs_csv" "$runs_hdr" "$BENCH_DATE,$BENCH_COMMIT,$(basename "$graph"),$MBIT,$lat,$i,$mode,$T,$B,$(summary_field "$m" total_s),$(summary_field "$m" chunk_bytes)"
}

echo "dsana netns — $DSANA ($BENCH_COMMIT), $BENCH_HOST" >&2
declare -a tb td rat bnd
for ((i = 1; i <= pairs; i++)); do
  run_ns bsp "$i"
  tb+=("$T") bnd+=("$B")
  run_ns dsana "$i"
  td+=("$T") bnd+=("$B")
  rat+=("$(calc "${tb[$((i - 1))]} / $T" %.6f)")
done
read -r bm bmin bmax < <(stats "${tb[@]}")
read -r dm dmin dmax < <(stats "${td[@]}")
read -r sm smin smax < <(stats "${rat[@]}")
read -r bound _ _ < <(stats "${bnd[@]}")
tbound=$(calc "$WORKERS * $(graph_read_keys "$graph") * 8 * 8 / ($MBIT * 1e6)" %.6f)
maxb=$(calc "$bound > $tbound ? $bound : $tbound" %.6f)
ident=yes
((mismatch)) && ident=NO

echo
echo "== netns: $(basename "$graph") ($NV vertices, $NE edges), $WORKERS workers + 1 server in separate namespaces, $ITERS iterations, $pairs pairs (bsp, dsana alternating)"
echo "  links: tbf ${MBIT}mbit burst ${BURST}b latency 50ms on each node's upload; latency ${lat} ms from the scenario (user space; no netem here)"
printf '  %-6s median_iter_s %.4f [%.4f-%.4f]\n' bsp "$bm" "$bmin" "$bmax"
printf '  %-6s median_iter_s %.4f [%.4f-%.4f]\n' dsana "$dm" "$dmin" "$dmax"
printf '  speed-up bsp/dsana: %.2f per-pair median [%.2f-%.2f]\n' "$sm" "$smin" "$smax"
printf '  bounds: compute %.4f (median bound_s), transfer %.4f (server upload 4 x 8 B x vertices with out-edges at %s Mbit/s) -> efficiency of dsana %.2f\n' \
  "$bound" "$tbound" "$MBIT" "$(calc "$maxb / $dm" %.4f)"
echo "  outputs byte-identical: $ident"
echo "wrote $runs_csv" >&2
if ((mismatch)); then
  echo "speedup=$(printf %.2f "$sm")"
  exit 1
fi
echo "speedup=$(printf %.2f "$sm")"
