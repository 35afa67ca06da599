#!/usr/bin/env python3
"""Python vs C++ lifecycle throughput, measured in the same run.

Workload (the same in both languages): a queue with a standing backlog of
1,000 messages of 100 bytes; each step sends a batch of 10, receives up to 10
and deletes them in one batch; durability "process"; one thread.

The C++ figure comes from lqs_bench (workload "life b10 100B t1 process",
lqs only); the Python figures from the lqs package, twice: through
lqs.Queue (the binding's own calls) and through lqs.client(), the
boto3-shaped client (SendMessageBatch, ReceiveMessage, DeleteMessageBatch
with their request and response dicts, through lqsd's action layer in
process). Target (issues #6 and #31): each at no less than 50% of C++.

    /usr/bin/python3 bench/python_lifecycle.py --bench build/bench/lqs_bench \
        --pythonpath build/bindings/python [--messages 200000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def python_rate(messages: int) -> float:
    import lqs  # noqa: PLC0415 (after sys.path is set)

    body = "x" * 100
    with tempfile.TemporaryDirectory() as d, lqs.open(os.path.join(d, "db")) as db:
        q = db.create_queue("life")
        for _ in range(100):  # standing backlog of 1,000
            q.send_batch([body] * 10)
        t0 = time.perf_counter()
        done = 0
        while done < messages:
            q.send_batch([body] * 10)
            got = q.receive(max_number_of_messages=10, wait_time_seconds=0,
                            message_system_attribute_names=(), message_attribute_names=())
            if got:
                q.delete_batch(got)
            done += len(got)
        return done / (time.perf_counter() - t0)


def client_rate(messages: int) -> float:
    import lqs  # noqa: PLC0415 (after sys.path is set)

    body = "x" * 100
    entries = [{"Id": str(i), "MessageBody": body} for i in range(10)]
    sqs = lqs.client()
    try:
        url = sqs.create_queue(QueueName="life")["QueueUrl"]
        for _ in range(100):  # standing backlog of 1,000
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
        t0 = time.perf_counter()
        done = 0
        while done < messages:
            sqs.send_message_batch(QueueUrl=url, Entries=entries)
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                      WaitTimeSeconds=0).get("Messages", [])
            if got:
                sqs.delete_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(got)])
            done += len(got)
        return done / (time.perf_counter() - t0)
    finally:
        sqs.close()


def cpp_rate(bench: str, scale: float) -> float:
    out = subprocess.run([bench, "--json", "--systems=lqs", "--workloads=life b10 100B t1 process",
                          f"--scale={scale}"], check=True, capture_output=True, text=True).stdout
    for r in json.loads(out)["results"]:
        if r["workload"].startswith("life b10 100B t1 process") and "fifo" not in r["workload"]:
            return float(r["msgs_per_sec"])
    raise SystemExit("lqs_bench printed no 'life b10 100B t1 process' result")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default="build/bench/lqs_bench")
    ap.add_argument("--pythonpath", default="build/bindings/python")
    ap.add_argument("--messages", type=int, default=100000)
    ap.add_argument("--scale", type=float, default=0.5, help="lqs_bench --scale")
    args = ap.parse_args()
    sys.path.insert(0, args.pythonpath)
    cpp = cpp_rate(args.bench, args.scale)
    py = python_rate(args.messages)
    cl = client_rate(args.messages)
    print(f"lifecycle b10 100B process, 1 thread: C++ {cpp:,.0f} msg/s")
    for name, rate in (("lqs.Queue", py), ("lqs.client()", cl)):
        ratio = rate / cpp
        print(f"  {name}: {rate:,.0f} msg/s, Python/C++ = {ratio:.2f} "
              f"(target >= 0.50: {'MET' if ratio >= 0.5 else 'NOT MET'})")


if __name__ == "__main__":
    main()
