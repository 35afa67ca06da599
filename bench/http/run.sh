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
# Writes bench/http/results.json and prints a table. Needs node (fauxqs 1.9.x
# runs on Node 20); installs fauxqs@1.9 into bench/http/node_modules if missing.
#
# LQS_BENCH=PATH/TO/lqs_bench (optional): also measures the library's own
# lifecycle in the same run (lqs_bench --workloads="life b10 100B t1 process"
# --systems=lqs, the same workload as load.js's `life` mode) and reports
# lqsd's `life` over HTTP as a fraction of it (issue #7: >= 50%).
#
# ROUNDS=N (default 1): repeat the comparison N times (fresh servers each
# time, alternating which goes first) and report medians; see below.
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

if [ ! -f "$here/node_modules/fauxqs/dist/cli.js" ]; then
  (cd "$here" && npm install --no-audit --no-fund fauxqs@1.9)
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
# fauxqs (in memory), started the way its README says (npx fauxqs == dist/cli.js):
start_fauxqs() {
  FAUXQS_PORT="$1" FAUXQS_LOGGER=false FAUXQS_HOST=localhost \
    node "$here/node_modules/fauxqs/dist/cli.js" > "$work/fauxqs.log" 2>&1 &
  server_pid=$!
}

# One pass of every mode against a fresh server.
run_pass() {  # name (lqsd or fauxqs), output json
  local port pid
  port="$(free_port)"
  "start_$1" "$port"
  pid=$server_pid; pids+=("$pid")
  wait_for "$work/$1.log" "listening"
  warm_up "$port" "$pid"
  "${client[@]}" --endpoint "http://127.0.0.1:$port" --pid "$pid" --name "$1" "${load_args[@]}" \
    > "$2"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

# The library's own lifecycle figure, same workload, in the same run.
run_library() {  # output json
  rm -rf "$work/lib-db"
  "$LQS_BENCH" --workloads="life b10 100B t1 process" --systems=lqs --json \
    --db="$work/lib-db" > "$1" 2> "$work/lib.log" || { cat "$work/lib.log" >&2; exit 1; }
}

# ROUNDS=N repeats the whole comparison N times, lqsd first in odd rounds and
# fauxqs first in even ones (so that a drift of the machine during a round
# does not always favour the same server); table.js reports each mode's
# median and every round's ratio.
load_args=("$@")
lqsd_runs=(); fauxqs_runs=(); lib_runs=()
for ((round = 1; round <= rounds; round++)); do
  [ "$rounds" -gt 1 ] && echo "round $round of $rounds" >&2
  if ((round % 2 == 1)); then
    run_pass lqsd "$work/lqsd.$round.json"; run_pass fauxqs "$work/fauxqs.$round.json"
  else
    run_pass fauxqs "$work/fauxqs.$round.json"; run_pass lqsd "$work/lqsd.$round.json"
  fi
  lqsd_runs+=("$work/lqsd.$round.json"); fauxqs_runs+=("$work/fauxqs.$round.json")
  if [ -n "${LQS_BENCH:-}" ]; then
    run_library "$work/lib.$round.json"
    lib_runs+=("$work/lib.$round.json")
  fi
done
join_by_comma() { local IFS=,; echo "$*"; }

uptime_after="$(uptime)"
fversion="$(node -p 'require(process.argv[1]).version' "$here/node_modules/fauxqs/package.json")"
node "$here/table.js" "$(join_by_comma "${lqsd_runs[@]}")" "$(join_by_comma "${fauxqs_runs[@]}")" \
  "$out" "$uptime_before" "$uptime_after" "$fversion" "$(nproc)" \
  "$(join_by_comma "${lib_runs[@]:-}")"
