#!/usr/bin/env bash
# Resident memory and throughput of lqsd under its profiles (--profile default and small),
# in the same run, with the load of issue #28's reference: 8 connections; a backlog waiting
# in one queue; then SendMessageBatch(10), a drain with ReceiveMessage(10) +
# DeleteMessageBatch, and lifecycles (bench/http/http_load.cc's send10, recv10 and life
# modes, 100-byte bodies).
#
#   bench/profile_memory.sh [--short | --long] [--rounds N] [--profiles "default small"]
#
#   --short (default): a 100k backlog; 20k sent in batches, 20k drained, 10k lifecycles
#   --long:            a 1M backlog; 200k sent in batches, 200k drained, 100k lifecycles
#
# For each round and profile: a fresh lqsd (--data in a new directory, durability process,
# --log-level error) is filled with the backlog; once it has used no CPU for a second, and
# 3 s more, its VmRSS is the idle figure (with the messages waiting). Its peak (VmHWM) is
# then reset (/proc/PID/clear_refs) and the load runs; VmHWM after it is the peak under load.
# RSS counts the mapped binary and libraries too (RssFile: shared and reclaimable); the idle
# line also splits it into RssAnon and RssFile.
# Prints one JSON line per run and a summary with small/default ratios (medians over rounds).
# LQSD and LQS_HTTP_LOAD name the binaries (default: build/server/lqsd,
# build/bench/lqs_http_load).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
lqsd=${LQSD:-$root/build/server/lqsd}
load=${LQS_HTTP_LOAD:-$root/build/bench/lqs_http_load}
backlog=100000 n10=20000 nlife=10000 rounds=1 profiles="default small"
while [[ $# -gt 0 ]]; do
  case $1 in
    --short) backlog=100000 n10=20000 nlife=10000 ;;
    --long) backlog=1000000 n10=200000 nlife=100000 ;;
    --rounds) rounds=$2; shift ;;
    --profiles) profiles=$2; shift ;;
    *) echo "usage: $0 [--short|--long] [--rounds N] [--profiles \"default small\"]" >&2; exit 2 ;;
  esac
  shift
done

status_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
wait_idle() {  # until the process used no CPU for a second
  local prev now
  prev=$(cpu_ticks "$1")
  for _ in $(seq 60); do
    sleep 1
    now=$(cpu_ticks "$1")
    [[ $now == "$prev" ]] && return 0
    prev=$now
  done
}

results=$(mktemp /tmp/lqs-profile-memory-XXXXXX.jsonl)
for round in $(seq "$rounds"); do
  for profile in $profiles; do
    data=$(mktemp -d /tmp/lqs-profile-memory-db-XXXXXX)
    out=$(mktemp /tmp/lqs-profile-memory-out-XXXXXX)
    "$lqsd" --data "$data" --listen 127.0.0.1:0 --log-level error --profile "$profile" \
      >"$out" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$out" && break; sleep 0.1; done
    url=$(sed -n 's/^lqsd listening on //p' "$out")
    start_kib=$(status_kib "$pid" VmRSS)
    "$load" --endpoint "$url" --pid "$pid" --name "$profile" --concurrency 8 \
      --modes send10 --n10 "$backlog" >/dev/null 2>&1
    fill_peak_kib=$(status_kib "$pid" VmHWM)
    wait_idle "$pid"
    sleep 3
    idle_kib=$(status_kib "$pid" VmRSS)
    idle_anon_kib=$(status_kib "$pid" RssAnon)
    idle_file_kib=$(status_kib "$pid" RssFile)
    echo 5 >"/proc/$pid/clear_refs"
    run=$("$load" --endpoint "$url" --pid "$pid" --name "$profile" --concurrency 8 \
      --modes send10,recv10,life --n10 "$n10" --nlife "$nlife" 2>/dev/null)
    peak_kib=$(status_kib "$pid" VmHWM)
    end_anon_kib=$(status_kib "$pid" RssAnon)
    threads=$(status_kib "$pid" Threads)
    kill -TERM "$pid"
    wait "$pid" || true
    rm -rf "$data" "$out"
    python3 - "$round" "$profile" "$start_kib" "$fill_peak_kib" "$idle_kib" "$peak_kib" \
      "$threads" "$backlog" "$run" "$idle_anon_kib" "$idle_file_kib" "$end_anon_kib" \
      >>"$results" <<'PY'
import json, sys
rnd, profile, start, fill_peak, idle, peak, threads, backlog, run, anon, file, end_anon = \
    sys.argv[1:]
modes = json.loads(run)["modes"]
msgs = sum(m["messages"] for m in modes.values())
secs = sum(m["messages"] / m["msgs_per_s"] for m in modes.values())
print(json.dumps({"round": int(rnd), "profile": profile, "backlog": int(backlog),
                  "start_mib": round(int(start) / 1024, 1),
                  "fill_peak_mib": round(int(fill_peak) / 1024, 1),
                  "idle_mib": round(int(idle) / 1024, 1),
                  "idle_anon_mib": round(int(anon) / 1024, 1),
                  "idle_file_mib": round(int(file) / 1024, 1),
                  "end_anon_mib": round(int(end_anon) / 1024, 1),
                  "load_peak_mib": round(int(peak) / 1024, 1), "threads": int(threads),
                  "msgs_per_s": {k: round(m["msgs_per_s"]) for k, m in modes.items()},
                  "load_msgs_per_s": round(msgs / secs)}))
PY
    tail -n 1 "$results"
  done
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r["profile"], []).append(r)
med = lambda p, f: statistics.median(f(r) for r in by[p])
print("profile   idle MiB  fill peak MiB  load peak MiB  load msg/s  send10  recv10  life")
for p in by:
    print("%-9s %8.1f %14.1f %14.1f %11.0f %7.0f %7.0f %5.0f" % (
        p, med(p, lambda r: r["idle_mib"]), med(p, lambda r: r["fill_peak_mib"]),
        med(p, lambda r: r["load_peak_mib"]), med(p, lambda r: r["load_msgs_per_s"]),
        med(p, lambda r: r["msgs_per_s"]["send10"]), med(p, lambda r: r["msgs_per_s"]["recv10"]),
        med(p, lambda r: r["msgs_per_s"]["life"])))
if "default" in by and "small" in by:
    ratios = [s["load_msgs_per_s"] / d["load_msgs_per_s"]
              for d, s in zip(by["default"], by["small"])]
    print("small/default throughput per round: " + ", ".join("%.2f" % x for x in ratios))
PY
rm -f "$results"
