"""lqsd killed with SIGKILL while clients send, receive and delete: every answer it gave
holds after a restart on the same data directory.

lqsd answers a round of requests only after one commit of their changes (group commit,
server/http_server.h): a send it acknowledged is never lost, and a delete it acknowledged
never comes back, whenever the kill lands. Three rounds on one database, each with four
senders (single sends and batches) and one consumer on raw keep-alive connections, killed
100-500 ms in. Once in the default region, once in another one (requests signed for
eu-west-1, kept in a database of its own that the same commit covers).
"""

import http.client
import json
import random
import threading
import time

import pytest

from lqsd_harness import Lqsd, signed_for

ROUNDS = 3


class Client:
    """One keep-alive connection speaking the JSON protocol."""

    def __init__(self, server, region=None):
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
        self.headers = {"Content-Type": "application/x-amz-json-1.0",
                        **(signed_for(region) if region else {})}

    def call(self, action, payload):
        self.conn.request("POST", "/", json.dumps(payload),
                          {**self.headers, "X-Amz-Target": "AmazonSQS." + action})
        response = self.conn.getresponse()
        body = response.read()
        assert response.status == 200, (action, response.status, body)
        return json.loads(body) if body else {}


def send_until_killed(server, region, url, prefix, acked, lock):
    client, n = Client(server, region), 0
    try:
        while True:
            if n % 3 == 0:
                bodies = [f"{prefix}-{n + i}" for i in range(5)]
                out = client.call("SendMessageBatch", {"QueueUrl": url, "Entries": [
                    {"Id": str(i), "MessageBody": b} for i, b in enumerate(bodies)]})
                done = [bodies[int(e["Id"])] for e in out.get("Successful", [])]
                n += 5
            else:
                body = f"{prefix}-{n}"
                client.call("SendMessage", {"QueueUrl": url, "MessageBody": body})
                done = [body]
                n += 1
            with lock:
                acked.update(done)
    except (OSError, http.client.HTTPException):
        return  # killed


def consume_until_killed(server, region, url, deleting, deleted, lock):
    # Received with no lease (VisibilityTimeout 0: the handle still deletes), so that
    # after the kill nothing waits for a lease to end before it can be counted.
    client = Client(server, region)
    try:
        while True:
            got = client.call("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10,
                                                 "VisibilityTimeout": 0})
            messages = got.get("Messages", [])
            if not messages:
                continue
            with lock:
                deleting.update(m["Body"] for m in messages)
            out = client.call("DeleteMessageBatch", {"QueueUrl": url, "Entries": [
                {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]}
                for i, m in enumerate(messages)]})
            with lock:
                deleted.update(messages[int(e["Id"])]["Body"] for e in out.get("Successful", []))
    except (OSError, http.client.HTTPException):
        return


def stored_bodies(server, region, url):
    """Every message in the queue (received with a long lease, so each comes once)."""
    client, bodies = Client(server, region), set()
    while True:
        got = client.call("ReceiveMessage", {"QueueUrl": url, "MaxNumberOfMessages": 10,
                                             "VisibilityTimeout": 600})
        messages = got.get("Messages", [])
        if not messages:
            return bodies
        bodies.update(m["Body"] for m in messages)


@pytest.mark.parametrize("region", [None, "eu-west-1"])
def test_acknowledged_changes_survive_kill_9(tmp_path, region):
    data = str(tmp_path / "db")
    acked, deleting, deleted, lock = set(), set(), set(), threading.Lock()
    rng = random.Random()
    for round_ in range(ROUNDS):
        server = Lqsd("--data", data)
        try:
            url = Client(server, region).call("CreateQueue", {"QueueName": "crash"})["QueueUrl"]
            threads = [threading.Thread(target=send_until_killed,
                                        args=(server, region, url, f"r{round_}s{i}", acked, lock))
                       for i in range(4)]
            threads.append(threading.Thread(target=consume_until_killed,
                                            args=(server, region, url, deleting, deleted, lock)))
            for t in threads:
                t.start()
            time.sleep(0.1 + 0.4 * rng.random())
        finally:
            server.proc.kill()
            server.proc.wait()
        for t in threads:
            t.join(30)
        assert acked, "no send was acknowledged before the kill"

    server = Lqsd("--data", data)
    try:
        url = Client(server, region).call("GetQueueUrl", {"QueueName": "crash"})["QueueUrl"]
        if region:
            assert "/queue/%s/" % region in url, url
        stored = stored_bodies(server, region, url)
    finally:
        server.proc.kill()
        server.proc.wait()
    with lock:
        # A message whose delete was under way at the kill may or may not be there.
        lost = acked - deleting - stored
        back = deleted & stored
    assert not lost, f"{len(lost)} acknowledged sends lost, e.g. {sorted(lost)[:5]}"
    assert not back, f"{len(back)} acknowledged deletes came back, e.g. {sorted(back)[:5]}"
