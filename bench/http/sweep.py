#!/usr/bin/env python3
"""lqsd against the limits of HTTP on this machine, at 1, 4, 16 and 64 connections.

    bench/http/sweep.py BUILD_DIR [--conns 1,4,16,64] [--quick] [--no-fauxqs]
                        [--out bench/http/sweep.json]

BUILD_DIR holds server/lqsd, bench/lqs_bench and bench/lqs_http_load (a
Release or RelWithDebInfo build). Builds nothing. Standard library only.

In one run, with the same client (lqs_http_load, one request in flight per
connection) and the same connections, it measures send x1, send x10,
receive+delete x1, receive+delete x10 and the lifecycle (lqs_http_load's
lifeN: SendMessageBatch(10), ReceiveMessage(max 10), DeleteMessageBatch on
every connection at once) on three servers:
  - lqsd, fresh, with a persistent database (durability `process`);
  - a constant-answer nginx: Debian's nginx, one worker process, answering
    every request with a fixed body captured from a real lqsd for the same
    action (two ports: receives answer one message on the first, ten on the
    second). Nothing answers this machine's loopback HTTP faster;
  - fauxqs, when bench/http/node_modules has it (run.sh installs it).
Then the library's own rate for the same batch sizes (lqs_bench `send`,
`drain` and `life`, one thread, `process`). A mode's limit is the lower of
nginx's and the library's messages per second. The targets of issue #31
section 4 are judged at 16 connections and printed MET or NOT MET. The library's CPU per
request is its wall time per call at one thread (a drain call is a receive
and a delete: two requests; a lifecycle of 10 is three), an upper bound of
its CPU.

Servers take turns mode by mode, each measured once all are idle, so a slow
spell of the VM slows both sides of a ratio. --quick uses small counts (a
smoke run of a few minutes); the docs record the full run.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ["send1", "send10", "recv1", "recv10", "life"]
# lqs_http_load's mode for each: its own `life` runs on one connection only.
CLIENT_MODE = {"life": "lifeN"}
BATCH = {"send1": 1, "send10": 10, "recv1": 1, "recv10": 10, "life": 10}
# Requests per library call: a drain call is ReceiveMessage + DeleteMessage(Batch);
# a lifecycle of 10 is SendMessageBatch + ReceiveMessage + DeleteMessageBatch.
REQUESTS_PER_CALL = {"send1": 1, "send10": 1, "recv1": 2, "recv10": 2, "life": 3}
LIBRARY_WORKLOAD = {
    "send1": "send b1 100B t1 process",
    "send10": "send b10 100B t1 process",
    "recv1": "drain b1 100B t1 process",
    "recv10": "drain b10 100B t1 process",
    "life": "life b10 100B t1 process",
}
TARGET_CONNS = 16
TARGET_OF_LIMIT = {"send1": 0.6, "recv1": 0.6, "send10": 0.8, "recv10": 0.8, "life": 0.8}
TARGET_VS_FAUXQS = 3.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, log):
    for _ in range(300):
        if proc.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"server on port {port} did not start; log {log}:\n" + open(log).read())


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, all threads


def wait_idle(pids):
    """Returns once no server used CPU for 0.2 s (flushes, collectors), or after 10 s."""
    quiet = 0
    for _ in range(100):
        before = sum(cpu_ticks(p) for p in pids)
        time.sleep(0.1)
        quiet = quiet + 1 if sum(cpu_ticks(p) for p in pids) == before else 0
        if quiet >= 2:
            return


class Servers:
    def __init__(self, work):
        self.work = work
        self.procs = []

    def start(self, name, cmd, port, **kw):
        log = os.path.join(self.work, name + ".log")
        proc = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT, **kw)
        self.procs.append(proc)
        wait_for_port(port, proc, log)
        return proc

    def stop_all(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def sqs_call(port, action, body):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/x-amz-json-1.0",
                 "X-Amz-Target": "AmazonSQS." + action})
    with urllib.request.urlopen(req) as r:
        return r.read().decode()


def capture_answers(port):
    """lqsd's own answers to each request the client makes, 100-byte bodies."""
    body = "x" * 100
    a = {"CreateQueue": sqs_call(port, "CreateQueue", {"QueueName": "answers"})}
    url = json.loads(a["CreateQueue"])["QueueUrl"]
    a["SendMessage"] = sqs_call(port, "SendMessage", {"QueueUrl": url, "MessageBody": body})
    entries = [{"Id": str(i), "MessageBody": body} for i in range(10)]
    for _ in range(3):
        a["SendMessageBatch"] = sqs_call(port, "SendMessageBatch",
                                         {"QueueUrl": url, "Entries": entries})
    a["ReceiveMessage1"] = sqs_call(port, "ReceiveMessage",
                                    {"QueueUrl": url, "MaxNumberOfMessages": 1})
    a["ReceiveMessage10"] = sqs_call(port, "ReceiveMessage",
                                     {"QueueUrl": url, "MaxNumberOfMessages": 10})
    handles = [m["ReceiptHandle"] for m in json.loads(a["ReceiveMessage10"])["Messages"]]
    if len(handles) != 10:
        sys.exit("capture: expected 10 messages, got " + a["ReceiveMessage10"])
    first = json.loads(a["ReceiveMessage1"])["Messages"][0]["ReceiptHandle"]
    a["DeleteMessage"] = sqs_call(port, "DeleteMessage", {"QueueUrl": url, "ReceiptHandle": first})
    a["DeleteMessageBatch"] = sqs_call(port, "DeleteMessageBatch", {
        "QueueUrl": url,
        "Entries": [{"Id": str(i), "ReceiptHandle": h} for i, h in enumerate(handles)]})
    return a


