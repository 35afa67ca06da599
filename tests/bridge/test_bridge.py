"""Bridges end to end: real processes, real HTTP, a remote that checks SigV4.

The remote is an lqsd with --auth-file. The bridges reach it through
tests/bridge/fault_proxy.py, which refuses, drops, stalls, cuts and slows
connections on the tests' command, or over HTTPS through nginx
(tests/bridge/tls_front.py). The bridge runs in a local lqsd (--forward) or
in the CLI (lqs forward / lqs pull), and is killed with SIGKILL in the
crash rounds. What must hold:
- no acknowledged local send is lost, and every message arrives remotely;
- duplicates stay within what docs/bridge.md predicts: at most the messages
  in flight (lanes x 10) at each kill;
- FIFO groups keep their order.

Run by ctest (bridge_e2e) with LQSD and LQS_CLI set; LQS_BRIDGE_KILL_ROUNDS
sets the crash rounds (default 4).
"""

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "server"))

from lqsd_harness import boto3, Config, Lqsd, missing_client, require_lqsd_and_boto3  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402
from tls_front import TlsFront, nginx_binary, openssl_binary  # noqa: E402

require_lqsd_and_boto3()
LQS = os.environ.get("LQS_CLI")
if not LQS:
    missing_client.pytest_module("LQS_CLI is not set (the lqs binary)")

KEY, SECRET = "AKIDBRIDGEE2E", "bridge/e2e/secret"
ACCOUNT = "123456789012"
ROUNDS = int(os.environ.get("LQS_BRIDGE_KILL_ROUNDS", "4"))
# The bridges, in lqsd and in the CLI, sign with the environment's key.
os.environ.update(AWS_ACCESS_KEY_ID=KEY, AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION="us-east-1")
SIGNED_ENV = dict(os.environ)


@pytest.fixture(scope="module")
def remote():
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        f.write("%s %s\n" % (KEY, SECRET))
        keys = f.name
    server = Lqsd("--auth-file", keys, "--no-queue-reuse-delay", "--no-purge-interval")
    yield server
    assert server.stop() == 0
    os.unlink(keys)


def client(url, signed=True):
    config = Config(retries={"total_max_attempts": 1}, read_timeout=30, connect_timeout=5)
    return boto3.client("sqs", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=KEY if signed else "x",
                        aws_secret_access_key=SECRET if signed else "x", config=config)


def fresh_queue(sqs, name, fifo=False):
    attrs = {"FifoQueue": "true"} if fifo else {}
    url = sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]
    sqs.purge_queue(QueueUrl=url)
    return url


def drain(sqs, url):
    """Every body of the queue, in receive order; deletes them."""
    bodies = []
    empty = 0
    while empty < 2:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                  MessageAttributeNames=["All"],
                                  AttributeNames=["All"]).get("Messages", [])
        if not got:
            empty += 1
            continue
        empty = 0
        for m in got:
            bodies.append(m["Body"])
        sqs.delete_message_batch(QueueUrl=url, Entries=[
            {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)])
    return bodies


def count(sqs, url):
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return (int(a["ApproximateNumberOfMessages"]) + int(a["ApproximateNumberOfMessagesNotVisible"])
            + int(a["ApproximateNumberOfMessagesDelayed"]))


def wait_until(done, timeout=120, what="the condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if done():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for %s" % what)


def remote_url_via(proxy_or_url, queue):
    base = proxy_or_url if isinstance(proxy_or_url, str) else proxy_or_url.url
    return "%s/%s/%s" % (base, ACCOUNT, queue)


def local_lqsd(data, *args):
    return Lqsd("--data", data, "--bridge-timeout", "2", "--bridge-backoff-max", "1",
                "--metrics-listen", "127.0.0.1:0", *args, stderr=subprocess.DEVNULL)


