"""The GIL is released around every blocking call: a long poll in one thread must not
freeze the others."""

import threading
import time

import lqs


def test_long_poll_does_not_hold_the_gil(db, clock):
    q = db.create_queue("q")
    got = []

    def consumer():
        got.extend(q.receive(wait_time_seconds=20))

    t = threading.Thread(target=consumer)
    t.start()
    # While the consumer waits inside C++, this thread keeps running Python code.
    spins = 0
    deadline = time.monotonic() + 0.3
    while time.monotonic() < deadline:
        spins += 1
    assert spins > 1000
    assert t.is_alive()
    q.send("wake up")  # wakes the waiter at once (manual clock: no time passes)
    t.join(10)
    assert not t.is_alive()
    assert [m.body for m in got] == ["wake up"]


def test_long_poll_ends_when_the_clock_passes_the_wait(db, clock):
    q = db.create_queue("q")
    result = []
    t = threading.Thread(target=lambda: result.append(q.receive(wait_time_seconds=20)))
    t.start()
    time.sleep(0.1)
    clock.advance_seconds(21)
    t.join(10)
    assert not t.is_alive() and result == [[]]


def test_close_wakes_long_pollers(tmp_path):
    db = lqs.open(str(tmp_path / "db"))
    q = db.create_queue("q")
    outcome = []

    def consumer():
        try:
            q.receive(wait_time_seconds=20)
            outcome.append("returned")
        except lqs.Closed:
            outcome.append("closed")

    t = threading.Thread(target=consumer)
    t.start()
    time.sleep(0.1)
    db.close()
    t.join(10)
    assert not t.is_alive() and outcome in (["closed"], ["returned"])


def test_client_long_poll_with_real_clock():
    sqs = lqs.client()
    url = sqs.create_queue(QueueName="q")["QueueUrl"]
    out = {}
    t = threading.Thread(target=lambda: out.update(
        sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)))
    t.start()
    time.sleep(0.1)
    sqs.send_message(QueueUrl=url, MessageBody="hi")
    t.join(10)
    assert out["Messages"][0]["Body"] == "hi"
    sqs.close()
