"""lqs.Worker (the C++ consumer runtime, lqs/worker.h) driving Python handlers, and the
Queue's consumer-support calls (inbox, immediate dead-letter move).

Time-dependent behaviour runs on a ManualClock: nothing here sleeps for a lease, a
backoff or a poll to end; `eventually` only polls (bounded) for worker threads to get
somewhere. The file runs under pytest (Debian's /usr/bin/python3) and as a plain script
(`python3 test_worker.py`, for the pyenv interpreter, which has no pytest).
"""

import asyncio
import dataclasses
import gc
import json
import os
import signal
import sys
import threading
import weakref

import lqs
from polling import TIMEOUT, eventually


class raises:  # pytest.raises, usable without pytest
    def __init__(self, exc_type):
        self.exc_type = exc_type
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, t, v, tb):
        if t is None:
            raise AssertionError(f"{self.exc_type.__name__} not raised")
        if not issubclass(t, self.exc_type):
            return False
        self.value = v
        return True


class Log:
    """A logger callable that keeps every line."""

    def __init__(self):
        self.lines = []
        self.lock = threading.Lock()

    def __call__(self, level, line):
        with self.lock:
            self.lines.append((level, line))

    def text(self):
        with self.lock:
            return "\n".join(f"{lvl}: {line}" for lvl, line in self.lines)


