"""lqsd killed with SIGKILL while boto3 clients send, receive and delete: every answer it
gave holds after a restart on the same data directory.

lqsd answers a round of requests only after one commit of their changes (group commit,
server/http_server.h): a send it acknowledged is never lost, and a delete it acknowledged
never comes back, whenever the kill lands. Each round starts lqsd on the same database and
runs six boto3 clients (made from one session, in the test's thread; boto3 clients are
thread-safe, sessions are not) in threads of their own, with no retries: four
senders (single sends and batches of 5) and two consumers (receive with
VisibilityTimeout 0, then a DeleteMessageBatch or single DeleteMessage calls; the second
consumer long-polls for 1 s). Once the first send is acknowledged, lqsd is killed
100-500 ms later. Once in the default region, once in another one (the clients sign for
eu-west-1; its queues are kept in a database of its own that the same commit covers).

Checked:
  * while the load runs, no receive returns a message whose delete was acknowledged before
    the receive was sent (a delete lost in a crash shows up when a later round receives
    the message again), and no call or batch entry fails except by the kill (on a
    standard queue any handle ever issued deletes, also after the other consumer
    received the message again: include/lqs/queue.h);
  * after the last round, every acknowledged send is still stored or was being deleted,
    and no message whose delete was acknowledged is stored.

Rounds: LQS_LQSD_KILL_ROUNDS per region (default 3, the CI mode: 6 kills in all).

    LQS_LQSD_KILL_ROUNDS=100 /usr/bin/python3 -m pytest -s -q -p no:cacheprovider \\
        --noconftest tests/server/test_kill9.py      # the long mode: 200 kills
"""

import contextlib
import os
import random
import sys
import threading
import time

import pytest

from lqsd_harness import Config, Lqsd, boto3, botocore, missing_client

if boto3 is None:
    missing_client.pytest_module("boto3 is not installed for %s" % sys.executable)


def rounds_from_env():
    value = os.environ.get("LQS_LQSD_KILL_ROUNDS", "")
    return int(value) if value.strip() else 3


SENDERS = 4
CONSUMERS = 2
# No retries: a request cut by the kill fails at once, and nothing is sent twice.
CONFIG = Config(retries={"total_max_attempts": 1, "mode": "standard"}, connect_timeout=5,
                read_timeout=15, max_pool_connections=2)
# What a boto3 call raises when lqsd dies under it (refused, reset, closed, timed out).
KILLED = (botocore.exceptions.BotoCoreError, OSError)


