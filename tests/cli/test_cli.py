"""End-to-end tests of the `lqs` CLI on temporary databases (local mode).

Run by ctest (cli_e2e) with LQS_CLI set to the built binary:
    LQS_CLI=build/tools/lqs /usr/bin/python3 -m pytest -q tests/cli/test_cli.py
"""

import json
import os
import random
import string
import subprocess

import pytest

LQS = os.environ.get("LQS_CLI", "lqs")


def run(db, *args, stdin=None, json_out=False, expect=0):
    cmd = [LQS, "--data", str(db)]
    if json_out:
        cmd.append("--json")
    cmd += [str(a) for a in args]
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60)
    assert p.returncode == expect, (
        f"{cmd} -> {p.returncode} (want {expect})\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    if json_out:
        return json.loads(p.stdout)
    return p


def lines(db, *args, **kw):
    return run(db, *args, **kw).stdout.splitlines()


@pytest.fixture
def db(tmp_path):
    return tmp_path / "db"


def dlq_policy(dlq, max_receives=1):
    return ('RedrivePolicy={"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:%s",'
            '"maxReceiveCount":"%d"}' % (dlq, max_receives))


# ---- queues ----------------------------------------------------------------------------


def test_queue_create_list_get_set_delete(db):
    assert lines(db, "queue", "create", "jobs", "-a", "VisibilityTimeout=45", "-t", "team=a") == ["jobs"]
    run(db, "queue", "create", "other")
    assert lines(db, "queue", "list") == ["jobs", "other"]
    assert run(db, "queue", "list", "--prefix", "jo", json_out=True) == {"queues": ["jobs"]}
    long = run(db, "queue", "list", "-l").stdout
    assert "VISIBILITY" in long and "45" in long
    attrs = run(db, "queue", "get", "jobs", json_out=True)["attributes"]
    assert attrs["VisibilityTimeout"] == "45"
    assert attrs["QueueArn"] == "arn:aws:sqs:us-east-1:123456789012:jobs"
    run(db, "queue", "set", "jobs", "VisibilityTimeout=60", "DelaySeconds=2")
    got = run(db, "queue", "get", "jobs", "VisibilityTimeout", "DelaySeconds", json_out=True)
    assert got["attributes"] == {"VisibilityTimeout": "60", "DelaySeconds": "2"}
    run(db, "queue", "delete", "other")
    assert lines(db, "queue", "ls") == ["jobs"]


def test_region_and_account_of_a_database(tmp_path):
    # lqsd keeps regions other than its default one in <data>/regions/<region>.
    eu = tmp_path / "db" / "regions" / "eu-west-1"
    eu.parent.mkdir(parents=True)
    run(eu, "queue", "create", "q")
    assert run(eu, "queue", "get", "q", "QueueArn", json_out=True)["attributes"] == {
        "QueueArn": "arn:aws:sqs:eu-west-1:123456789012:q"}
    other = tmp_path / "other"
    run(other, "--region", "ap-south-1", "--account-id", "000000000000", "queue", "create", "q")
    assert run(other, "--region", "ap-south-1", "--account-id", "000000000000",
               "queue", "get", "q", "QueueArn", json_out=True)["attributes"] == {
        "QueueArn": "arn:aws:sqs:ap-south-1:000000000000:q"}


def test_remote_flags_refused_before_connecting():
    # Usage errors (exit 1) before any request to the (unreachable) endpoint.
    def remote(*args, **env):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        p = subprocess.run([LQS, "--endpoint", "http://127.0.0.1:9"] + list(args),
                           capture_output=True, text=True, timeout=60, env={**clean, **env})
        assert p.returncode == 1, (args, env, p.returncode, p.stderr)
        return p.stderr
    assert "--account-id is for --data" in remote("--account-id", "1", "queue", "list")
    assert "is not a region name" in remote("--region", "EU West", "queue", "list")
    assert "is not a region name" in remote("queue", "list", AWS_ACCESS_KEY_ID="k",
                                            AWS_SECRET_ACCESS_KEY="s", AWS_REGION="x/y")
    assert "without a secret access key" in remote("queue", "list", AWS_ACCESS_KEY_ID="k")
    assert 'profile "nowhere" is not in /dev/null' in remote(
        "queue", "list", AWS_PROFILE="nowhere", AWS_SHARED_CREDENTIALS_FILE="/dev/null")


def test_queue_tags(db):
    run(db, "queue", "create", "jobs", "-t", "team=a")
    run(db, "queue", "tag", "jobs", "env=prod", "team=b")
    assert run(db, "queue", "tags", "jobs", json_out=True)["tags"] == {"env": "prod", "team": "b"}
    run(db, "queue", "untag", "jobs", "env", "unknown")
    assert run(db, "queue", "tags", "jobs", json_out=True)["tags"] == {"team": "b"}


def test_dlq_sources(db):
    run(db, "queue", "create", "dlq")
    run(db, "queue", "create", "a", "-a", dlq_policy("dlq"))
    run(db, "queue", "create", "b")
    assert lines(db, "queue", "dlq-sources", "dlq") == ["a"]


# ---- errors and exit codes ---------------------------------------------------------------


def test_exit_codes(db, tmp_path):
    run(db, "queue", "create", "jobs")
    # 2: an SQS error, its code printed.
    p = run(db, "queue", "get", "nope", expect=2)
    assert "QueueDoesNotExist" in p.stderr
    err = run(db, "send", "nope", "x", json_out=True, expect=2)
    assert err["error"]["code"] == "QueueDoesNotExist" and err["error"]["exit"] == 2
    p = run(db, "queue", "set", "jobs", "VisibilityTimeout=99999", expect=2)
    assert "InvalidAttributeValue" in p.stderr
    # 1: usage.
    run(db, "queue", "create", expect=1)
    run(db, "queue", "set", "jobs", "novalue", expect=1)
    run(db, "frobnicate", expect=1)
    p = subprocess.run([LQS, "stats"], capture_output=True, text=True,
                       env={k: v for k, v in os.environ.items() if not k.startswith("LQS_")})
    assert p.returncode == 1 and "--data" in p.stderr
    run(db, "send", "jobs", stdin="not json\n", expect=1)
    # 3: no database, or a database another process holds.
    p = run(tmp_path / "missing", "stats", expect=3)
    assert "no database" in p.stderr
    holder = subprocess.Popen([LQS, "--data", str(db), "stats", "--watch", "--interval", "0.2"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        import time
        # Probe only once the holder has the database open (it printed its
        # first table); otherwise a probe can take the lock first.
        assert holder.stdout.readline() != ""
        deadline = time.time() + 10
        while True:
            p = subprocess.run([LQS, "--data", str(db), "queue", "list"], capture_output=True,
                               text=True)
            if p.returncode == 3 or time.time() > deadline:
                break
            time.sleep(0.1)
        assert p.returncode == 3 and "DatabaseLocked" in p.stderr and "--endpoint" in p.stderr
    finally:
        holder.terminate()
        assert holder.wait(timeout=10) == 0  # SIGTERM ends --watch cleanly
    # --help teaches: examples and exit codes.
    p = subprocess.run([LQS, "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "Exit codes" in p.stdout
    p = subprocess.run([LQS, "send", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "Examples" in p.stdout


# ---- messages --------------------------------------------------------------------------


def test_send_receive_delete(db, tmp_path):
    run(db, "queue", "create", "jobs")
    mid = lines(db, "send", "jobs", "hello", "-a", "n:Number=3", "-a", "b:Binary=AAE=",
                "-a", "s=text")[0]
    assert len(mid) == 36
    payload = tmp_path / "payload.txt"
    payload.write_text("from a file\nwith two lines")
    run(db, "send", "jobs", "--file", payload)
    got = run(db, "receive", "jobs", "-n", "5", "--visibility", "0", json_out=True)["messages"]
    assert [m["Body"] for m in got] == ["hello", "from a file\nwith two lines"]
    first = got[0]
    assert first["MessageId"] == mid
    assert first["MessageAttributes"] == {
        "b": {"DataType": "Binary", "BinaryValue": "AAE="},
        "n": {"DataType": "Number", "StringValue": "3"},
        "s": {"DataType": "String", "StringValue": "text"}}
    assert first["Attributes"]["ApproximateReceiveCount"] == "1"
    # Delete by handle (arguments and stdin).
    got = run(db, "receive", "jobs", "-n", "5", json_out=True)["messages"]
    run(db, "delete", "jobs", got[0]["ReceiptHandle"])
    run(db, "delete", "jobs", "--stdin", stdin=got[1]["ReceiptHandle"] + "\n")
    stats = run(db, "stats", "jobs", json_out=True)["queues"][0]
    assert stats["visible"] == 0 and stats["in_flight"] == 0 and stats["deleted_total"] == 2
    # A bad handle: a per-entry failure, exit 5.
    p = run(db, "delete", "jobs", "garbage", expect=5)
    assert "ReceiptHandleIsInvalid" in p.stderr


def test_send_json_lines_batched_and_receive_delete(db):
    run(db, "queue", "create", "jobs")
    msgs = ['"plain %d"' % i for i in range(23)]
    msgs.append(json.dumps({"Body": "with attrs", "MessageAttributes": {
        "k": {"DataType": "String", "StringValue": "v"}}}))
    msgs.append("")  # blank lines are skipped
    out = run(db, "send", "jobs", stdin="\n".join(msgs) + "\n", json_out=True)
    assert out["sent"] == 24 and out["failed"] == [] and len(out["message_ids"]) == 24
    bodies = lines(db, "receive", "jobs", "-n", "30", "--delete", "--body-only")
    assert len(bodies) == 24 and "with attrs" in bodies
    assert run(db, "stats", "jobs", json_out=True)["queues"][0]["deleted_total"] == 24


def test_send_partial_failure(db):
    run(db, "queue", "create", "jobs", "-a", "MaximumMessageSize=1024")
    stdin = '"ok"\n' + json.dumps("x" * 2000) + "\n"
    out = run(db, "send", "jobs", stdin=stdin, json_out=True, expect=5)
    assert out["sent"] == 1 and len(out["failed"]) == 1
    assert out["failed"][0]["Id"] == "line 2"


def test_peek_does_not_lease(db):
    run(db, "queue", "create", "jobs")
    for i in range(3):
        run(db, "send", "jobs", f"m{i}")
    run(db, "send", "jobs", "later", "--delay", "600")
    run(db, "receive", "jobs")  # m0 in flight
    peeked = run(db, "peek", "jobs", "-n", "0", json_out=True)["messages"]
    assert [(m["Body"], m["state"]) for m in peeked] == [
        ("m0", "in_flight"), ("m1", "visible"), ("m2", "visible"), ("later", "delayed")]
    assert [m["Body"] for m in run(db, "peek", "jobs", "--state", "delayed", json_out=True)[
        "messages"]] == ["later"]
    assert lines(db, "peek", "jobs", "-n", "1", "--body-only") == ["m0"]
    table = run(db, "peek", "jobs").stdout
    assert "MESSAGE_ID" in table and "in_flight" in table
    stats = run(db, "stats", "jobs", json_out=True)["queues"][0]
    assert (stats["visible"], stats["in_flight"], stats["delayed"]) == (2, 1, 1)
    assert stats["received_total"] == 1  # peeking received nothing


def test_purge(db):
    run(db, "queue", "create", "jobs")
    run(db, "send", "jobs", stdin='"a"\n"b"\n')
    run(db, "purge", "jobs")
    stats = run(db, "stats", "jobs", json_out=True)["queues"][0]
    assert stats["visible"] == 0 and stats["purged_total"] == 2
    p = run(db, "purge", "jobs", expect=2)  # one purge per 60 s
    assert "PurgeQueueInProgress" in p.stderr


# ---- stats -------------------------------------------------------------------------------


def test_stats_table_dlq_depth_and_watch(db):
    run(db, "queue", "create", "dlq")
    run(db, "queue", "create", "jobs", "-a", dlq_policy("dlq"))
    run(db, "send", "jobs", stdin='"a"\n"b"\n"c"\n')
    run(db, "receive", "jobs", "-n", "3", "--visibility", "0")
    run(db, "receive", "jobs", "-n", "3")  # receive count reached: all three move to dlq
    rows = {r["queue"]: r for r in run(db, "stats", json_out=True)["queues"]}
    assert rows["jobs"]["dlq"] == "dlq" and rows["jobs"]["dlq_depth"] == 3
    assert rows["jobs"]["moved_to_dlq_total"] == 3 and rows["jobs"]["sent_total"] == 3
    assert rows["dlq"]["visible"] == 3 and rows["dlq"]["dlq"] is None
    table = run(db, "stats").stdout.splitlines()
    assert table[0].split()[:4] == ["QUEUE", "VISIBLE", "IN_FLIGHT", "DELAYED"]
    assert "DLQ_DEPTH" in table[0] and "EXPIRED" in table[0]
    jobs_row = [l for l in table if l.startswith("jobs")][0].split()
    assert jobs_row[5:7] == ["dlq", "3"]
    # --watch: one JSON line per refresh.
    p = run(db, "stats", "--watch", "--interval", "0.1", "--count", "3", json_out=False)
    assert p.stdout.count("QUEUE") == 3
    p = subprocess.run([LQS, "-d", str(db), "--json", "stats", "-w", "--interval", "0.1",
                        "--count", "2"], capture_output=True, text=True, timeout=30)
    docs = [json.loads(l) for l in p.stdout.splitlines()]
    assert len(docs) == 2 and all(len(d["queues"]) == 2 for d in docs)


# ---- redrive -----------------------------------------------------------------------------


def test_redrive_start_list_cancel(db):
    run(db, "queue", "create", "dlq")
    run(db, "queue", "create", "jobs", "-a", dlq_policy("dlq"))
    run(db, "queue", "create", "elsewhere")
    run(db, "send", "jobs", stdin="".join('"m%d"\n' % i for i in range(5)))
    run(db, "receive", "jobs", "-n", "5", "--visibility", "0")
    run(db, "receive", "jobs", "-n", "5")
    assert run(db, "stats", "dlq", json_out=True)["queues"][0]["visible"] == 5
    # Back to the source queue, waiting with progress.
    done = run(db, "redrive", "start", "dlq", "--rate", "100", json_out=True)
    assert done["Status"] == "COMPLETED" and done["ApproximateNumberOfMessagesMoved"] == 5
    rows = {r["queue"]: r for r in run(db, "stats", json_out=True)["queues"]}
    assert rows["jobs"]["visible"] == 5 and rows["dlq"]["visible"] == 0
    tasks = run(db, "redrive", "list", "dlq", json_out=True)["tasks"]
    assert tasks[0]["Status"] == "COMPLETED"
    assert "COMPLETED" in run(db, "redrive", "list", "dlq").stdout
    # Not a DLQ: an SQS error.
    p = run(db, "redrive", "start", "elsewhere", expect=2)
    assert "InvalidParameterValue" in p.stderr
    # Start without waiting, then cancel (nothing advances the task meanwhile:
    # no process holds the database).
    run(db, "receive", "jobs", "-n", "5", "--visibility", "0")
    run(db, "receive", "jobs", "-n", "5")
    handle = lines(db, "redrive", "start", "dlq", "--to", "elsewhere", "--rate", "1",
                   "--no-wait")[0]
    out = run(db, "redrive", "cancel", handle, json_out=True)
    assert out["cancelled"] is True
    p = run(db, "redrive", "cancel", "not-a-handle", expect=2)
    assert "InvalidParameterValue" in p.stderr


# ---- export / import ---------------------------------------------------------------------


def test_export_import_round_trip(db, tmp_path):
    run(db, "queue", "create", "dlq", "-t", "kind=dead")
    run(db, "queue", "create", "jobs", "-a", "VisibilityTimeout=77", "-a", dlq_policy("dlq", 3),
        "-t", "team=media")
    messages = []
    for i in range(37):
        m = {"Body": "body %d ünïcödé" % i, "MessageAttributes": {
            "i": {"DataType": "Number", "StringValue": str(i)},
            "bin": {"DataType": "Binary", "BinaryValue": "AAECAwQF/w=="},
            "s": {"DataType": "String.custom", "StringValue": "x" * (i + 1)}}}
        messages.append(m)
    run(db, "send", "jobs", stdin="\n".join(json.dumps(m) for m in messages) + "\n")
    run(db, "send", "dlq", "dead one", "--trace-header", "Root=1-abc")
    run(db, "send", "jobs", "delayed", "--delay", "600")
    run(db, "receive", "jobs", "-n", "2")  # two in flight

    backup = tmp_path / "backup.jsonl"
    run(db, "export", "-o", backup)
    records = [json.loads(l) for l in backup.read_text().splitlines()]
    assert records[0]["type"] == "header" and records[0]["format"] == "lqs-export"
    assert [r["name"] for r in records if r["type"] == "queue"] == ["dlq", "jobs"]
    exported = [r for r in records if r["type"] == "message"]
    assert len(exported) == 39
    assert sorted(r["state"] for r in exported).count("in_flight") == 2
    assert any(r["state"] == "delayed" for r in exported)

    # Into a fresh database.
    other = tmp_path / "other"
    out = run(other, "import", "-i", backup, json_out=True)
    assert out["queues"] == {"dlq": {"imported": 1, "failed": 0},
                             "jobs": {"imported": 38, "failed": 0}}
    attrs = run(other, "queue", "get", "jobs", json_out=True)["attributes"]
    assert attrs["VisibilityTimeout"] == "77"
    assert json.loads(attrs["RedrivePolicy"])["deadLetterTargetArn"].endswith(":dlq")
    assert run(other, "queue", "tags", "jobs", json_out=True)["tags"] == {"team": "media"}
    assert run(other, "queue", "tags", "dlq", json_out=True)["tags"] == {"kind": "dead"}
    rows = {r["queue"]: r for r in run(other, "stats", json_out=True)["queues"]}
    assert rows["jobs"]["visible"] == 37 and rows["jobs"]["delayed"] == 1
    assert rows["jobs"]["in_flight"] == 0  # in-flight messages come back visible
    assert rows["dlq"]["visible"] == 1

    # Export again: same bodies and attributes.
    again = [json.loads(l) for l in run(other, "export").stdout.splitlines()]
    again_msgs = [r for r in again if r["type"] == "message"]

    def key(r):
        return (r["queue"], r["Body"], json.dumps(r.get("MessageAttributes", {}), sort_keys=True))

    assert sorted(map(key, again_msgs)) == sorted(map(key, exported))
    dead = [r for r in again_msgs if r["queue"] == "dlq"][0]
    assert dead["Attributes"]["AWSTraceHeader"] == "Root=1-abc"
    for r in again_msgs:
        if r["Body"] == "body 5 ünïcödé":
            assert r["MessageAttributes"]["bin"] == {"DataType": "Binary",
                                                     "BinaryValue": "AAECAwQF/w=="}
    # Verify both databases.
    assert run(db, "verify", json_out=True)["consistent"] is True
    assert run(other, "verify", json_out=True)["consistent"] is True


def test_table_records_round_trip_through_export_and_import(db, tmp_path):
    """Table records (transactions' state) travel with a whole-database export."""
    b64 = lambda raw: __import__("base64").b64encode(raw).decode()
    records = [("exports", b"r1", b"ACCEPTED"), ("exports", b"r2\xff", b"\x00\x01"),
               ("idem", b"k", b"")] + [("many", b"%04d" % i, b"v") for i in range(1005)]
    dump = "\n".join([json.dumps({"type": "header", "format": "lqs-export", "version": 1}),
                      json.dumps({"type": "queue", "name": "jobs"})] +
                     [json.dumps({"type": "record", "table": t, "key": b64(k), "value": b64(v)})
                      for t, k, v in records]) + "\n"
    out = run(db, "import", stdin=dump, json_out=True)
    assert out["records"] == len(records)
    exported = [json.loads(l) for l in run(db, "export").stdout.splitlines()]
    got = [(r["table"], r["key"], r["value"]) for r in exported if r["type"] == "record"]
    assert got == [(t, b64(k), b64(v)) for t, k, v in sorted(records)]
    # Not with chosen queues, nor with definitions only; `send` skips record lines.
    for args in (("jobs",), ("--no-messages",)):
        types = {json.loads(l)["type"] for l in run(db, "export", *args).stdout.splitlines()}
        assert types == {"header", "queue"}
    run(db, "send", "jobs", stdin=dump)
    assert lines(db, "peek", "jobs", "--body-only") == []
    # A bad record is a usage error naming its line.
    bad = json.dumps({"type": "record", "table": "no/slash", "key": b64(b"k"), "value": ""})
    p = run(tmp_path / "other", "import", stdin=bad + "\n", expect=2)
    assert "line 1" in p.stderr and "Table" in p.stderr


def test_export_one_queue_import_into_and_pipe(db, tmp_path):
    run(db, "queue", "create", "a")
    run(db, "queue", "create", "b")
    run(db, "send", "a", stdin='"1"\n"2"\n"3"\n')
    run(db, "send", "b", "not exported")
    dump = run(db, "export", "a").stdout
    assert "not exported" not in dump
    run(db, "queue", "create", "copy")
    out = run(db, "import", "--into", "copy", stdin=dump, json_out=True)
    assert out["queues"] == {"copy": {"imported": 3, "failed": 0}}
    # The export format is also `send`'s input.
    run(db, "queue", "create", "copy2")
    run(db, "send", "copy2", stdin=dump)
    assert lines(db, "peek", "copy2", "--body-only") == ["1", "2", "3"]
    # Definitions only.
    defs = [json.loads(l) for l in run(db, "export", "--no-messages").stdout.splitlines()]
    assert [d["type"] for d in defs] == ["header", "queue", "queue", "queue", "queue"]
    # Malformed input: usage error with the line number.
    p = run(db, "import", stdin='{"type":"header","format":"lqs-export","version":1}\nnope\n',
            expect=1)
    assert "line 2" in p.stderr


# ---- maintenance ---------------------------------------------------------------------------


def test_verify_and_compact(db):
    run(db, "queue", "create", "jobs")
    run(db, "send", "jobs", stdin="".join('"%d"\n' % i for i in range(50)))
    run(db, "receive", "jobs", "-n", "50", "--delete")
    assert lines(db, "verify") == ["ok: the database is consistent"]
    out = run(db, "compact", json_out=True)
    assert out["compacted"] is True
    out = run(db, "verify", json_out=True)
    assert out["consistent"] is True and out["problems"] == []


def test_max_disk_bytes(db, tmp_path):
    run(db, "queue", "create", "jobs")
    body = tmp_path / "body.txt"
    # 100 KiB that compression cannot shrink.
    body.write_text("".join(random.Random(28).choices(string.ascii_letters, k=100 << 10)))
    budget = [LQS, "--data", str(db), "--max-disk-bytes", "1M"]
    for sent in range(30):
        p = subprocess.run(budget + ["send", "jobs", "--file", str(body)], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            break
    assert p.returncode == 3, p.stderr
    assert "OverStorageBudget" in p.stderr and "max_disk_bytes = 1048576 bytes" in p.stderr
    assert 5 <= sent <= 11
    # Receives and deletes go on; compact reclaims; sends are accepted again.
    subprocess.run(budget + ["receive", "jobs", "-n", "10", "--delete"], check=True,
                   capture_output=True, timeout=60)
    subprocess.run(budget + ["receive", "jobs", "-n", "10", "--delete"], check=True,
                   capture_output=True, timeout=60)
    assert run(db, "stats", "jobs", json_out=True)["queues"][0]["visible"] == 0
    subprocess.run(budget + ["compact"], check=True, capture_output=True, timeout=60)
    subprocess.run(budget + ["send", "jobs", "--file", str(body)], check=True,
                   capture_output=True, timeout=60)
    # lqsd keeps its own budget.
    p = subprocess.run([LQS, "--endpoint", "http://127.0.0.1:1", "--max-disk-bytes", "1M",
                        "queue", "list"], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "--max-disk-bytes is for --data" in p.stderr
