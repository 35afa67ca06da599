"""The Pythonic API: lqs.open, Broker, Queue, Message, errors, iterators."""

import pickle
import random
import string

import pytest

import lqs


def test_open_is_a_context_manager(tmp_path):
    with lqs.open(str(tmp_path / "db")) as db:
        assert isinstance(db, lqs.Broker) and repr(db).startswith("<lqs.Broker ")
        assert not db.closed
        assert db.create_queue("jobs").broker is db
    assert db.closed
    db.close()  # idempotent
    with pytest.raises(lqs.Closed):
        db.get_queue("jobs")
    with lqs.open(str(tmp_path / "db"), durability="fsync") as again:
        assert "jobs" in again


def test_open_rejects_bad_options(tmp_path):
    with pytest.raises(ValueError):
        lqs.open(str(tmp_path / "db"), durability="sometimes")
    with pytest.raises(lqs.StorageIOError):
        lqs.open(str(tmp_path / "missing"), create_if_missing=False)


def rocksdb_option(path, name):
    """A value of the newest OPTIONS file RocksDB wrote in database `path`."""
    import glob
    import os
    newest = max(glob.glob(os.path.join(path, "OPTIONS-*")),
                 key=lambda f: int(f.rsplit("-", 1)[1]))
    with open(newest) as f:
        values = {line.strip().split("=", 1)[0]: line.strip().split("=", 1)[1]
                  for line in f if "=" in line}
    return values[name]


def test_open_profiles(tmp_path):
    # The settings reach RocksDB: its OPTIONS file shows them.
    for profile, explicit, write_buffer in (("default", {}, 16 << 20), ("small", {}, 1 << 20),
                                            ("small", {"write_buffer_bytes": 4 << 20}, 4 << 20)):
        path = str(tmp_path / ("db-%s-%d" % (profile, len(explicit))))
        with lqs.open(path, profile=profile, **explicit) as db:
            db.create_queue("jobs").send("works")
            assert db.get_queue("jobs").receive()[0].body == "works"
        assert int(rocksdb_option(path, "write_buffer_size")) == write_buffer, profile
        assert int(rocksdb_option(path, "max_background_jobs")) == (1 if profile == "small" else 2)
    with pytest.raises(ValueError, match="profile"):
        lqs.open(str(tmp_path / "other"), profile="tiny")


def test_second_open_is_refused(tmp_path, db):
    with pytest.raises(lqs.Error):
        lqs.open(db.path)


def test_catalogue(db):
    q = db.create_queue("alpha", attributes={"VisibilityTimeout": 60}, tags={"team": "core"})
    assert q.name == "alpha"
    assert q.arn == "arn:aws:sqs:us-east-1:123456789012:alpha"
    assert not q.is_fifo
    assert db.create_queue("alpha", attributes={"VisibilityTimeout": "60"}) == q
    with pytest.raises(lqs.QueueNameExists) as e:
        db.create_queue("alpha", attributes={"VisibilityTimeout": 61})
    assert e.value.code == "QueueAlreadyExists"
    with pytest.raises(lqs.InvalidParameterValue):
        db.create_queue("bad name")
    db.create_queue("beta")
    assert db.list_queues() == (["alpha", "beta"], None)
    names, token = db.list_queues(max_results=1)
    assert names == ["alpha"] and token
    assert db.list_queues(max_results=1, next_token=token) == (["beta"], None)
    assert list(db.queue_names()) == ["alpha", "beta"]
    assert [x.name for x in db.queues("b")] == ["beta"]
    assert db["alpha"] == q
    assert db.get_queue_by_arn(q.arn) == q
    assert "gamma" not in db
    db.delete_queue("beta")
    with pytest.raises(lqs.QueueDoesNotExist) as e:
        db.get_queue("beta")
    assert isinstance(e.value, LookupError)
    assert e.value.code == "AWS.SimpleQueueService.NonExistentQueue"
    assert e.value.http_status == 400
    with pytest.raises(lqs.QueueDeletedRecently):
        db.create_queue("beta")


def test_attributes_tags_permissions(db):
    q = db.create_queue("q")
    q.set_attributes(VisibilityTimeout=45, DelaySeconds="2")
    assert q.get_attributes("VisibilityTimeout", "DelaySeconds") == {
        "VisibilityTimeout": "45", "DelaySeconds": "2"}
    assert q.attributes["QueueArn"] == q.arn
    with pytest.raises(lqs.InvalidAttributeValue):
        q.set_attributes({"VisibilityTimeout": 99999})
    with pytest.raises(lqs.InvalidAttributeName):
        q.get_attributes("Bogus")
    q.tag(team="core", env="test")
    q.untag("env", "nope")
    assert q.tags == {"team": "core"}
    q.add_permission("p1", ["111122223333"], ["SendMessage"])
    assert "p1" in q.attributes["Policy"]
    with pytest.raises(lqs.InvalidParameterValue):
        q.add_permission("p1", ["111122223333"], ["SendMessage"])
    q.remove_permission("p1")