def counts(q):
    a = q.get_attributes("ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def with_dlq(db, name="jobs", max_receive_count=5, **attributes):
    dlq = db.create_queue(name + "-dlq")
    attributes["RedrivePolicy"] = json.dumps(
        {"deadLetterTargetArn": dlq.arn, "maxReceiveCount": max_receive_count})
    return db.create_queue(name, attributes=attributes), dlq


# ---- the basics ---------------------------------------------------------------------------

def test_success_deletes_and_the_handler_sees_a_worker_message(db, clock):
    q = db.create_queue("jobs")
    q.send("a", message_attributes={"n": 7, "who": "ann"})
    q.send("b")
    seen = []
    lock = threading.Lock()

    def handler(msg):
        with lock:
            seen.append(msg)

    with lqs.Worker(q, handler, concurrency=2) as w:
        assert w.started and not w.paused
        eventually(lambda: w.stats()["succeeded"] == 2, "two successes")
    assert w.stopped
    assert sorted(m.body for m in seen) == ["a", "b"]
    assert counts(q) == (0, 0)  # both deleted
    m = next(m for m in seen if m.body == "a")
    assert isinstance(m, lqs.WorkerMessage)
    assert m.queue_name == "jobs" and m.receive_count == 1
    assert m.message_group_id is None
    assert m.idempotency_key == m.message_id
    assert m.message_attributes["n"] == lqs.MessageAttribute("Number", "7")
    assert m.message_attributes["who"].value == "ann"
    assert m.attributes["ApproximateReceiveCount"] == "1"
    assert int(m.attributes["SentTimestamp"]) == clock.now_millis()
    assert m.receipt_handle
    with raises(dataclasses.FrozenInstanceError):
        m.body = "changed"
    st = w.stats()
    assert st["received"] == 2 and st["in_progress"] == 0
    assert st["retried"] == 0 and st["dead_lettered"] == 0


def test_stats_fields(db):
    q = db.create_queue("jobs")
    w = lqs.Worker(q, lambda m: None)
    st = w.stats()
    assert set(st) == {"received", "succeeded", "retried", "dead_lettered",
                       "duplicates_skipped", "released", "lease_extensions",
                       "lease_extension_failures", "delete_failures",
                       "transaction_conflicts", "in_progress",
                       "handler_p50_ms", "handler_p99_ms"}
    assert all(v == 0 for v in st.values())
    assert isinstance(st["handler_p99_ms"], float) and isinstance(st["received"], int)
    w.stop()


def test_handler_durations_follow_the_clock(db, clock):
    q = db.create_queue("jobs")
    q.send("slow")

    def handler(msg):
        clock.advance_millis(250)  # the handler "takes" 250 ms of clock time

    with lqs.Worker(q, handler) as w:
        eventually(lambda: w.stats()["succeeded"] == 1)
    st = w.stats()
    assert 200 <= st["handler_p50_ms"] <= 300 and st["handler_p99_ms"] >= st["handler_p50_ms"]


def test_fifo_message_fields(db):
    q = db.create_queue("jobs.fifo", attributes={"FifoQueue": True})
    q.send("first", message_group_id="customer-7", message_deduplication_id="req-1")
    seen = []
    with lqs.Worker(q, seen.append) as w:
        eventually(lambda: w.stats()["succeeded"] == 1)
    [m] = seen
    assert m.message_group_id == "customer-7" and m.idempotency_key == "req-1"
    assert m.attributes["MessageGroupId"] == "customer-7"


def test_heartbeats_keep_a_slow_handlers_lease(db, clock):
    q = db.create_queue("jobs")
    q.send("slow")
    started, release = threading.Event(), threading.Event()
    calls = []

    def handler(msg):
        calls.append(msg.receive_count)
        started.set()
        release.wait(TIMEOUT)  # blocked in Python (GIL released): heartbeats are C++

    with lqs.Worker(q, handler, visibility_timeout_seconds=30) as w:
        assert started.wait(TIMEOUT)
        # A renewal is due when a third (10 s) of the 30 s lease is left.
        for n, t in enumerate((21, 42, 63), start=1):
            clock.advance_seconds(t - (21 * (n - 1)))
            eventually(lambda: w.stats()["lease_extensions"] >= n, f"heartbeat {n}")
            assert q.receive(wait_time_seconds=0) == []  # still leased, 63 s > 30 s
        release.set()
        eventually(lambda: w.stats()["succeeded"] == 1)
    assert calls == [1]
    assert counts(q) == (0, 0)


# ---- failures -----------------------------------------------------------------------------

def test_exception_is_retried_after_a_backoff_that_grows(db, clock):
    q = db.create_queue("jobs")
    q.send("flaky")
    calls = []
    log = Log()

    def handler(msg):
        calls.append(msg.receive_count)
        if len(calls) < 3:
            raise ValueError(f"boom {len(calls)}")

    w = lqs.Worker(q, handler, backoff_base_seconds=10, backoff_jitter=0.0, logger=log)
    w.start()
    try:
        eventually(lambda: w.stats()["retried"] == 1, "first failure")
        # Invisible for the backoff (10 s), not the queue's 30 s visibility timeout.
        assert counts(q) == (0, 1)
        clock.advance_seconds(9)
        assert q.receive(wait_time_seconds=0) == []
        clock.advance_seconds(1)
        eventually(lambda: w.stats()["retried"] == 2, "second failure")
        # The second backoff is twice as long: 20 s.
        clock.advance_seconds(19)
        assert q.receive(wait_time_seconds=0) == []
        clock.advance_seconds(1)
        eventually(lambda: w.stats()["succeeded"] == 1, "success on the third receive")
    finally:
        assert w.stop(10)
    assert calls == [1, 2, 3]
    assert counts(q) == (0, 0)
    assert "ValueError: boom 1" in log.text()
    assert w.stats()["retried"] == 2


def test_non_retryable_error_goes_to_the_dlq_at_once(db):
    q, dlq = with_dlq(db, max_receive_count=10)
    q.send("bad input")

    def handler(msg):
        raise lqs.NonRetryableError("body is not JSON")

    with lqs.Worker(q, handler) as w:
        eventually(lambda: w.stats()["dead_lettered"] == 1)
    assert counts(q) == (0, 0)
    [m] = dlq.receive()
    assert m.body == "bad input"
    assert m.message_attributes["lqs.Error"].value == "body is not JSON"
    assert "DeadLetterQueueSourceArn" in m.attributes
    assert w.stats()["retried"] == 0


def test_error_attribute_option_and_subclassed_non_retryable(db):
    q, dlq = with_dlq(db)
    q.send("x")

    class Invalid(lqs.NonRetryableError):
        pass

    def handler(msg):
        raise Invalid("nope")

    with lqs.Worker(q, handler, error_attribute="why") as w:
        eventually(lambda: w.stats()["dead_lettered"] == 1)
    [m] = dlq.receive()
    assert m.message_attributes["why"].value == "nope"


def test_base_exceptions_in_handlers_are_retried_not_propagated(db, clock):
    q = db.create_queue("jobs")
    q.send("m")
    raised = []

    def handler(msg):
        if not raised:
            raised.append(1)
            raise SystemExit(3)  # must not end the process or escape into C++
        if len(raised) == 1:
            raised.append(2)
            raise KeyboardInterrupt()

    with lqs.Worker(q, handler, backoff_base_seconds=1, backoff_jitter=0.0) as w:
        eventually(lambda: w.stats()["retried"] == 1)
        clock.advance_seconds(1)
        eventually(lambda: w.stats()["retried"] == 2)
        clock.advance_seconds(2)
        eventually(lambda: w.stats()["succeeded"] == 1)


# ---- batches ------------------------------------------------------------------------------

def test_batch_partial_failures(db, clock):
    q, dlq = with_dlq(db)
    q.send_batch(["ok-1", "retry", "ok-2", "fatal"])
    batches = []

    def handler(msgs):
        batches.append(sorted(m.body for m in msgs))
        failures = {}
        for m in msgs:
            if m.body == "retry" and m.receive_count == 1:
                failures[m.message_id] = RuntimeError("downstream busy")
            elif m.body == "fatal":
                failures[m.message_id] = lqs.NonRetryableError("cannot parse")
        return failures

    with lqs.Worker(q, handler, batch=True, backoff_base_seconds=5,
                    backoff_jitter=0.0) as w:
        eventually(lambda: w.stats()["succeeded"] == 2 and w.stats()["retried"] == 1
                   and w.stats()["dead_lettered"] == 1, "the first batch's outcomes")
        assert counts(q) == (0, 1)  # only "retry" is left, invisible
        clock.advance_seconds(5)
        eventually(lambda: w.stats()["succeeded"] == 3, "the retried message")
    assert sum(len(b) for b in batches) == 5 and ["retry"] in batches
    assert counts(q) == (0, 0)
    [m] = dlq.receive()
    assert m.body == "fatal" and m.message_attributes["lqs.Error"].value == "cannot parse"


def test_batch_handler_raising_fails_the_whole_batch(db, clock):
    q = db.create_queue("jobs")
    q.send_batch(["a", "b", "c"])
    calls = []

    def handler(msgs):
        calls.append(len(msgs))
        if len(calls) == 1:
            raise ConnectionError("database down")
        return None

    with lqs.Worker(q, handler, batch=True, backoff_base_seconds=1,
                    backoff_jitter=0.0) as w:
        eventually(lambda: w.stats()["retried"] == 3)
        clock.advance_seconds(1)
        eventually(lambda: w.stats()["succeeded"] == 3)


# ---- the inbox ----------------------------------------------------------------------------

def test_inbox_skips_a_duplicate(db):
    q = db.create_queue("jobs")
    handled = []
    with lqs.Worker(q, lambda m: handled.append(m.body), inbox=True) as w:
        q.send("charge order 1", message_attributes={"IdempotencyKey": "order-1"})
        eventually(lambda: w.stats()["succeeded"] == 1)
        assert q.inbox_contains("order-1")
        q.send("charge order 1 (redelivered)",
               message_attributes={"IdempotencyKey": "order-1"})
        eventually(lambda: w.stats()["duplicates_skipped"] == 1)
        q.send("charge order 2", message_attributes={"IdempotencyKey": "order-2"})
        eventually(lambda: w.stats()["succeeded"] == 2)
    assert handled == ["charge order 1", "charge order 2"]
    assert counts(q) == (0, 0)
    assert q.inbox_contains("order-2") and not q.inbox_contains("order-3")


def test_inbox_with_a_custom_attribute_and_message_id_fallback(db):
    q = db.create_queue("jobs")
    keys = []
    with lqs.Worker(q, lambda m: keys.append(m.idempotency_key), inbox=True,
                    idempotency_attribute="Key", inbox_ttl_seconds=60) as w:
        q.send("x", message_attributes={"Key": "k1"})
        sent = q.send("y")
        eventually(lambda: w.stats()["succeeded"] == 2)
    assert sorted(keys) == sorted(["k1", sent.message_id])
    assert q.inbox_contains("k1") and q.inbox_contains(sent.message_id)


# ---- shutdown, pause, lifetime --------------------------------------------------------------

def test_stop_releases_unstarted_messages_and_finishes_the_running_one(db):
    q = db.create_queue("jobs")
    q.send_batch([f"m{i}" for i in range(5)])
    started, release = threading.Event(), threading.Event()
    ran = []

    def handler(msg):
        ran.append(msg.body)
        started.set()
        release.wait(TIMEOUT)

    w = lqs.Worker(q, handler, concurrency=1)
    w.start()
    assert started.wait(TIMEOUT)
    eventually(lambda: w.stats()["received"] == 5, "all five received")
    result = []
    stopper = threading.Thread(target=lambda: result.append(w.stop(TIMEOUT)))
    stopper.start()
    # stop() withdraws the worker's parked long poll before it releases, so
    # nothing is received (and released) twice.
    eventually(lambda: w.stats()["released"] == 4, "four released")
    assert not w.stopped  # still waiting for the running handler
    release.set()
    stopper.join(TIMEOUT)
    assert result == [True] and w.stopped and w.wait(0)
    assert len(ran) == 1
    st = w.stats()
    assert st["succeeded"] == 1 and st["released"] == 4 and st["in_progress"] == 0
    assert counts(q) == (4, 0)  # released: visible again at once
    again = q.receive(max_number_of_messages=10)
    assert sorted(m.body for m in again) == sorted(set(f"m{i}" for i in range(5)) - set(ran))
    assert [m.receive_count for m in again] == [2] * 4  # received once by the worker
    assert w.stop() is True  # idempotent


def start_a_straggler(db, body):
    """A started worker on a new queue "jobs" holding `body`, whose handler is
    running and returns once the event returned with it is set: (q, w, release)."""
    q = db.create_queue("jobs")
    q.send(body)
    started, release = threading.Event(), threading.Event()

    def handler(msg):
        started.set()
        release.wait(TIMEOUT)

    w = lqs.Worker(q, handler).start()
    assert started.wait(TIMEOUT)
    return q, w, release


def test_stop_deadline_and_wait(db):
    _, w, release = start_a_straggler(db, "long")
    assert w.wait(0) is False
    assert w.stop(0.05) is False  # the handler outlived the deadline
    assert w.wait(0) is True
    release.set()
    eventually(lambda: w.stats()["in_progress"] == 0, "the straggler's outcome")
    assert w.stats()["succeeded"] == 1


def test_last_reference_dropped_on_a_handler_thread(db):
    q, w, release = start_a_straggler(db, "x")
    assert w.stop(0.05) is False
    ref = weakref.ref(w)
    del w
    gc.collect()
    assert ref() is not None  # the running handler call holds it
    release.set()
    # Freed on the handler thread: destroying it there must not join that thread.
    eventually(lambda: ref() is None, "the worker to be freed")
    eventually(lambda: counts(q) == (0, 0), "the delete")


def test_a_handler_cannot_stop_or_wait_for_its_own_worker(db):
    q = db.create_queue("jobs")
    q.send("x")
    errors = []
    box = []

    def handler(msg):
        for call in (lambda: box[0].stop(1), lambda: box[0].wait()):
            try:
                call()
            except RuntimeError as e:
                errors.append(str(e))

    w = lqs.Worker(q, handler)
    box.append(w)
    with w:
        eventually(lambda: w.stats()["succeeded"] == 1)
    assert len(errors) == 2 and "own handler" in errors[0]


def test_pause_and_resume(db):
    q = db.create_queue("jobs")
    done = []
    w = lqs.Worker(q, lambda m: done.append(m.body)).start()
    try:
        q.send("one")
        eventually(lambda: done == ["one"])
        w.pause()
        assert w.paused
        w.resume()
        assert not w.paused
        q.send("two")
        eventually(lambda: done == ["one", "two"])
    finally:
        w.stop()


def test_a_running_worker_keeps_the_database_alive_and_close_stops_it(tmp_path):
    clock = lqs.ManualClock()

    def make():
        db = lqs.open(str(tmp_path / "db"), clock=clock, background_maintenance=False)
        q = db.create_queue("jobs")
        handled = []
        lqs.Worker(q, lambda m: handled.append(m.body)).start()  # no reference kept
        return q, handled

    q, handled = make()
    gc.collect()
    q.send("still working")
    eventually(lambda: handled == ["still working"])
    db = q.broker
    db.close()  # stops the worker first, then closes
    with raises(lqs.Closed):
        q.send("after close")
    with raises(lqs.Closed):
        lqs.Worker(q, lambda m: None)


def test_close_while_a_handler_runs_does_not_crash(tmp_path):
    db = lqs.open(str(tmp_path / "db"))  # system clock
    q = db.create_queue("jobs")
    # The handler writes to another queue: nothing tells this test when
    # close() has begun stopping the worker, and a message sent to "jobs"
    # before that would be received and handled too.
    side = db.create_queue("side")
    started, release = threading.Event(), threading.Event()
    results = []

    def handler(msg):
        started.set()
        release.wait(TIMEOUT)
        try:
            side.send("sent by the handler during close")
            results.append("sent")
        except lqs.Error as e:
            results.append(type(e).__name__)

    w = lqs.Worker(q, handler).start()
    q.send("work")
    assert started.wait(TIMEOUT)
    closer = threading.Thread(target=db.close)
    closer.start()
    eventually(lambda: w.stats()["in_progress"] == 1)
    release.set()
    closer.join(TIMEOUT)
    assert not closer.is_alive() and db.closed
    assert w.stopped and w.stats()["succeeded"] == 1
    assert results == ["sent"]  # the database closes after the handler finished
    with raises(lqs.Closed):
        lqs.Worker(q, handler)
    w.stop()  # after close: fine
    with lqs.open(str(tmp_path / "db")) as again:  # what the handler sent was kept
        got = again.get_queue("side").receive(max_number_of_messages=10)
        assert [m.body for m in got] == ["sent by the handler during close"]


def test_close_of_an_idle_long_polling_worker(tmp_path):
    db = lqs.open(str(tmp_path / "db"))
    q = db.create_queue("jobs")
    w = lqs.Worker(q, lambda m: None, wait_time_seconds=20).start()
    db.close()  # must not wait for the 20 s poll
    assert w.stopped
    with raises(lqs.Closed):
        w.start()


# ---- options, errors, logging -----------------------------------------------------------------

def test_options_are_checked(db, clock):
    q = db.create_queue("jobs")
    with raises(TypeError):
        lqs.Worker(q, lambda m: None, concurency=2)
    with raises(TypeError):
        lqs.Worker(q, lambda m: None, concurrency="2")
    with raises(TypeError):
        lqs.Worker(q, "not callable")
    with raises(lqs.InvalidParameterValue) as e:
        lqs.Worker(q, lambda m: None, max_messages_per_receive=11)
    assert "max_messages_per_receive" in e.value.message
    with raises(lqs.InvalidParameterValue):
        lqs.Worker(q, lambda m: None, concurrency=0)
    with raises(lqs.InvalidParameterValue):
        lqs.Worker(q, lambda m: None, visibility_timeout_seconds=1 << 40)
    with raises(ValueError):
        lqs.Worker(q, lambda m: None, clock=lqs.ManualClock())  # not the database's
    w = lqs.Worker(q, lambda m: None, clock=clock)
    w.start()
    with raises(lqs.InvalidParameterValue):
        w.start()
    w.stop()


def test_logger_gets_lines_naming_the_message_and_a_failing_logger_is_harmless(db, clock):
    q, dlq = with_dlq(db)
    sent = q.send("x")
    log = Log()

    def handler(msg):
        raise lqs.NonRetryableError("rejected")

    with lqs.Worker(q, handler, logger=log) as w:
        eventually(lambda: w.stats()["dead_lettered"] == 1)
    assert any(sent.message_id in line and "jobs" in line for _, line in log.lines), log.text()
    assert {lvl for lvl, _ in log.lines} <= {"debug", "info", "warning", "error"}

    def bad_logger(level, line):
        raise RuntimeError("logger broken")

    q.send("y")
    with lqs.Worker(q, handler, logger=bad_logger) as w:
        eventually(lambda: w.stats()["dead_lettered"] == 1)


def test_default_logger_is_the_logging_module(db, clock):
    import logging
    q = db.create_queue("jobs")
    q.send("x")
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = logging.getLogger("lqs.worker")
    h, old = Keep(), logger.level
    logger.addHandler(h)
    logger.setLevel(logging.DEBUG)
    try:
        def handler(msg):
            raise ValueError("to the log")

        with lqs.Worker(q, handler) as w:
            eventually(lambda: w.stats()["retried"] == 1)
    finally:
        logger.removeHandler(h)
        logger.setLevel(old)
    assert any("to the log" in r for r in records), records


# ---- async handlers, run(), threads ---------------------------------------------------------

def test_async_handler(db):
    q = db.create_queue("jobs")
    q.send_batch(["a", "b", "c"])
    seen = []

    async def handler(msg):
        await asyncio.sleep(0)
        if msg.body == "c":
            raise lqs.NonRetryableError("no DLQ here: retried after backoff_max")
        seen.append(msg.body)

    with lqs.Worker(q, handler, concurrency=3) as w:
        eventually(lambda: w.stats()["succeeded"] == 2 and
                   w.stats()["retried"] + w.stats()["dead_lettered"] == 1)
    assert sorted(seen) == ["a", "b"]


def test_run_until_sigterm(db):
    q = db.create_queue("jobs")
    q.send("x")
    done = threading.Event()
    w = lqs.Worker(q, lambda m: done.set())
    previous = signal.getsignal(signal.SIGTERM)

    def killer():
        done.wait(TIMEOUT)
        eventually(lambda: w.stats()["succeeded"] == 1)
        os.kill(os.getpid(), signal.SIGTERM)

    t = threading.Thread(target=killer)
    t.start()
    assert w.run(stop_timeout=10) is True
    t.join(TIMEOUT)
    assert w.stopped and w.stats()["succeeded"] == 1
    assert signal.getsignal(signal.SIGTERM) is previous


def test_run_returns_when_another_thread_stops_the_worker(db):
    q = db.create_queue("jobs")
    w = lqs.Worker(q, lambda m: None)
    t = threading.Thread(target=lambda: (eventually(lambda: w.started), w.stop()))
    t.start()
    assert w.run(install_signal_handlers=False) is True
    t.join(TIMEOUT)


def test_handlers_run_concurrently_and_release_the_gil_while_blocked(db):
    q = db.create_queue("jobs")
    q.send_batch([str(i) for i in range(4)])
    barrier = threading.Barrier(4, timeout=TIMEOUT)
    with lqs.Worker(q, lambda m: barrier.wait(), concurrency=4) as w:
        eventually(lambda: w.stats()["succeeded"] == 4)  # all four met at the barrier


def test_thread_local_data_lasts_between_messages(db):
    q = db.create_queue("jobs")
    q.send_batch([str(i) for i in range(5)])
    local = threading.local()
    connects = []

    def handler(msg):
        if not hasattr(local, "connection"):  # e.g. one database connection per thread
            local.connection = object()
            connects.append(threading.get_ident())

    with lqs.Worker(q, handler, concurrency=1) as w:
        eventually(lambda: w.stats()["succeeded"] == 5)
    assert len(connects) == 1


def test_many_messages(db):
    q = db.create_queue("jobs")
    n = 500
    for i in range(0, n, 10):
        q.send_batch([str(j) for j in range(i, i + 10)])
    seen = set()
    lock = threading.Lock()

    def handler(msg):
        with lock:
            seen.add(msg.body)

    with lqs.Worker(q, handler, concurrency=8, max_in_progress=20) as w:
        eventually(lambda: w.stats()["succeeded"] == n, timeout=60)
    assert seen == {str(i) for i in range(n)} and counts(q) == (0, 0)


# ---- the Queue's consumer-support calls ------------------------------------------------------

def test_delete_and_record_and_inbox_contains(db):
    q = db.create_queue("jobs")
    q.send("x")
    [m] = q.receive()
    assert not q.inbox_contains("job-1")
    m.delete_and_record("job-1", ttl_seconds=60)
    assert q.inbox_contains("job-1")
    assert counts(q) == (0, 0)
    q.send("y")
    [m] = q.receive()
    q.delete_and_record(m.receipt_handle, "job-2")
    assert q.inbox_contains("job-2")
    with raises(lqs.InvalidParameterValue):
        q.inbox_contains("")
    with raises(lqs.ReceiptHandleIsInvalid):
        q.delete_and_record("garbage", "job-3", 60)
    assert not q.inbox_contains("job-3")


def test_inbox_records_expire(db, clock):
    q = db.create_queue("jobs")
    q.send("x")
    [m] = q.receive()
    q.delete_and_record(m, "k", 10)
    clock.advance_seconds(9)
    assert q.inbox_contains("k")
    clock.advance_seconds(2)
    assert not q.inbox_contains("k")


def test_move_to_dead_letter_queue(db):
    q, dlq = with_dlq(db, max_receive_count=10)
    q.send("poison", message_attributes={"a": "1"})
    [m] = q.receive()
    m.move_to_dead_letter_queue({"reason": "bad", "a": 2})
    assert counts(q) == (0, 0)
    [d] = dlq.receive()
    assert d.body == "poison"
    assert d.message_attributes["reason"] == lqs.MessageAttribute("String", "bad")
    assert d.message_attributes["a"] == lqs.MessageAttribute("Number", "2")
    plain = db.create_queue("plain")
    plain.send("x")
    [p] = plain.receive()
    with raises(lqs.InvalidParameterValue):
        plain.move_to_dead_letter_queue(p.receipt_handle)  # no RedrivePolicy


# ---- transactional handlers ---------------------------------------------------------------

def test_transactional_handler_commits_its_records_with_the_delete(db):
    q = db.create_queue("jobs")
    q.send_batch(["order-1", "order-2"])

    def handler(msg, tx):
        assert isinstance(tx, lqs.Transaction)
        tx.put("effects", msg.body, "shipped")
        assert tx.get("effects", msg.body) == b"shipped"

    with lqs.Worker(q, handler, transaction=True) as w:
        eventually(lambda: w.stats()["succeeded"] == 2)
    assert db.get("effects", "order-1") == b"shipped" == db.get("effects", "order-2")
    assert counts(q) == (0, 0)
    assert w.stats()["transaction_conflicts"] == 0


def test_transactional_handler_raising_rolls_its_records_back(db, clock):
    q = db.create_queue("jobs")
    q.send("order-3")
    calls = []

    def handler(msg, tx):
        calls.append(msg.receive_count)
        tx.put("effects", "attempt", str(len(calls)))
        tx.send("audit", f"attempt {len(calls)}")
        if len(calls) == 1:
            raise ValueError("downstream busy")

    audit = db.create_queue("audit")
    with lqs.Worker(q, handler, transaction=True, backoff_jitter=0.0) as w:
        eventually(lambda: w.stats()["retried"] == 1)
        assert db.get("effects", "attempt") is None
        clock.advance_seconds(1)  # the backoff of receive 1
        eventually(lambda: w.stats()["succeeded"] == 1)
    assert calls == [1, 2]
    assert db.get("effects", "attempt") == b"2"
    assert [m.body for m in audit.receive(max_number_of_messages=10)] == ["attempt 2"]


def test_transactional_conflict_applies_nothing_and_redelivers(db, clock):
    q = db.create_queue("jobs")
    q.send("order-7", message_attributes={"IdempotencyKey": "order-7"})
    calls = []

    def handler(msg, tx):
        n = int(tx.get("effects", "count") or b"0")
        tx.put("effects", "count", str(n + 1))
        calls.append(msg.receive_count)
        if len(calls) == 1:  # another writer changes what this one read
            with db.transaction() as other:
                other.put("effects", "count", "10")

    with lqs.Worker(q, handler, transaction=True, inbox=True, backoff_jitter=0.0) as w:
        eventually(lambda: w.stats()["transaction_conflicts"] == 1)
        assert db.get("effects", "count") == b"10"
        assert not q.inbox_contains("order-7")
        assert w.stats()["succeeded"] == 0
        clock.advance_seconds(1)  # backed off like a retry
        eventually(lambda: w.stats()["succeeded"] == 1)
    assert calls == [1, 2]
    assert db.get("effects", "count") == b"11"
    assert q.inbox_contains("order-7")
    assert counts(q) == (0, 0)


def test_the_handlers_transaction_is_the_workers_to_commit(db):
    q = db.create_queue("jobs")
    q.send("x")
    kept, errors = [], []

    def handler(msg, tx):
        kept.append(tx)
        for call in (tx.commit, tx.rollback):
            try:
                call()
            except lqs.InvalidParameterValue as e:
                errors.append(str(e))
        tx.put("effects", "x", "1")

    with lqs.Worker(q, handler, transaction=True) as w:
        eventually(lambda: w.stats()["succeeded"] == 1)
    assert len(errors) == 2 and all("worker commits" in e for e in errors)
    assert db.get("effects", "x") == b"1"
    with raises(lqs.InvalidParameterValue):
        kept[0].put("effects", "y", "1")  # the call is over
    with raises(ValueError):
        lqs.Worker(q, lambda msgs, tx: None, batch=True, transaction=True)


def test_async_transactional_handler(db):
    q = db.create_queue("jobs")
    q.send_batch(["a", "b"])

    async def handler(msg, tx):
        await asyncio.sleep(0)
        tx.put("effects", msg.body, "done")
        if msg.body == "b":
            raise ValueError("rolled back")

    with lqs.Worker(q, handler, transaction=True, concurrency=2) as w:
        eventually(lambda: w.stats()["succeeded"] == 1 and w.stats()["retried"] == 1)
    assert db.get("effects", "a") == b"done" and db.get("effects", "b") is None


# ---- without pytest ------------------------------------------------------------------------

if __name__ == "__main__":
    import script_runner
    sys.exit(script_runner.run(globals(), sys.argv[1:]))