class Ledger:
    """What the clients were told, shared by all threads (guarded by `lock`)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = set()        # bodies whose send was acknowledged
        self.deleting = set()     # bodies received (a delete may have been under way)
        self.deleted_at = {}      # body -> tick at which its delete was acknowledged
        self.tick = 0             # advances on every acknowledged delete
        self.came_back = set()    # bodies received after their delete was acknowledged
        self.errors = []          # calls that failed other than by the kill
        self.first_ack = threading.Event()
        self.sends = self.deletes = 0


@contextlib.contextmanager
def until_killed(ledger, what):
    """Runs a client loop until lqsd dies under it; any other error ends the loop
    too and is recorded in ledger.errors as (what, error)."""
    try:
        yield
    except KILLED:
        return
    except botocore.exceptions.ClientError as e:
        with ledger.lock:
            ledger.errors.append((what, e.response.get("Error")))
    except Exception as e:  # noqa: BLE001 - a failure of the test itself, reported below
        with ledger.lock:
            ledger.errors.append((what, repr(e)))


def client_for(session, server, region):
    return session.client(
        "sqs", endpoint_url=server.url, region_name=region or "us-east-1", config=CONFIG,
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "lqsdtest"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "lqsdtest"))


def send_until_killed(sqs, url, prefix, ledger):
    n = 0
    with until_killed(ledger, "send"):
        while True:
            if n % 3 == 0:
                bodies = [f"{prefix}-{n + i}" for i in range(5)]
                out = sqs.send_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(i), "MessageBody": b} for i, b in enumerate(bodies)])
                done = [bodies[int(e["Id"])] for e in out.get("Successful", [])]
                failed = out.get("Failed", [])
                n += 5
            else:
                body = f"{prefix}-{n}"
                sqs.send_message(QueueUrl=url, MessageBody=body)
                done, failed = [body], []
                n += 1
            with ledger.lock:
                ledger.acked.update(done)
                ledger.sends += len(done)
                ledger.errors.extend(("SendMessageBatch", f) for f in failed)
            ledger.first_ack.set()


def consume_until_killed(sqs, url, batch_delete, wait_seconds, ledger):
    # Received with no lease (VisibilityTimeout 0: the handle still deletes), so that
    # after the kill nothing waits for a lease to end before it can be counted.
    with until_killed(ledger, "consume"):
        while True:
            with ledger.lock:
                sent_at = ledger.tick
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                      VisibilityTimeout=0, WaitTimeSeconds=wait_seconds)
            messages = got.get("Messages", [])
            if not messages:
                continue
            with ledger.lock:
                for m in messages:
                    if ledger.deleted_at.get(m["Body"], sent_at + 1) <= sent_at:
                        ledger.came_back.add(m["Body"])
                ledger.deleting.update(m["Body"] for m in messages)
            if batch_delete:
                out = sqs.delete_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                    for i, m in enumerate(messages)])
                done = [messages[int(e["Id"])]["Body"] for e in out.get("Successful", [])]
                failed = out.get("Failed", [])
            else:
                done, failed = [], []
                for m in messages:
                    sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
                    done.append(m["Body"])
            with ledger.lock:
                ledger.errors.extend(("DeleteMessageBatch", f) for f in failed)
                ledger.tick += 1
                for body in done:
                    ledger.deleted_at.setdefault(body, ledger.tick)
                ledger.deletes += len(done)


def stored_bodies(sqs, url):
    """Every message in the queue (received with a long lease, so each comes once)."""
    bodies = set()
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600)
        messages = got.get("Messages", [])
        if not messages:
            return bodies
        bodies.update(m["Body"] for m in messages)


@pytest.mark.parametrize("region", [None, "eu-west-1"])
def test_acknowledged_changes_survive_kill_9(tmp_path, region):
    data = str(tmp_path / "db")
    rounds = rounds_from_env()
    ledger = Ledger()
    rng = random.Random()
    # One session for the test: its clients, bound to each round's port, are made in this
    # thread (a session is not thread-safe) and reuse the service model it loaded once.
    session = boto3.session.Session()
    started = time.monotonic()
    kill_delays = []
    for round_ in range(rounds):
        server = Lqsd("--data", data)
        threads = []
        try:
            clients = [client_for(session, server, region)
                       for _ in range(SENDERS + CONSUMERS + 1)]
            url = clients[-1].create_queue(QueueName="crash")["QueueUrl"]
            ledger.first_ack.clear()
            threads = [threading.Thread(target=send_until_killed,
                                        args=(clients[i], url, f"r{round_}s{i}", ledger))
                       for i in range(SENDERS)]
            threads += [threading.Thread(target=consume_until_killed,
                                         args=(clients[SENDERS + i], url, i == 0, i, ledger))
                        for i in range(CONSUMERS)]
            for t in threads:
                t.start()
            assert ledger.first_ack.wait(30), "no send was acknowledged in 30 s"
            kill_delays.append(0.1 + 0.4 * rng.random())
            time.sleep(kill_delays[-1])
        finally:
            server.proc.kill()
            server.proc.wait()
            for t in threads:
                t.join(30)
        assert not [t for t in threads if t.is_alive()], "a client did not stop after the kill"
        with ledger.lock:
            assert not ledger.errors, f"round {round_}: calls failed: {ledger.errors[:5]}"
            assert not ledger.came_back, (
                f"round {round_}: {len(ledger.came_back)} acknowledged deletes came back, "
                f"e.g. {sorted(ledger.came_back)[:5]}")
    elapsed = time.monotonic() - started

    server = Lqsd("--data", data)
    try:
        sqs = client_for(session, server, region)
        url = sqs.get_queue_url(QueueName="crash")["QueueUrl"]
        if region:
            assert "/queue/%s/" % region in url, url
        stored = stored_bodies(sqs, url)
    finally:
        server.proc.kill()
        server.proc.wait()
    with ledger.lock:
        # A message whose delete was under way at the kill may or may not be there.
        lost = ledger.acked - ledger.deleting - stored
        back = set(ledger.deleted_at) & stored
        print(f"\nkill9 ({region or 'default region'}): {rounds} kills survived in "
              f"{elapsed:.1f} s ({elapsed / max(rounds, 1):.2f} s per round, killed "
              f"{1000 * sum(kill_delays) / max(len(kill_delays), 1):.0f} ms after the first "
              f"ack on average); {ledger.sends} sends and {ledger.deletes} deletes "
              f"acknowledged, {len(stored)} stored at the end, {len(lost)} lost, "
              f"{len(back)} deletes back")
    assert not lost, f"{len(lost)} acknowledged sends lost, e.g. {sorted(lost)[:5]}"
    assert not back, f"{len(back)} acknowledged deletes came back, e.g. {sorted(back)[:5]}"
