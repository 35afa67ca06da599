#!/usr/bin/env python3
"""1,000 simultaneous long-poll ReceiveMessage calls against one lqsd.

Opens 1,000 keep-alive HTTP connections (asyncio, raw HTTP/1.1, AWS JSON 1.0),
each with a ReceiveMessage WaitTimeSeconds=20. Checks that all of them are
held (none answered, and lqsd's thread count stays small: no thread per
waiter), then sends 1,000 messages in batches of 10 and checks that every
waiting receive is answered with exactly one message, each message delivered
once, well before the 20 s wait ends; finally reuses some of the connections
(keep-alive after a long poll).

  python3 longpoll_1000.py [N]
"""

import asyncio
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lqsd_harness import Lqsd  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * N + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def request_bytes(host, action, payload):
    body = json.dumps(payload).encode()
    head = ("POST / HTTP/1.1\r\nHost: %s\r\nX-Amz-Target: AmazonSQS.%s\r\n"
            "Content-Type: application/x-amz-json-1.0\r\nContent-Length: %d\r\n\r\n"
            % (host, action, len(body)))
    return head.encode() + body


async def read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    body = await reader.readexactly(length)
    return status, json.loads(body) if body else {}


async def call(host, port, action, payload):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request_bytes("%s:%d" % (host, port), action, payload))
    await writer.drain()
    result = await read_response(reader)
    writer.close()
    return result


def thread_count(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return -1


async def main(server):
    host, port = server.host, server.port
    hostport = "%s:%d" % (host, port)
    checks = []

    def check(name, ok, detail=""):
        checks.append(ok)
        print("%s %s %s" % ("PASS" if ok else "FAIL", name, detail))

    status, out = await call(host, port, "CreateQueue", {"QueueName": "many"})
    assert status == 200, out
    url = out["QueueUrl"]

    # Open the connections (a few hundred at a time) and start the long polls.
    conns = []
    for start in range(0, N, 250):
        batch = await asyncio.gather(*[asyncio.open_connection(host, port)
                                       for _ in range(start, min(N, start + 250))])
        conns.extend(batch)
    receive = request_bytes(hostport, "ReceiveMessage",
                            {"QueueUrl": url, "WaitTimeSeconds": 20, "MaxNumberOfMessages": 1})
    for _, writer in conns:
        writer.write(receive)
    await asyncio.gather(*[w.drain() for _, w in conns])
    t_parked = time.time()
    pending = [asyncio.ensure_future(read_response(r)) for r, _ in conns]

    await asyncio.sleep(2.0)
    answered_early = sum(1 for p in pending if p.done())
    check("all %d long polls held" % N, answered_early == 0, "(%d answered early)" % answered_early)
    threads = thread_count(server.proc.pid)
    check("no thread per waiting receive", 0 < threads < 64, "(lqsd has %d threads)" % threads)

    # Send N messages; every waiting receive gets exactly one.
    t_send = time.time()
    sends = []
    for i in range(0, N, 10):
        entries = [{"Id": "m%d" % j, "MessageBody": "message %d" % j}
                   for j in range(i, min(N, i + 10))]
        sends.append(call(host, port, "SendMessageBatch", {"QueueUrl": url, "Entries": entries}))
    for status, out in await asyncio.gather(*sends):
        assert status == 200 and not out.get("Failed"), out
    done, not_done = await asyncio.wait(pending, timeout=15)
    elapsed = time.time() - t_send
    check("every long poll answered", not not_done, "(%d of %d in %.2f s after the first send)"
          % (len(done), N, elapsed))
    bodies = []
    statuses = set()
    for p in done:
        status, out = p.result()
        statuses.add(status)
        bodies.extend(m["Body"] for m in out.get("Messages", []))
    check("each answer is 200 with one message",
          statuses == {200} and len(bodies) == N, "(statuses %s, %d messages)"
          % (sorted(statuses), len(bodies)))
    check("each message delivered once", len(set(bodies)) == N)
    check("answered before the wait ended", time.time() - t_parked < 18)

    # Keep-alive: the same connections serve further requests.
    again = request_bytes(hostport, "GetQueueAttributes",
                          {"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]})
    reused = 0
    for reader, writer in conns[:20]:
        writer.write(again)
        await writer.drain()
        status, out = await read_response(reader)
        reused += status == 200 and out["Attributes"]["ApproximateNumberOfMessages"] == "0"
    check("connections reused after the long poll", reused == 20, "(%d of 20)" % reused)
    for _, writer in conns:
        writer.close()
    return checks


def run():
    raise_fd_limit()
    server = Lqsd()
    try:
        checks = asyncio.run(main(server))
    finally:
        code = server.stop()
    passed = sum(1 for c in checks if c) + (code == 0)
    failed = sum(1 for c in checks if not c) + (code != 0)
    if code != 0:
        print("FAIL lqsd exited with %d" % code)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run())
