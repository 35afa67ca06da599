#!/usr/bin/env python3
"""Bridge throughput against its ceiling, in the same run.

Starts an lqsd on loopback (the remote), then, for each round:
  1. the ceiling: lqs_http_load sends N messages to it as SendMessageBatch x10
     over 4 connections (its msgs_per_s);
  2. forward: a local database holding N messages is drained into a remote
     queue by `lqs forward --once` (messages per second of the whole run,
     process start and database open included);
  3. pull: a remote queue holding N messages is drained into a local queue
     by `lqs pull --once --wait 0`; and pull's own ceiling, the remote half
     of its work: lqs_http_load receiving ten and deleting them
     (ReceiveMessage + DeleteMessageBatch) over 4 connections to that lqsd;
  4. the local half's own rate: lqs_bench's "drain b10 100B t2 process"
     (two threads leasing ten messages and deleting them, the local work a
     forward bridge does per message), in process, no HTTP.
Forwarding does both halves on the same machine: the ceiling's work (an
HTTP SendMessageBatch into lqsd) and the local half's, so its limit here is
1 / (1/ceiling + 1/local_half), reported as two_halves_limit.
Prints one JSON object: the medians, and forward's and pull's ratio to the
ceiling and to that limit. The target (docs/bridge.md): forward >= 0.5 of
the ceiling.

  python3 bench/bridge_throughput.py [--build build] [--n 20000] [--rounds 3]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", type=int, default=4)
    args = ap.parse_args()
    lqsd = os.path.join(args.build, "server", "lqsd")
    lqs = os.path.join(args.build, "tools", "lqs")
    load = os.path.join(args.build, "bench", "lqs_http_load")
    bench = os.path.join(args.build, "bench", "lqs_bench")
    tmp = tempfile.mkdtemp(prefix="lqs-bridge-bench-")
    server = subprocess.Popen([lqsd, "--listen", "127.0.0.1:0", "--data", tmp + "/remote",
                               "--no-purge-interval"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        url = re.search(r"(http://\S+)", server.stdout.readline()).group(1)
        lines = tmp + "/m.jsonl"
        with open(lines, "w") as f:
            for _ in range(args.n):
                f.write(json.dumps("x" * 100) + "\n")
        ceiling, forward, pull, local_half, recv_ceiling = [], [], [], [], []
        for r in range(args.rounds):
            out = run([load, "--endpoint", url, "--pid", str(server.pid), "--name", "lqsd",
                       "--n10", str(args.n), "--modes", "send10", "--concurrency", "4"])
            ceiling.append(json.loads(out.stdout)["modes"]["send10"]["msgs_per_s"])
            out = run([load, "--endpoint", url, "--pid", str(server.pid), "--name", "lqsd",
                       "--n10", str(args.n), "--modes", "recv10", "--concurrency", "4"])
            recv_ceiling.append(json.loads(out.stdout)["modes"]["recv10"]["msgs_per_s"])
            out = run([bench, "--json", "--workloads=drain b10 100B t2 process", "--systems=lqs",
                       "--db=%s/bench-%d" % (tmp, r)])
            local_half.append(json.loads(out.stdout)["results"][0]["msgs_per_sec"])

            local = "%s/local-%d" % (tmp, r)
            remote_q = "fwd-%d" % r
            run([lqs, "-e", url, "queue", "create", remote_q])
            run([lqs, "-d", local, "queue", "create", "out"])
            run([lqs, "-d", local, "-q", "send", "out", "--jsonl", lines])
            t0 = time.monotonic()
            done = run([lqs, "-d", local, "--json", "forward", "out",
                        "%s/123456789012/%s" % (url, remote_q), "--once",
                        "--batches", str(args.batches)])
            forward.append(json.loads(done.stdout)["Transferred"] / (time.monotonic() - t0))

            # The same messages, now remote, pulled into a fresh database.
            pulled = "%s/pulled-%d" % (tmp, r)
            run([lqs, "-d", pulled, "queue", "create", "in"])
            t0 = time.monotonic()
            done = run([lqs, "-d", pulled, "--json", "pull",
                        "%s/123456789012/%s" % (url, remote_q), "in", "--once", "--wait", "0"])
            pull.append(json.loads(done.stdout)["Transferred"] / (time.monotonic() - t0))
        c = statistics.median(ceiling)
        half = statistics.median(local_half)
        limit = 1 / (1 / c + 1 / half)
        result = {
            "messages": args.n,
            "rounds": args.rounds,
            "ceiling_send10_msgs_per_s": round(c),
            "local_half_msgs_per_s": round(half),
            "two_halves_limit_msgs_per_s": round(limit),
            "two_halves_limit_ratio": round(limit / c, 2),
            "forward_msgs_per_s": round(statistics.median(forward)),
            "pull_msgs_per_s": round(statistics.median(pull)),
            "forward_ratio": round(statistics.median(forward) / c, 2),
            "forward_of_limit": round(statistics.median(forward) / limit, 2),
            "pull_ratio": round(statistics.median(pull) / c, 2),
            "pull_ceiling_recv10_msgs_per_s": round(statistics.median(recv_ceiling)),
            "pull_of_its_ceiling": round(statistics.median(pull) / statistics.median(recv_ceiling),
                                         2),
            "each_round": {"ceiling": ceiling, "local_half": [round(x) for x in local_half],
                           "pull_ceiling": recv_ceiling,
                           "forward": [round(x) for x in forward],
                           "pull": [round(x) for x in pull]},
        }
        print(json.dumps(result, indent=2))
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
