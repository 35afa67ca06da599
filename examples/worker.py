#!/usr/bin/env python3
"""A small job system on lqs.Worker: enqueue commands, work them idempotently, dead-letter
the ones that can never succeed, print the worker's counters.

    python3 examples/worker.py            # on a temporary database, exits when done
    python3 examples/worker.py --serve    # keeps working until Ctrl-C / SIGTERM

Runs with the package installed (scripts/install-python.sh) or straight from the build
tree (./build, or $LQS_BUILD_DIR) after scripts/setup.sh.
"""

import json
import logging
import os
import sys
import tempfile
import threading
import time

try:
    import lqs
except ImportError:  # not installed: use the build tree
    _here = os.path.dirname(os.path.abspath(__file__))
    _build = os.environ.get("LQS_BUILD_DIR", os.path.join(_here, "..", "build"))
    sys.path.insert(0, os.path.join(os.path.abspath(_build), "bindings", "python"))
    import lqs

# ---- the application's side effects (stand-ins for a real database) ------------------------

balances = {}
balances_lock = threading.Lock()
flaky_once = {"order-3"}  # the payment provider times out once for this order


def charge(order, amount):
    if order in flaky_once:
        flaky_once.discard(order)
        raise TimeoutError(f"payment provider timed out for {order}")  # retried later
    with balances_lock:
        balances[order] = balances.get(order, 0) + amount


# ---- the handler: the only code a user writes -----------------------------------------------

def handle(msg: lqs.WorkerMessage) -> None:
    try:
        command = json.loads(msg.body)
        op, order, amount = command["op"], command["order"], int(command["amount"])
    except (ValueError, KeyError, TypeError) as e:
        # Retrying cannot fix a malformed command: straight to the dead-letter queue.
        raise lqs.NonRetryableError(f"malformed command: {e}") from e
    if op != "charge":
        raise lqs.NonRetryableError(f"unknown operation {op!r}")
    charge(order, amount)  # raising anything else means "retry after a backoff"
    # Returning normally: the worker deletes the message and, with inbox=True, records
    # its idempotency key in the same atomic write.


def enqueue(queue, order, amount, op="charge"):
    """Accepting a request = enqueueing a command keyed by what makes it unique."""
    queue.send(json.dumps({"op": op, "order": order, "amount": amount}),
               message_attributes={"IdempotencyKey": f"{op}:{order}"})


def settled(worker):
    s = worker.stats()
    return s["succeeded"] + s["duplicates_skipped"] + s["dead_lettered"]


def wait_for(worker, n, timeout=30.0):
    deadline = time.monotonic() + timeout
    while settled(worker) < n and time.monotonic() < deadline:
        time.sleep(0.05)


def main(argv):
    serve = "--serve" in argv
    logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
    with tempfile.TemporaryDirectory() as tmp, lqs.open(os.path.join(tmp, "db")) as db:
        dlq = db.create_queue("commands-dlq")
        commands = db.create_queue("commands", attributes={
            "VisibilityTimeout": 30,
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq.arn,
                                         "maxReceiveCount": 5}),
        })

        enqueue(commands, "order-1", 25)
        enqueue(commands, "order-2", 40)
        enqueue(commands, "order-3", 15)  # fails once, succeeds on the retry
        enqueue(commands, "order-4", 10, op="refund")  # unknown op: dead-lettered
        commands.send("{not json")  # malformed: dead-lettered

        # Threads run the handler (concurrency); the inbox makes a redelivered or
        # re-sent command with an already completed key a no-op.
        worker = lqs.Worker(commands, handle, concurrency=4, inbox=True,
                            backoff_base_seconds=1, wait_time_seconds=1)
        if serve:
            print("working; Ctrl-C or SIGTERM stops gracefully")
            worker.run()  # blocks; on a signal stops, releasing unstarted messages
        else:
            with worker:  # start() ... stop(30 s)
                wait_for(worker, 5)
                # A client retries order-1 after it completed: the inbox skips it.
                enqueue(commands, "order-1", 25)
                wait_for(worker, 6)

        print("balances:", dict(sorted(balances.items())))
        stats = worker.stats()
        print("worker:", ", ".join(f"{k}={v:g}" for k, v in stats.items() if v))
        for m in dlq.receive(max_number_of_messages=10):
            print(f"dead-lettered: {m.body!r}: {m.message_attributes['lqs.Error'].value}")
        ok = balances == {"order-1": 25, "order-2": 40, "order-3": 15}
        return 0 if serve or ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
