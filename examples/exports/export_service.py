#!/usr/bin/env python3
"""An asynchronous export service on lqs transactions (examples/exports/README.md).

    accept(request)  one transaction: record ACCEPTED + enqueue the job; returns the id
    handle(msg, tx)  the worker's per-message function: runs the job idempotently and
                     records its outcome (SUCCEEDED + result, or FAILED + dead-letter)
    process(msg)     receive -> begin tx -> handle -> delete the message -> commit

    python3 examples/exports/export_service.py              # demo on a temporary database
    python3 examples/exports/export_service.py --worker     # the demo, run by lqs.Worker
    python3 examples/exports/export_service.py work --db DIR [--until-empty]
    python3 examples/exports/export_service.py accept --db DIR '{"format": "csv", "rows": 3}'

Runs with the package installed (scripts/install-python.sh) or straight from the build
tree (./build, or $LQS_BUILD_DIR).
"""

import argparse
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
import uuid

try:
    import lqs
except ImportError:  # not installed: use the build tree
    _here = os.path.dirname(os.path.abspath(__file__))
    _build = os.environ.get("LQS_BUILD_DIR", os.path.join(_here, "..", "..", "build"))
    sys.path.insert(0, os.path.join(os.path.abspath(_build), "bindings", "python"))
    import lqs

SCHEMA_VERSION = 1          # of the job messages this worker understands
JOBS = "export-jobs"        # the job queue ...
DLQ = "export-jobs-dlq"     # ... and its dead-letter queue
RECORDS = "exports"         # table: request id -> {"state": ..., "request": ..., ...}
BILLING = "export-billing"  # table: request id -> times the export was billed (must be 1)
FORMATS = ("csv", "jsonl")


class TransientError(Exception):
    """The job may succeed later (storage unavailable, ...): retried with a backoff."""


class PermanentError(Exception):
    """Retrying cannot help (invalid request, unknown schema version): FAILED + DLQ."""


def setup(db, *, visibility_timeout=30, max_receive_count=5):
    """The job queue, with a dead-letter queue after `max_receive_count` receives."""
    if JOBS in db:
        return db[JOBS]
    dlq = db[DLQ] if DLQ in db else db.create_queue(DLQ)
    return db.create_queue(JOBS, attributes={
        "VisibilityTimeout": visibility_timeout,
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq.arn,
                                     "maxReceiveCount": max_receive_count}),
    })


def record(db_or_tx, request_id):
    raw = db_or_tx.get(RECORDS, request_id)
    return json.loads(raw) if raw is not None else None


# ---- accepting a request ----------------------------------------------------------------------

def accept(db, request, request_id=None, schema_version=SCHEMA_VERSION):
    """Records ACCEPTED and enqueues the job in one commit; returns the request id.

    Accepting the same request_id again (a client retrying) changes nothing."""
    request_id = request_id or uuid.uuid4().hex
    job = json.dumps({"schema_version": schema_version, "request_id": request_id,
                      "request": request})
    while True:
        try:
            with db.transaction() as tx:
                if tx.get(RECORDS, request_id) is not None:
                    return request_id  # already accepted: nothing to commit
                tx.put(RECORDS, request_id, json.dumps({"state": "ACCEPTED",
                                                        "request": request}))
                tx.send(JOBS, job)
            return request_id
        except lqs.TransactionConflict:
            continue  # the same id accepted concurrently: the next round sees its record


# ---- the job itself ---------------------------------------------------------------------------

def run_export(request_id, request, out_dir, attempt):
    """Writes the export file; the same request always gives the same file (idempotent:
    running it again after a crash overwrites it with the same bytes)."""
    if not isinstance(request, dict):
        raise PermanentError("the request is not an object")
    fmt, rows = request.get("format"), request.get("rows")
    if fmt not in FORMATS:
        raise PermanentError(f"unsupported format {fmt!r}")
    if not isinstance(rows, int) or not 0 <= rows <= 100000:
        raise PermanentError(f"rows must be an integer in 0..100000, not {rows!r}")
    # A simulation knob for the demo and chaos.py: the storage is unavailable for the
    # first N attempts.
    if attempt <= int(request.get("simulate_transient_failures", 0)):
        raise TransientError(f"storage unavailable (attempt {attempt})")
    if fmt == "csv":
        data = "id,square\n" + "".join(f"{i},{i * i}\n" for i in range(rows))
    else:
        data = "".join(json.dumps({"id": i, "square": i * i}) + "\n" for i in range(rows))
    blob = data.encode()
    path = os.path.join(out_dir, f"{request_id}.{fmt}")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)
    return {"path": path, "bytes": len(blob), "sha256": hashlib.sha256(blob).hexdigest()}


# ---- the worker -------------------------------------------------------------------------------