def test_send_receive_delete(db, clock):
    q = db.create_queue("q")
    sent = q.send("test", message_attributes={
        "s": "x", "n": 1493147359900, "b": b"\x00\x01\xff",
        "l": lqs.MessageAttribute("Number.int", "7")},
        message_system_attributes={"AWSTraceHeader": "Root=1-abc"})
    assert sent.md5_of_message_body == "098f6bcd4621d373cade4e832627b4f6"
    assert sent.md5_of_message_attributes and sent.md5_of_message_system_attributes
    assert sent.sequence_number is None
    [m] = q.receive(max_number_of_messages=10, visibility_timeout=30)
    assert m.body == "test" and m.message_id == sent.message_id
    assert m.receive_count == 1
    assert m.sent_timestamp == clock.now_millis()
    assert m.message_attributes["b"] == lqs.MessageAttribute("Binary", b"\x00\x01\xff")
    assert m.message_attributes["n"].value == "1493147359900"
    assert m.message_attributes["l"].data_type == "Number.int"
    assert m.md5_of_message_attributes == sent.md5_of_message_attributes
    assert q.receive() == []  # leased
    m.change_visibility(0)
    [again] = q.receive(message_attribute_names=(), message_system_attribute_names=())
    assert again.attributes == {} and again.message_attributes == {}
    assert again.md5_of_message_attributes is None
    again.delete()
    again.delete()  # deleting twice succeeds
    with pytest.raises(lqs.ReceiptHandleIsInvalid):
        q.delete("garbage")


def test_send_errors(db):
    q = db.create_queue("q")
    with pytest.raises(lqs.MissingParameter):
        q.send("")
    with pytest.raises(lqs.InvalidMessageContents):
        q.send("\x01")
    with pytest.raises(lqs.InvalidParameterValue) as e:
        q.send("x", delay_seconds=901)
    assert "DelaySeconds" in e.value.message
    with pytest.raises(TypeError):
        q.send("x", message_attributes={"flag": True})
    with pytest.raises(lqs.InvalidParameterValue):
        q.receive(max_number_of_messages=11)


def test_delay_and_visibility_follow_the_clock(db, clock):
    q = db.create_queue("q", attributes={"VisibilityTimeout": 10})
    q.send("later", delay_seconds=5)
    assert q.receive() == []
    clock.advance_seconds(5)
    [m] = q.receive()
    clock.advance_seconds(9)
    assert q.receive() == []
    clock.advance_millis(1000)
    [m2] = q.receive()
    assert m2.message_id == m.message_id and m2.receive_count == 2


def test_visibility_change_after_the_lease_ended_and_the_12_hour_budget(db, clock):
    q = db.create_queue("q", attributes={"VisibilityTimeout": 1})
    q.send("x")
    [m] = q.receive()
    # The whole seconds since the receive count: 43,200 within the first one.
    clock.advance_millis(999)
    q.change_visibility(m, 43200)
    clock.advance_millis(1)
    with pytest.raises(lqs.InvalidParameterValue):
        q.change_visibility(m, 43200)
    q.change_visibility(m, 0)
    # The lease ended and nobody received the message since: SQS accepts the
    # change (no MessageNotInflight), and it leases the message again.
    clock.advance_seconds(2)
    q.change_visibility(m, 30)
    assert q.receive() == []
    clock.advance_seconds(30)
    [again] = q.receive()
    assert again.message_id == m.message_id and again.receive_count == 2


def test_batches(db):
    q = db.create_queue("q")
    r = q.send_batch(["one", {"id": "x", "body": "\x01"},
                      {"body": "three", "message_attributes": {"k": "v"}}])
    assert set(r.successful) == {"0", "2"}
    assert r.successful["2"].md5_of_message_attributes
    assert [(f.id, f.code, f.sender_fault) for f in r.failed] == [
        ("x", "InvalidMessageContents", True)]
    assert not r.ok
    with pytest.raises(lqs.EmptyBatchRequest):
        q.send_batch([])
    with pytest.raises(lqs.TooManyEntriesInBatchRequest):
        q.send_batch(["m"] * 11)
    with pytest.raises(lqs.BatchEntryIdsNotDistinct):
        q.send_batch([{"id": "a", "body": "1"}, {"id": "a", "body": "2"}])
    with pytest.raises(lqs.InvalidBatchEntryId):
        q.send_batch([{"id": "bad id", "body": "1"}])
    msgs = q.receive(max_number_of_messages=10)
    assert len(msgs) == 2
    r = q.change_visibility_batch([(msgs[0], 100), (msgs[1], None), ("garbage", 1)])
    assert set(r.successful) == {"0", "1"}
    assert r.failed[0].code == "ReceiptHandleIsInvalid"
    r = q.delete_batch({"a": msgs[0], "b": msgs[1].receipt_handle})
    assert r.ok and set(r.successful) == {"a", "b"}


