#!/usr/bin/env python3
"""How long a database at its storage budget takes to accept sends again once drained.

Starts lqsd (LQSD, else build/server/lqsd) on a fresh directory with --max-disk-bytes BUDGET,
fills one queue with SendMessageBatch (10 x 16 KiB bodies) until lqsd answers
ServiceUnavailable, and drains it with ReceiveMessage(10) + DeleteMessageBatch, trying a
small send to another queue every 50 ms from the first delete on until one is accepted (then
after the drain, every 20 ms). Prints one JSON line per budget: messages accepted, fill and
drain seconds, `accepted_s`, the time from the first delete to the first accepted send, and
the share of the queue drained by then (lqsd's maintenance pass, once a second, flushes and
compacts a database at half its budget or more that had messages deleted), the files' bytes
(*.sst and *.log) when full, `small_s`, the time from the end of the drain until they are
under a tenth of the budget (polled every 50 ms, up to 60 s), and their bytes then. Needs
boto3 (Debian's /usr/bin/python3 has it).

    /usr/bin/python3 bench/budget_reclaim.py [--budget 64M] [--budget 256M] [--profile small]
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Incompressible, as most payloads are after compression: the fill is what it says.
BODY = "".join(random.Random(28).choices([chr(c) for c in range(33, 127)], k=16 << 10))


def parse_size(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = text.strip().lower().rstrip("ib")
    if t and t[-1] in units:
        return int(float(t[:-1]) * units[t[-1]])
    return int(t)


def du(path):
    total = 0
    for name in os.listdir(path):
        if name.endswith(".sst") or name.endswith(".log"):
            total += os.path.getsize(os.path.join(path, name))
    return total


def run(budget, profile):
    data = tempfile.mkdtemp(prefix="lqs-budget-bench-")
    lqsd = os.environ.get("LQSD", os.path.join(ROOT, "build", "server", "lqsd"))
    proc = subprocess.Popen([lqsd, "--data", data, "--listen", "127.0.0.1:0", "--log-level",
                             "error", "--max-disk-bytes", str(budget), "--profile", profile],
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        url = proc.stdout.readline().decode().split()[-1]
        sqs = boto3.client("sqs", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="x", aws_secret_access_key="x",
                           config=Config(retries={"max_attempts": 1, "mode": "standard"}))
        q = sqs.create_queue(QueueName="fill")["QueueUrl"]
        entries = [{"Id": str(i), "MessageBody": BODY} for i in range(10)]
        sent = 0
        t0 = time.monotonic()
        while True:
            try:
                sqs.send_message_batch(QueueUrl=q, Entries=entries)
                sent += 10
            except ClientError as e:
                assert e.response["Error"]["Code"] == "ServiceUnavailable", e
                break
        t1 = time.monotonic()
        files_full = du(data)
        probe = sqs.create_queue(QueueName="probe")["QueueUrl"]
        accepted_at = accepted_drained = None
        last_probe = 0.0

        def try_probe():
            try:
                sqs.send_message(QueueUrl=probe, MessageBody="again")
                return True
            except ClientError as e:
                assert e.response["Error"]["Code"] == "ServiceUnavailable", e
                return False

        drained = 0
        while True:
            got = sqs.receive_message(QueueUrl=q, MaxNumberOfMessages=10).get("Messages", [])
            if not got:
                break
            sqs.delete_message_batch(QueueUrl=q, Entries=[
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)])
            drained += len(got)
            now = time.monotonic()
            if accepted_at is None and now - last_probe >= 0.05:
                last_probe = now
                if try_probe():
                    accepted_at, accepted_drained = time.monotonic() - t1, drained
        t2 = time.monotonic()
        while accepted_at is None:
            if try_probe():
                accepted_at, accepted_drained = time.monotonic() - t1, drained
                break
            if time.monotonic() - t2 > 300:
                raise RuntimeError("not accepted within 300 s")
            time.sleep(0.02)
        small_s = None
        while time.monotonic() - t2 < 60:
            if du(data) < budget / 10:
                small_s = round(time.monotonic() - t2, 2)
                break
            time.sleep(0.05)
        return {"budget": budget, "profile": profile, "messages": sent, "drained": drained,
                "fill_s": round(t1 - t0, 2), "files_when_full": files_full,
                "drain_s": round(t2 - t1, 2), "accepted_s": round(accepted_at, 2),
                "drained_share_when_accepted": round(accepted_drained / sent, 3),
                "small_s": small_s, "files_at_end": du(data)}
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(data, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", action="append", default=[])
    p.add_argument("--profile", default="default", choices=["default", "small"])
    args = p.parse_args()
    for b in args.budget or ["64M"]:
        print(json.dumps(run(parse_size(b), args.profile)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