@contextlib.contextmanager
def forwarding_through_proxy(remote, tmp_path, local_queue, remote_queue):
    """An lqsd on a new database that forwards `local_queue` to `remote_queue` of `remote`
    through a FaultProxy: yields (the proxy, the lqsd, a client of it, the local queue's URL),
    and checks that the lqsd stops cleanly."""
    with FaultProxy(remote.host, remote.port) as proxy:
        local = local_lqsd(str(tmp_path / "db"), "--forward",
                           local_queue + "=" + remote_url_via(proxy, remote_queue))
        try:
            lsqs = client(local.url, signed=False)
            yield proxy, local, lsqs, lsqs.get_queue_url(QueueName=local_queue)["QueueUrl"]
        finally:
            assert local.stop() == 0


def metrics(server):
    url = "http://%s:%d/metrics" % (server.metrics_host, server.metrics_port)
    return urllib.request.urlopen(url, timeout=10).read().decode()


def metric(text, name, **labels):
    total = 0
    for line in text.splitlines():
        if line.startswith(name + "{") and all('%s="%s"' % kv in line for kv in labels.items()):
            total += int(float(line.rsplit(" ", 1)[1]))
    return total


def cli_stats(server, json_output=True):
    """`lqs --endpoint URL stats` of a local lqsd: its JSON, or its text."""
    args = [LQS, "--endpoint", server.url] + (["--json"] if json_output else []) + ["stats"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(out) if json_output else out


def send_all(sqs, url, bodies, fifo_groups=None):
    """Sends `bodies` 10 per batch; returns those acknowledged."""
    acked = []
    for i in range(0, len(bodies), 10):
        chunk = bodies[i:i + 10]
        entries = []
        for j, b in enumerate(chunk):
            e = {"Id": str(j), "MessageBody": b,
                 "MessageAttributes": {"n": {"DataType": "Number", "StringValue": str(i + j)}}}
            if fifo_groups:
                e["MessageGroupId"] = b.split(":")[0]
                e["MessageDeduplicationId"] = b.replace(":", "-")
            entries.append(e)
        try:
            r = sqs.send_message_batch(QueueUrl=url, Entries=entries)
        except Exception:  # the process was killed mid-call: not acknowledged
            return acked
        acked += [chunk[int(s["Id"])] for s in r.get("Successful", [])]
    return acked


# ---- forward through network faults --------------------------------------------------

def test_forward_through_every_fault(remote, tmp_path):
    rsqs = client(remote.url)
    inbox = fresh_queue(rsqs, "fwd-faults")
    with forwarding_through_proxy(remote, tmp_path, "outbox", "fwd-faults") as (
            proxy, local, lsqs, outbox):
        bodies = ["m-%d" % i for i in range(400)]
        modes = [proxy.refuse, proxy.drop, proxy.stall,
                 lambda: proxy.cut_response(40), lambda: proxy.slow(20000)]
        sent = []
        for k, mode in enumerate(modes):
            mode()
            sent += send_all(lsqs, outbox, bodies[k * 80:(k + 1) * 80])
            time.sleep(1.5)
            if k == 0:  # refused: `lqs stats` shows the bridge offline, and why
                [bridge] = cli_stats(local)["bridges"]
                assert bridge["Direction"] == "forward" and bridge["Running"]
                assert not bridge["Online"] and bridge["Backlog"] > 0
                assert bridge["Failures"]["NetworkError"] > 0
                assert "NetworkError" in bridge["LastError"]
            proxy.pass_through()
        assert len(sent) == len(bodies)
        wait_until(lambda: count(lsqs, outbox) == 0, what="the outbox to drain")
        text = metrics(local)
        assert metric(text, "lqs_bridge_online") == 1
        assert metric(text, "lqs_bridge_transferred_total") >= len(bodies)
        assert metric(text, "lqs_bridge_failures_total", code="NetworkError") > 0
        [bridge] = cli_stats(local)["bridges"]
        assert bridge["Online"] and bridge["Transferred"] >= len(bodies)
        assert bridge["Backlog"] == 0
        table = cli_stats(local, json_output=False)
        assert "outbox -> " in table and " online " in table, table
        # lqsd's metrics listener serves the same JSON, unauthenticated.
        url = "http://%s:%d/bridges" % (local.metrics_host, local.metrics_port)
        [same] = json.loads(urllib.request.urlopen(url, timeout=10).read())["bridges"]
        assert same["Bridge"] == bridge["Bridge"]
        # (A refused connection never reaches the proxy: it has no count.)
        for fault in ("drop", "stall", "cut", "slow"):
            assert proxy.faults.get(fault, 0) > 0, fault
    got = drain(rsqs, inbox)
    assert set(got) == set(bodies)
    # A cut answer is the one way to a duplicate here: the remote stored the
    # batch, the bridge never read its acknowledgement.
    assert len(got) - len(bodies) <= 10 * proxy.faults.get("cut", 0)


def test_fifo_forward_keeps_group_order_through_drops(remote, tmp_path):
    rsqs = client(remote.url)
    inbox = fresh_queue(rsqs, "fwd-order.fifo", fifo=True)
    with forwarding_through_proxy(remote, tmp_path, "out.fifo", "fwd-order.fifo") as (
            proxy, _, lsqs, out):
        bodies = ["g%d:%03d" % (i % 5, i // 5) for i in range(250)]
        stop = threading.Event()

        def chaos():
            while not stop.is_set():
                random.choice([proxy.drop, lambda: proxy.cut_response(100),
                               proxy.pass_through, proxy.pass_through])()
                time.sleep(0.2)
            proxy.pass_through()
        t = threading.Thread(target=chaos)
        t.start()
        try:
            assert len(send_all(lsqs, out, bodies, fifo_groups=True)) == len(bodies)
            wait_until(lambda: count(lsqs, out) == 0, what="out.fifo to drain")
        finally:
            stop.set()
            t.join()
    got = drain(rsqs, inbox)
    # Resends within five minutes are dropped by the remote's deduplication.
    assert sorted(got) == sorted(bodies)
    last = {}
    for b in got:
        g, i = b.split(":")
        assert int(i) > last.get(g, -1), "group %s out of order at %s" % (g, b)
        last[g] = int(i)


# ---- kill -9 -----------------------------------------------------------------------

def test_forward_survives_kill9(remote, tmp_path):
    rsqs = client(remote.url)
    inbox = fresh_queue(rsqs, "fwd-kill")
    data = str(tmp_path / "db")
    spec = "outbox=" + remote_url_via(remote.url, "fwd-kill")
    acked = []
    kills = 0
    for r in range(ROUNDS):
        local = local_lqsd(data, "--forward", spec)
        lsqs = client(local.url, signed=False)
        outbox = lsqs.get_queue_url(QueueName="outbox")["QueueUrl"]
        bodies = ["r%d-%d" % (r, i) for i in range(200)]
        killer = threading.Timer(random.uniform(0.05, 0.6), local.proc.kill)
        killer.start()
        acked += send_all(lsqs, outbox, bodies)
        killer.join()
        local.proc.wait()
        kills += 1
    local = local_lqsd(data, "--forward", spec)
    try:
        lsqs = client(local.url, signed=False)
        outbox = lsqs.get_queue_url(QueueName="outbox")["QueueUrl"]
        wait_until(lambda: count(lsqs, outbox) == 0, what="the outbox to drain")
    finally:
        assert local.stop() == 0
    got = drain(rsqs, inbox)
    missing = set(acked) - set(got)
    assert not missing, "acknowledged sends lost: %s" % sorted(missing)[:10]
    # At each kill, at most the batches in flight (4 lanes x 10) were stored
    # remotely without their local delete.
    assert len(got) - len(set(got)) <= kills * 4 * 10


def test_pull_survives_kill9_and_absorbs_redeliveries(remote, tmp_path):
    rsqs = client(remote.url)
    commands = fresh_queue(rsqs, "pull-kill")
    rsqs.set_queue_attributes(QueueUrl=commands, Attributes={"VisibilityTimeout": "2"})
    bodies = ["c%d" % i for i in range(300)]
    assert len(send_all(rsqs, commands, bodies)) == len(bodies)
    data = str(tmp_path / "db")
    subprocess.run([LQS, "-d", data, "queue", "create", "commands"], check=True,
                   stdout=subprocess.DEVNULL)
    url = remote_url_via(remote.url, "pull-kill")
    for _ in range(ROUNDS):
        p = subprocess.Popen([LQS, "-d", data, "-q", "--timeout", "2", "pull", url, "commands",
                              "--wait", "1"], env=SIGNED_ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.1, 0.5))
        p.send_signal(signal.SIGKILL)
        p.wait()
    time.sleep(2.5)  # what a killed pull received comes back after the visibility timeout
    done = subprocess.run([LQS, "-d", data, "--json", "--timeout", "5", "pull", url, "commands",
                           "--once"], env=SIGNED_ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert count(rsqs, commands) == 0
    out = subprocess.run([LQS, "-d", data, "receive", "commands", "-n", "1000", "--wait", "0",
                          "--delete", "--body-only"], capture_output=True, text=True, check=True)
    got = out.stdout.split()
    assert sorted(got) == sorted(bodies)


# ---- HTTPS, --once, exit codes ------------------------------------------------------

@pytest.mark.skipif(nginx_binary() is None or openssl_binary() is None,
                    reason="nginx or openssl is not installed")
def test_forward_over_https_with_a_ca_file(remote, tmp_path):
    rsqs = client(remote.url)
    inbox = fresh_queue(rsqs, "fwd-tls")
    data = str(tmp_path / "db")
    subprocess.run([LQS, "-d", data, "queue", "create", "outbox"], check=True,
                   stdout=subprocess.DEVNULL)
    for i in range(15):
        subprocess.run([LQS, "-d", data, "-q", "send", "outbox", "tls-%d" % i,
                        "--trace-header", "Root=1-abc-%d" % i], check=True)
    with TlsFront(remote.port) as front:
        url = "%s/%s/fwd-tls" % (front.url, ACCOUNT)
        refused = subprocess.run([LQS, "-d", data, "--timeout", "3", "forward", "outbox", url,
                                  "--once", "--once-attempts", "1"],
                                 env=SIGNED_ENV, capture_output=True, text=True)
        assert refused.returncode == 3, refused.stderr
        assert "certificate" in refused.stderr.lower(), refused.stderr
        ok = subprocess.run([LQS, "-d", data, "--ca-file", front.ca_file, "forward", "outbox",
                             url, "--once"], env=SIGNED_ENV, capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        assert "forwarded 15 message(s)" in ok.stdout
    got = rsqs.receive_message(QueueUrl=inbox, MaxNumberOfMessages=10,
                               AttributeNames=["All"])["Messages"]
    assert all(m["Attributes"]["AWSTraceHeader"] == "Root=1-abc-" + m["Body"][4:] for m in got)
    assert count(rsqs, inbox) == 15


def test_once_exits_3_when_the_remote_is_unreachable(tmp_path):
    data = str(tmp_path / "db")
    subprocess.run([LQS, "-d", data, "queue", "create", "outbox"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([LQS, "-d", data, "-q", "send", "outbox", "kept"], check=True)
    with FaultProxy("127.0.0.1", 9) as proxy:
        proxy.refuse()
        r = subprocess.run([LQS, "-d", data, "--timeout", "2", "forward", "outbox",
                            remote_url_via(proxy, "q"), "--once", "--once-attempts", "2"],
                           env=SIGNED_ENV, capture_output=True, text=True)
    assert r.returncode == 3, (r.returncode, r.stderr)
    assert "could not be reached" in r.stderr
    stats = subprocess.run([LQS, "-d", data, "--json", "stats", "outbox"], capture_output=True,
                           text=True, check=True)
    assert json.loads(stats.stdout)["queues"][0]["visible"] == 1
