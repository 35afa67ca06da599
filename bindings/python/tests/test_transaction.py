"""Transactions: db.transaction(), tables (put/get/delete/scan), sends, deletes and
visibility changes committed together; conflicts; db.get and db.scan."""

import threading

import pytest

import lqs


def test_commit_applies_records_and_sends_together(db):
    jobs = db.create_queue("jobs")
    with db.transaction() as tx:
        tx.put("exports", "r1", "ACCEPTED")
        tx.put("exports", b"r2\xff", b"\x00bytes")
        tx.send("jobs", "r1", message_attributes={"kind": "export"})
        assert tx.get("exports", "r1") == b"ACCEPTED"  # its own writes
        assert db.get("exports", "r1") is None  # nobody else's yet
        assert jobs.receive() == []
    assert len(tx.sent) == 1 and tx.sent[0].message_id
    assert db.get("exports", "r1") == b"ACCEPTED"
    assert db.get("exports", b"r2\xff") == b"\x00bytes"
    (msg,) = jobs.receive()
    assert msg.body == "r1" and msg.message_id == tx.sent[0].message_id


def test_an_exception_rolls_back(db):
    jobs = db.create_queue("jobs")
    with pytest.raises(RuntimeError):
        with db.transaction() as tx:
            tx.put("t", "k", "v")
            tx.send(jobs, "never")
            raise RuntimeError("handler failed")
    assert db.get("t", "k") is None
    assert jobs.receive() == []


def test_scan_is_in_key_order_and_merges_own_writes(db):
    with db.transaction() as tx:
        for k in ("b", "a", "c", "ab"):
            tx.put("t", k, k.upper())
    with db.transaction() as tx:
        tx.delete("t", "b")
        tx.put("t", "aa", "AA")
        assert [k for k, _ in tx.scan("t", "a")] == [b"a", b"aa", b"ab"]
        assert [k for k, _ in tx.scan("t")] == [b"a", b"aa", b"ab", b"c"]
    assert list(db.scan("t", prefix=b"a")) == [(b"a", b"A"), (b"aa", b"AA"), (b"ab", b"AB")]
    assert list(db.scan("other")) == []


def test_bad_arguments_raise_at_the_call(db):
    db.create_queue("jobs")
    with db.transaction() as tx:
        with pytest.raises(lqs.InvalidParameterValue, match="parameter Table"):
            tx.put("no/slash", "k", "v")
        with pytest.raises(lqs.InvalidParameterValue, match="parameter Key"):
            tx.put("t", "", "v")
        with pytest.raises(lqs.InvalidParameterValue, match="parameter Value"):
            tx.put("t", "k", b"x" * (256 * 1024 + 1))
        with pytest.raises(lqs.QueueDoesNotExist):
            tx.send("nope", "x")
        with pytest.raises(lqs.InvalidParameterValue, match="DelaySeconds"):
            tx.send("jobs", "x", delay_seconds=901)
        tx.put("t", "ok", "1")  # the transaction is still usable
    assert db.get("t", "ok") == b"1"


def test_read_conflict_raises_transaction_conflict(db):
    with db.transaction() as tx:
        tx.put("t", "n", "0")
    a = db.transaction()
    b = db.transaction()
    a.get("t", "n")
    b.get("t", "n")
    a.put("t", "n", "a")
    b.put("t", "n", "b")
    a.commit()
    with pytest.raises(lqs.TransactionConflict):
        b.commit()
    assert db.get("t", "n") == b"a"


def test_delete_and_change_visibility_with_a_lost_lease(db, clock):
    jobs = db.create_queue("jobs")
    jobs.send("one")
    jobs.send("two")
    one, two = jobs.receive(max_number_of_messages=2, visibility_timeout=10)
    with db.transaction() as tx:
        tx.put("effects", one.body, "done")
        tx.delete_message(one)
        tx.change_visibility(two, 0)
    assert db.get("effects", "one") == b"done"
    (again,) = jobs.receive(visibility_timeout=10)
    assert again.body == "two"

    tx = db.transaction()
    tx.put("effects", "two", "done")
    tx.delete_message(again)
    clock.advance_seconds(11)  # the lease ends before the commit
    with pytest.raises(lqs.TransactionConflict, match="visibility timeout ended"):
        tx.commit()
    assert db.get("effects", "two") is None
    (third,) = jobs.receive(visibility_timeout=10)
    with db.transaction() as tx:
        tx.change_visibility(third, 30)
    clock.advance_seconds(11)
    assert jobs.receive() == []  # the change was applied


def test_concurrent_increments(db):
    db.create_queue("jobs")
    done = []

    def work():
        for _ in range(30):
            tx = db.transaction()
            n = int(tx.get("c", "n") or b"0")
            tx.put("c", "n", str(n + 1))
            tx.send("jobs", str(n + 1))
            try:
                tx.commit()
                done.append(1)
            except lqs.TransactionConflict:
                pass

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(db.get("c", "n")) == len(done)
    assert db["jobs"].attributes["ApproximateNumberOfMessages"] == str(len(done))
    assert db.verify() == []


def test_finished_transaction_refuses_calls(db):
    tx = db.transaction()
    tx.put("t", "k", "v")
    tx.commit()
    with pytest.raises(lqs.InvalidParameterValue):
        tx.put("t", "k2", "v")
    tx2 = db.transaction()
    tx2.rollback()
    tx2.rollback()  # idempotent
    with pytest.raises(lqs.InvalidParameterValue):
        tx2.get("t", "k")