def nginx_config(work, answers, port1, port10):
    def quoted(s):
        if "$" in s:
            sys.exit("capture: an answer holds '$', which nginx would read as a variable")
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"

    def answer_map(var, receive):
        rows = [f"    AmazonSQS.{k} {quoted(v)};" for k, v in answers.items()
                if not k.startswith("ReceiveMessage")]
        rows.append(f"    AmazonSQS.ReceiveMessage {quoted(answers[receive])};")
        return f"  map $http_x_amz_target ${var} {{\n    default '{{}}';\n" + \
            "\n".join(rows) + "\n  }\n"

    def server(port, var):
        return (f"  server {{\n    listen 127.0.0.1:{port};\n"
                f"    location / {{ default_type application/x-amz-json-1.0; "
                f"return 200 ${var}; }}\n  }}\n")

    temp = os.path.join(work, "nginx-temp")
    os.makedirs(temp, exist_ok=True)
    conf = (f"daemon off;\nmaster_process off;\nworker_processes 1;\n"
            f"pid {work}/nginx.pid;\nerror_log {work}/nginx-error.log;\n"
            "events { worker_connections 1024; }\n"
            "http {\n  access_log off;\n  keepalive_requests 1000000000;\n"
            "  keepalive_timeout 600s;\n"
            f"  client_body_temp_path {temp};\n  proxy_temp_path {temp};\n"
            f"  fastcgi_temp_path {temp};\n  uwsgi_temp_path {temp};\n  scgi_temp_path {temp};\n"
            + answer_map("answer1", "ReceiveMessage1") + answer_map("answer10", "ReceiveMessage10")
            + server(port1, "answer1") + server(port10, "answer10") + "}\n")
    path = os.path.join(work, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return path


def run_load(client, port, pid, name, mode, conns, counts):
    client_mode = CLIENT_MODE.get(mode, mode)
    out = subprocess.run(
        [client, "--endpoint", f"http://127.0.0.1:{port}", "--pid", str(pid), "--name", name,
         "--concurrency", str(conns), "--modes", client_mode,
         "--n1", str(counts["n1"]), "--n10", str(counts["n10"]),
         "--nlife", str(counts["nlife"])],
        check=True, capture_output=True, text=True)
    m = json.loads(out.stdout)["modes"][client_mode]
    return {"requests_per_s": round(m["requests"] / m["seconds"]) if m["seconds"] else None,
            "msgs_per_s": m["msgs_per_s"], "p50_ms": m["latency"]["p50_ms"],
            "p99_ms": m["latency"]["p99_ms"],
            "server_cpu_us_per_request": m["server_cpu_us_per_request"]}


def library_rates(bench, work, quick):
    db = os.path.join(work, "lib-db")
    cmd = [bench, "--workloads=" + ",".join(LIBRARY_WORKLOAD.values()), "--systems=lqs",
           "--json", "--db=" + db]
    if quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    rows = {r["workload"]: r for r in json.loads(out.stdout)["results"]}
    rates = {}
    for mode, workload in LIBRARY_WORKLOAD.items():
        row = rows[workload]
        msgs = row["msgs_per_sec"]
        calls = msgs / BATCH[mode]
        rates[mode] = {"workload": row["workload"], "msgs_per_s": round(msgs),
                       "us_per_request": round(1e6 / calls / REQUESTS_PER_CALL[mode], 1)}
    return rates


def judge(results, library, conns_list, have_fauxqs):
    targets = []
    at = str(TARGET_CONNS)
    for mode in MODES:
        per = {c: results[c][mode] for c in map(str, conns_list)}
        for c, row in per.items():
            limit = min(row["nginx"]["msgs_per_s"], library[mode]["msgs_per_s"])
            row["limit_msgs_per_s"] = limit
            row["lqsd_of_limit"] = round(row["lqsd"]["msgs_per_s"] / limit, 2)
            if have_fauxqs:
                row["lqsd_over_fauxqs"] = round(
                    row["lqsd"]["msgs_per_s"] / row["fauxqs"]["msgs_per_s"], 2)
        if at not in per:
            continue
        row = per[at]
        need = TARGET_OF_LIMIT[mode]
        targets.append({"target": f"{mode} at {at} connections: lqsd >= {need} of the limit",
                        "value": row["lqsd_of_limit"],
                        "status": "MET" if row["lqsd_of_limit"] >= need else "NOT MET"})
        cpu_cap = library[mode]["us_per_request"] + 2 * row["nginx"]["server_cpu_us_per_request"]
        cpu = row["lqsd"]["server_cpu_us_per_request"]
        targets.append({"target": f"{mode} at {at} connections: lqsd CPU/request <= library's "
                        "per request + 2x nginx's", "value": f"{cpu} us vs {cpu_cap:.1f} us",
                        "status": "MET" if cpu <= cpu_cap else "NOT MET"})
        if have_fauxqs:
            v = row["lqsd_over_fauxqs"]
            targets.append({"target": f"{mode} at {at} connections: lqsd >= 3x fauxqs",
                            "value": v, "status": "MET" if v >= TARGET_VS_FAUXQS else "NOT MET"})
    return targets


def print_table(results, library, conns_list, servers, targets):
    print("library (lqs_bench, 1 thread, process): " + ", ".join(
        f"{m} {library[m]['msgs_per_s']} msg/s, {library[m]['us_per_request']} us/request"
        for m in MODES))
    head = f"{'mode':7} {'conns':>5} " + " ".join(
        f"{s + ' req/s':>12} {s + ' msg/s':>12} {'p50/p99 ms':>13} {'cpu us':>7}" for s in servers)
    print(head + f" {'limit':>8} {'of limit':>8}" + (" vs fauxqs" if "fauxqs" in servers else ""))
    for mode in MODES:
        for c in map(str, conns_list):
            row = results[c][mode]
            line = f"{mode:7} {c:>5} "
            for s in servers:
                r = row[s]
                line += (f"{r['requests_per_s']:>12} {r['msgs_per_s']:>12} "
                         f"{str(r['p50_ms']) + '/' + str(r['p99_ms']):>13} "
                         f"{r['server_cpu_us_per_request']:>7} ")
            line += f"{row['limit_msgs_per_s']:>8} {row['lqsd_of_limit']:>8}"
            if "lqsd_over_fauxqs" in row:
                line += f" {row['lqsd_over_fauxqs']:>9}"
            print(line)
    print("\nTargets (issue #31 section 4, ratios within this run)")
    for t in targets:
        print(f"  {t['status']:7} {t['target']} = {t['value']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--conns", default="1,4,16,64")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-fauxqs", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "sweep.json"))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    lqsd = os.path.join(build, "server", "lqsd")
    bench = os.path.join(build, "bench", "lqs_bench")
    client = os.path.join(build, "bench", "lqs_http_load")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    for path in (lqsd, bench, client, nginx):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path}: not found or not executable")
    conns_list = [int(c) for c in args.conns.split(",")]
    if any(c < 1 or c > 64 for c in conns_list):
        sys.exit("--conns: each count must be 1 to 64 (lqs_http_load's limit)")
    fauxqs_node = os.path.join(HERE, "node_modules", ".bin", "node")
    have_fauxqs = (not args.no_fauxqs and os.access(fauxqs_node, os.X_OK)
                   and os.path.exists(os.path.join(HERE, "node_modules", "fauxqs")))
    counts = ({"n1": 2000, "n10": 4000, "nlife": 4000} if args.quick
              else {"n1": 20000, "n10": 100000, "nlife": 100000})

    load_before = os.getloadavg()
    work = tempfile.mkdtemp(prefix="lqs-sweep.")
    servers = Servers(work)
    try:
        port = free_port()
        capture = servers.start("capture", [lqsd, "--listen", f"127.0.0.1:{port}",
                                            "--log-level", "error"], port)
        answers = capture_answers(port)
        capture.terminate()
        capture.wait()

        ports = {"lqsd": free_port(), "nginx1": free_port(), "nginx10": free_port()}
        conf = nginx_config(work, answers, ports["nginx1"], ports["nginx10"])
        pids = {"lqsd": servers.start("lqsd", [lqsd, "--listen", f"127.0.0.1:{ports['lqsd']}",
                                               "--data", os.path.join(work, "lqsd-data"),
                                               "--log-level", "error"], ports["lqsd"]).pid,
                "nginx": servers.start("nginx", [nginx, "-c", conf, "-p", work],
                                       ports["nginx1"]).pid}
        wait_for_port(ports["nginx10"], servers.procs[-1], os.path.join(work, "nginx.log"))
        names = ["lqsd", "nginx"]
        if have_fauxqs:
            ports["fauxqs"] = free_port()
            pids["fauxqs"] = servers.start(
                "fauxqs", [fauxqs_node, os.path.join(HERE, "fauxqs_server.mjs"),
                           str(ports["fauxqs"])], ports["fauxqs"]).pid
            names.append("fauxqs")

        def port_of(name, mode):
            if name != "nginx":
                return ports[name]
            return ports["nginx10" if BATCH[mode] == 10 else "nginx1"]

        warm = {"n1": 1000, "n10": 2000, "nlife": 2000}
        for name in names:  # JIT, caches and memtables to steady state, unmeasured
            for mode in MODES:
                run_load(client, port_of(name, mode), pids[name], "warmup", mode, 4, warm)

        results = {}
        for i, conns in enumerate(conns_list):
            results[str(conns)] = {}
            for j, mode in enumerate(MODES):
                row = {}
                turn = (i + j) % len(names)
                for name in names[turn:] + names[:turn]:
                    wait_idle(pids.values())
                    row[name] = run_load(client, port_of(name, mode), pids[name], name, mode,
                                         conns, counts)
                    print(f"{mode} x{conns} {name}: {row[name]['msgs_per_s']} msg/s",
                          file=sys.stderr)
                results[str(conns)][mode] = row
        servers.stop_all()  # before the library runs, so that nothing competes with it
        library = library_rates(bench, work, args.quick)
    finally:
        servers.stop_all()
        shutil.rmtree(work, ignore_errors=True)

    targets = judge(results, library, conns_list, have_fauxqs)
    print_table(results, library, conns_list, names, targets)
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    doc = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "commit": commit, "nproc": os.cpu_count(), "load_before": load_before, "load_after": os.getloadavg(),
           "quick": args.quick, "counts": counts, "library": library,
           "results": results, "targets": targets}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