class ExportService:
    """The worker side: handle(msg, tx) and the loop that runs it."""

    def __init__(self, db, out_dir, *, backoff_base_seconds=1, backoff_max_seconds=300):
        self.db = db
        self.jobs = db[JOBS]
        self.out_dir = out_dir
        os.makedirs(out_dir, exist_ok=True)
        policy = json.loads(self.jobs.get_attributes("RedrivePolicy")["RedrivePolicy"])
        self.max_attempts = int(policy["maxReceiveCount"])
        self.backoff_base = backoff_base_seconds
        self.backoff_max = backoff_max_seconds
        # How many messages ended how (the outcomes of process()).
        self.stats = dict.fromkeys(("succeeded", "failed", "duplicate", "retried", "conflict",
                                    "error"), 0)
        self.processed = 0

    def checkpoint(self, point, msg):
        """Called at `after_receive`, `after_effect` (handle returned, nothing committed)
        and `after_commit`. chaos.py kills the process here: EXPORTS_CRASH_POINT=<point>
        and EXPORTS_CRASH_AT=<n> (the n-th message of this process)."""
        if (os.environ.get("EXPORTS_CRASH_POINT") == point
                and self.processed == int(os.environ.get("EXPORTS_CRASH_AT", "1"))):
            print(f"export worker: killed at {point}: {msg.body}", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

    def handle(self, msg, tx):
        """Runs one job and records its outcome in `tx`; the caller deletes the message
        in the same transaction and commits. Raises TransientError to retry later."""
        try:
            job = json.loads(msg.body)
            version, request_id = job.get("schema_version"), job.get("request_id")
        except (ValueError, AttributeError):
            return self.dead_letter(tx, msg, None, "the job is not a JSON object")
        rec = record(tx, request_id) if isinstance(request_id, str) and request_id else None
        if rec is None:
            return self.dead_letter(tx, msg, None, f"no export record for {request_id!r}")
        if rec["state"] in ("SUCCEEDED", "FAILED"):
            return "duplicate"  # done before (a redelivery): just delete the message
        if version != SCHEMA_VERSION:
            return self.dead_letter(tx, msg, request_id,
                                    f"unknown schema version {version!r}")
        attempt = msg.receive_count or 1
        try:
            result = run_export(request_id, job.get("request"), self.out_dir, attempt)
        except PermanentError as e:
            return self.dead_letter(tx, msg, request_id, str(e))
        except TransientError as e:
            if attempt >= self.max_attempts:
                return self.dead_letter(tx, msg, request_id,
                                        f"gave up after {attempt} attempts: {e}")
            raise
        tx.put(RECORDS, request_id, json.dumps({"state": "SUCCEEDED",
                                                "request": rec["request"],
                                                "result": result}))
        billed = int(tx.get(BILLING, request_id) or b"0")
        tx.put(BILLING, request_id, str(billed + 1))
        return "succeeded"

    def dead_letter(self, tx, msg, request_id, reason):
        """Records FAILED and puts a copy of the message in the DLQ, in `tx`: the caller's
        delete of the original commits with them."""
        if request_id is not None:
            rec = record(tx, request_id)
            tx.put(RECORDS, request_id, json.dumps({"state": "FAILED",
                                                    "request": rec["request"],
                                                    "error": reason}))
        tx.send(DLQ, msg.body, message_attributes={
            "ExportError": reason, "SourceMessageId": msg.message_id,
            "ReceiveCount": str(msg.receive_count or 1)})
        return "failed"

    def process(self, msg):
        """One message: begin tx -> handle -> delete the message -> commit."""
        self.processed += 1
        self.checkpoint("after_receive", msg)
        tx = self.db.transaction()
        try:
            outcome = self.handle(msg, tx)
            self.checkpoint("after_effect", msg)
            tx.delete_message(msg)
            tx.commit()
        except TransientError as e:
            tx.rollback()
            self.stats["retried"] += 1
            self.retry_later(msg, e)
            return "retried"
        except lqs.TransactionConflict:
            # Another worker got the message meanwhile (its lease ended), or changed the
            # record: nothing of this attempt was applied; the message comes back, or is
            # already done.
            self.stats["conflict"] += 1
            return "conflict"
        except Exception as e:  # a bug in handle: the message comes back after its timeout
            tx.rollback()
            self.stats["error"] += 1
            print(f"export worker: {msg.message_id}: {type(e).__name__}: {e}", file=sys.stderr)
            return "error"
        self.stats[outcome] += 1
        self.checkpoint("after_commit", msg)
        return outcome

    def retry_later(self, msg, error):
        """Exponential backoff: the message becomes visible again after base * 2^(n-1)."""
        attempt = msg.receive_count or 1
        delay = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        try:
            with self.db.transaction() as tx:
                tx.change_visibility(msg, delay)
        except lqs.TransactionConflict:
            pass  # the lease is gone already: the message is back anyway
        print(f"export worker: {msg.message_id}: {error}; retry in {delay} s", file=sys.stderr)

    def receive(self, max_messages=1, wait_time_seconds=0):
        return self.jobs.receive(max_number_of_messages=max_messages,
                                 wait_time_seconds=wait_time_seconds,
                                 message_system_attribute_names=["ApproximateReceiveCount"])

    def work(self, *, until_empty=False, wait_time_seconds=1, max_messages=10):
        """The loop: receive -> process each message. lqs.Worker's transactional handler
        runs this loop (and handle(msg, tx)) for you, with concurrency and shutdown."""
        while True:
            msgs = self.receive(max_messages, wait_time_seconds)
            for msg in msgs:
                self.process(msg)
            if until_empty and not msgs and drained(self.jobs):
                return


def work_with_worker(db, service, *, until_empty=False, concurrency=2, stop_event=None):
    """The same handle(msg, tx), run by lqs.Worker instead of the explicit loop: the worker
    receives, begins the transaction, adds the message's delete, commits, backs off a
    TransientError exponentially, and counts a lost lease (TransactionConflict) without
    applying anything. Returns the worker's counters."""
    worker = lqs.Worker(db[JOBS], service.handle, transaction=True, concurrency=concurrency,
                        visibility_timeout_seconds=30, wait_time_seconds=1,
                        backoff_base_seconds=service.backoff_base,
                        backoff_max_seconds=service.backoff_max)
    worker.start()
    try:
        while not (stop_event is not None and stop_event.is_set()):
            if until_empty and drained(service.jobs):
                break
            time.sleep(0.05)
    finally:
        worker.stop()
    return worker.stats()


def drained(queue):
    a = queue.get_attributes("All")
    return all(a[k] == "0" for k in ("ApproximateNumberOfMessages",
                                     "ApproximateNumberOfMessagesNotVisible",
                                     "ApproximateNumberOfMessagesDelayed"))


# ---- command line -----------------------------------------------------------------------------

def demo(use_worker=False):
    with tempfile.TemporaryDirectory() as tmp, lqs.open(os.path.join(tmp, "db")) as db:
        setup(db, visibility_timeout=5, max_receive_count=3)
        ids = {
            "ok": accept(db, {"format": "csv", "rows": 5}),
            "flaky": accept(db, {"format": "jsonl", "rows": 3, "simulate_transient_failures": 1}),
            "invalid": accept(db, {"format": "pdf", "rows": 1}),
            "v2": accept(db, {"format": "csv", "rows": 1}, schema_version=2),
        }
        accept(db, {"format": "csv", "rows": 5}, request_id=ids["ok"])  # a client retry
        service = ExportService(db, os.path.join(tmp, "out"), backoff_base_seconds=1)
        if use_worker:
            stats = work_with_worker(db, service, until_empty=True)
        else:
            service.work(until_empty=True)
            stats = service.stats
        for name, request_id in ids.items():
            rec = record(db, request_id)
            print(f"{name:8} {request_id} {rec['state']:9} "
                  f"{rec.get('result', {}).get('sha256', rec.get('error', ''))}")
        for m in db[DLQ].receive(max_number_of_messages=10):
            print(f"dead-lettered: {m.message_attributes['ExportError'].value}")
        print("worker:", stats)
        want = {"ok": "SUCCEEDED", "flaky": "SUCCEEDED", "invalid": "FAILED", "v2": "FAILED"}
        return 0 if all(record(db, ids[k])["state"] == v for k, v in want.items()) else 1


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command")
    w = sub.add_parser("work", help="run the worker")
    w.add_argument("--db", required=True)
    w.add_argument("--out", help="export files (default: DB/../exports)")
    w.add_argument("--until-empty", action="store_true", help="exit when no job is left")
    w.add_argument("--backoff-base", type=int, default=1)
    w.add_argument("--visibility-timeout", type=int, default=30)
    w.add_argument("--max-receive-count", type=int, default=5)
    w.add_argument("--batch", type=int, default=10, help="messages per receive (1..10)")
    a = sub.add_parser("accept", help="accept one request (JSON); prints its id")
    a.add_argument("--db", required=True)
    a.add_argument("request")
    p.add_argument("--worker", action="store_true",
                   help="run handle(msg, tx) with lqs.Worker(transaction=True), not the loop")
    args = p.parse_args(argv)
    if args.command is None:
        return demo(use_worker=args.worker)
    with lqs.open(args.db) as db:
        if args.command == "accept":
            setup(db)
            print(accept(db, json.loads(args.request)))
            return 0
        setup(db, visibility_timeout=args.visibility_timeout,
              max_receive_count=args.max_receive_count)
        out = args.out or os.path.join(os.path.dirname(os.path.abspath(args.db)), "exports")
        service = ExportService(db, out, backoff_base_seconds=args.backoff_base)
        print(f"export worker: working on {args.db}", flush=True)
        try:
            service.work(until_empty=args.until_empty, max_messages=args.batch)
        except KeyboardInterrupt:
            pass
        print(json.dumps(service.stats), flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
