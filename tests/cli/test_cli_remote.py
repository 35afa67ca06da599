"""The `lqs` CLI's remote mode (--endpoint) against a real lqsd.

Run by ctest (cli_remote) with LQS_CLI and LQSD set. When lqsd is not built
(LQSD empty or missing) it prints why and exits 77, which ctest reports as
skipped:
    LQS_CLI=build/tools/lqs LQSD=build/server/lqsd /usr/bin/python3 tests/cli/test_cli_remote.py
"""

import json
import os
import subprocess
import sys
import tempfile
import time

LQS = os.environ.get("LQS_CLI", "lqs")
LQSD = os.environ.get("LQSD", "")


def start_lqsd(data):
    proc = subprocess.Popen(
        [LQSD, "--data", data, "--listen", "127.0.0.1:0", "--no-purge-interval",
         "--log-level", "warn"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if "listening on" in line:
            return proc, line.strip().split()[-1]
    proc.kill()
    raise RuntimeError("lqsd did not start: " + proc.stderr.read())


def run(endpoint, *args, stdin=None, json_out=False, expect=0):
    cmd = [LQS, "--endpoint", endpoint] + (["--json"] if json_out else []) + [str(a) for a in args]
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60)
    assert p.returncode == expect, (
        f"{cmd} -> {p.returncode} (want {expect})\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return json.loads(p.stdout) if json_out else p


def scenario(url, local_db):
    run(url, "queue", "create", "dlq")
    created = run(url, "queue", "create", "jobs", "-a", "VisibilityTimeout=40", "-t", "team=a",
                  json_out=True)
    assert created["url"].endswith("/jobs")
    assert run(url, "queue", "list", json_out=True)["queues"] == ["dlq", "jobs"]
    run(url, "queue", "set", "jobs",
        'RedrivePolicy={"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq",'
        '"maxReceiveCount":"1"}')
    assert run(url, "queue", "get", "jobs", "VisibilityTimeout",
               json_out=True)["attributes"] == {"VisibilityTimeout": "40"}
    run(url, "queue", "tag", "jobs", "env=test")
    run(url, "queue", "untag", "jobs", "team")
    assert run(url, "queue", "tags", "jobs", json_out=True)["tags"] == {"env": "test"}
    assert run(url, "queue", "dlq-sources", "dlq", json_out=True)["sources"] == ["jobs"]

    # Messages: argument, attributes (binary as base64), JSON lines in batches.
    run(url, "send", "jobs", "hello", "-a", "b:Binary=AAE=", "-a", "n:Number=7")
    out = run(url, "send", "jobs", stdin="".join('"m%d"\n' % i for i in range(14)),
              json_out=True)
    assert out["sent"] == 14
    got = run(url, "receive", "jobs", "-n", "15", "--visibility", "0", json_out=True)["messages"]
    assert len(got) == 15
    hello = [m for m in got if m["Body"] == "hello"][0]
    assert hello["MessageAttributes"]["b"] == {"DataType": "Binary", "BinaryValue": "AAE="}
    # Receive count reached: the next receive moves them to the DLQ.
    assert run(url, "receive", "jobs", "-n", "15", json_out=True)["messages"] == []
    rows = {r["queue"]: r for r in run(url, "stats", json_out=True)["queues"]}
    assert rows["dlq"]["visible"] == 15 and rows["jobs"]["dlq_depth"] == 15
    assert "sent_total" not in rows["jobs"]  # SQS has no counters: not shown

    # Redrive back, with progress.
    done = run(url, "redrive", "start", "dlq", "--rate", "500", json_out=True)
    assert done["Status"] == "COMPLETED" and done["ApproximateNumberOfMessagesMoved"] == 15
    assert run(url, "redrive", "list", "dlq", json_out=True)["tasks"][0]["Status"] == "COMPLETED"

    # Delete by handle, purge, import.
    got = run(url, "receive", "jobs", "-n", "2", json_out=True)["messages"]
    run(url, "delete", "jobs", "--stdin", stdin="".join(m["ReceiptHandle"] + "\n" for m in got))
    run(url, "purge", "jobs")
    dump = ('{"type":"header","format":"lqs-export","version":1}\n'
            '{"type":"queue","name":"imported","attributes":{"DelaySeconds":"0"},"tags":{}}\n'
            '{"type":"message","queue":"imported","Body":"x","MessageAttributes":'
            '{"k":{"DataType":"String","StringValue":"v"}}}\n')
    out = run(url, "import", stdin=dump, json_out=True)
    assert out["queues"] == {"imported": {"imported": 1, "failed": 0}}

    # What the SQS protocol cannot do: a clear error, exit 2.
    p = run(url, "peek", "jobs", expect=2)
    assert "UnsupportedOperation" in p.stderr and "--data" in p.stderr
    run(url, "export", expect=2)
    run(url, "verify", expect=2)

    # Errors from the server keep their SQS code.
    p = run(url, "queue", "get", "nope", expect=2)
    assert "QueueDoesNotExist" in p.stderr
    run(url, "queue", "delete", "imported")

    # The database is held: local mode says so and points to --endpoint.
    p = subprocess.run([LQS, "--data", local_db, "queue", "list"], capture_output=True, text=True)
    assert p.returncode == 3 and "DatabaseLocked" in p.stderr and "--endpoint" in p.stderr


def main():
    if not LQSD or not os.path.exists(LQSD):
        print("SKIP: lqsd is not built (LQSD=%r); build the `lqsd` target to test the CLI's "
              "remote mode" % LQSD)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "db")
        proc, url = start_lqsd(data)
        try:
            scenario(url, data)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        # Unreachable server: exit 3.
        p = subprocess.run([LQS, "--endpoint", url, "queue", "list"], capture_output=True,
                           text=True)
        assert p.returncode == 3, p.stderr
    print("cli_remote: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