def test_iterators_and_receive_one(db):
    q = db.create_queue("q")
    q.send_batch([f"m{i}" for i in range(5)])
    bodies = []
    for m in q.messages(wait_time_seconds=0, stop_when_empty=True):
        bodies.append(m.body)
        m.delete()
    assert sorted(bodies) == [f"m{i}" for i in range(5)]
    assert list(q) == []
    q.send("job")
    with pytest.raises(RuntimeError):
        with q.receive_one() as m:
            assert m is not None and m.body == "job"
            raise RuntimeError("worker failed")
    with q.receive_one() as m:  # visible again at once
        assert m is not None and m.receive_count == 2
    with q.receive_one(wait_time_seconds=0) as m:
        assert m is None  # deleted by the clean exit above


def test_purge(db, clock):
    q = db.create_queue("q")
    q.send("x")
    q.purge()
    with pytest.raises(lqs.PurgeQueueInProgress) as e:
        q.purge()
    assert e.value.http_status == 403
    assert e.value.code == "AWS.SimpleQueueService.PurgeQueueInProgress"
    clock.advance_seconds(60)
    q.purge()
    assert q.receive() == []


def test_dead_letter_queue_and_move_task(db, clock):
    dlq = db.create_queue("dlq")
    src = db.create_queue("src", attributes={
        "VisibilityTimeout": 1,
        "RedrivePolicy": f'{{"deadLetterTargetArn":"{dlq.arn}","maxReceiveCount":1}}'})
    assert db.list_dead_letter_source_queues(dlq) == (["src"], None)
    src.send("poison")
    assert len(src.receive()) == 1
    clock.advance_seconds(2)
    assert src.receive() == []
    assert dlq.get_attributes("ApproximateNumberOfMessages") == {
        "ApproximateNumberOfMessages": "1"}
    with pytest.raises(lqs.InvalidParameterValue):
        db.start_message_move_task(src.arn)
    with pytest.raises(lqs.ResourceNotFound):
        db.start_message_move_task(db.arn_for("nope"))
    handle = db.start_message_move_task(dlq.arn, max_number_of_messages_per_second=10)
    [task] = db.list_message_move_tasks(dlq.arn)
    assert task.status == "RUNNING" and task.task_handle == handle
    assert task.approximate_number_of_messages_to_move == 1
    assert task.max_number_of_messages_per_second == 10
    clock.advance_seconds(1)
    db.run_maintenance()
    [task] = db.list_message_move_tasks(dlq.arn, max_results=10)
    assert task.status == "COMPLETED" and task.approximate_number_of_messages_moved == 1
    assert task.task_handle is None
    with pytest.raises(lqs.InvalidParameterValue):
        db.cancel_message_move_task("not-a-handle")
    [m] = src.receive()
    assert m.body == "poison"
    assert db.verify() == []
    db.compact_all()


def test_error_hierarchy():
    for name in ("QueueDoesNotExist", "InvalidParameterValue", "ReceiptHandleIsInvalid",
                 "PurgeQueueInProgress", "OverLimit", "ResourceNotFound", "Closed"):
        cls = getattr(lqs, name)
        assert issubclass(cls, lqs.Error)
        assert lqs.error_class(cls.lqs_code) is cls
    assert lqs.ResourceNotFound.code == "ResourceNotFoundException"
    assert lqs.ResourceNotFound.http_status == 404
    assert lqs.ReceiptHandleIsInvalid.http_status == 404
    assert lqs.OverLimit.http_status == 403
    assert lqs.InvalidParameterValue.code == "InvalidParameterValue"
    assert lqs.QueueNameExists.code == "QueueAlreadyExists"
    assert lqs.StorageIOError.sender_fault is False
    e = lqs.QueueDoesNotExist("gone")
    assert isinstance(pickle.loads(pickle.dumps(e)), lqs.QueueDoesNotExist)


def test_queue_outlives_closed_database(tmp_path):
    db = lqs.open(str(tmp_path / "db"))
    q = db.create_queue("q")
    db.close()
    with pytest.raises(lqs.Closed):
        q.send("late")
    assert list(q.messages(wait_time_seconds=0)) == []  # iterator ends on Closed


def test_storage_budget(tmp_path):
    # 32 KiB that compression cannot shrink, and a 2 MiB budget.
    body = "".join(random.Random(28).choices(string.ascii_letters, k=32 << 10))
    with lqs.open(str(tmp_path / "db"), max_disk_bytes=2 << 20,
                  background_maintenance=False) as db:
        q = db.create_queue("jobs")
        sent = 0
        with pytest.raises(lqs.OverStorageBudget) as full:
            for _ in range(1000):
                q.send(body)
                sent += 1
        assert 30 < sent <= 66
        err = full.value
        assert "max_disk_bytes = 2097152 bytes" in err.message
        assert (err.lqs_code, err.code, err.http_status, err.sender_fault) == \
            (105, "ServiceUnavailable", 503, False)
        drained = 0
        while True:
            got = q.receive(max_number_of_messages=10)
            if not got:
                break
            for m in got:
                m.delete()
            drained += len(got)
        assert drained == sent
        db.run_maintenance()
        q.send("room again")
